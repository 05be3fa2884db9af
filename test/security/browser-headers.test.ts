import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/chromium.js';
import { useMock } from '../helpers/mock.js';

/*
 * Issue 28, item 7 (the browser part): any page could frame the dashboard, and a click on an
 * invisible frame froze the clock. The server's pages now forbid every frame and run scripts only
 * from the server (an inline one only by its hash); the dashboard still works under that policy.
 */

const mock = useMock({}, { listen: true });
let browser: Browser | undefined;
let attacker: Server | undefined;

afterAll(async () => {
  await browser?.close();
  if (attacker) await new Promise<void>((resolve) => attacker?.close(() => resolve()));
});

/** A sign-in page of a session that does not exist answers an HTML error page: the same headers as the form. */
const PAGES = ['/__dashboard', '/__dashboard/', '/docs', '/docs/', '/__oauth/authorize?session=nope', '/'];

/** The directives of a Content-Security-Policy, by name. */
function directives(policy: string | undefined): Map<string, string[]> {
  const parsed = new Map<string, string[]>();
  for (const part of (policy ?? '').split(';')) {
    const [name, ...sources] = part.trim().split(/\s+/);
    if (name) parsed.set(name, sources);
  }
  return parsed;
}

function sha256(content: string): string {
  return `'sha256-${createHash('sha256').update(content, 'utf8').digest('base64')}'`;
}

async function htmlPage(path: string) {
  const res = await mock.control('get', path).set('Accept', 'text/html');
  expect(res.headers['content-type'], path).toMatch(/^text\/html/);
  return res;
}

describe('the HTML pages', () => {
  it.each(PAGES)('%s cannot be framed: X-Frame-Options DENY and frame-ancestors none', async (path) => {
    const res = await htmlPage(path);
    expect(res.headers['x-frame-options'], path).toBe('DENY');
    expect(directives(res.headers['content-security-policy']).get('frame-ancestors'), path).toEqual(["'none'"]);
    expect(res.headers['x-content-type-options'], path).toBe('nosniff');
  });

  it.each(PAGES)('%s runs scripts only from the server, an inline one only by its hash', async (path) => {
    const res = await htmlPage(path);
    const policy = directives(res.headers['content-security-policy']);
    const scripts = policy.get('script-src') ?? policy.get('default-src') ?? [];
    expect(scripts.length, path).toBeGreaterThan(0);
    for (const source of scripts) expect(source, path).toMatch(/^'(self|none|sha256-[A-Za-z0-9+/]+=*)'$/);
    // Every inline script the page holds is allowed by its hash, and by nothing looser.
    for (const [, inline] of res.text.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)) {
      expect(scripts, path).toContain(sha256(inline ?? ''));
    }
  });

  it("the index page's JSON answer is no page and needs none of it", async () => {
    const res = await mock.control('get', '/').set('Accept', 'application/json');
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['content-security-policy']).toBeUndefined();
  });
});

/** What the tests use of a page's globals. */
interface InPage {
  document: {
    addEventListener(type: 'securitypolicyviolation', listener: (event: { violatedDirective: string; blockedURI: string }) => void): void;
    querySelector(selector: string): unknown;
  };
  reportViolation(line: string): void;
}

describe('in Chromium', () => {
  /** A page with the policy's violations and the console's CSP errors collected from its first script on. */
  async function watchedPage(): Promise<{ page: Page; violations: string[] }> {
    browser ??= await launchChromium();
    const page = await (await browser.newContext()).newPage();
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(`console: ${message.text()}`);
    });
    await page.exposeFunction('reportViolation', (line: string) => violations.push(line));
    await page.addInitScript(() => {
      // Run in the page, whose globals this (Node) program does not type.
      const page = globalThis as unknown as InPage;
      page.document.addEventListener('securitypolicyviolation', (event) => page.reportViolation(`${event.violatedDirective} ${event.blockedURI}`));
    });
    return { page, violations };
  }

  it('the dashboard loads under its policy and works, with no violation', async () => {
    const { page, violations } = await watchedPage();
    const response = await page.goto(`${mock.url}/__dashboard`);
    expect(directives(response?.headers()['content-security-policy']).get('script-src')).toContain("'self'");
    await page.getByRole('status').filter({ hasText: /^Live/ }).waitFor({ timeout: 5000 });
    // Every view renders (each loads its module through the import map and styles itself).
    const nav = page.getByRole('navigation');
    for (const view of ['Requests', 'Webhooks', 'Clock', 'Scenarios', 'Limits', 'State', 'Coverage']) {
      await nav.getByRole('link', { name: view, exact: true }).click();
      await page.getByRole('heading', { level: 2, name: view, exact: true }).waitFor();
    }
    // A live request reaches the Requests view over the event stream.
    await nav.getByRole('link', { name: 'Requests', exact: true }).click();
    await fetch(`${mock.url}/v1/connections`, { headers: { 'x-api-key': 'sgw_test_default' } });
    await page.getByRole('option').filter({ hasText: '/v1/connections' }).first().waitFor();
    expect(violations).toEqual([]);
    await page.context().close();
  }, 30_000);

  it('/docs loads its files under its policy with no violation (test/browser/docs-page.test.ts opens what it renders)', async () => {
    const { page, violations } = await watchedPage();
    const response = await page.goto(`${mock.url}/docs`);
    expect(response?.headers()['x-frame-options']).toBe('DENY');
    await page.waitForFunction(() => typeof (globalThis as unknown as { ui?: unknown }).ui === 'object', undefined, { timeout: 10_000 });
    await page.waitForLoadState('networkidle');
    expect(violations).toEqual([]);
    await page.context().close();
  }, 30_000);

  it('a page of another origin cannot show the dashboard in a frame', async () => {
    attacker = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>another site</title><iframe id="victim" src="${mock.url}/__dashboard" style="opacity:0"></iframe>`);
    });
    await new Promise<void>((resolve) => attacker?.listen(0, '127.0.0.1', resolve));
    const { port } = attacker.address() as AddressInfo;
    const { page, violations } = await watchedPage();
    // localhost and 127.0.0.1 are two origins: the frame is cross-origin.
    await page.goto(`http://localhost:${port}/`);
    const frame = await (await page.waitForSelector('#victim')).contentFrame();
    await page.waitForLoadState('load');
    // The browser refuses to render it: the frame holds its own error page, not the dashboard.
    expect(await frame?.evaluate(() => (globalThis as unknown as InPage).document.querySelector('#app') !== null).catch(() => false)).toBe(false);
    expect(violations.some((line) => line.includes('frame-ancestors'))).toBe(true);
    await page.context().close();
  }, 30_000);
});
