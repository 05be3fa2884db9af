import type { Browser } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { seriousAxeFindings } from '../helpers/axe.js';
import { launchChromium } from '../helpers/chromium.js';
import { createFrozenWorkspace, openViewOn } from '../helpers/dashboard-page.js';
import { expectStatus, useMock } from '../helpers/mock.js';

/*
 * The dashboard's Scenarios view in Chromium, driven as a user would (issue 20, view 4: "loading
 * a bad scenario shows its line and column"): on a workspace picked in the switcher, pasted YAML
 * the API refuses is marked at the line and column its envelope's details name, and Go to error
 * puts the caret there; a ready-made scenario loads and its rules are listed; a rule added at
 * run time is listed, its hits rise live as requests match it, and Remove takes it away.
 */

let browser: Browser | undefined;
const mock = useMock({}, { listen: true });

afterAll(async () => {
  await browser?.close();
});

/** Line 8, column 17 is a status listConnections does not declare. */
const BAD_YAML = ['description: A status the operation does not declare', 'rules:', '  - id: broken', '    match:', '      operationId: listConnections', '    then:', '      error:', '        status: 502', '        code: UPSTREAM_FAILED', ''].join('\n');

describe('the Scenarios view in Chromium', () => {
  it('shows a bad scenario at its line and column, loads a ready-made one with its rules, adds a rule whose hits rise live, removes it, and passes axe', async () => {
    const { workspaceId, apiKey } = await createFrozenWorkspace(mock, '2026-03-05T09:00:00.000Z');
    browser = await launchChromium();
    const page = await openViewOn(browser, mock.url, 'Scenarios', workspaceId);
    await page.getByRole('status').filter({ hasText: /^Live/ }).waitFor({ timeout: 5000 });

    // What the API itself answers for this YAML (a refused load changes nothing).
    const refused = await mock.control('post', '/__control/scenarios', apiKey).send({ yaml: BAD_YAML });
    expectStatus(refused, 400);
    const { details } = (refused.body as { error: { details: { line: number; column: number } } }).error;
    expect(details).toMatchObject({ line: 8, column: 17 });

    const editor = page.getByLabel('Scenario YAML', { exact: true });
    await editor.fill(BAD_YAML);
    await page.getByRole('button', { name: 'Load YAML' }).click();
    const message = page.locator('#scenario-yaml-error');
    await expect.poll(() => message.textContent()).toContain(`Line ${details.line}, column ${details.column}:`);
    expect(await message.textContent()).toContain('502 is not a status openapi.yaml declares for listConnections');
    // The marked gutter line is the error's line, marked by more than colour, and the message describes the editor.
    expect(await page.locator('.scenario-gutter .error-line').evaluateAll((lines) => lines.map((line) => [(line as unknown as { dataset: { line: string } }).dataset.line, line.textContent]))).toEqual([[String(details.line), `▶ ${details.line}`]]);
    expect(await editor.getAttribute('aria-describedby')).toBe('scenario-yaml-error');
    expect(await editor.getAttribute('aria-invalid')).toBe('true');
    // Go to error, from the keyboard: the caret at the line and column.
    await page.getByRole('button', { name: 'Go to error' }).focus();
    await page.keyboard.press('Enter');
    const caret = await editor.evaluate((textarea) => {
      const area = textarea as unknown as { selectionStart: number; value: string; ownerDocument: { activeElement: unknown } };
      const before = area.value.slice(0, area.selectionStart).split('\n');
      return { focused: area.ownerDocument.activeElement === textarea, line: before.length, column: before.at(-1)!.length + 1 };
    });
    expect(caret).toEqual({ focused: true, line: details.line, column: details.column });

    // A ready-made scenario: loaded, and its rules listed as GET /__control/rules lists them.
    await page.getByLabel('Ready-made scenario').selectOption('rate-limit-exhaustion');
    await page.getByRole('button', { name: 'Load scenario' }).click();
    await expect.poll(() => page.locator('.scenario-loaded').textContent()).toBe('rate-limit-exhaustion');
    const scenarioRules = ((await mock.control('get', '/__control/rules', apiKey)).body as { data: Array<{ id: string }> }).data.map((rule) => rule.id);
    expect(scenarioRules).toContain('budget-exhausted');
    await expect.poll(() => page.locator('table.scenario-rules tbody tr').evaluateAll((rows) => rows.map((row) => (row as unknown as { dataset: { rule: string } }).dataset.rule))).toEqual(scenarioRules);

    // A rule added at run time is listed first; each matching request raises its hits without a reload.
    await page.getByLabel(/^Rule as JSON/).fill(JSON.stringify({ id: 'no-connections', match: { operationId: 'listConnections' }, then: { error: { status: 429, code: 'RATE_LIMITED', message: 'Refused by the test.' } }, times: 3 }));
    await page.getByRole('button', { name: 'Add rule' }).click();
    const hits = page.locator('tr[data-rule="no-connections"] .rule-hits');
    await expect.poll(() => hits.textContent()).toBe('0 of 3');
    for (const count of [1, 2]) {
      expectStatus(await mock.call('get', '/v1/connections', apiKey), 429);
      await expect.poll(() => hits.textContent()).toBe(`${count} of 3`);
    }

    // A rule the API refuses shows the envelope's message.
    await page.getByLabel(/^Rule as JSON/).fill(JSON.stringify({ id: 'no-connections', match: { operationId: 'listConnections' }, then: { error: { status: 429, code: 'RATE_LIMITED' } } }));
    await page.getByRole('button', { name: 'Add rule' }).click();
    await expect.poll(() => page.locator('#rule-error').textContent()).toContain("A rule with the id 'no-connections' is already active");

    expect(await seriousAxeFindings(page)).toEqual([]);

    await page.getByRole('button', { name: 'Remove no-connections' }).click();
    await expect.poll(() => page.locator('tr[data-rule="no-connections"]').count()).toBe(0);
    expect(((await mock.control('get', '/__control/rules', apiKey)).body as { data: Array<{ id: string }> }).data.map((rule) => rule.id)).toEqual(scenarioRules);
  }, 20_000);
});
