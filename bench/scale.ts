/**
 * `npm run bench:scale`: the mock holding 1k, 10k and 100k posts (a `--data` file
 * written straight in the mock's format), then per size: start to first 200 with
 * `--data`, memory after the load, and the latency of four lists (first page, a
 * deep page reached by cursor, a filtered list, a `metric:` sort). Then `advance`
 * over a day holding 10k due jobs, and webhook deliveries per second to a local
 * receiver. Then 10,000 fresh workspaces: what each costs to create and hold,
 * the server's RSS with them and after deleting them, and list latency with one
 * workspace and with all of them (bench/lib/workspace-scale.ts). What the build
 * under test does not implement yet is reported as such.
 * Writes bench/results/scale-<timestamp>.json.
 *
 * BENCH_SCALE_SIZES (1000,10000,100000), BENCH_SCALE_SECONDS (3 per list),
 * BENCH_SCALE_START_RUNS (3), BENCH_SCALE_JOBS (10000), BENCH_SCALE_WORKSPACES
 * (10000) change it; BENCH_SCALE_ONLY=workspaces runs the workspaces section alone.
 */
import { createServer } from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBuilt } from './lib/build.js';
import { call, callJson, destinationPairs, type ConnectionSummary } from './lib/client.js';
import { runLoad, type LoadResult } from './lib/load.js';
import { detectPinning, freePort, sleep, startProcess, waitForOk, type Pinning, type ServerProcess } from './lib/processes.js';
import { markdownTable, type TargetResult } from './lib/report.js';
import { writeScaleData, SCALE_CLOCK, type ScaleData } from './lib/scale-data.js';
import { measureSchedulerCost, type SchedulerCost } from './lib/scheduler-cost.js';
import { DEFAULT_API_KEY, serverSpec } from './lib/servers.js';
import { median } from './lib/stats.js';
import { measureWorkspaceScale, workspaceRows, workspaceTargets, type WorkspaceScaleResult } from './lib/workspace-scale.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const sizes = (process.env.BENCH_SCALE_SIZES ?? '1000,10000,100000').split(',').map((s) => Number(s.trim()));
const listSeconds = Number(process.env.BENCH_SCALE_SECONDS ?? 3);
const startRuns = Number(process.env.BENCH_SCALE_START_RUNS ?? 3);
const dueJobs = Number(process.env.BENCH_SCALE_JOBS ?? 10_000);
const freshWorkspaces = Number(process.env.BENCH_SCALE_WORKSPACES ?? 10_000);
const SECTIONS = ['workspaces'] as const;
/** One section alone (BENCH_SCALE_ONLY=workspaces); every section when unset. */
const only = process.env.BENCH_SCALE_ONLY;
if (only !== undefined && !(SECTIONS as readonly string[]).includes(only)) throw new Error(`BENCH_SCALE_ONLY: '${only}' is not a section (${SECTIONS.join(', ')})`);
/** How long the cursor walk to a deep page may take before it settles for the depth reached. */
const WALK_BUDGET_MS = 20_000;
const SETTLE_MS = 10_000;
const log = (line: string) => console.log(line);

type Outcome<T> = { status: 'ok'; value: T } | { status: 'not-implemented' | 'error'; detail: string };

interface ListLatency {
  kind: string;
  path: string;
  outcome: Outcome<{ p50Ms: number; p99Ms: number; requestsPerSecond: number; depth?: number }>;
}

interface SizeResult {
  posts: number;
  data: Omit<ScaleData, 'file'>;
  startMs: number[];
  startMedianMs: number;
  rssAfterLoadMb: number | undefined;
  /** After ten idle seconds: V8 gives back the pages the load's garbage (the file's text) held. */
  rssSettledMb: number | undefined;
  rssAfterListsMb: number | undefined;
  lists: ListLatency[];
}

async function startMock(pinning: Pinning, extra: string[]): Promise<{ server: ServerProcess; baseUrl: string; startMs: number }> {
  const port = await freePort();
  const server = startProcess(serverSpec('mock', ROOT, port, {}, { extra }), pinning);
  const baseUrl = `http://127.0.0.1:${port}`;
  const startMs = await waitForOk(server, { url: `${baseUrl}/v1/connections`, headers: { 'x-api-key': DEFAULT_API_KEY } }, 180_000);
  return { server, baseUrl, startMs: Math.round(startMs) };
}

function classify(status: number, text: string): Outcome<never> | undefined {
  if (status === 501) return { status: 'not-implemented', detail: 'listPosts' };
  if (status >= 300) return { status: 'error', detail: `${status}: ${text.slice(0, 160)}` };
  return undefined;
}

async function latency(baseUrl: string, path: string): Promise<LoadResult> {
  return runLoad({ url: baseUrl, connections: 1, seconds: listSeconds, requests: [{ method: 'GET', path, headers: { 'x-api-key': DEFAULT_API_KEY } }] });
}

/** Follows `nextCursor` (100 a page) to the middle of the list, or as deep as the time budget allows. */
async function deepCursor(baseUrl: string, posts: number): Promise<{ path: string; depth: number } | Outcome<never>> {
  const wanted = Math.floor(posts / 2);
  const began = performance.now();
  let path = '/v1/posts?limit=100';
  let depth = 0;
  while (depth < wanted && performance.now() - began < WALK_BUDGET_MS) {
    const answer = await call(baseUrl, 'GET', path, { apiKey: DEFAULT_API_KEY });
    const refused = classify(answer.status, answer.text);
    if (refused) return refused;
    const page = JSON.parse(answer.text) as { data: unknown[]; nextCursor: string | null };
    if (!page.nextCursor) break;
    depth += page.data.length;
    path = `/v1/posts?limit=100&cursor=${encodeURIComponent(page.nextCursor)}`;
  }
  return { path, depth };
}

async function measureLists(baseUrl: string, posts: number): Promise<ListLatency[]> {
  const lists: ListLatency[] = [];
  const kinds: Array<{ kind: string; path: string }> = [
    { kind: 'first page', path: '/v1/posts?limit=20' },
    { kind: 'filtered (status + platform)', path: '/v1/posts?limit=20&status=published&platform=bluesky' },
    { kind: 'metric sort', path: '/v1/posts?limit=20&sort=metric:impressions' },
  ];
  for (const { kind, path } of kinds) {
    const probe = await call(baseUrl, 'GET', path, { apiKey: DEFAULT_API_KEY });
    const refused = classify(probe.status, probe.text);
    if (refused) {
      lists.push({ kind, path, outcome: refused });
      continue;
    }
    const result = await latency(baseUrl, path);
    lists.push({ kind, path, outcome: { status: 'ok', value: { p50Ms: result.p50Ms, p99Ms: result.p99Ms, requestsPerSecond: result.requestsPerSecond } } });
  }
  const deep = await deepCursor(baseUrl, posts);
  if ('status' in deep) {
    lists.splice(1, 0, { kind: 'deep page (cursor, 100 a page)', path: '/v1/posts?limit=100&cursor=…', outcome: deep });
  } else {
    const result = await latency(baseUrl, deep.path);
    lists.splice(1, 0, {
      kind: 'deep page (cursor, 100 a page)',
      path: '/v1/posts?limit=100&cursor=…',
      outcome: { status: 'ok', value: { p50Ms: result.p50Ms, p99Ms: result.p99Ms, requestsPerSecond: result.requestsPerSecond, depth: deep.depth } },
    });
  }
  return lists;
}

async function measureSize(posts: number, dir: string, pinning: Pinning): Promise<SizeResult> {
  const file = join(dir, `posts-${posts}.json`);
  const data = await writeScaleData(file, posts);
  log(`\n${posts} posts: data file ${(data.bytes / 1e6).toFixed(1)} MB, written in ${data.generateSeconds} s`);
  const startMs: number[] = [];
  for (let i = 0; i < startRuns; i++) {
    const { server, startMs: ms } = await startMock(pinning, ['--data', file]);
    startMs.push(ms);
    await server.stop();
    await sleep(200);
  }
  log(`  start to first 200 with --data: median ${median(startMs)} ms (${startMs.join(', ')})`);
  const { server, baseUrl } = await startMock(pinning, ['--data', file]);
  try {
    const rssAfterLoadMb = server.memory()?.rssMb;
    await sleep(SETTLE_MS);
    const rssSettledMb = server.memory()?.rssMb;
    log(`  RSS after load: ${rssAfterLoadMb} MB, ${rssSettledMb} MB after ${SETTLE_MS / 1000} s idle`);
    const lists = await measureLists(baseUrl, posts);
    for (const list of lists) {
      log(`  ${list.kind}: ${list.outcome.status === 'ok' ? `p50 ${list.outcome.value.p50Ms} ms, p99 ${list.outcome.value.p99Ms} ms${list.outcome.value.depth !== undefined ? ` (${list.outcome.value.depth} posts deep)` : ''}` : `${list.outcome.status} (${list.outcome.detail})`}`);
    }
    const rssAfterListsMb = server.memory()?.rssMb;
    return { posts, data: { posts: data.posts, bytes: data.bytes, generateSeconds: data.generateSeconds }, startMs, startMedianMs: median(startMs), rssAfterLoadMb, rssSettledMb, rssAfterListsMb, lists };
  } finally {
    await server.stop();
  }
}

interface AdvanceResult {
  /** Through scheduled posts, once `POST /v1/posts` exists. */
  scheduledPosts: Outcome<{ posts: number; createSeconds: number; clockViewMs: number; advanceMs: number; ran: number }>;
  /** The scheduler alone, with a trivial job kind, in the bench's own process. */
  schedulerOnly: SchedulerCost;
}

/** `count` posts scheduled over the coming day, then one `advance` of a day that fires them all. */
async function advanceOverScheduledPosts(pinning: Pinning, count: number): Promise<AdvanceResult['scheduledPosts']> {
  const { server, baseUrl } = await startMock(pinning, ['--clock', SCALE_CLOCK]);
  try {
    const { connections } = await callJson<{ connections: ConnectionSummary[] }>(baseUrl, 'GET', '/v1/connections', { apiKey: DEFAULT_API_KEY });
    const pairs = destinationPairs(DEFAULT_API_KEY, connections);
    const startMs = Date.parse(SCALE_CLOCK);
    const body = (i: number) => {
      const pair = pairs[i % pairs.length];
      const at = new Date(startMs + 60_000 + Math.floor((i * (86_400_000 - 120_000)) / count)).toISOString().slice(0, 19);
      return { text: `Scheduled ${i}`, scheduledFor: at, timezone: 'UTC', destinations: [{ connectionId: pair?.first }, { connectionId: pair?.second }] };
    };
    const first = await call(baseUrl, 'POST', '/v1/posts', { apiKey: DEFAULT_API_KEY, body: body(0) });
    if (first.status === 501) return { status: 'not-implemented', detail: 'createPost' };
    if (first.status !== 201) return { status: 'error', detail: `createPost answered ${first.status}: ${first.text.slice(0, 160)}` };
    const began = performance.now();
    const failures: string[] = [];
    // Ten at a time: fast, and the answers stay in order of creation.
    for (let i = 1; i < count; i += 10) {
      const batch = Array.from({ length: Math.min(10, count - i) }, (_, k) => call(baseUrl, 'POST', '/v1/posts', { apiKey: DEFAULT_API_KEY, body: body(i + k) }));
      for (const answer of await Promise.all(batch)) if (answer.status !== 201) failures.push(`${answer.status} ${answer.text.slice(0, 120)}`);
    }
    const createSeconds = Math.round((performance.now() - began) / 100) / 10;
    if (failures.length > 0) return { status: 'error', detail: `${failures.length} posts refused, first: ${failures[0]}` };
    let t = performance.now();
    await call(baseUrl, 'GET', '/__control/clock');
    const clockViewMs = Math.round((performance.now() - t) * 10) / 10;
    t = performance.now();
    const advanced = await call(baseUrl, 'POST', '/__control/clock/advance', { body: { by: 'P1D' } });
    const advanceMs = Math.round(performance.now() - t);
    if (advanced.status !== 200) return { status: 'error', detail: `advance answered ${advanced.status}: ${advanced.text.slice(0, 160)}` };
    const ran = (JSON.parse(advanced.text) as { ran: unknown[] }).ran.length;
    return { status: 'ok', value: { posts: count, createSeconds, clockViewMs, advanceMs, ran } };
  } finally {
    await server.stop();
  }
}

interface WebhookResult {
  outcome: Outcome<{ deliveriesPerSecond: number; received: number; p50Ms: number; p99Ms: number }>;
}

/**
 * Deliveries per second to a receiver in this process: `POST /v1/webhooks/{id}/test`
 * answers after its delivery's first attempt, so its throughput is the delivery
 * rate; the receiver counts what actually arrived.
 */
async function webhookDeliveries(pinning: Pinning): Promise<WebhookResult> {
  let received = 0;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const address = receiver.address();
  const receiverUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hooks`;
  const { server, baseUrl } = await startMock(pinning, []);
  try {
    const created = await call(baseUrl, 'POST', '/v1/webhooks', { apiKey: DEFAULT_API_KEY, body: { name: 'Bench receiver', url: receiverUrl, events: ['webhook.test'] } });
    if (created.status === 501) return { outcome: { status: 'not-implemented', detail: 'createWebhook' } };
    if (created.status !== 201) return { outcome: { status: 'error', detail: `createWebhook answered ${created.status}: ${created.text.slice(0, 160)}` } };
    const { id } = JSON.parse(created.text) as { id: string };
    const probe = await call(baseUrl, 'POST', `/v1/webhooks/${id}/test`, { apiKey: DEFAULT_API_KEY });
    if (probe.status === 501) return { outcome: { status: 'not-implemented', detail: 'testWebhook' } };
    if (probe.status !== 200) return { outcome: { status: 'error', detail: `testWebhook answered ${probe.status}: ${probe.text.slice(0, 160)}` } };
    const before = received;
    const result = await runLoad({ url: baseUrl, connections: 10, seconds: listSeconds * 2, requests: [{ method: 'POST', path: `/v1/webhooks/${id}/test`, headers: { 'x-api-key': DEFAULT_API_KEY } }] });
    const arrived = received - before;
    return { outcome: { status: 'ok', value: { deliveriesPerSecond: Math.round(arrived / result.seconds), received: arrived, p50Ms: result.p50Ms, p99Ms: result.p99Ms } } };
  } finally {
    await server.stop();
    receiver.close();
  }
}

function scaleTargets(results: readonly SizeResult[], advance: AdvanceResult): TargetResult[] {
  const out: TargetResult[] = [];
  const smallest = results.find((r) => r.posts === 1000);
  const largest = results.find((r) => r.posts === 100_000);
  if (smallest && largest) {
    for (const list of largest.lists) {
      const base = smallest.lists.find((l) => l.kind === list.kind);
      if (list.outcome.status !== 'ok' || base?.outcome.status !== 'ok') {
        out.push({ target: 'list latency at 100k ≤ 2× at 1k', scope: list.kind, value: list.outcome.status === 'ok' ? 'not measured at 1k' : list.outcome.status, met: list.outcome.status === 'error' ? false : undefined });
        continue;
      }
      const ratio = list.outcome.value.p50Ms / base.outcome.value.p50Ms;
      out.push({ target: 'list latency at 100k ≤ 2× at 1k', scope: list.kind, value: `p50 ${list.outcome.value.p50Ms} ms vs ${base.outcome.value.p50Ms} ms (${ratio.toFixed(2)}×)`, met: ratio <= 2 });
    }
  }
  if (largest?.rssAfterLoadMb !== undefined) {
    out.push({ target: 'memory for 100k posts < 300 MB', scope: 'RSS right after loading --data', value: `${largest.rssAfterLoadMb} MB`, met: largest.rssAfterLoadMb < 300 });
  }
  if (largest?.rssSettledMb !== undefined) {
    out.push({ target: 'memory for 100k posts < 300 MB', scope: `RSS ${SETTLE_MS / 1000} s later, idle`, value: `${largest.rssSettledMb} MB`, met: largest.rssSettledMb < 300 });
  }
  const posts = advance.scheduledPosts;
  out.push({
    target: `advance over ${dueJobs} due jobs < 1 s`,
    scope: 'scheduled posts, one day',
    value: posts.status === 'ok' ? `${posts.value.advanceMs} ms (${posts.value.ran} jobs)` : posts.status,
    met: posts.status === 'ok' ? posts.value.advanceMs < 1000 : posts.status === 'error' ? false : undefined,
  });
  out.push({
    target: `advance over ${dueJobs} due jobs < 1 s`,
    scope: 'the scheduler alone (trivial jobs, over HTTP)',
    value: `${advance.schedulerOnly.advanceOverHttpMs} ms (direct ${advance.schedulerOnly.advanceDirectMs} ms)`,
    met: advance.schedulerOnly.advanceOverHttpMs < 1000,
  });
  return out;
}

/** The workspaces section: its figures and targets, for a full run or alone. */
async function workspacesSection(pinning: Pinning): Promise<{ workspaces: WorkspaceScaleResult; targets: TargetResult[] }> {
  const workspaces = await measureWorkspaceScale({ root: ROOT, pinning, count: freshWorkspaces, seconds: listSeconds, log });
  log(`\n## Workspaces: ${freshWorkspaces} fresh ones with the fixture world\n`);
  log(markdownTable(['measure', 'value'], workspaceRows(workspaces)));
  return { workspaces, targets: workspaceTargets(workspaces) };
}

function writeResults(began: number, results: object): void {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const out = join(ROOT, 'bench', 'results');
  mkdirSync(out, { recursive: true });
  const file = join(out, `scale-${stamp}.json`);
  writeFileSync(file, `${JSON.stringify({ kind: 'scale', at: new Date().toISOString(), ...results, tookSeconds: Math.round((performance.now() - began) / 1000) }, null, 2)}\n`);
  log(`\nwrote ${file} (${Math.round((performance.now() - began) / 1000)} s in all)`);
}

function targetsTable(targets: readonly TargetResult[]): void {
  log('\n## Targets\n');
  log(markdownTable(['target', 'scope', 'value', 'verdict'], targets.map((t) => [t.target, t.scope, t.value, t.met === undefined ? 'waits (not implemented)' : t.met ? 'met' : 'MISSED'])));
}

async function main(): Promise<void> {
  const began = performance.now();
  const pinning = detectPinning();
  log(`social-gateway-mock scale bench: Node ${process.version}, ${cpus().length} cores; ${pinning.note}; ${only === undefined ? `sizes ${sizes.join(', ')}` : `only ${only}`}`);
  const loadBefore = loadavg()[0] ?? 0;
  if (loadBefore > 0.5) log(`the machine is busy (load average ${loadBefore.toFixed(1)} on ${cpus().length} cores): times will be longer and noisier than on an idle machine`);
  ensureBuilt(ROOT, log);
  const machine = () => ({ node: process.version, cores: cpus().length, pinning, loadAverageBefore: loadBefore, loadAverageAfter: loadavg()[0] });
  if (only === 'workspaces') {
    const { workspaces, targets } = await workspacesSection(pinning);
    targetsTable(targets);
    writeResults(began, { machine: machine(), workspaces, targets });
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'sgw-scale-'));
  const results: SizeResult[] = [];
  let advance: AdvanceResult;
  let webhooks: WebhookResult;
  try {
    for (const size of sizes) results.push(await measureSize(size, dir, pinning));
    log(`\nadvance over a day holding ${dueJobs} due jobs`);
    const schedulerOnly = await measureSchedulerCost(dueJobs);
    log(`  the scheduler alone: advance ${schedulerOnly.advanceOverHttpMs} ms over HTTP (${schedulerOnly.advanceDirectMs} ms direct), GET /__control/clock ${schedulerOnly.clockViewMs} ms with the jobs pending`);
    const scheduledPosts = await advanceOverScheduledPosts(pinning, dueJobs);
    log(`  through scheduled posts: ${scheduledPosts.status === 'ok' ? `${scheduledPosts.value.advanceMs} ms for ${scheduledPosts.value.ran} jobs` : `${scheduledPosts.status} (${scheduledPosts.detail})`}`);
    advance = { scheduledPosts, schedulerOnly };
    webhooks = await webhookDeliveries(pinning);
    log(`\nwebhook deliveries: ${webhooks.outcome.status === 'ok' ? `${webhooks.outcome.value.deliveriesPerSecond}/s` : `${webhooks.outcome.status} (${webhooks.outcome.detail})`}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const cell = (list: ListLatency | undefined) => {
    if (!list) return '–';
    if (list.outcome.status !== 'ok') return list.outcome.status === 'not-implemented' ? 'not implemented' : `error`;
    return `${list.outcome.value.p50Ms} / ${list.outcome.value.p99Ms}`;
  };
  const kinds = results[0]?.lists.map((l) => l.kind) ?? [];
  log('\n## Scale: start, memory, list latency (p50 / p99 ms, 1 connection)\n');
  log(
    markdownTable(
      ['posts', 'data file MB', 'start with --data ms', 'RSS after load MB', 'RSS settled MB', ...kinds],
      results.map((r) => [
        String(r.posts),
        (r.data.bytes / 1e6).toFixed(1),
        String(r.startMedianMs),
        String(r.rssAfterLoadMb ?? '–'),
        String(r.rssSettledMb ?? '–'),
        ...kinds.map((kind) => cell(r.lists.find((l) => l.kind === kind))),
      ]),
      new Set([0, 1, 2, 3, 4]),
    ),
  );
  const { workspaces, targets: workspaceGoals } = await workspacesSection(pinning);
  const targets = [...scaleTargets(results, advance), ...workspaceGoals];
  targetsTable(targets);
  writeResults(began, { machine: machine(), sizes: results, advance, webhooks, workspaces, targets });
}

await main();
