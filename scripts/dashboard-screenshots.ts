/**
 * `npm run screenshots`: one picture of each dashboard view for docs/dashboard.md and
 * the README, taken in Debian's Chromium (playwright-core, as the browser tests drive
 * it) from an in-process mock with a frozen clock and a little of everything to show:
 * requests of every class, a webhook whose receiver refuses deliveries, a scheduled
 * post, a run-time rule. The same seed and clock give the same world, so a picture only
 * changes when the dashboard does. Writes docs/screenshots/<view id>.png, one for each view of
 * the dashboard's list (src/dashboard/ui/views.ts), or into the folder given as its argument
 * (`npm run screenshots -- /tmp/shots`), to compare without touching the committed ones.
 */
import { mkdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMockServer, DEFAULT_API_KEY } from '../src/server.js';
import { launchChromium } from '../test/helpers/chromium.js';
import { VIEWS } from '../src/dashboard/ui/views.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DOCS = join(ROOT, 'docs', 'screenshots');
const OUT = process.argv[2] === undefined ? DOCS : resolve(process.argv[2]);

const server = await createMockServer({ seed: 1, clock: '2026-03-02T09:00:00Z', clockFrozen: true, webhookTimeoutMs: 1_000 });
const url = await server.listen(0);

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { 'x-api-key': DEFAULT_API_KEY, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

/** A step of the set-up: it must succeed, or the pictures would show less than they claim. */
async function setUp(method: string, path: string, body?: unknown): Promise<unknown> {
  const { status, json } = await call(method, path, body);
  if (status >= 300) throw new Error(`${method} ${path} answered ${status}: ${JSON.stringify(json)}`);
  return json;
}

try {
  const json = await setUp('GET', '/v1/connections');
  const [first] = (json as { connections: Array<{ id: string }> }).connections;
  if (!first) throw new Error('the fixture world has no connection');
  // A receiver that is not there: the Webhooks view shows failed attempts and the next retry.
  const webhook = (await setUp('POST', '/v1/webhooks', { name: 'CI receiver', url: 'http://127.0.0.1:9/hooks', events: ['post.scheduled', 'post.published'] })) as { id: string };
  await setUp('POST', `/v1/webhooks/${webhook.id}/test`);
  await setUp('POST', '/v1/posts', { text: 'Spring menu is out: asparagus, peas, and the first strawberries.', scheduledFor: '2026-03-02T09:30:00', timezone: 'UTC', destinations: [{ connectionId: first.id }] });
  await setUp('POST', '/__control/rules', { id: 'posting-limit', match: { operationId: 'createPost', body: [{ pointer: '/destinations/0/connectionId', equals: first.id }] }, then: { error: { status: 429, code: 'VELOCITY_LIMITED', message: 'This account has reached its hourly posting limit.' } }, times: 2 });
  // Requests of every class for the journal: 200s, a 404, a 400 and the rule's 429.
  for (const path of ['/v1/connections', '/v1/accounts?limit=20', '/v1/posts?limit=20', '/v1/profiles', '/v1/posts/00000000-0000-4000-8000-000000000000']) await call('GET', path);
  await call('POST', '/v1/posts', { text: '' });
  await call('POST', '/v1/posts', { text: 'Refused by the rule.', destinations: [{ connectionId: first.id }] });
  await setUp('POST', '/__control/clock/advance', { by: 'PT1M' });

  mkdirSync(OUT, { recursive: true });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 760 } });
    await page.goto(`${url}/__dashboard`);
    const nav = page.getByRole('navigation');
    for (const view of VIEWS) {
      await nav.getByRole('link', { name: view.label, exact: true }).click();
      await page.getByRole('heading', { level: 2, name: view.label, exact: true }).waitFor();
      // The view's first read and the stream's first events (an open event stream never lets the network go idle).
      await page.waitForTimeout(600);
      const file = join(OUT, `${view.id}.png`);
      await page.screenshot({ path: file });
      console.log(`wrote ${OUT === DOCS ? relative(ROOT, file) : file}`);
    }
  } finally {
    await browser.close();
  }
} finally {
  await server.close();
}
