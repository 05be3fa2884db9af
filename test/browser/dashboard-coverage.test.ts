import type { Browser, Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import type { CoverageReport } from '../../src/coverage/coverage.js';
import { seriousAxeFindings } from '../helpers/axe.js';
import { launchChromium } from '../helpers/chromium.js';
import { showView } from '../helpers/dashboard-page.js';
import { useMock } from '../helpers/mock.js';

/*
 * The dashboard's Coverage view in Chromium (issue 20: "the coverage grid matches
 * GET /__control/coverage"): its table read cell by cell against the endpoint's JSON, its
 * gaps filter, its live refresh, and axe-core.
 */

let browser: Browser | undefined;
const mock = useMock({}, { listen: true });

afterAll(async () => {
  await browser?.close();
});

/** One row of the grid as the page shows it: the operation, and the text of its seven cells. */
interface GridRow {
  operationId: string;
  cells: string[];
}

async function gridRows(page: Page): Promise<GridRow[]> {
  return page.locator('table.coverage-grid tbody tr').evaluateAll((rows) =>
    // Run in the page, whose DOM types this (Node) program does not have.
    (rows as unknown as Array<{ dataset: { operation?: string }; cells: ArrayLike<{ textContent: string | null }> }>).map((row) => ({
      operationId: row.dataset.operation ?? '',
      cells: Array.from(row.cells, (cell) => cell.textContent ?? ''),
    })),
  );
}

/** The totals table's rows: label → [exercised, declared, percent]. */
async function totals(page: Page): Promise<Record<string, string[]>> {
  const rows = await page.locator('table.coverage-totals tbody tr').evaluateAll((found) =>
    (found as unknown as Array<{ cells: ArrayLike<{ textContent: string | null }> }>).map((row) => Array.from(row.cells, (cell) => cell.textContent ?? '')),
  );
  return Object.fromEntries(rows.map(([label = '', ...values]) => [label, values]));
}

async function coverageJson(): Promise<CoverageReport> {
  const answer = await mock?.control('get', '/__control/coverage');
  expect(answer?.status).toBe(200);
  return answer?.body as CoverageReport;
}

/** Every operation of the report is a row, in the same order, showing the same counts, seen and unseen statuses and codes. */
function expectGridMatches(rows: GridRow[], report: CoverageReport): void {
  expect(rows.map((row) => row.operationId)).toEqual(report.byOperation.map((operation) => operation.operationId));
  for (const [index, operation] of report.byOperation.entries()) {
    const [name, route, calls, seen, unseen, codesSeen, codesUnseen] = rows[index]?.cells ?? [];
    const context = `${operation.operationId}: ${JSON.stringify(rows[index]?.cells)}`;
    expect(name, context).toBe(`${operation.exercised ? '✓exercised:' : '✗not exercised:'} ${operation.operationId}`);
    expect(route, context).toBe(`${operation.method} ${operation.path}`);
    expect(calls, context).toBe(String(operation.calls));
    for (const status of operation.statuses) expect(seen, context).toContain(`${status.status} ×${status.count}`);
    if (operation.statuses.length === 0) expect(seen, context).toBe('—');
    expect(unseen, context).toBe(operation.missingStatuses.length === 0 ? '—' : `✗ ${operation.missingStatuses.join(', ')}`);
    for (const code of operation.errorCodes) expect(codesSeen, context).toContain(`${code.code} ×${code.count}`);
    if (operation.errorCodes.length === 0) expect(codesSeen, context).toBe('—');
    expect(codesUnseen, context).toBe(operation.missingErrorCodes.length === 0 ? '—' : `✗ ${operation.missingErrorCodes.join(', ')}`);
  }
}

async function expectTotalsMatch(page: Page, report: CoverageReport): Promise<void> {
  const shown = await totals(page);
  const ratios = { Operations: report.operations, 'Status codes (per operation)': report.statuses, 'Error codes (per operation)': report.errorCodes, 'Webhook events (delivered)': report.webhookEvents };
  for (const [label, ratio] of Object.entries(ratios)) expect(shown[label], label).toEqual([String(ratio.exercised), String(ratio.total), `${ratio.percent}%`]);
}

function get(url: string, path: string): Promise<Response> {
  return fetch(url + path, { headers: { 'x-api-key': 'sgw_test_default' } });
}

describe('the Coverage view in Chromium', () => {
  it('shows GET /__control/coverage as a grid, filters its gaps, follows new requests live, and passes axe', async () => {
    expect((await get(mock.url, '/v1/connections')).status).toBe(200);
    expect((await get(mock.url, '/v1/posts/post_missing')).status).toBe(404);

    browser = await launchChromium();
    const page = await browser.newPage();
    await page.goto(`${mock.url}/__dashboard`);
    await showView(page, 'coverage');
    await page.getByRole('status').filter({ hasText: /^Live/ }).waitFor({ timeout: 5000 });
    const grid = page.getByRole('table', { name: /Operations by declared status and error code \(whole server\)/ });
    await grid.locator('tr[data-operation="getPost"]').filter({ hasText: '404 ×1' }).waitFor({ timeout: 3000 });

    const report = await coverageJson();
    expect(report.scope).toBe('server');
    // Both operations are exercised: a 404 is a status getPost declares.
    expect(report.operations.exercised).toBe(2);
    expectGridMatches(await gridRows(page), report);
    await expectTotalsMatch(page, report);
    expect(await page.getByText('Whole server: 1 workspace had traffic.').count()).toBe(1);

    // Only gaps: exactly the operations the report gives a gap (never exercised, or a declared status or code unseen).
    await page.getByLabel('Show').selectOption('gaps');
    const withGaps = report.byOperation.filter((operation) => !operation.exercised || operation.missingStatuses.length > 0 || operation.missingErrorCodes.length > 0);
    await expect.poll(async () => (await gridRows(page)).map((row) => row.operationId)).toEqual(withGaps.map((operation) => operation.operationId));
    await page.getByLabel('Show').selectOption('unexercised');
    await expect.poll(async () => (await gridRows(page)).map((row) => row.operationId)).toEqual(report.byOperation.filter((operation) => !operation.exercised).map((operation) => operation.operationId));
    expect((await gridRows(page)).every((row) => row.cells[0]?.startsWith('✗'))).toBe(true);
    await page.getByLabel('Show').selectOption('all');
    await page.getByLabel('Search').fill('getpost');
    await expect.poll(async () => (await gridRows(page)).map((row) => row.operationId)).toEqual(report.byOperation.map((operation) => operation.operationId).filter((id) => id.toLowerCase().includes('getpost')));
    await page.getByLabel('Search').fill('');

    // A new request: the grid follows it without a reload.
    expect((await get(mock.url, '/v1/posts')).status).toBe(200);
    await grid.locator('tr[data-operation="listPosts"]').filter({ hasText: '✓exercised' }).waitFor({ timeout: 3000 });
    const after = await coverageJson();
    expect(after.operations.exercised).toBe(3);
    expectGridMatches(await gridRows(page), after);
    await expectTotalsMatch(page, after);

    expect(await seriousAxeFindings(page)).toEqual([]);
  }, 20_000);
});
