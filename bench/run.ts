/**
 * `npm run bench`: the mock side by side with Prism, a plain Express + validator app
 * and the machine's ceiling, in one run. Each server runs alone in its own process
 * on core 0; autocannon runs here on core 1. Prints the tables and writes them as
 * JSON to bench/results/<timestamp>.json.
 *
 * BENCH_SECONDS (10), BENCH_CONNECTIONS (50), BENCH_WARMUP_SECONDS (2),
 * BENCH_START_RUNS (5), BENCH_WORKSPACES (32), BENCH_ADVANCE_MS (200; 0 stops the
 * clock driver), BENCH_SERVERS and BENCH_WORKLOADS (comma-separated ids),
 * BENCH_BASELINE_TUNED=1 (the Express baseline gets the mock's validator
 * workarounds, isolating the mock's own pipeline) and BENCH_MOCK_ENTRY (another
 * build's bin.js) change it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBuilt } from './lib/build.js';
import { call, callJson, ClockDriver, DEFAULT_POOL_WORKSPACES, destinationPairs, workspacePool, type ConnectionSummary } from './lib/client.js';
import { fixturePostViews } from './lib/fixture-posts.js';
import { runLoad } from './lib/load.js';
import { detectPinning, freePort, sleep, startProcess, waitForOk, type Pinning, type ServerProcess } from './lib/processes.js';
import { evaluateTargets, measurementTable, ratios, ratioTable, startupTable, targetTable, type Measurement, type StartupResult } from './lib/report.js';
import { baselineTuned, DEFAULT_API_KEY, mockEntry, SERVER_LABELS, serverSpec, type ServerFiles } from './lib/servers.js';
import { median } from './lib/stats.js';
import { createPostBody, probeRequests, SERVER_IDS, WORKLOADS, type ServerId, type Target, type Workload } from './lib/workloads.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number; got '${raw}'`);
  return value;
}

function envList<T extends string>(name: string, all: readonly T[]): T[] {
  const raw = process.env[name];
  if (!raw) return [...all];
  const wanted = raw.split(',').map((s) => s.trim());
  for (const id of wanted) if (!(all as readonly string[]).includes(id)) throw new Error(`${name}: unknown '${id}' (known: ${all.join(', ')})`);
  return all.filter((id) => wanted.includes(id));
}

const settings = {
  seconds: envInt('BENCH_SECONDS', 10),
  connections: envInt('BENCH_CONNECTIONS', 50),
  warmupSeconds: envInt('BENCH_WARMUP_SECONDS', 2),
  startRuns: envInt('BENCH_START_RUNS', 5),
  workspaces: Math.max(1, envInt('BENCH_WORKSPACES', DEFAULT_POOL_WORKSPACES)),
  advanceMs: envInt('BENCH_ADVANCE_MS', 200),
  servers: envList('BENCH_SERVERS', SERVER_IDS),
  workloads: envList(
    'BENCH_WORKLOADS',
    WORKLOADS.map((w) => w.id),
  ),
};

const log = (line: string) => console.log(line);

interface Started {
  process: ServerProcess;
  baseUrl: string;
}

async function start(id: ServerId, files: ServerFiles, pinning: Pinning): Promise<Started> {
  const port = await freePort();
  const server = startProcess(serverSpec(id, ROOT, port, files), pinning);
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitForOk(server, { url: `${baseUrl}/v1/connections`, headers: { 'x-api-key': DEFAULT_API_KEY } });
  return { process: server, baseUrl };
}

/** Spawn to first successful `GET /v1/connections`, `runs` times, one server at a time. */
async function measureStartup(id: ServerId, runs: number, pinning: Pinning): Promise<StartupResult> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const port = await freePort();
    const server = startProcess(serverSpec(id, ROOT, port), pinning);
    try {
      times.push(Math.round(await waitForOk(server, { url: `http://127.0.0.1:${port}/v1/connections`, headers: { 'x-api-key': DEFAULT_API_KEY } })));
    } finally {
      await server.stop();
    }
    await sleep(200);
  }
  return { server: id, runs: times, medianMs: median(times) };
}

/**
 * Each operation of the workload is called once first: an operation that answers
 * 501 makes the workload "not implemented" on this server, any other failure an
 * error; neither is load-tested, since a table of fast error answers would lie.
 */
async function probe(baseUrl: string, workload: Workload, target: Target): Promise<Pick<Measurement, 'status' | 'detail'>> {
  const missing = new Set<string>();
  for (const { operationId, request } of probeRequests(workload, target)) {
    const answer = await call(baseUrl, request.method ?? 'GET', request.path ?? '/', { body: request.body, headers: request.headers ?? {} });
    if (answer.status === 501) missing.add(operationId);
    else if (answer.status >= 300) return { status: 'error', detail: `${operationId} answered ${answer.status}: ${answer.text.slice(0, 200)}` };
  }
  return missing.size > 0 ? { status: 'not-implemented', detail: [...missing].join(', ') } : { status: 'ok' };
}

async function measure(id: ServerId, started: Started, workload: Workload, target: Target, driver: ClockDriver | undefined): Promise<Measurement> {
  const connections = workload.connections === 'load' ? settings.connections : workload.connections;
  const base: Measurement = { server: id, workload: workload.id, title: workload.title, connections, status: 'ok' };
  const probed = await probe(started.baseUrl, workload, target);
  if (probed.status !== 'ok') {
    log(`  ${workload.title}: ${probed.status}${probed.detail ? ` (${probed.detail})` : ''}`);
    return { ...base, ...probed };
  }
  if (workload.creates) {
    // A first tick before the load: a fresh workspace's first virtual day (its fixture's due work) would otherwise hold the first tick back for seconds.
    await driver?.tick();
    driver?.start();
  }
  const ticksBefore = driver?.ticks ?? 0;
  const cpuBefore = started.process.cpuSeconds();
  const result = await runLoad({ url: started.baseUrl, connections, seconds: settings.seconds, requests: workload.requests(target).map((r) => r.request) });
  const cpuAfter = started.process.cpuSeconds();
  await driver?.stop();
  const memory = started.process.memory();
  const cpu = cpuBefore !== undefined && cpuAfter !== undefined && result.total > 0 ? cpuAfter - cpuBefore : undefined;
  const ticks = (driver?.ticks ?? 0) - ticksBefore;
  const publishing = workload.creates && driver && ticks > 0 ? await tickCpuSeconds(started, driver, target, (result.statuses['201'] ?? 0) / ticks) : undefined;
  const measurement: Measurement = {
    ...base,
    result,
    ...(memory && { rssMb: memory.rssMb, peakRssMb: memory.peakRssMb }),
    ...(cpu !== undefined && { cpuUsPerRequest: Math.round((cpu / result.total) * 1e6), cpuShare: Math.round((cpu / result.seconds) * 100) / 100 }),
    ...(publishing !== undefined && { publishingUsPerRequest: Math.round(((publishing * ticks) / result.total) * 1e6) }),
  };
  const odd = result.non2xx > 0 || result.errors > 0 ? `  (${result.non2xx} non-2xx, ${result.errors} errors: ${JSON.stringify(result.statuses)})` : '';
  log(
    `  ${workload.title}: ${result.requestsPerSecond} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, RSS ${memory?.rssMb ?? '?'} MB, ` +
      `${measurement.cpuUsPerRequest ?? '?'} µs CPU/request (server CPU use ${measurement.cpuShare === undefined ? '?' : Math.round(measurement.cpuShare * 100)}%)${odd}`,
  );
  return measurement;
}

/** Ticks replayed alone to time one (after one that publishes what the load left). */
const TIMED_TICKS = 2;

/**
 * What one clock-driver tick of a creating workload costs the server: a virtual
 * day of the pool's workspaces (publishing that tick's posts, renewing tokens),
 * work the Express baseline does none of. With the load stopped, each timed tick
 * follows as many new posts as a tick of the load saw and runs alone, its server
 * CPU read around it; the median of them, in CPU seconds.
 */
async function tickCpuSeconds(started: Started, driver: ClockDriver, target: Target, postsPerTick: number): Promise<number | undefined> {
  await driver.tick();
  const seconds: number[] = [];
  let n = 0;
  for (let i = 0; i < TIMED_TICKS; i++) {
    const due = n + Math.round(postsPerTick);
    // Ten at a time, as a client would send them; velocity windows are fresh after the tick before.
    const sender = async () => {
      for (let k = n++; k < due; k = n++) {
        const pair = target.pairs[k % target.pairs.length];
        if (pair) await call(started.baseUrl, 'POST', '/v1/posts', { apiKey: pair.apiKey, body: createPostBody(k, pair) });
      }
    };
    await Promise.all(Array.from({ length: 10 }, sender));
    n = due;
    const before = started.process.cpuSeconds();
    await driver.tick();
    const after = started.process.cpuSeconds();
    if (before !== undefined && after !== undefined) seconds.push(after - before);
  }
  return seconds.length > 0 ? median(seconds) : undefined;
}

interface MockCapture {
  connectionsBody: string;
  connections: ConnectionSummary[];
  accounts: unknown[];
  posts: unknown[] | undefined;
}

/** What the other servers serve, taken from the mock itself so the bytes match. */
async function captureMockData(baseUrl: string): Promise<MockCapture> {
  const connectionsAnswer = await call(baseUrl, 'GET', '/v1/connections', { apiKey: DEFAULT_API_KEY });
  const connections = (JSON.parse(connectionsAnswer.text) as { connections: ConnectionSummary[] }).connections;
  const accounts = (await callJson<{ data: unknown[] }>(baseUrl, 'GET', '/v1/accounts?limit=100', { apiKey: DEFAULT_API_KEY })).data;
  const postsAnswer = await call(baseUrl, 'GET', '/v1/posts?limit=100', { apiKey: DEFAULT_API_KEY });
  const posts = postsAnswer.status === 200 ? (JSON.parse(postsAnswer.text) as { data: unknown[] }).data : undefined;
  return { connectionsBody: connectionsAnswer.text, connections, accounts, posts };
}

/** The mock's posts go to a pool of workspaces (lib/client.ts), made only when `POST /v1/posts` exists. */
async function mockTarget(baseUrl: string, capture: MockCapture): Promise<{ target: Target; keys: string[] }> {
  return workspacePool(baseUrl, capture.connections, settings.workspaces);
}

type TargetFor = (baseUrl: string) => Promise<{ target: Target; keys: string[] }>;

/** Warms the started server up, then runs every workload meant for it. */
async function benchStarted(id: ServerId, started: Started, targetFor: TargetFor): Promise<Measurement[]> {
  const measurements: Measurement[] = [];
  const { target, keys } = await targetFor(started.baseUrl);
  const driver = id === 'mock' ? new ClockDriver(started.baseUrl, keys, settings.advanceMs) : undefined;
  if (settings.warmupSeconds > 0) {
    await runLoad({ url: started.baseUrl, connections: settings.connections, seconds: settings.warmupSeconds, requests: WORKLOADS[0]?.requests(target).map((r) => r.request) ?? [] });
  }
  for (const workload of WORKLOADS) {
    if (!workload.servers.includes(id) || !settings.workloads.includes(workload.id)) continue;
    measurements.push(await measure(id, started, workload, target, driver));
  }
  if (driver && driver.ticks > 0) log(`  clock driver: ${driver.ticks} ticks × ${keys.length} workspaces (a virtual day each), ${driver.jobsRun} jobs run, ${driver.failures} failed advances`);
  return measurements;
}

async function benchServer(id: ServerId, files: ServerFiles, pinning: Pinning, targetFor: TargetFor): Promise<Measurement[]> {
  log(`\n${id}: ${SERVER_LABELS[id]}`);
  const started = await start(id, files, pinning);
  try {
    return await benchStarted(id, started, targetFor);
  } finally {
    await started.process.stop();
  }
}

async function main(): Promise<void> {
  const began = performance.now();
  const pinning = detectPinning();
  log(`social-gateway-mock bench: Node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}); ${pinning.note}`);
  log(`${settings.seconds} s per run, ${settings.connections} connections, warm-up ${settings.warmupSeconds} s`);
  const loadBefore = loadavg()[0] ?? 0;
  if (loadBefore > 0.5) {
    log(`the machine is busy (load average ${loadBefore.toFixed(1)} on ${cpus().length} cores): figures will be lower and noisier than on an idle machine; compare ratios within this run only, and CPU µs per request rather than req/s`);
  }
  ensureBuilt(ROOT, log);

  const startup: StartupResult[] = [];
  for (const id of ['mock', 'prism'] as const) {
    if (!settings.servers.includes(id) || settings.startRuns === 0) continue;
    const result = await measureStartup(id, settings.startRuns, pinning);
    log(`start to first 200, ${id}: median ${result.medianMs} ms (${result.runs.join(', ')})`);
    startup.push(result);
  }

  const scratch = mkdtempSync(join(tmpdir(), 'sgw-bench-'));
  const measurements: Measurement[] = [];
  try {
    // The mock runs first, even when it is not measured: the others serve its data.
    if (settings.servers.includes('mock')) log(`\nmock: ${SERVER_LABELS.mock}`);
    const mock = await start('mock', {}, pinning);
    let capture: MockCapture;
    try {
      capture = await captureMockData(mock.baseUrl);
      if (settings.servers.includes('mock')) measurements.push(...(await benchStarted('mock', mock, (url) => mockTarget(url, capture))));
    } finally {
      await mock.process.stop();
    }
    const files: ServerFiles = { ceilingBody: join(scratch, 'ceiling.json'), baselineData: join(scratch, 'baseline.json') };
    writeFileSync(files.ceilingBody as string, capture.connectionsBody);
    const posts = capture.posts ?? (await fixturePostViews());
    writeFileSync(files.baselineData as string, JSON.stringify({ apiKey: DEFAULT_API_KEY, connections: capture.connections, accounts: capture.accounts, posts }));
    log(`mock's GET /v1/connections body: ${Buffer.byteLength(capture.connectionsBody)} bytes (the ceiling serves the same bytes)`);
    const plainTarget = async () => ({ target: { apiKey: DEFAULT_API_KEY, pairs: destinationPairs(DEFAULT_API_KEY, capture.connections) }, keys: [DEFAULT_API_KEY] });

    for (const id of settings.servers) {
      if (id !== 'mock') measurements.push(...(await benchServer(id, files, pinning, plainTarget)));
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }

  const ratioList = ratios(measurements);
  const targets = evaluateTargets(ratioList, startup);
  log('\n## Throughput, latency, memory\n');
  log(measurementTable(measurements));
  log('\n## Ratios (same run)\n');
  log(ratioTable(ratioList));
  if (startup.length > 0) {
    log('\n## Start to first 200 (spawn → first 200 on GET /v1/connections)\n');
    log(startupTable(startup));
  }
  log('\n## Targets\n');
  log(targetTable(targets));

  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const dir = join(ROOT, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${stamp}.json`);
  writeFileSync(
    file,
    `${JSON.stringify(
      {
        kind: 'bench',
        at: new Date().toISOString(),
        machine: { node: process.version, cores: cpus().length, cpu: cpus()[0]?.model, pinning, loadAverageBefore: loadBefore, loadAverageAfter: loadavg()[0] },
        settings: { ...settings, baselineTuned: baselineTuned(), mockEntry: mockEntry() },
        servers: Object.fromEntries(settings.servers.map((id) => [id, SERVER_LABELS[id]])),
        measurements,
        ratios: ratioList,
        startup,
        targets,
        tookSeconds: Math.round((performance.now() - began) / 1000),
      },
      null,
      2,
    )}\n`,
  );
  log(`\nload average ${loadBefore.toFixed(1)} before, ${(loadavg()[0] ?? 0).toFixed(1)} after; wrote ${file} (${Math.round((performance.now() - began) / 1000)} s in all)`);
}

await main();
