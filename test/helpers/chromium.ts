import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

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
