import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { injectAxe } from '../helpers/axe.js';
import { launchChromium } from '../helpers/chromium.js';
import { startMock, type StartedMock } from '../helpers/mock.js';

/*
 * The dashboard in Debian's Chromium, driven as a user would (issue 20): the shell, the
 * Requests view live from the event stream, the workspace switcher, axe-core, and the
 * control token. One browser for the file; a fresh context (a fresh tab's sessionStorage) per test.
 */

const VIEWS = ['Requests', 'Webhooks', 'Clock', 'Scenarios', 'Limits', 'State', 'Coverage'];

let browser: Browser | undefined;
const mocks: StartedMock[] = [];

async function serve(options: Parameters<typeof startMock>[0] = {}): Promise<{ mock: StartedMock; url: string }> {
  const mock = await startMock(options);
  mocks.push(mock);
  return { mock, url: await mock.server.listen(0) };
}

async function open(url: string): Promise<Page> {
  browser ??= await launchChromium();
  const context = await browser.newContext();
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(url).origin });
  const page = await context.newPage();
  await page.goto(`${url}/__dashboard`);
  return page;
}

async function live(page: Page): Promise<void> {
  await page.getByRole('status').filter({ hasText: /^Live/ }).waitFor({ timeout: 5000 });
}

/** axe-core's serious and critical findings on the page as it stands. */
async function seriousViolations(page: Page): Promise<Array<{ id: string; impact: string; nodes: number; first: string }>> {
  await injectAxe(page);
  const violations = await page.evaluate(async () => {
    // Run in the page, whose globals this (Node) program does not type.
    const { axe } = globalThis as unknown as { axe: { run: () => Promise<{ violations: Array<{ id: string; impact: string | null; nodes: unknown[] }> }> } };
    return (await axe.run()).violations;
  });
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical').map((violation) => ({ id: violation.id, impact: violation.impact ?? '', nodes: violation.nodes.length, first: JSON.stringify(violation.nodes[0]).slice(0, 400) }));
}

function get(url: string, path: string, apiKey = 'sgw_test_default'): Promise<Response> {
  return fetch(url + path, { headers: { 'x-api-key': apiKey } });
}

afterAll(async () => {
  await browser?.close();
  for (const mock of mocks) await mock.close();
});

describe('the dashboard in Chromium', () => {
  it('has the shell: landmarks, a link and a heading per view, no serious axe violation', async () => {
    const { url } = await serve();
    const page = await open(url);
    await live(page);
    for (const role of ['banner', 'navigation', 'main'] as const) await expect(page.getByRole(role).count()).resolves.toBe(1);
    const nav = page.getByRole('navigation');
    for (const view of VIEWS) {
      await nav.getByRole('link', { name: view, exact: true }).click();
      await page.getByRole('heading', { level: 2, name: view, exact: true }).waitFor();
      expect(await nav.getByRole('link', { name: view, exact: true }).getAttribute('aria-current')).toBe('page');
    }
    expect(await seriousViolations(page)).toEqual([]);
  }, 20_000);

  it('shows requests made by the test as they arrive, filters them, and opens one to its detail with Copy as curl', async () => {
    const { url } = await serve();
    const page = await open(url);
    await live(page);
    const journal = page.getByRole('listbox', { name: 'Journal' });
    expect(await journal.getByRole('option').count()).toBe(0);

    expect((await get(url, '/v1/connections')).status).toBe(200);
    expect((await get(url, '/v1/posts/post_missing')).status).toBe(404);
    const posts = journal.getByRole('option').filter({ hasText: '/v1/posts/post_missing' });
    await posts.waitFor({ timeout: 3000 });
    const connections = journal.getByRole('option').filter({ hasText: '/v1/connections' });
    expect(await connections.textContent()).toMatch(/GET.*\/v1\/connections.*200.*listConnections/);

    // Only the refused request is in the 4xx class, and the text filter finds it by path too.
    await page.getByLabel('Status').selectOption('4xx');
    await expect.poll(() => journal.getByRole('option').count()).toBe(1);
    expect(await journal.getByRole('option').textContent()).toContain('404');
    await page.getByLabel('Status').selectOption('all');
    await page.getByLabel('Search').fill('connections');
    await expect.poll(() => journal.getByRole('option').count()).toBe(1);
    await page.getByLabel('Search').fill('');

    await connections.click();
    await page.getByRole('heading', { level: 3, name: /Request #\d+: GET \/v1\/connections/ }).waitFor();
    expect(await page.locator('.detail').textContent()).toContain('listConnections');
    await page.getByRole('button', { name: 'Copy as curl' }).click();
    await page.getByText('Copied.').waitFor();
    const copied = await page.evaluate(() => (globalThis as unknown as { navigator: { clipboard: { readText: () => Promise<string> } } }).navigator.clipboard.readText());
    expect(copied.startsWith(`curl '${url}/v1/connections' -H "x-api-key: $SGW_API_KEY"`)).toBe(true);

    // Seen live, a request shows its headers and bodies, and a refused one its validation error.
    const refused = await fetch(`${url}/v1/posts`, { method: 'POST', headers: { 'x-api-key': 'sgw_test_default', 'content-type': 'application/json' }, body: JSON.stringify({ text: 'hello' }) });
    expect(refused.status).toBe(400);
    await journal.getByRole('option').filter({ hasText: /POST/ }).click();
    const detail = page.locator('.detail');
    await detail.getByRole('heading', { name: 'Validation error' }).waitFor();
    expect(await detail.textContent()).toContain('destinations');
    expect(await detail.getByRole('heading', { name: 'Request headers' }).count()).toBe(1);
    expect(await detail.textContent()).toContain('••••ault');
    expect(await detail.textContent()).not.toContain('sgw_test_default');
    await page.getByRole('button', { name: 'Copy as curl' }).click();
    await page.getByText('Copied.').waitFor();
    const post = await page.evaluate(() => (globalThis as unknown as { navigator: { clipboard: { readText: () => Promise<string> } } }).navigator.clipboard.readText());
    expect(post).toContain(`curl -X POST '${url}/v1/posts' -H "x-api-key: $SGW_API_KEY"`);
    expect(post).toContain(`-H 'content-type: application/json'`);
    expect(post).toMatch(/--data-raw '\{"text":"hello"/);

    // A request's query is in the list and in its curl.
    expect((await get(url, '/v1/posts?limit=2')).status).toBe(200);
    const page2 = journal.getByRole('option').filter({ hasText: '/v1/posts?limit=2' });
    await page2.click();
    await page.getByRole('heading', { level: 3, name: /Request #\d+: GET \/v1\/posts\?limit=2/ }).waitFor();
    await page.getByRole('button', { name: 'Copy as curl' }).click();
    await page.getByText('Copied.').waitFor();
    const listed = await page.evaluate(() => (globalThis as unknown as { navigator: { clipboard: { readText: () => Promise<string> } } }).navigator.clipboard.readText());
    expect(listed.startsWith(`curl '${url}/v1/posts?limit=2' -H "x-api-key: $SGW_API_KEY"`)).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
  }, 20_000);

  it('lists the workspaces and creates one, which becomes the one shown', async () => {
    const { mock, url } = await serve();
    const page = await open(url);
    await live(page);
    const picker = page.getByLabel('Workspace', { exact: true });
    await expect.poll(() => picker.locator('option').allTextContents()).toEqual([expect.stringMatching(/^ws_default \(default\)/)]);
    await page.getByRole('button', { name: 'New workspace' }).click();
    await expect.poll(() => picker.locator('option').count()).toBe(2);
    const made = (await mock.control('get', '/__control/workspaces')).body as { data: Array<{ workspaceId: string; default: boolean }> };
    const createdId = made.data.find((workspace) => !workspace.default)?.workspaceId;
    expect(await picker.inputValue()).toBe(createdId);
    await live(page);
    // Its journal, not the default one's: a request with the default key does not show.
    await get(url, '/v1/connections');
    await page.waitForTimeout(200);
    expect(await page.getByRole('listbox', { name: 'Journal' }).getByRole('option').count()).toBe(0);
  }, 20_000);

  it('stays quick with 10,000 entries: the list draws only the rows in view', async () => {
    const { mock, url } = await serve({ journalSize: 10_000 });
    const journal = mock.server.registry.defaultWorkspace.journal;
    for (let index = 0; index < 10_000; index++) {
      journal.record({ at: '2026-03-02T09:00:00.000Z', method: 'GET', path: `/v1/posts/p${index}`, operationId: 'getPost', status: 200, errorCode: null, durationMs: 1, matchedRule: null, effect: null });
    }
    const started = performance.now();
    const page = await open(url);
    await page.getByRole('status').filter({ hasText: '10000 of 10000 shown' }).waitFor({ timeout: 5000 });
    const loadMs = performance.now() - started;
    const list = page.getByRole('listbox', { name: 'Journal' });
    expect(await list.getByRole('option').count()).toBeLessThan(100);
    // Scrolled to its end, as new rows keep it: the newest entry is in view.
    await list.getByRole('option').filter({ hasText: '/v1/posts/p9999' }).waitFor();
    await list.getByRole('option').filter({ hasText: '/v1/posts/p9999' }).click();
    await list.press('Home');
    await list.getByRole('option').filter({ hasText: '/v1/posts/p0' }).first().waitFor();
    expect(loadMs).toBeLessThan(3000);
  }, 20_000);

  it('asks once for the control token, sends it as a header, and never puts it in a URL', async () => {
    const token = 'dashboard-secret-42';
    const { url } = await serve({ controlToken: token });
    browser ??= await launchChromium();
    const context = await browser.newContext();
    const requests: Request[] = [];
    context.on('request', (request) => requests.push(request));
    const page = await context.newPage();
    await page.goto(`${url}/__dashboard`);

    await page.getByRole('heading', { name: 'Control token' }).waitFor();
    await page.getByRole('textbox', { name: 'Control token' }).fill(token);
    await page.getByRole('button', { name: 'Unlock' }).click();
    await live(page);
    await get(url, '/v1/connections');
    await page.getByRole('option').filter({ hasText: '/v1/connections' }).waitFor();

    // Kept for the tab: a reload does not ask again.
    await page.reload();
    await live(page);
    expect(await page.getByRole('heading', { name: 'Control token' }).count()).toBe(0);

    expect(requests.filter((request) => request.url().includes(token))).toEqual([]);
    const control = requests.filter((request) => new URL(request.url()).pathname.startsWith('/__control/'));
    expect(control.length).toBeGreaterThan(3);
    const headers = await Promise.all(control.map((request) => request.allHeaders()));
    // Before the token was given, the page's first calls went without one (and were answered 401).
    const withToken = headers.filter((header) => header['x-control-token'] === token);
    expect(withToken.length).toBeGreaterThanOrEqual(control.length - 2);
    expect(headers.every((header) => header['x-control-token'] === undefined || header['x-control-token'] === token)).toBe(true);
    await context.close();
  }, 20_000);
});
