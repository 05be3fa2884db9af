/**
 * npm run soak: a mixed workload at 100 concurrent keep-alive connections for 60 s
 * against an in-process mock, then its figures: requests, req/s, latency
 * percentiles, status histogram, per-operation counts, webhook deliveries received,
 * memory over time. Fails (exit 1) on any 5xx, socket error, unhandled rejection
 * or uncaught exception, or heap growth after warm-up.
 *
 * The workload: connection, account, profile and post lists, profiles created and
 * deleted, posts created (most scheduled), clock advances that publish them and fire
 * webhook deliveries (every event) to a local receiver, and every inbound event of
 * the control plane with its contract's example.
 *
 *   SOAK_SECONDS (60)  SOAK_CONNECTIONS (100)  SOAK_SAMPLE_MS (5000)  SOAK_SEED (1)
 *
 * Run with --expose-gc (the npm script does) so memory is sampled after a full GC.
 */
import { Agent, createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { loadSpec } from '../src/http/spec.js';
import { createMockServer, DEFAULT_API_KEY } from '../src/server.js';

export interface SoakOptions {
  seconds: number;
  connections: number;
  sampleEveryMs: number;
  seed: number;
  log: (line: string) => void;
}

export interface MemorySample {
  atSeconds: number;
  rssMb: number;
  heapMb: number;
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
  /** Heap at the end over heap at the end of warm-up (the first quarter). */
  heapGrowthAfterWarmup: number;
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

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

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
  const mock = await createMockServer({ seed: options.seed, clock: '2026-03-02T09:00:00Z', clockFrozen: true, strictResponses: true, rateLimit: false });
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
  const accountsRes = await call('GET', '/v1/accounts?limit=100');
  const accounts = ((accountsRes.body as { data?: Account[] }).data ?? []).filter((account) => account.status === 'active');
  // Networks that take a text post without media.
  const textAccount = ['bluesky', 'threads', 'linkedin', 'facebook', 'twitter'].map((platform) => accounts.find((account) => account.platform === platform)).find((account) => account !== undefined);
  const inboxAccount = accounts.find((account) => ['instagram', 'facebook', 'bluesky'].includes(account.platform));
  let virtualNow = Date.parse('2026-03-02T09:00:00Z');
  let clockAdvances = 0;

  const events = (loadSpec('openapi.yaml').document.components?.schemas?.WebhookEventName as { enum?: string[] } | undefined)?.enum ?? ['post.published'];
  const hook = await call('POST', '/v1/webhooks', { name: 'Soak receiver', url: receiverUrl, events });
  if (hook.status !== 201) throw new Error(`soak: the webhook setup answered ${hook.status} ${JSON.stringify(hook.body)}`);

  // Inbound events: whatever /__control/inbound/* operations the control contract has, with their own examples.
  const control = loadSpec('control.yaml').document;
  const inbound = Object.entries(control.paths)
    .filter(([path]) => path.startsWith('/__control/inbound/'))
    .map(([path, item]) => ({ path, op: item.post as { operationId?: string; requestBody?: { content?: Record<string, { schema?: { $ref?: string; example?: unknown } }> } } | undefined }))
    .filter(({ op }) => op?.operationId !== undefined)
    .map(({ path, op }) => {
      const schema = op?.requestBody?.content?.['application/json']?.schema;
      const named = schema?.$ref ? (control.components?.schemas?.[schema.$ref.split('/').pop() ?? ''] as { example?: unknown } | undefined) : schema;
      const example = { ...((named?.example ?? {}) as Record<string, unknown>) };
      if ('accountId' in example && inboxAccount) example.accountId = inboxAccount.id;
      return { path, example };
    });
  if (inbound.length === 0) throw new Error('soak: control.yaml has no /__control/inbound operation');

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
    { name: 'getAccount', weight: 2, run: (state) => call('GET', `/v1/accounts/${accounts[Math.floor(state.random() * accounts.length)]?.id ?? 'none'}`) },
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
          destinations: [{ connectionId: textAccount?.id ?? 'none' }],
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
    ...inbound.map(({ path, example }) => ({ name: `inbound ${path.split('/').pop() ?? ''}`, weight: 0.5, run: () => call('POST', path, example) })),
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
  const latencies: number[] = [];
  const latenciesByKind: Record<string, number[]> = {};
  let socketErrors = 0;
  const memory: MemorySample[] = [];
  const started = performance.now();
  const deadline = started + options.seconds * 1000;
  const sample = () => {
    (globalThis as { gc?: () => void }).gc?.();
    const usage = process.memoryUsage();
    memory.push({ atSeconds: Math.round((performance.now() - started) / 100) / 10, rssMb: mb(usage.rss), heapMb: mb(usage.heapUsed) });
    const last = memory[memory.length - 1] as MemorySample;
    options.log(`  ${last.atSeconds.toFixed(0).padStart(4)} s  rss ${last.rssMb} MB  heap ${last.heapMb} MB  requests ${latencies.length}`);
  };
  sample();
  const sampler = setInterval(sample, options.sampleEveryMs);

  const worker = async (connection: number) => {
    const state: ConnectionState = { random: prng(options.seed * 1000 + connection), profiles: [], cursor: null, made: 0 };
    while (performance.now() < deadline) {
      const kind = pick(state.random);
      const t0 = performance.now();
      try {
        const res = await kind.run(state, connection);
        const took = performance.now() - t0;
        latencies.push(took);
        (latenciesByKind[kind.name] ??= []).push(took);
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        operations[kind.name] = (operations[kind.name] ?? 0) + 1;
      } catch {
        socketErrors++;
      }
    }
  };
  await Promise.all(Array.from({ length: options.connections }, (_, i) => worker(i)));
  clearInterval(sampler);
  sample();
  const elapsed = (performance.now() - started) / 1000;

  agent.destroy();
  await mock.close();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
  process.off('unhandledRejection', onRejection);
  process.off('uncaughtException', onException);

  latencies.sort((a, b) => a - b);
  const round = (n: number) => Math.round(n * 10) / 10;
  const slowest: SoakReport['slowest'] = {};
  for (const [name, list] of Object.entries(latenciesByKind)) {
    list.sort((a, b) => a - b);
    slowest[name] = { p99: round(percentile(list, 99)), max: round(list[list.length - 1] ?? 0) };
  }
  const warm = memory.find((s) => s.atSeconds >= options.seconds / 4) ?? memory[0];
  const end = memory[memory.length - 1];
  const heapGrowthAfterWarmup = warm && end ? round(end.heapMb / warm.heapMb) : 1;
  const fiveXx = Object.entries(statuses).filter(([status]) => Number(status) >= 500).reduce((sum, [, n]) => sum + n, 0);
  const problems: string[] = [];
  if (fiveXx > 0) problems.push(`${fiveXx} responses were 5xx`);
  if (socketErrors > 0) problems.push(`${socketErrors} requests failed on the socket`);
  if (mock.violations.length > 0) problems.push(`${mock.violations.length} responses broke the contract`);
  problems.push(...unhandled);
  // Only a run long enough to warm up says anything about growth.
  if (options.seconds >= 30 && heapGrowthAfterWarmup > 1.5) problems.push(`heap grew ${heapGrowthAfterWarmup}x after warm-up`);

  return {
    seconds: round(elapsed),
    connections: options.connections,
    requests: latencies.length,
    requestsPerSecond: Math.round(latencies.length / elapsed),
    latencyMs: { p50: round(percentile(latencies, 50)), p90: round(percentile(latencies, 90)), p99: round(percentile(latencies, 99)), max: round(latencies[latencies.length - 1] ?? 0) },
    statuses,
    operations,
    slowest,
    socketErrors,
    unhandled,
    deliveriesReceived,
    clockAdvances,
    memory,
    heapGrowthAfterWarmup,
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
    `  memory (MB, after GC): ${report.memory.map((s) => `${s.atSeconds}s rss ${s.rssMb} heap ${s.heapMb}`).join(' | ')}`,
    `  heap at the end / after warm-up: ${report.heapGrowthAfterWarmup}`,
    report.problems.length === 0 ? '  result: PASS (no 5xx, no socket error, no unhandled rejection)' : `  result: FAIL: ${report.problems.join('; ')}`,
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
  const options: SoakOptions = { seconds: env('SOAK_SECONDS', 60), connections: env('SOAK_CONNECTIONS', 100), sampleEveryMs: env('SOAK_SAMPLE_MS', 5000), seed: env('SOAK_SEED', 1), log: (line) => console.log(line) };
  console.log(`soak: ${options.connections} connections for ${options.seconds} s (seed ${options.seed})${typeof (globalThis as { gc?: unknown }).gc === 'function' ? '' : ' (run with --expose-gc for memory after GC)'}`);
  const report = await runSoak(options);
  console.log(formatReport(report));
  process.exitCode = report.problems.length === 0 ? 0 : 1;
}
