import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_FLAGS, requireChromium } from '../helpers/chromium.js';
import { connectionOf, paramsOf, startRedirectReceiver, type RedirectReceiver } from '../helpers/accounts.js';
import { expectStatus, startMock, type TestMock } from '../helpers/mock.js';

/*
 * The sign-in page in a real browser: Debian's Chromium driven by playwright-core.
 * Never skipped: without Chromium this fails and says how to install it (.ci/run does).
 */

let mock: TestMock;
let baseUrl: string;
let receiver: RedirectReceiver;
let browser: BrowserContext;
let profileDir: string;

beforeAll(async () => {
  mock = await startMock();
  baseUrl = await mock.server.listen(0);
  receiver = await startRedirectReceiver();
});

afterAll(async () => {
  await browser?.close();
  if (profileDir) rmSync(profileDir, { recursive: true, force: true });
  await receiver?.close();
  await mock?.close();
});

describe('the sign-in page in Chromium', () => {
  it('lands on the redirect URL with connectSession after a click on Approve', async () => {
    // Checked here, not in a hook, so a missing browser fails this test by name instead of skipping it.
    const executablePath = requireChromium();
    profileDir = mkdtempSync(join(tmpdir(), 'sgw-chromium-'));
    browser = await chromium.launchPersistentContext(profileDir, { executablePath, headless: true, args: CHROMIUM_FLAGS, timeout: 20_000 });
    const expired = await connectionOf(mock, 'sgw_test_default', 'linkedin');
    const res = await mock.call('post', `/v1/accounts/${expired.id}/reconnect`).set('Host', new URL(baseUrl).host).send({ redirectUrl: receiver.url });
    expectStatus(res, 200);
    expect(res.body.url.startsWith(`${baseUrl}/__oauth/authorize?session=`)).toBe(true);

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
});
