import { collectGarbage } from '../../src/lib/collect-garbage.js';
import { createMockServer } from '../../src/server.js';
import { call } from './client.js';
import { runLoad } from './load.js';
import { freePort, sleep, startProcess, waitForOk, type Pinning, type ServerProcess } from './processes.js';
import type { TargetResult } from './report.js';
import { SCALE_CLOCK } from './scale-data.js';
import { DEFAULT_API_KEY, serverSpec } from './servers.js';
import { percentile } from './stats.js';

/**
 * The workspaces section of `npm run bench:scale` (issue 21, item 2): what a fresh
 * workspace with the fixture world costs to make and to hold, what 10,000 of them
 * weigh on a server, what deleting them gives back, and whether they slow down the
 * requests of a workspace that is being used. In this process (the registry called
 * directly, the heap measured after full collections) and over HTTP against the
 * built mock in its own process (RSS from /proc).
 */

export interface WorkspaceScaleOptions {
  root: string;
  pinning: Pinning;
  /** How many fresh workspaces (BENCH_SCALE_WORKSPACES, default 10,000). */
  count: number;
  /** Seconds of each latency run. */
  seconds: number;
  log: (line: string) => void;
}

interface Latency {
  path: string;
  oneWorkspace: { p50Ms: number; p99Ms: number };
  manyWorkspaces: { p50Ms: number; p99Ms: number };
  /** p50 with `count` fresh workspaces over p50 with one. */
  p50Ratio: number;
  p99Ratio: number;
}

export interface WorkspaceScaleResult {
  count: number;
  inProcess: {
    /** `WorkspaceRegistry.create()` with the fixture world, per workspace (running clock). */
    createMs: number;
    /** Heap retained per fresh workspace, after full collections. */
    retainedKb: number;
    /** Real timers the fresh workspaces added (none expected). */
    timersAdded: number;
    /** What the first request of a fresh workspace pays to build its world (median of a sample). */
    firstUseMs: number;
    heapBeforeMb: number;
    heapAtCountMb: number;
    heapAfterDeleteMb: number;
  };
  overHttp: {
    /**
     * The server's CPU time per `POST /__control/workspaces` (user + system, /proc): what a
     * creation costs the server, whatever else competes for the cores (undefined without /proc).
     */
    createCpuMs: number | undefined;
    /** `POST /__control/workspaces`, one at a time on one connection: round trip, mean and percentiles. */
    createMeanMs: number;
    createP50Ms: number;
    createP99Ms: number;
    /** `DELETE /__control/workspaces/{id}`, mean per request. */
    deleteMeanMs: number;
    rssBeforeMb: number | undefined;
    rssAtCountMb: number | undefined;
    rssAfterDeleteMb: number | undefined;
    /** A few idle seconds after the deletes. */
    rssSettledMb: number | undefined;
  };
  latency: Latency[];
}

/** Lists a test reads on the workspace it uses, as the throughput bench does. */
const LATENCY_PATHS = ['/v1/connections', '/v1/posts?limit=20'];
const SETTLE_MS = 5_000;
const FIRST_USE_SAMPLE = 200;

const mb = (bytes: number) => Math.round(bytes / 1e5) / 10;
const round = (ms: number, places = 3) => Math.round(ms * 10 ** places) / 10 ** places;

function heapAfterCollecting(): number {
  // Twice: what the first collection finalised is freed by the second.
  collectGarbage();
  collectGarbage();
  return process.memoryUsage().heapUsed;
}

function timers(): number {
  return process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
}

/** The registry called directly: creation cost, retained heap, first use, and the heap after deleting them all. */
async function inProcess(count: number): Promise<WorkspaceScaleResult['inProcess']> {
  // A running clock, as a shared server has: an eager world would arm a timer for its first job.
  const server = await createMockServer({ seed: 1, rateLimit: false });
  try {
    const { registry } = server;
    // Warm-up: the fixture file is read and the code paths compiled before anything is timed.
    for (let i = 0; i < 100; i++) registry.delete(registry.create().data.id);
    const heapBefore = heapAfterCollecting();
    const timersBefore = timers();
    const ids: string[] = [];
    const began = performance.now();
    for (let i = 0; i < count; i++) ids.push(registry.create().data.id);
    const createMs = (performance.now() - began) / count;
    const timersAdded = timers() - timersBefore;
    const heapAtCount = heapAfterCollecting();

    const firstUse: number[] = [];
    for (const id of ids.slice(0, FIRST_USE_SAMPLE)) {
      const started = performance.now();
      registry.get(id);
      firstUse.push(performance.now() - started);
    }
    for (const id of ids) registry.delete(id);
    const heapAfterDelete = heapAfterCollecting();
    return {
      createMs: round(createMs),
      retainedKb: Math.round(((heapAtCount - heapBefore) / count / 1024) * 100) / 100,
      timersAdded,
      firstUseMs: round(percentile(firstUse.sort((a, b) => a - b), 0.5), 2),
      heapBeforeMb: mb(heapBefore),
      heapAtCountMb: mb(heapAtCount),
      heapAfterDeleteMb: mb(heapAfterDelete),
    };
  } finally {
    await server.close();
  }
}

async function latencies(baseUrl: string, seconds: number): Promise<Array<{ p50Ms: number; p99Ms: number }>> {
  const out: Array<{ p50Ms: number; p99Ms: number }> = [];
  for (const path of LATENCY_PATHS) {
    const result = await runLoad({ url: baseUrl, connections: 1, seconds, requests: [{ method: 'GET', path, headers: { 'x-api-key': DEFAULT_API_KEY } }] });
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`GET ${path}: ${result.non2xx} answers not 2xx, ${result.errors} errors`);
    out.push({ p50Ms: result.p50Ms, p99Ms: result.p99Ms });
  }
  return out;
}

/** Times each request of `paths`, one after the other on one connection. */
async function timed(baseUrl: string, method: string, paths: readonly string[], expected: number, onAnswer: (text: string) => void = () => undefined): Promise<number[]> {
  const times: number[] = [];
  for (const path of paths) {
    const started = performance.now();
    const answer = await call(baseUrl, method, path);
    times.push(performance.now() - started);
    if (answer.status !== expected) throw new Error(`${method} ${path} answered ${answer.status}: ${answer.text.slice(0, 200)}`);
    onAnswer(answer.text);
  }
  return times;
}

/** The built mock in its own process: creation over HTTP, RSS, deletes, and latency with one and with `count` workspaces. */
async function overHttp(options: WorkspaceScaleOptions): Promise<{ overHttp: WorkspaceScaleResult['overHttp']; latency: Latency[] }> {
  const port = await freePort();
  const server: ServerProcess = startProcess(serverSpec('mock', options.root, port, {}, { extra: ['--clock', SCALE_CLOCK] }), options.pinning);
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await waitForOk(server, { url: `${baseUrl}/v1/connections`, headers: { 'x-api-key': DEFAULT_API_KEY } }, 180_000);
    // The first creation and delete compile their routes' validators.
    const warm: string[] = [];
    await timed(baseUrl, 'POST', ['/__control/workspaces'], 201, (text) => warm.push((JSON.parse(text) as { workspaceId: string }).workspaceId));
    await timed(baseUrl, 'DELETE', warm.map((id) => `/__control/workspaces/${id}`), 200);

    // A first run warms the routes up, so the one-workspace figures are not those of a cold process.
    await latencies(baseUrl, 1);
    const one = await latencies(baseUrl, options.seconds);
    const rssBeforeMb = server.memory()?.rssMb;
    const ids: string[] = [];
    const cpuBefore = server.cpuSeconds();
    const creates = await timed(baseUrl, 'POST', Array.from({ length: options.count }, () => '/__control/workspaces'), 201, (text) => ids.push((JSON.parse(text) as { workspaceId: string }).workspaceId));
    const cpuAfter = server.cpuSeconds();
    const rssAtCountMb = server.memory()?.rssMb;
    options.log(`  ${options.count} created over HTTP, RSS ${rssAtCountMb} MB (${rssBeforeMb} MB before)`);
    const many = await latencies(baseUrl, options.seconds);
    const deletes = await timed(baseUrl, 'DELETE', ids.map((id) => `/__control/workspaces/${id}`), 200);
    const rssAfterDeleteMb = server.memory()?.rssMb;
    await sleep(SETTLE_MS);
    const rssSettledMb = server.memory()?.rssMb;

    const sorted = [...creates].sort((a, b) => a - b);
    const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
    return {
      overHttp: {
        createCpuMs: cpuBefore === undefined || cpuAfter === undefined ? undefined : round(((cpuAfter - cpuBefore) * 1000) / options.count),
        createMeanMs: round(mean(creates)),
        createP50Ms: round(percentile(sorted, 0.5)),
        createP99Ms: round(percentile(sorted, 0.99)),
        deleteMeanMs: round(mean(deletes)),
        rssBeforeMb,
        rssAtCountMb,
        rssAfterDeleteMb,
        rssSettledMb,
      },
      latency: LATENCY_PATHS.map((path, i) => {
        const oneWorkspace = one[i] ?? { p50Ms: Number.NaN, p99Ms: Number.NaN };
        const manyWorkspaces = many[i] ?? { p50Ms: Number.NaN, p99Ms: Number.NaN };
        return { path, oneWorkspace, manyWorkspaces, p50Ratio: round(manyWorkspaces.p50Ms / oneWorkspace.p50Ms, 2), p99Ratio: round(manyWorkspaces.p99Ms / oneWorkspace.p99Ms, 2) };
      }),
    };
  } finally {
    await server.stop();
  }
}

export async function measureWorkspaceScale(options: WorkspaceScaleOptions): Promise<WorkspaceScaleResult> {
  options.log(`\nworkspaces: ${options.count} fresh ones with the fixture world`);
  const direct = await inProcess(options.count);
  options.log(`  in process: create ${direct.createMs} ms each, ${direct.retainedKb} KB retained each, ${direct.timersAdded} timers added; first use builds the world in ${direct.firstUseMs} ms`);
  options.log(`  heap ${direct.heapBeforeMb} MB before, ${direct.heapAtCountMb} MB with ${options.count}, ${direct.heapAfterDeleteMb} MB after deleting them`);
  const served = await overHttp(options);
  options.log(`  over HTTP: create ${served.overHttp.createCpuMs ?? '?'} ms of server CPU each; round trip ${served.overHttp.createMeanMs} ms mean (p50 ${served.overHttp.createP50Ms}, p99 ${served.overHttp.createP99Ms}); delete ${served.overHttp.deleteMeanMs} ms each`);
  options.log(`  RSS ${served.overHttp.rssAfterDeleteMb} MB right after deleting them, ${served.overHttp.rssSettledMb} MB ${SETTLE_MS / 1000} s later`);
  for (const row of served.latency) {
    options.log(`  ${row.path}: p50 ${row.oneWorkspace.p50Ms} → ${row.manyWorkspaces.p50Ms} ms (${row.p50Ratio}×), p99 ${row.oneWorkspace.p99Ms} → ${row.manyWorkspaces.p99Ms} ms (${row.p99Ratio}×)`);
  }
  return { count: options.count, inProcess: direct, ...served };
}

/** The figures as a table, one row per measure. */
export function workspaceRows(result: WorkspaceScaleResult): string[][] {
  const { inProcess: direct, overHttp: served } = result;
  return [
    ['create, in process', `${direct.createMs} ms per workspace`],
    ['create, POST /__control/workspaces: server CPU', `${served.createCpuMs ?? '–'} ms per workspace`],
    ['create, POST /__control/workspaces: round trip', `${served.createMeanMs} ms mean (p50 ${served.createP50Ms}, p99 ${served.createP99Ms})`],
    ['heap retained per fresh workspace', `${direct.retainedKb} KB`],
    ['real timers added by fresh workspaces', String(direct.timersAdded)],
    ['first use (world built), in process', `${direct.firstUseMs} ms`],
    [`heap: before / ${result.count} / after deleting`, `${direct.heapBeforeMb} / ${direct.heapAtCountMb} / ${direct.heapAfterDeleteMb} MB`],
    [`server RSS: before / ${result.count} / after deleting / settled`, `${served.rssBeforeMb ?? '–'} / ${served.rssAtCountMb ?? '–'} / ${served.rssAfterDeleteMb ?? '–'} / ${served.rssSettledMb ?? '–'} MB`],
    ['delete, DELETE /__control/workspaces/{id}', `${served.deleteMeanMs} ms mean`],
    ...result.latency.map((row) => [`GET ${row.path}, 1 connection: 1 vs ${result.count} workspaces`, `p50 ${row.oneWorkspace.p50Ms} / ${row.manyWorkspaces.p50Ms} ms (${row.p50Ratio}×), p99 ${row.oneWorkspace.p99Ms} / ${row.manyWorkspaces.p99Ms} ms (${row.p99Ratio}×)`]),
  ];
}

/** Item 2's targets and item 3's latency target, judged on this run. */
export function workspaceTargets(result: WorkspaceScaleResult): TargetResult[] {
  const { inProcess: direct, overHttp: served } = result;
  const out: TargetResult[] = [
    { target: 'fresh workspace ≤ 0.5 ms to create', scope: 'in process', value: `${direct.createMs} ms`, met: direct.createMs <= 0.5 },
    // Over HTTP, the server's CPU per request: the round trip adds the client's work and whatever else holds the cores.
    {
      target: 'fresh workspace ≤ 0.5 ms to create',
      scope: 'POST /__control/workspaces, server CPU',
      value: `${served.createCpuMs ?? '?'} ms (round trip p50 ${served.createP50Ms} ms)`,
      met: served.createCpuMs === undefined ? undefined : served.createCpuMs <= 0.5,
    },
    { target: 'fresh workspace ≤ 20 KB retained', scope: 'heap after full collections', value: `${direct.retainedKb} KB`, met: direct.retainedKb <= 20 },
    { target: 'an idle workspace holds no timers', scope: `${result.count} fresh, running clock`, value: String(direct.timersAdded), met: direct.timersAdded <= 0 },
    { target: `${result.count} fresh workspaces < 500 MB RSS`, scope: 'server process', value: `${served.rssAtCountMb ?? '?'} MB`, met: served.rssAtCountMb === undefined ? undefined : served.rssAtCountMb < 500 },
    {
      target: 'deleting them returns the memory',
      scope: 'heap after full collections, in process',
      value: `${direct.heapAfterDeleteMb} MB vs ${direct.heapBeforeMb} MB before`,
      met: direct.heapAfterDeleteMb <= direct.heapBeforeMb * 1.05 + 1,
    },
  ];
  for (const row of result.latency) {
    out.push({ target: `latency at ${result.count} workspaces ≤ 1.2× one`, scope: `GET ${row.path} p50`, value: `${row.p50Ratio}×`, met: row.p50Ratio <= 1.2 });
  }
  return out;
}
