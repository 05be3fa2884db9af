import type { Browser, Page } from 'playwright-core';
import { expectStatus, type TestMock } from './mock.js';

/* What the dashboard's browser tests of one view share: a workspace of their own, and the view opened on it. */

/** A workspace besides the default one, its clock frozen at `start`: its id, for the switcher, and its key, for the API. */
export async function createFrozenWorkspace(mock: TestMock, start: string): Promise<{ workspaceId: string; apiKey: string }> {
  const created = await mock.control('post', '/__control/workspaces').send({ clock: { start, frozen: true } });
  expectStatus(created, 201);
  return created.body as { workspaceId: string; apiKey: string };
}

/** A new tab on the dashboard at `view` (its heading shown), with `workspaceId` picked in the Workspace switcher. */
export async function openViewOn(browser: Browser, url: string, view: string, workspaceId: string): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await page.goto(`${url}/__dashboard#/${view.toLowerCase()}`);
  await page.getByRole('heading', { level: 2, name: view, exact: true }).waitFor();
  const picker = page.getByLabel('Workspace', { exact: true });
  await picker.locator(`option[value="${workspaceId}"]`).waitFor({ state: 'attached' });
  await picker.selectOption(workspaceId);
  return page;
}
