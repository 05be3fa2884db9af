/**
 * npm run soak: a mixed workload at 100 concurrent keep-alive connections for 60 s
 * against an in-process mock, then its figures: requests, req/s, latency
 * percentiles, status histogram, per-operation counts, webhook deliveries received,
 * memory over time. Fails (exit 1) on any 5xx, socket error, unhandled rejection
 * or uncaught exception, or memory kept outside the workspace's records. The posts and
 * inbound records the workload creates are state and grow the heap on purpose, so the
 * workspace is reset after a warm-up (the first quarter) and after the run, and the
 * heap after the second reset must be within 1.2x of that after the first.
 *
 * The workload: connection, account, profile and post lists, profiles created and
 * deleted, posts created (most scheduled), clock advances that publish them and fire
 * webhook deliveries (every event) to a local receiver, and every inbound event of
 * the control plane with its contract's example.
 *
 *   SOAK_SECONDS (60)  SOAK_CONNECTIONS (100)  SOAK_SAMPLE_MS (5000)  SOAK_SEED (1)
 *   SOAK_HEAP_SNAPSHOTS (a folder: a heap snapshot at each reset)
 *
 * Run with --expose-gc (the npm script does) so memory is sampled after a full GC.
 */
import { Agent, createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeHeapSnapshot } from 'node:v8';
import { loadSpec } from '../src/http/spec.js';
import { LatencyHistogram } from './lib/stats.js';
import { createMockServer, DEFAULT_API_KEY } from '../src/server.js';

export interface SoakOptions {
  seconds: number;
  connections: number;
  sampleEveryMs: number;
  seed: number;
  /** A folder to write a heap snapshot into at each reset, to compare them in DevTools. */
  heapSnapshots?: string;
  log: (line: string) => void;
}

export interface MemorySample {
  atSeconds: number;
  rssMb: number;
  heapMb: number;
  /** The records the server keeps, as the JSON `--data` would write (delivery log included). */
  storedMb: number;
}

export interface SoakReport {
  seconds: number;
  connections: number;
  requests: number;
  requestsPerSecond: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number };
  statuses: Record<string, number>;
  operations: Record<string, number>;
  /** The slowest answers, per kind of request: p99 and max in ms. */
  slowest: Record<string, { p99: number; max: number }>;
  socketErrors: number;
  unhandled: string[];
  deliveriesReceived: number;
  clockAdvances: number;
  memory: MemorySample[];
  /** Memory with the workspace reset to its start, after the warm-up (the first quarter) and after the run (null without --expose-gc). */
  afterWarmUp: MemorySample | null;
  afterRun: MemorySample | null;
  /** Heap of afterRun over that of afterWarmUp: what the run made the server keep outside its records. */
  heapKept: number | null;
  problems: string[];
}

interface Response {
  status: number;
  body: unknown;
}

/** Per connection: what it created and the cursor it may follow. */
interface ConnectionState {
  random: () => number;
  profiles: string[];
  cursor: string | null;
  made: number;
}

interface Account {
  id: string;
  platform: string;
  status: string;
}

/** mulberry32: a small seeded PRNG, so a soak's mix repeats for a seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SOAK_CLOCK = '2026-03-02T09:00:00Z';
/** The share of the run that warms up, before the workspace is reset and the heap taken as the base. */
const WARM_UP_SHARE = 0.25;
/** Heap growth between the two resets beyond which the server kept something outside its records. */
const HEAP_KEPT_LIMIT = 1.2;

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const unhandled: string[] = [];
  const onRejection = (reason: unknown) => unhandled.push(`unhandledRejection: ${String(reason)}`);
  const onException = (error: Error) => unhandled.push(`uncaughtException: ${error.message}`);
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);

  // The webhook receiver: answers every delivery 200 at once.
  let deliveriesReceived = 0;
  const receiver: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      deliveriesReceived++;
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

  // --rate-limit off: 600 requests a minute is a budget for one integrator, not for a
  // soak; requests are still counted and the headers still sent.
  const mock = await createMockServer({ seed: options.seed, clock: SOAK_CLOCK, clockFrozen: true, strictResponses: true, rateLimit: false });
  const base = await mock.listen(0);
  const { port } = new URL(base);
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections });

  const call = (method: string, path: string, body?: unknown): Promise<Response> =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      const req = httpRequest(
        { hostname: '127.0.0.1', port, path, method, agent, headers: { 'x-api-key': DEFAULT_API_KEY, ...(payload && { 'Content-Type': 'application/json', 'Content-Length': String(payload.length) }) } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown = undefined;
            try {
              parsed = text === '' ? undefined : JSON.parse(text);
            } catch {
              parsed = text;
            }
            resolve({ status: res.statusCode ?? 0, body: parsed });
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });

  // ---------------------------------------------------------------- the world the workload aims at
  const events = (loadSpec('openapi.yaml').document.components?.schemas?.WebhookEventName as { enum?: string[] } | undefined)?.enum ?? ['post.published'];

  // Inbound events: whatever /__control/inbound/* operations the control contract has, with their own examples.
  const control = loadSpec('control.yaml').document;
  const inbound = Object.entries(control.paths)
    .filter(([path]) => path.startsWith('/__control/inbound/'))
    .map(([path, item]) => ({ path, op: item.post as { operationId?: string; requestBody?: { content?: Record<string, { schema?: { $ref?: string; example?: unknown } }> } } | undefined }))
    .filter(({ op }) => op?.operationId !== undefined)
    .map(({ path, op }) => {
      const schema = op?.requestBody?.content?.['application/json']?.schema;
      const named = schema?.$ref ? (control.components?.schemas?.[schema.$ref.split('/').pop() ?? ''] as { example?: unknown } | undefined) : schema;
      return { path, example: { ...((named?.example ?? {}) as Record<string, unknown>) } };
    });
  if (inbound.length === 0) throw new Error('soak: control.yaml has no /__control/inbound operation');

  /** The accounts the workload aims at, and the webhook to the receiver: made again after a reset. */
  const aim = async () => {
    const accountsRes = await call('GET', '/v1/accounts?limit=100');
    const accounts = ((accountsRes.body as { data?: Account[] }).data ?? []).filter((account) => account.status === 'active');
    const hook = await call('POST', '/v1/webhooks', { name: 'Soak receiver', url: receiverUrl, events });
    if (hook.status !== 201) throw new Error(`soak: the webhook setup answered ${hook.status} ${JSON.stringify(hook.body)}`);
    return {
      accounts,
      // Networks that take a text post without media.
      textAccount: ['bluesky', 'threads', 'linkedin', 'facebook', 'twitter'].map((platform) => accounts.find((account) => account.platform === platform)).find((account) => account !== undefined),
      inboxAccount: accounts.find((account) => ['instagram', 'facebook', 'bluesky'].includes(account.platform)),
    };
  };
  let targets = await aim();
  let virtualNow = Date.parse(SOAK_CLOCK);
  let clockAdvances = 0;

  const localTime = (ms: number) => new Date(ms).toISOString().slice(0, 19);

  /** One kind of request: its weight in the mix, and how to make it. */
  interface Kind {
    name: string;
    weight: number;
    run: (state: ConnectionState, connection: number) => Promise<Response>;
  }
  const kinds: Kind[] = [
    { name: 'listConnections', weight: 3, run: () => call('GET', '/v1/connections') },
    {
      name: 'listAccounts',
      weight: 3,
      run: async (state) => {
        const cursor = state.cursor && state.random() < 0.5 ? `&cursor=${encodeURIComponent(state.cursor)}` : '';
        const res = await call('GET', `/v1/accounts?limit=3${cursor}`);
        state.cursor = (res.body as { nextCursor?: string | null } | undefined)?.nextCursor ?? null;
        return res;
      },
    },
    { name: 'getAccount', weight: 2, run: (state) => call('GET', `/v1/accounts/${targets.accounts[Math.floor(state.random() * targets.accounts.length)]?.id ?? 'none'}`) },
    { name: 'listProfiles', weight: 2, run: () => call('GET', '/v1/profiles?limit=20') },
    {
      name: 'createProfile',
      weight: 2,
      run: async (state, connection) => {
        const res = await call('POST', '/v1/profiles', { name: `Soak ${connection}-${state.made++}` });
        if (res.status === 201) state.profiles.push((res.body as { id: string }).id);
        return res;
      },
    },
    {
      name: 'deleteProfile',
      weight: 2,
      // Deletes what this connection created, so the world stays the same size.
      run: (state) => call('DELETE', `/v1/profiles/${state.profiles.shift() ?? 'nothing-to-delete'}`),
    },
    { name: 'badRequest', weight: 1, run: () => call('GET', '/v1/accounts?limit=0') },
    { name: 'listPosts', weight: 2, run: () => call('GET', '/v1/posts?limit=20') },
    {
      name: 'createScheduledPost',
      weight: 1,
      run: (state) =>
        call('POST', '/v1/posts', {
          text: `Soak post ${state.made++}`,
          destinations: [{ connectionId: targets.textAccount?.id ?? 'none' }],
          ...(state.random() < 0.7 && { scheduledFor: localTime(virtualNow + 30 * 60_000), timezone: 'UTC' }),
        }),
    },
    {
      name: 'advanceClock',
      weight: 0.3,
      run: async () => {
        const res = await call('POST', '/__control/clock/advance', { by: 'PT10M' });
        if (res.status === 200) {
          clockAdvances++;
          virtualNow = Math.max(virtualNow, Date.parse((res.body as { now: string }).now));
        }
        return res;
      },
    },
    ...inbound.map(({ path, example }) => ({
      name: `inbound ${path.split('/').pop() ?? ''}`,
      weight: 0.5,
      run: () => call('POST', path, 'accountId' in example && targets.inboxAccount ? { ...example, accountId: targets.inboxAccount.id } : example),
    })),
  ];
  const totalWeight = kinds.reduce((sum, kind) => sum + kind.weight, 0);
  const pick = (random: () => number): Kind => {
    let r = random() * totalWeight;
    for (const kind of kinds) {
      r -= kind.weight;
      if (r <= 0) return kind;
    }
    return kinds[kinds.length - 1] as Kind;
  };

  // ---------------------------------------------------------------- the run
  const statuses: Record<string, number> = {};
  const operations: Record<string, number> = {};
  // Histograms, not lists: the soak shares the server's heap, and a list of every request's time would grow it.
  const latencies = new LatencyHistogram();
  const latenciesByKind: Record<string, LatencyHistogram> = {};
  const problems: string[] = [];
  let socketErrors = 0;
  const memory: MemorySample[] = [];
  const started = performance.now();
  const deadline = started + options.seconds * 1000;
  const gc = (globalThis as { gc?: () => void }).gc;
  const measure = (): MemorySample => {
    gc?.();
    const usage = process.memoryUsage();
    return { atSeconds: Math.round((performance.now() - started) / 100) / 10, rssMb: mb(usage.rss), heapMb: mb(usage.heapUsed), storedMb: mb(JSON.stringify(mock.database.data).length) };
  };
  const line = (label: string, s: MemorySample) => `  ${label}  rss ${s.rssMb} MB  heap ${s.heapMb} MB  stored ${s.storedMb} MB  requests ${latencies.count}`;
  const sample = () => {
    const last = measure();
    memory.push(last);
    options.log(line(`${last.atSeconds.toFixed(0).padStart(4)} s`, last));
  };

  const states: ConnectionState[] = Array.from({ length: options.connections }, (_, connection) => ({ random: prng(options.seed * 1000 + connection), profiles: [], cursor: null, made: 0 }));
  const drive = (until: number) =>
    Promise.all(
      states.map(async (state, connection) => {
        while (performance.now() < until) {
          const kind = pick(state.random);
          const t0 = performance.now();
          try {
            const res = await kind.run(state, connection);
            const took = performance.now() - t0;
            latencies.record(took);
            (latenciesByKind[kind.name] ??= new LatencyHistogram()).record(took);
            statuses[res.status] = (statuses[res.status] ?? 0) + 1;
            operations[kind.name] = (operations[kind.name] ?? 0) + 1;
          } catch {
            socketErrors++;
          }
        }
      }),
    );

  /**
   * Back to the workspace's start with no request in flight, then the heap after a full
   * collection: what it holds over the start is what the server keeps outside its
   * records (caches, windows, listeners, timers, compiled code).
   */
  const resetAndMeasure = async (label: string): Promise<MemorySample | null> => {
    const res = await call('POST', '/__control/reset');
    if (res.status !== 200) {
      problems.push(`the reset ${label} answered ${res.status}`);
      return null;
    }
    virtualNow = Date.parse((res.body as { clock: { now: string } }).clock.now);
    for (const state of states) state.profiles = [];
    if (!gc) return null;
    const kept = measure();
    options.log(line(label, kept));
    if (options.heapSnapshots) options.log(`  heap snapshot: ${writeHeapSnapshot(join(options.heapSnapshots, `soak-${label.replace(/\W+/g, '-')}.heapsnapshot`))}`);
    return kept;
  };

  sample();
  const sampler = setInterval(sample, options.sampleEveryMs);
  // The warm-up runs every kind of request, so the JIT and every bounded cache are as full as they get.
  await drive(started + options.seconds * 1000 * WARM_UP_SHARE);
  const afterWarmUp = await resetAndMeasure('after the warm-up, reset');
  targets = await aim();
  await drive(deadline);
  clearInterval(sampler);
  sample();
  const elapsed = (performance.now() - started) / 1000;
  const afterRun = await resetAndMeasure('after the run, reset');

  agent.destroy();
  await mock.close();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
  process.off('unhandledRejection', onRejection);
  process.off('uncaughtException', onException);

  const round = (n: number) => Math.round(n * 10) / 10;
  const slowest: SoakReport['slowest'] = {};
  for (const [name, histogram] of Object.entries(latenciesByKind)) slowest[name] = { p99: round(histogram.quantile(0.99)), max: round(histogram.max) };
  const fiveXx = Object.entries(statuses).filter(([status]) => Number(status) >= 500).reduce((sum, [, n]) => sum + n, 0);
  if (fiveXx > 0) problems.push(`${fiveXx} responses were 5xx`);
  if (socketErrors > 0) problems.push(`${socketErrors} requests failed on the socket`);
  if (mock.violations.length > 0) problems.push(`${mock.violations.length} responses broke the contract`);
  problems.push(...unhandled);
  const heapKept = afterWarmUp && afterRun ? Math.round((afterRun.heapMb / afterWarmUp.heapMb) * 100) / 100 : null;
  // Only a run long enough to warm up says anything about what is kept.
  if (options.seconds >= 30 && heapKept !== null && heapKept > HEAP_KEPT_LIMIT) {
    problems.push(`with the workspace reset, the heap grew ${heapKept}x from the end of the warm-up to the end of the run (${afterWarmUp?.heapMb} MB to ${afterRun?.heapMb} MB)`);
  }

  return {
    seconds: round(elapsed),
    connections: options.connections,
    requests: latencies.count,
    requestsPerSecond: Math.round(latencies.count / elapsed),
    latencyMs: { p50: round(latencies.quantile(0.5)), p90: round(latencies.quantile(0.9)), p99: round(latencies.quantile(0.99)), max: round(latencies.max) },
    statuses,
    operations,
    slowest,
    socketErrors,
    unhandled,
    deliveriesReceived,
    clockAdvances,
    memory,
    afterWarmUp,
    afterRun,
    heapKept,
    problems,
  };
}

export function formatReport(report: SoakReport): string {
  const sorted = (record: Record<string, number>) => Object.entries(record).sort((a, b) => b[1] - a[1]).map(([key, n]) => `${key} ${n}`).join(', ');
  return [
    `soak: ${report.requests} requests in ${report.seconds} s over ${report.connections} connections: ${report.requestsPerSecond} req/s`,
    `  latency ms: p50 ${report.latencyMs.p50}, p90 ${report.latencyMs.p90}, p99 ${report.latencyMs.p99}, max ${report.latencyMs.max}`,
    `  statuses: ${sorted(report.statuses)}`,
    `  requests: ${sorted(report.operations)}`,
    `  p99 / max ms by request: ${Object.entries(report.slowest)
      .sort((a, b) => b[1].p99 - a[1].p99)
      .map(([name, { p99, max }]) => `${name} ${p99} / ${max}`)
      .join(', ')}`,
    `  clock advances ${report.clockAdvances}, webhook deliveries received ${report.deliveriesReceived}`,
    `  memory (MB, after GC): ${report.memory.map((s) => `${s.atSeconds}s rss ${s.rssMb} heap ${s.heapMb} stored ${s.storedMb}`).join(' | ')}`,
    report.heapKept === null
      ? '  heap with the workspace reset: not measured (run with --expose-gc)'
      : `  heap with the workspace reset: ${report.afterWarmUp?.heapMb} MB after the warm-up, ${report.afterRun?.heapMb} MB after the run (${report.heapKept}x)`,
    report.problems.length === 0 ? '  result: PASS (no 5xx, no socket error, no unhandled rejection)' : `  result: FAIL: ${report.problems.join('; ')}`,
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
  const options: SoakOptions = { seconds: env('SOAK_SECONDS', 60), connections: env('SOAK_CONNECTIONS', 100), sampleEveryMs: env('SOAK_SAMPLE_MS', 5000), seed: env('SOAK_SEED', 1), heapSnapshots: process.env.SOAK_HEAP_SNAPSHOTS, log: (line) => console.log(line) };
  console.log(`soak: ${options.connections} connections for ${options.seconds} s (seed ${options.seed})${typeof (globalThis as { gc?: unknown }).gc === 'function' ? '' : ' (run with --expose-gc for memory after GC)'}`);
  const report = await runSoak(options);
  console.log(formatReport(report));
  process.exitCode = report.problems.length === 0 ? 0 : 1;
}
