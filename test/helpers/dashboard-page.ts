import type { Browser, Page } from 'playwright-core';
import { afterAll } from 'vitest';
import { hashOf, VIEWS, type View, type ViewId } from '../../src/dashboard/ui/views.js';
import { launchChromium } from './chromium.js';
import { expectStatus, startMock, type StartedMock, type TestMock } from './mock.js';

/* What the dashboard's browser tests of one view share: a workspace of their own, and the view opened on it. */

function viewById(id: ViewId): View {
  const view = VIEWS.find((entry) => entry.id === id);
  if (!view) throw new Error(`the dashboard has no view "${id}"`);
  return view;
}

/** A workspace besides the default one, its clock frozen at `start`: its id, for the switcher, and its key, for the API. */
export async function createFrozenWorkspace(mock: TestMock, start: string): Promise<{ workspaceId: string; apiKey: string }> {
  const created = await mock.control('post', '/__control/workspaces').send({ clock: { start, frozen: true } });
  expectStatus(created, 201);
  return created.body as { workspaceId: string; apiKey: string };
}

/** A new tab on the dashboard at the view `id` names (its heading shown), with `workspaceId` picked in the Workspace switcher. */
export async function openViewOn(browser: Browser, url: string, id: ViewId, workspaceId: string): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await page.goto(`${url}/__dashboard${hashOf(viewById(id))}`);
  await viewShown(page, id);
  const picker = page.getByLabel('Workspace', { exact: true });
  await picker.locator(`option[value="${workspaceId}"]`).waitFor({ state: 'attached' });
  await picker.selectOption(workspaceId);
  return page;
}

/** Goes to the view `id` names by its link in the navigation, as a user would, and waits for its heading. */
export async function showView(page: Page, id: ViewId): Promise<void> {
  await page.getByRole('navigation').getByRole('link', { name: viewById(id).label, exact: true }).click();
  await viewShown(page, id);
}

/** Waits for the view `id` names: its heading, the one the registry gives it. */
export async function viewShown(page: Page, id: ViewId): Promise<void> {
  await page.getByRole('heading', { level: 2, name: viewById(id).label, exact: true }).waitFor();
}

/** Waits until the view shown follows the workspace's event stream (its status reads `Live …`). */
export async function waitLive(page: Page): Promise<void> {
  await page.getByRole('status').filter({ hasText: /^Live/ }).waitFor({ timeout: 5000 });
}

/**
 * What a dashboard test file shares: one Chromium, launched on first use, and the mocks its tests
 * start, each listening; all closed after the file.
 */
export function dashboardSession() {
  let browser: Browser | undefined;
  const mocks: StartedMock[] = [];
  afterAll(async () => {
    await browser?.close();
    for (const mock of mocks) await mock.close();
  });
  return {
    async browser(): Promise<Browser> {
      const launched = browser ?? (await launchChromium());
      browser = launched;
      return launched;
    },
    async serve(options: Parameters<typeof startMock>[0] = {}): Promise<{ mock: StartedMock; url: string }> {
      const mock = await startMock(options);
      mocks.push(mock);
      return { mock, url: await mock.server.listen(0) };
    },
  };
}

/** An API read with a key, as the tests' own client. */
export function getWithKey(url: string, path: string, apiKey = 'sgw_test_default'): Promise<Response> {
  return fetch(url + path, { headers: { 'x-api-key': apiKey } });
}
