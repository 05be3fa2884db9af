import type { Browser } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { seriousAxeFindings } from '../helpers/axe.js';
import { launchChromium } from '../helpers/chromium.js';
import { showView } from '../helpers/dashboard-page.js';
import { plainServer, proxyTo } from '../proxy/helpers.js';

/*
 * The Requests view of a proxy (issue 22): what the upstream's answer broke of openapi.yaml is
 * listed in the request's detail, from the journal entry's `violations`, and the search finds
 * a request by the kind of its finding. Secrets the request carried stay off the page.
 */

let browser: Browser | undefined;
const closers: Array<() => Promise<void>> = [];

afterAll(async () => {
  await browser?.close();
  for (const close of closers.reverse()) await close();
});

describe("a proxy's Requests view in Chromium", () => {
  it("lists a request's contract findings in its detail and finds it by their kind", async () => {
    const upstream = await plainServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'x-ratelimit-limit': '600', 'x-ratelimit-remaining': '599', 'x-ratelimit-reset': '1772442060' });
      res.end(JSON.stringify({ connections: [{ id: 'not-a-uuid', status: 'active', authHealth: 'healthy' }] }));
    });
    closers.push(upstream.close);
    const proxy = await proxyTo(upstream.url);
    closers.push(proxy.close);
    browser = await launchChromium();
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${proxy.url}/__dashboard`);
    await page.getByRole('status').filter({ hasText: /^Live/ }).waitFor({ timeout: 5000 });

    const answered = await fetch(`${proxy.url}/v1/connections`, { headers: { 'x-api-key': 'sgw_live_browser_secret_42' } });
    expect(answered.status).toBe(200);
    const journal = page.getByRole('listbox', { name: 'Journal' });
    await page.getByLabel('Search').fill('missing-required-field');
    await expect.poll(() => journal.getByRole('option').count()).toBe(1);
    // The row says it broke the contract, and how often, before it is opened.
    expect(await journal.getByRole('option').textContent()).toContain('200 ⚠2, 2 contract violations');
    await journal.getByRole('option').click();
    const detail = page.locator('.detail');
    await detail.getByRole('heading', { name: 'Contract findings (2)' }).waitFor();
    const text = await detail.textContent();
    expect(text).toContain('missing-required-field at body/connections/0/platform');
    expect(text).toContain('wrong-format at body/connections/0/id');
    // The proxy forwards the body as sent: no contract defaults were filled in.
    expect(text).toContain('Request body (as sent upstream)');
    expect(await page.content()).not.toContain('sgw_live_browser_secret_42');
    await page.getByLabel('Search').fill('undeclared-status');
    await expect.poll(() => journal.getByRole('option').count()).toBe(0);

    // The Coverage view sums them up as the CI report does.
    await showView(page, 'coverage');
    const findings = page.getByRole('region', { name: 'Contract violations (proxy)' });
    await findings.getByText('1 of 1 exchange with the upstream broke openapi.yaml.').waitFor();
    expect(await findings.locator('tbody tr').allTextContents()).toEqual(['listConnectionsresponsemissing-required-field1body/connections/*/platform', 'listConnectionsresponsewrong-format1body/connections/*/id']);
    expect(await seriousAxeFindings(page)).toEqual([]);
  }, 20_000);
});
