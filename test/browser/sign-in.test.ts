import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_FLAGS, requireChromium, watchPage } from '../helpers/chromium.js';
import { connectionOf, newWorkspace, paramsOf, startRedirectReceiver, type RedirectReceiver } from '../helpers/accounts.js';
import { expectStatus, useMock } from '../helpers/mock.js';

/*
 * The sign-in page in a real browser: Debian's Chromium driven by playwright-core.
 * Never skipped: without Chromium this fails and says how to install it (.ci/run does).
 */

const mock = useMock({}, { listen: true });
let receiver: RedirectReceiver;
let browser: BrowserContext | undefined;
let profileDir: string;
/** A page of another site (http://localhost:…, while the mock is http://127.0.0.1:…), serving what a test puts here. */
let attacker: Server;
let attackerPage = '';
let attackerUrl: string;

beforeAll(async () => {
  receiver = await startRedirectReceiver();
  attacker = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(attackerPage);
  });
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
  attackerUrl = `http://localhost:${(attacker.address() as AddressInfo).port}/`;
});

/**
 * Chromium, started by the first test that needs it: checked inside a test, not in a hook,
 * so a missing browser fails that test by name instead of skipping it.
 */
async function openBrowser(): Promise<BrowserContext> {
  if (browser) return browser;
  const executablePath = requireChromium();
  profileDir = mkdtempSync(join(tmpdir(), 'sgw-chromium-'));
  browser = await chromium.launchPersistentContext(profileDir, { executablePath, headless: true, args: CHROMIUM_FLAGS, timeout: 20_000 });
  return browser;
}

afterAll(async () => {
  await browser?.close();
  if (profileDir) rmSync(profileDir, { recursive: true, force: true });
  await receiver?.close();
  await new Promise<void>((resolve) => (attacker ? attacker.close(() => resolve()) : resolve()));
});

describe('the sign-in page in Chromium', () => {
  it('opens from the url a connect answers, shows what is asked, and loads without a failure', async () => {
    const browser = await openBrowser();
    const ws = await newWorkspace(mock);
    const res = await mock.call('post', '/v1/connections/linkedin/connect', ws.apiKey).set('Host', new URL(mock.url).host).send({ redirectUrl: receiver.url, profileName: 'Studio North' });
    expectStatus(res, 200);

    const page = await browser.newPage();
    const problems = watchPage(page);
    const response = await page.goto(res.body.url);
    expect(response?.status()).toBe(200);
    await page.getByRole('heading', { level: 1, name: 'Sign in to Professional network' }).waitFor();
    expect(await page.getByRole('listitem').allTextContents()).toContain('Publish posts on your behalf');
    expect(await page.locator('dd').allTextContents()).toContain('Studio North');
    await page.waitForLoadState('networkidle');
    expect(problems.lines).toEqual([]);

    await Promise.all([page.waitForURL((url) => url.href.startsWith(receiver.url.split('?')[0] ?? ''), { timeout: 10_000 }), page.getByRole('button', { name: 'Approve' }).click()]);
    expect(paramsOf(page.url())).toMatchObject({ platform: 'linkedin', accountId: expect.any(String) });
    expect(problems.lines).toEqual([]);
    await page.close();
  }, 40_000);

  it('lands on the redirect URL with connectSession after a click on Approve', async () => {
    const browser = await openBrowser();
    const expired = await connectionOf(mock, 'sgw_test_default', 'linkedin');
    const res = await mock.call('post', `/v1/accounts/${expired.id}/reconnect`).set('Host', new URL(mock.url).host).send({ redirectUrl: receiver.url });
    expectStatus(res, 200);
    expect(res.body.url.startsWith(`${mock.url}/__oauth/authorize?session=`)).toBe(true);

    const page = await browser.newPage();
    await page.goto(res.body.url);
    expect(await page.title()).toBe('Sign in to Professional network');
    await Promise.all([page.waitForURL((url) => url.href.startsWith(receiver.url.split('?')[0] ?? ''), { timeout: 10_000 }), page.getByRole('button', { name: 'Approve' }).click()]);

    const params = paramsOf(page.url());
    expect(params).toEqual({ state: 'xyz', platform: 'linkedin', accountId: expired.id, connectSession: expect.stringMatching(/^os_ws_default_/) });
    expect(await page.textContent('p')).toBe('Back in the app.');
    expect(receiver.hits).toContain(page.url());
    const account = await mock.call('get', `/v1/accounts/${expired.id}`);
    expect(account.body).toMatchObject({ status: 'active', authHealth: 'healthy' });
  }, 40_000);

  it('decides nothing when a page of another site links to the sign-in with auto=approve or posts its form', async () => {
    const browser = await openBrowser();
    const ws = await newWorkspace(mock);
    const expired = await connectionOf(mock, ws.apiKey, 'linkedin');
    const res = await mock.call('post', `/v1/accounts/${expired.id}/reconnect`, ws.apiKey).set('Host', new URL(mock.url).host).send({ redirectUrl: receiver.url });
    expectStatus(res, 200);
    const signInUrl = res.body.url as string;
    const session = new URL(signInUrl).searchParams.get('session') ?? '';
    attackerPage = `<!doctype html><title>Win a prize</title>
<a id="link" href="${signInUrl}&amp;auto=approve">Claim your prize</a>
<form id="form" method="post" action="${mock.url}/__oauth/decide"><input type="hidden" name="session" value="${session}"><button name="decision" value="approve">Claim by form</button></form>`;

    const page = await browser.newPage();
    await page.goto(attackerUrl);
    const [byLink] = await Promise.all([page.waitForEvent('response', (response) => response.url().includes('/__oauth/authorize')), page.click('#link')]);
    expect(byLink.status()).toBe(403);
    expect(await page.title()).toBe('Sign-in refused');

    await page.goto(attackerUrl);
    const [byForm] = await Promise.all([page.waitForEvent('response', (response) => response.url().endsWith('/__oauth/decide')), page.click('#form button')]);
    expect(byForm.status()).toBe(403);

    expect(receiver.hits.some((hit) => hit.includes(expired.id))).toBe(false);
    expect((await mock.call('get', `/v1/accounts/${expired.id}`, ws.apiKey)).body).toMatchObject({ status: 'expired' });
    // The sign-in itself is untouched: its own page still decides it.
    await page.goto(signInUrl);
    await Promise.all([page.waitForURL((url) => url.href.startsWith(receiver.url.split('?')[0] ?? ''), { timeout: 10_000 }), page.getByRole('button', { name: 'Approve' }).click()]);
    expect(paramsOf(page.url())).toMatchObject({ accountId: expired.id, connectSession: session });
    expect((await mock.call('get', `/v1/accounts/${expired.id}`, ws.apiKey)).body).toMatchObject({ status: 'active' });
  }, 40_000);
});
