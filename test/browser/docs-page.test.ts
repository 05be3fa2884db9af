import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { watchPage } from '../helpers/chromium.js';
import { dashboardSession } from '../helpers/dashboard-page.js';

/*
 * /docs in Debian's Chromium, as a user opens it (issue 30): Swagger UI renders both contracts,
 * the API's and the control plane's, picked in its definition list, with no console error and no
 * request that failed. It once answered "No API definition provided." and fetched neither.
 */

const session = dashboardSession();

/** An operation's block as Swagger UI renders it (its id is `operations-<tag>-<operationId>`). */
function operation(page: Page, tag: string, operationId: string) {
  return page.locator(`#operations-${tag}-${operationId}`);
}

async function openDocs(url: string, path = '/docs') {
  const page = await (await (await session.browser()).newContext()).newPage();
  const problems = watchPage(page);
  await page.goto(url + path);
  return { page, problems };
}

describe('/docs in Chromium', () => {
  it("renders the API's operations, then the control plane's when picked, and nothing fails", async () => {
    const { url } = await session.serve();
    const { page, problems } = await openDocs(url);

    await operation(page, 'Posts', 'createPost').waitFor({ timeout: 10_000 });
    await expect(operation(page, 'Posts', 'createPost').textContent()).resolves.toContain('Create a post');
    await page.getByRole('heading', { name: /^Social Publishing Gateway API/ }).waitFor();

    const picker = page.getByLabel('Select a definition');
    expect(await picker.locator('option').allTextContents()).toEqual(['API', 'Control plane']);
    await picker.selectOption({ label: 'Control plane' });
    await operation(page, 'Clock', 'advanceClock').waitFor({ timeout: 10_000 });
    expect(await operation(page, 'Posts', 'createPost').count()).toBe(0);

    await page.waitForLoadState('networkidle');
    expect(problems.lines).toEqual([]);
    await page.context().close();
  }, 60_000);

  it('opens on the control plane from a link that names it, and Try it out calls this mock', async () => {
    const { url } = await session.serve();
    const { page, problems } = await openDocs(url, '/docs?urls.primaryName=Control%20plane');
    await operation(page, 'Clock', 'advanceClock').waitFor({ timeout: 10_000 });

    // The contract names 127.0.0.1:4010; this mock listens elsewhere, and the page calls it.
    expect(await page.locator('#servers option').allTextContents()).toEqual([`${url} - this mock`]);
    const health = operation(page, 'Server', 'getHealth');
    await health.getByRole('button', { name: /getHealth|\/__control\/health/ }).first().click();
    await health.getByRole('button', { name: 'Try it out' }).click();
    await health.getByRole('button', { name: 'Execute' }).click();
    const status = health.locator('.live-responses-table tbody .response-col_status');
    await status.waitFor({ timeout: 10_000 });
    expect(await status.textContent()).toBe('200');
    expect(await health.locator('.request-url').textContent()).toContain(`${url}/__control/health`);
    await page.waitForLoadState('networkidle');
    expect(problems.lines).toEqual([]);
    await page.context().close();
  }, 60_000);
});
