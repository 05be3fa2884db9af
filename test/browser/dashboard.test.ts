import type { Page, Request } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { hashOf, VIEWS } from '../../src/dashboard/ui/views.js';
import { seriousAxeFindings } from '../helpers/axe.js';
import { watchPage } from '../helpers/chromium.js';
import { dashboardSession, getWithKey, showView, waitLive } from '../helpers/dashboard-page.js';

/*
 * The dashboard in Debian's Chromium, driven as a user would (issue 20): the shell (every view
 * of src/dashboard/ui/views.ts, in its order), the workspace switcher, axe-core, and the control
 * token; the Requests view has its own file, as every view does. One browser for the file; a
 * fresh context (a fresh tab's sessionStorage) per test.
 */

const session = dashboardSession();
const serve = session.serve;

async function open(url: string): Promise<Page> {
  const page = await (await (await session.browser()).newContext()).newPage();
  await page.goto(`${url}/__dashboard`);
  return page;
}

const get = getWithKey;

describe('the dashboard in Chromium', () => {
  it('has the shell: landmarks, a link and a heading per view, no serious axe violation, nothing failing', async () => {
    const { url } = await serve();
    const page = await (await (await session.browser()).newContext()).newPage();
    const problems = watchPage(page);
    await page.goto(`${url}/__dashboard`);
    await waitLive(page);
    for (const role of ['banner', 'navigation', 'main'] as const) await expect(page.getByRole(role).count()).resolves.toBe(1);
    const nav = page.getByRole('navigation');
    expect(await nav.getByRole('link').allTextContents()).toEqual(VIEWS.map((view) => view.label));
    for (const view of VIEWS) {
      await showView(page, view.id);
      const link = nav.getByRole('link', { name: view.label, exact: true });
      expect(await link.getAttribute('aria-current')).toBe('page');
      expect(await link.getAttribute('href')).toBe(hashOf(view));
    }
    expect(await seriousAxeFindings(page)).toEqual([]);
    expect(problems.lines).toEqual([]);
  }, 20_000);

  it('lists the workspaces and creates one, which becomes the one shown', async () => {
    const { mock, url } = await serve();
    const page = await open(url);
    await waitLive(page);
    const picker = page.getByLabel('Workspace', { exact: true });
    await expect.poll(() => picker.locator('option').allTextContents()).toEqual([expect.stringMatching(/^ws_default \(default\)/)]);
    await page.getByRole('button', { name: 'New workspace' }).click();
    await expect.poll(() => picker.locator('option').count()).toBe(2);
    const made = (await mock.control('get', '/__control/workspaces')).body as { data: Array<{ workspaceId: string; default: boolean }> };
    const createdId = made.data.find((workspace) => !workspace.default)?.workspaceId;
    expect(await picker.inputValue()).toBe(createdId);
    await waitLive(page);
    // Its journal, not the default one's: a request with the default key does not show.
    await get(url, '/v1/connections');
    await page.waitForTimeout(200);
    expect(await page.getByRole('listbox', { name: 'Journal' }).getByRole('option').count()).toBe(0);
  }, 20_000);

  it('asks once for the control token, sends it as a header, and never puts it in a URL', async () => {
    const token = 'dashboard-secret-42';
    const { url } = await serve({ controlToken: token });
    const context = await (await session.browser()).newContext();
    const requests: Request[] = [];
    context.on('request', (request) => requests.push(request));
    const page = await context.newPage();
    await page.goto(`${url}/__dashboard`);

    await page.getByRole('heading', { name: 'Control token' }).waitFor();
    await page.getByRole('textbox', { name: 'Control token' }).fill(token);
    await page.getByRole('button', { name: 'Unlock' }).click();
    await waitLive(page);
    await get(url, '/v1/connections');
    await page.getByRole('option').filter({ hasText: '/v1/connections' }).waitFor();

    // Kept for the tab: a reload does not ask again.
    await page.reload();
    await waitLive(page);
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
