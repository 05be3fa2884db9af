import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { VERSION } from '../../src/version.js';
import { watchPage } from '../helpers/chromium.js';
import { dashboardSession, waitLive } from '../helpers/dashboard-page.js';

/*
 * `/` in Debian's Chromium (issue 30): the page a user lands on when they open the address the
 * mock printed, and every link on it, each followed in a tab of its own as a user would, with
 * no console error and no request that failed or was answered 4xx/5xx.
 */

const session = dashboardSession();

/** What each link of the page leads to, and how a test knows it arrived. */
const LINKS: Array<{ name: string; path: string; arrived: (page: Page) => Promise<unknown> }> = [
  { name: 'Dashboard', path: '/__dashboard', arrived: waitLive },
  { name: 'Reference page', path: '/docs', arrived: (page) => page.locator('#operations-Posts-createPost').waitFor({ timeout: 10_000 }) },
  // Shown as text, not downloaded: a browser asking for it gets text/plain.
  { name: '/openapi.yaml', path: '/openapi.yaml', arrived: async (page) => expect(await page.locator('body').textContent()).toMatch(/^openapi: 3/) },
  { name: '/control.yaml', path: '/control.yaml', arrived: async (page) => expect(await page.locator('body').textContent()).toContain('title: social-gateway-mock control plane') },
  { name: '/__control/health', path: '/__control/health', arrived: async (page) => expect(JSON.parse((await page.locator('body').textContent()) ?? '')).toMatchObject({ status: 'ok' }) },
];

async function openLanding(url: string) {
  const page = await (await (await session.browser()).newContext()).newPage();
  const problems = watchPage(page);
  const response = await page.goto(`${url}/`);
  expect(response?.status()).toBe(200);
  return { page, problems };
}

describe('the landing page in Chromium', () => {
  it('says what the mock is, where the API is, and links to each page, with nothing failing', async () => {
    const { url } = await session.serve();
    const { page, problems } = await openLanding(url);
    expect(await page.title()).toBe(`social-gateway-mock ${VERSION}`);
    await expect(page.locator('code').first().textContent()).resolves.toBe(`${url}/v1`);
    expect(await page.getByRole('link').evaluateAll((links) => links.map((link) => link.getAttribute('href')))).toEqual(LINKS.map((link) => link.path));
    await page.waitForLoadState('networkidle');
    expect(problems.lines).toEqual([]);
    await page.context().close();
  }, 30_000);

  it.each(LINKS)('$path opens from its link and loads without a failure', async ({ name, path, arrived }) => {
    const { url } = await session.serve();
    const { page, problems } = await openLanding(url);
    await page.getByRole('link', { name, exact: true }).first().click();
    await page.waitForURL(`${url}${path}`);
    // Not networkidle: the dashboard keeps its event stream open.
    await arrived(page);
    expect(problems.lines).toEqual([]);
    await page.context().close();
  }, 30_000);
});
