/**
 * `npm run bench`: the mock side by side with Prism, a plain Express + validator app
 * and the machine's ceiling, in one run. Each server runs in its own process on
 * core 0, all started at once and loaded one at a time; autocannon runs here on
 * core 1. Each server warms up on each workload (BENCH_WARMUP_SECONDS) before it is
 * measured on it, then the workload runs in rounds that take the servers in turns (A B C,
 * then C B A), so a change in the machine's load falls on all of them alike; the mock's
 * ratio to each server is the median of the rounds' ratios. Prints the tables and writes
 * them as JSON to bench/results/<timestamp>.json.
 *
 * BENCH_SECONDS (10 per server and workload), BENCH_ROUNDS (5; the seconds are
 * split over them), BENCH_CONNECTIONS (50), BENCH_WARMUP_SECONDS (2),
 * BENCH_START_RUNS (5), BENCH_WORKSPACES (64), BENCH_ADVANCE_MS (200; 0 stops the
 * clock driver), BENCH_SERVERS and BENCH_WORKLOADS (comma-separated ids),
 * BENCH_BASELINE_TUNED=1 (the Express baseline gets the mock's validator
 * workarounds, isolating the mock's own pipeline) and BENCH_MOCK_ENTRY (another
 * build's bin.js) change it. After the comparison it runs the growth measure of
 * `npm run bench:growth` with 5 s per size and workload in five rounds (BENCH_GROWTH=0 leaves it
 * out; BENCH_GROWTH_* as there), so the growth ratios and the Prism ratios are both
 * in the log.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBuilt } from './lib/build.js';
import { call, callJson, ClockDriver, DEFAULT_POOL_WORKSPACES, destinationPairs, workspacePool, type ConnectionSummary } from './lib/client.js';
import { fixturePostViews } from './lib/fixture-posts.js';
import { runLoad, type LoadResult } from './lib/load.js';
import { detectPinning, freePort, sleep, startProcess, waitForOk, type Pinning, type ServerProcess } from './lib/processes.js';
import { growthNote, growthSettings, growthTable, measureGrowth, type GrowthResult } from './lib/growth.js';
import { budgetTable, evaluateTargets, growthTargets, measurementTable, ratios, ratioTable, startupTable, targetTable, type Measurement, type StartupResult } from './lib/report.js';
import { baselineTuned, DEFAULT_API_KEY, mockEntry, SERVER_LABELS, serverSpec, type ServerFiles } from './lib/servers.js';
import { median, pairedRatios } from './lib/stats.js';
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
  rounds: Math.max(1, envInt('BENCH_ROUNDS', 5)),
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

/** The servers started for the comparison, all stopped at the end whatever happens. */
const running = new Set<ServerProcess>();

async function start(id: ServerId, files: ServerFiles, pinning: Pinning): Promise<Started> {
  const port = await freePort();
  const server = startProcess(serverSpec(id, ROOT, port, files), pinning);
  running.add(server);
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

/** A server under test, started, with what its requests go to (and, for the mock, its clock driver). */
interface Contender {
  id: ServerId;
  started: Started;
  target: Target;
  driver: ClockDriver | undefined;
}

interface Round {
  result: LoadResult;
  /** Server CPU seconds during the round. */
  cpu: number | undefined;
  /** Clock-driver ticks during the round. */
  ticks: number;
}

/** One round of a workload on one server: the load, and the server's CPU around it. */
async function runRound(contender: Contender, workload: Workload, seconds: number): Promise<Round> {
  const { started, driver, target } = contender;
  const creates = workload.creates && driver !== undefined;
  if (creates) {
    // A tick before the load: a fresh workspace's first virtual day (its fixture's due work) would otherwise hold the first tick back for seconds.
    await driver.tick();
    driver.start();
  }
  const ticksBefore = driver?.ticks ?? 0;
  const connections = workload.connections === 'load' ? settings.connections : workload.connections;
  const cpuBefore = started.process.cpuSeconds();
  const result = await runLoad({ url: started.baseUrl, connections, seconds, requests: workload.requests(target).map((r) => r.request) });
  const cpuAfter = started.process.cpuSeconds();
  if (creates) await driver.stop();
  return { result, cpu: cpuBefore !== undefined && cpuAfter !== undefined ? cpuAfter - cpuBefore : undefined, ticks: (driver?.ticks ?? 0) - ticksBefore };
}

/** The rounds of one server as one run: counts summed, latencies the median of the rounds'. */
function combine(rounds: readonly Round[]): { result: LoadResult; cpu: number | undefined; ticks: number } {
  const results = rounds.map((r) => r.result);
  const statuses: Record<string, number> = {};
  for (const result of results) for (const [status, count] of Object.entries(result.statuses)) statuses[status] = (statuses[status] ?? 0) + count;
  const sum = (pick: (result: LoadResult) => number) => results.reduce((total, result) => total + pick(result), 0);
  const seconds = sum((r) => r.seconds);
  const total = sum((r) => r.total);
  const cpus = rounds.map((r) => r.cpu);
  return {
    result: {
      requestsPerSecond: seconds > 0 ? Math.round(total / seconds) : 0,
      p50Ms: Math.round(median(results.map((r) => r.p50Ms)) * 100) / 100,
      p99Ms: Math.round(median(results.map((r) => r.p99Ms)) * 100) / 100,
      total,
      non2xx: sum((r) => r.non2xx),
      errors: sum((r) => r.errors),
      statuses,
      seconds,
      bytesPerResponse: total > 0 ? Math.round(sum((r) => r.bytesPerResponse * r.total) / total) : 0,
    },
    cpu: cpus.every((cpu) => cpu !== undefined) ? cpus.reduce((a, b) => (a as number) + (b as number), 0) : undefined,
    ticks: rounds.reduce((total, r) => total + r.ticks, 0),
  };
}

/** One workload on every server meant for it, in rounds that take the servers in turns. */
async function measureWorkload(contenders: readonly Contender[], workload: Workload): Promise<Measurement[]> {
  const connections = workload.connections === 'load' ? settings.connections : workload.connections;
  const measurements: Measurement[] = [];
  const ready: Contender[] = [];
  log(`\n${workload.title}`);
  for (const contender of contenders) {
    if (!workload.servers.includes(contender.id)) continue;
    const probed = await probe(contender.started.baseUrl, workload, contender.target);
    if (probed.status === 'ok') ready.push(contender);
    else {
      log(`  ${contender.id}: ${probed.status}${probed.detail ? ` (${probed.detail})` : ''}`);
      measurements.push({ server: contender.id, workload: workload.id, title: workload.title, connections, ...probed });
    }
  }
  // Each server warms up on this workload before its first measured round: a workload's first seconds
  // are the JIT compiling its code (the mock's created post ran at half its rate in its first three seconds).
  if (settings.warmupSeconds > 0) for (const contender of ready) await runRound(contender, workload, settings.warmupSeconds);
  const rounds = new Map<ServerId, Round[]>(ready.map((c) => [c.id, []]));
  const seconds = Math.max(1, Math.round(settings.seconds / settings.rounds));
  for (let r = 0; r < settings.rounds; r++) {
    for (const contender of r % 2 === 0 ? ready : [...ready].reverse()) rounds.get(contender.id)?.push(await runRound(contender, workload, seconds));
  }
  for (const contender of ready) {
    const { result, cpu, ticks } = combine(rounds.get(contender.id) ?? []);
    const memory = contender.started.process.memory();
    const driver = contender.driver;
    const publishing = workload.creates && driver && ticks > 0 ? await tickCpuSeconds(contender.started, driver, contender.target, (result.statuses['201'] ?? 0) / ticks) : undefined;
    const measurement: Measurement = {
      server: contender.id,
      workload: workload.id,
      title: workload.title,
      connections,
      status: 'ok',
      result,
      ...(memory && { rssMb: memory.rssMb, peakRssMb: memory.peakRssMb }),
      ...(cpu !== undefined && result.total > 0 && { cpuUsPerRequest: Math.round((cpu / result.total) * 1e6), cpuShare: Math.round((cpu / result.seconds) * 100) / 100 }),
      ...(publishing !== undefined && { publishingUsPerRequest: Math.round(((publishing * ticks) / result.total) * 1e6) }),
      rounds: (rounds.get(contender.id) ?? []).map((round) => ({ result: { total: round.result.total, seconds: round.result.seconds }, cpu: round.cpu })),
    };
    const odd = result.non2xx > 0 || result.errors > 0 ? `  (${result.non2xx} non-2xx, ${result.errors} errors: ${JSON.stringify(result.statuses)})` : '';
    log(
      `  ${contender.id}: ${result.requestsPerSecond} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, ${result.bytesPerResponse} B an answer, RSS ${memory?.rssMb ?? '?'} MB, ` +
        `${measurement.cpuUsPerRequest ?? '?'} µs CPU/request${measurement.publishingUsPerRequest !== undefined ? ` (${measurement.publishingUsPerRequest} of them publishing)` : ''} ` +
        `(server CPU use ${measurement.cpuShare === undefined ? '?' : Math.round(measurement.cpuShare * 100)}%)${odd}`,
    );
    measurements.push(measurement);
  }
  const mockRounds = measurements.find((m) => m.server === 'mock' && m.status === 'ok')?.rounds;
  const prismRounds = measurements.find((m) => m.server === 'prism' && m.status === 'ok')?.rounds;
  if (mockRounds && prismRounds) {
    const paired = pairedRatios(prismRounds, mockRounds);
    log(`  mock/Prism round by round: ${paired.roundRatios.map((r) => `${r.toFixed(2)}×`).join(', ')}; the median ${paired.ratio?.toFixed(2) ?? '?'}× (per CPU-s ${paired.cpuRatio?.toFixed(2) ?? '?'}×)`);
  }
  return measurements;
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
  /** The mock's answer to a post created as the workload creates them (undefined where it has no POST /v1/posts). */
  createdBody: string | undefined;
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
  const pair = destinationPairs(DEFAULT_API_KEY, connections)[0];
  const createdAnswer = pair ? await call(baseUrl, 'POST', '/v1/posts', { apiKey: DEFAULT_API_KEY, body: createPostBody(0, pair) }) : undefined;
  return { connectionsBody: connectionsAnswer.text, createdBody: createdAnswer?.status === 201 ? createdAnswer.text : undefined, connections, accounts, posts };
}

/** The mock's posts go to a pool of workspaces (lib/client.ts), made only when `POST /v1/posts` exists. */
async function mockTarget(baseUrl: string, capture: MockCapture): Promise<{ target: Target; keys: string[] }> {
  return workspacePool(baseUrl, capture.connections, settings.workspaces);
}

/** Starts a server and warms it up; the mock also gets its pool of workspaces and clock driver. */
async function contender(id: ServerId, files: ServerFiles, pinning: Pinning, targetFor: (baseUrl: string) => Promise<{ target: Target; keys: string[] }>, started?: Started): Promise<Contender> {
  log(`${id}: ${SERVER_LABELS[id]}`);
  const server = started ?? (await start(id, files, pinning));
  const { target, keys } = await targetFor(server.baseUrl);
  const driver = id === 'mock' ? new ClockDriver(server.baseUrl, keys, settings.advanceMs) : undefined;
  if (settings.warmupSeconds > 0) {
    await runLoad({ url: server.baseUrl, connections: settings.connections, seconds: settings.warmupSeconds, requests: WORKLOADS[0]?.requests(target).map((r) => r.request) ?? [] });
  }
  return { id, started: server, target, driver };
}

async function main(): Promise<void> {
  const began = performance.now();
  const pinning = detectPinning();
  log(`social-gateway-mock bench: Node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}); ${pinning.note}`);
  log(`${settings.seconds} s per server and workload in ${settings.rounds} rounds taking the servers in turns, ${settings.connections} connections, a warm-up of ${settings.warmupSeconds} s per server and workload`);
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
  const contenders: Contender[] = [];
  try {
    // The mock starts first, even when it is not measured: the others serve its data.
    const mock = await start('mock', {}, pinning);
    const capture = await captureMockData(mock.baseUrl);
    if (settings.servers.includes('mock')) contenders.push(await contender('mock', {}, pinning, (url) => mockTarget(url, capture), mock));
    else {
      await mock.process.stop();
      running.delete(mock.process);
    }
    const files: ServerFiles = { ceilingBody: join(scratch, 'ceiling.json'), baselineData: join(scratch, 'baseline.json') };
    writeFileSync(files.ceilingBody as string, capture.connectionsBody);
    if (capture.createdBody !== undefined) {
      files.ceilingCreatedBody = join(scratch, 'ceiling-created.json');
      writeFileSync(files.ceilingCreatedBody, capture.createdBody);
    }
    const posts = capture.posts ?? (await fixturePostViews());
    writeFileSync(files.baselineData as string, JSON.stringify({ apiKey: DEFAULT_API_KEY, connections: capture.connections, accounts: capture.accounts, posts }));
    log(`mock's GET /v1/connections body: ${Buffer.byteLength(capture.connectionsBody)} bytes, its created post ${capture.createdBody === undefined ? 'not made' : `${Buffer.byteLength(capture.createdBody)} bytes`} (the ceiling serves the same bytes)`);
    const postId = (posts[0] as { id?: string } | undefined)?.id ?? '00000000-0000-4000-8000-000000000000';
    const plainTarget = async () => ({ target: { apiKey: DEFAULT_API_KEY, postId, pairs: destinationPairs(DEFAULT_API_KEY, capture.connections) }, keys: [DEFAULT_API_KEY] });
    for (const id of settings.servers) {
      if (id !== 'mock') contenders.push(await contender(id, files, pinning, plainTarget));
    }

    for (const workload of WORKLOADS) {
      if (settings.workloads.includes(workload.id)) measurements.push(...(await measureWorkload(contenders, workload)));
    }
    const driver = contenders.find((c) => c.driver)?.driver;
    if (driver && driver.ticks > 0) log(`\nmock's clock driver: ${driver.ticks} ticks × ${settings.workspaces} workspaces (a virtual day each), ${driver.jobsRun} jobs run, ${driver.failures} failed advances`);
  } finally {
    for (const server of running) await server.stop();
    rmSync(scratch, { recursive: true, force: true });
  }

  let growth: GrowthResult | undefined;
  if (process.env.BENCH_GROWTH !== '0') {
    log('\n## Growth: one workspace at each size (bench/lib/growth.ts)\n');
    growth = await measureGrowth(growthSettings({ seconds: 5, rounds: 5 }), ROOT, pinning, log);
  }

  const ratioList = ratios(measurements);
  const targets = [...evaluateTargets(ratioList, startup), ...(growth ? growthTargets(growth.rows, growth.sizes) : [])];
  log('\n## Throughput, latency, memory\n');
  log(measurementTable(measurements));
  log('\n## Ratios (same run)\n');
  log(ratioTable(ratioList));
  const budget = budgetTable(ratioList);
  if (budget !== undefined) {
    log('\n## What the target leaves the mock (CPU µs per request; the ceiling is node:http alone)\n');
    log(budget);
  }
  if (startup.length > 0) {
    log('\n## Start to first 200 (spawn → first 200 on GET /v1/connections)\n');
    log(startupTable(startup));
  }
  if (growth) {
    log('\n## Growth ratios (req/s at each size; largest over smallest)\n');
    log(growthTable(growth));
    log(`\n${growthNote(growth)}`);
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
        growth,
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
