import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

/* axe-core, injected into a page the browser tests drive (a dev dependency, never served by the mock). */

const AXE_SCRIPT = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/**
 * Puts axe-core in the page as the test's own code, not as a `<script>` the page would hold:
 * the dashboard's Content-Security-Policy refuses inline scripts, and rightly so.
 */
export async function injectAxe(page: Page): Promise<void> {
  await page.evaluate(`${readFileSync(AXE_SCRIPT, 'utf8')}\n;0`);
}

export interface AxeFinding {
  id: string;
  impact: string;
  nodes: number;
  first: string;
}

/** What axe-core finds serious or critical on the page as it stands, each with its first node. */
export async function seriousAxeFindings(page: Page): Promise<AxeFinding[]> {
  await injectAxe(page);
  // Run in the page, whose globals this (Node) program does not type.
  const found = await page.evaluate(() => (globalThis as unknown as { axe: { run: () => Promise<{ violations: Array<{ id: string; impact: string | null; nodes: unknown[] }> }> } }).axe.run());
  return found.violations
    .filter(({ impact }) => impact === 'serious' || impact === 'critical')
    .map(({ id, impact, nodes }) => ({ id, impact: impact ?? '', nodes: nodes.length, first: JSON.stringify(nodes[0]).slice(0, 400) }));
}
