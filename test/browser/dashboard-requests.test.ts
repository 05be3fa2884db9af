import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { seriousAxeFindings } from '../helpers/axe.js';
import { dashboardSession, getWithKey, waitLive } from '../helpers/dashboard-page.js';

/*
 * The dashboard's Requests view, its first, in Debian's Chromium, driven as a user would
 * (issue 20): the journal live from the event stream, its filters, a request's detail with Copy
 * as curl, and a journal of 10,000 entries. One browser for the file; a fresh context per test.
 */

const session = dashboardSession();
const serve = session.serve;

/** A new tab on the dashboard, which opens on the Requests view, allowed to read what Copy as curl puts on the clipboard. */
async function open(url: string): Promise<Page> {
  const context = await (await session.browser()).newContext();
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(url).origin });
  const page = await context.newPage();
  await page.goto(`${url}/__dashboard`);
  return page;
}

const get = getWithKey;

describe('the Requests view in Chromium', () => {
  it('shows requests made by the test as they arrive, filters them, and opens one to its detail with Copy as curl', async () => {
    const { url } = await serve();
    const page = await open(url);
    await waitLive(page);
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
    expect(copied.startsWith(`curl '${url}/v1/connections' -H "x-api-key: $SOCIAL_GATEWAY_MOCK_API_KEY"`)).toBe(true);

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
    expect(post).toContain(`curl -X POST '${url}/v1/posts' -H "x-api-key: $SOCIAL_GATEWAY_MOCK_API_KEY"`);
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
    expect(listed.startsWith(`curl '${url}/v1/posts?limit=2' -H "x-api-key: $SOCIAL_GATEWAY_MOCK_API_KEY"`)).toBe(true);
    expect(await seriousAxeFindings(page)).toEqual([]);
  }, 20_000);

  // How quick it is lives in `npm run bench:dashboard`, not here: a timed check failed on a loaded machine.
  it('draws only the rows in view with 10,000 entries, and reaches both ends', async () => {
    const { mock, url } = await serve({ journalSize: 10_000 });
    const journal = mock.server.registry.defaultWorkspace.journal;
    for (let index = 0; index < 10_000; index++) {
      journal.record({ at: '2026-03-02T09:00:00.000Z', method: 'GET', path: `/v1/posts/p${index}`, operationId: 'getPost', status: 200, errorCode: null, durationMs: 1, matchedRule: null, effect: null });
    }
    const page = await open(url);
    await page.getByRole('status').filter({ hasText: '10000 of 10000 shown' }).waitFor({ timeout: 5000 });
    const list = page.getByRole('listbox', { name: 'Journal' });
    expect(await list.getByRole('option').count()).toBeLessThan(100);
    // Scrolled to its end, as new rows keep it: the newest entry is in view.
    await list.getByRole('option').filter({ hasText: '/v1/posts/p9999' }).waitFor();
    await list.getByRole('option').filter({ hasText: '/v1/posts/p9999' }).click();
    await list.press('Home');
    await list.getByRole('option').filter({ hasText: '/v1/posts/p0' }).first().waitFor();
  }, 20_000);
});
