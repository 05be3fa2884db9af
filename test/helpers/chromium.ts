import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's Chromium, driven by playwright-core (no browser download). */
export const CHROMIUM = process.env.SOCIAL_GATEWAY_MOCK_CHROMIUM ?? '/usr/bin/chromium';
/** Nothing of the browser's own reaches the network: no updates, no sync, no QUIC probes. */
export const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/**
 * Fails with how to install Chromium when it is missing: browser tests are never skipped.
 * Call it inside a test, not a hook, so the failure names the test.
 */
export function requireChromium(): string {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium is not installed at ${CHROMIUM}: run \`apt-get update && apt-get install -y chromium\` (or set SOCIAL_GATEWAY_MOCK_CHROMIUM to its path). This test is never skipped.`);
  }
  return CHROMIUM;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: requireChromium(), headless: true, args: CHROMIUM_FLAGS, timeout: 20_000 });
}

/** What went wrong on a page while a test drove it, one line each: empty when nothing did. */
export interface PageProblems {
  readonly lines: string[];
}

/**
 * Watches a page from its first request on: console errors, uncaught exceptions, requests that
 * failed (a download instead of a page is one) or were answered 4xx/5xx, and Content-Security-Policy
 * violations (each logs a console error). A page that looks right but logs an error or misses a file is broken for
 * whoever opens it, so every page test ends with `expect(problems.lines).toEqual([])`.
 */
export function watchPage(page: Page): PageProblems {
  const lines: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') lines.push(`console error: ${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => lines.push(`uncaught: ${error.message}`));
  page.on('requestfailed', (request) => {
    const reason = request.failure()?.errorText ?? 'no reason given';
    // A fetch the page cancelled itself (the dashboard's AbortController when a view closes its stream).
    if (reason === 'net::ERR_ABORTED' && request.resourceType() === 'fetch') return;
    lines.push(`failed: ${request.method()} ${request.url()} (${reason})`);
  });
  page.on('response', (response) => {
    if (response.status() >= 400) lines.push(`answered ${response.status()}: ${response.request().method()} ${response.url()}`);
  });
  return { lines };
}
