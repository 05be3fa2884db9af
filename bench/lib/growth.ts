import { dirname, join } from 'node:path';
import { call, callJson, destinationPairs, type ConnectionSummary } from './client.js';
import { runLoad, type LoadResult } from './load.js';
import { freePort, startProcess, waitForOk, type Pinning, type ServerProcess } from './processes.js';
import { markdownTable } from './report.js';
import { DEFAULT_API_KEY, mockEntry } from './servers.js';
import { median, pairedRatios } from './stats.js';
import { createPostBody, type DestinationPair } from './workloads.js';

/*
 * Growth (issue 37): one workspace at several sizes, the same operations measured on each in
 * one run, so that what a request costs can be compared across sizes. Each size is a server
 * (bench/servers/grown-mock.ts, the build under test) whose default workspace holds the fixture
 * world plus `posts` more posts and, in proportion, a comment for every ten posts and a
 * conversation for every hundred (growth-data.ts); all are started at once on the server core,
 * and each workload loads them all at once, in rounds: the core's time is shared among them, so
 * a size whose requests cost more answers fewer of them in the same seconds, on the same host
 * speed. (Taken in turns, as until the sixth stop of round four, the host's swings between two
 * speeds within seconds decided rows: one round read a size at 0.4x and the next at 1.43x.)
 */

export interface GrowthSettings {
  sizes: number[];
  /** Seconds per size and workload, split over `rounds`. */
  seconds: number;
  rounds: number;
  connections: number;
  /** Seconds of reads on each server before the first workload. */
  warmupSeconds: number;
}

export interface GrowthCell {
  size: number;
  requestsPerSecond: number;
  p99Ms: number;
  /** Server CPU per request (µs): steadier than req/s on a busy machine. */
  cpuUsPerRequest: number | undefined;
  non2xx: number;
}

export interface GrowthRow {
  workload: string;
  title: string;
  cells: GrowthCell[];
  /**
   * Requests per second at the largest size over the smallest (≥ 0.8 is the target): the median of
   * the rounds' ratios, each round's two runs taken side by side.
   */
  ratio: number | undefined;
  /** The same by CPU per request: smallest's µs over largest's, the median of the rounds'. */
  cpuRatio: number | undefined;
  /** Each round's ratio by requests per second, in the order they ran. */
  roundRatios: number[];
}

export interface GrowthResult {
  sizes: number[];
  rows: GrowthRow[];
  /** Resident memory of each size's server after loading its file and before any load. */
  rssMb: Array<number | undefined>;
  /** (RSS at the largest size − RSS at the smallest) / (posts between them), in bytes. */
  bytesPerPost: number | undefined;
  /** Posts each workspace held when the run ended (the create workload adds some). */
  postsAtEnd: number[];
}

interface SizeServer {
  size: number;
  server: ServerProcess;
  baseUrl: string;
  rssMb: number | undefined;
  /** What the workloads read and write in it. */
  postId: string;
  destinationId: string;
  conversationAccountId: string;
  pairs: DestinationPair[];
}

interface GrowthWorkload {
  id: string;
  title: string;
  request(s: SizeServer, n: { n: number }): Parameters<typeof runLoad>[0]['requests'][number];
}

const get = (path: string) => ({ method: 'GET' as const, path, headers: { 'x-api-key': DEFAULT_API_KEY } });

/**
 * The operations measured at each size: the bench's six, a comments, an inbox and a media page,
 * the journal and the limits; posts created last, since they grow the workspaces. Webhook deliveries are left out:
 * a webhook's log holds at most 1,000 (the reference's cap), whatever the workspace holds.
 */
const WORKLOADS: GrowthWorkload[] = [
  { id: 'connections', title: 'GET /v1/connections', request: () => get('/v1/connections') },
  { id: 'accounts-list', title: 'GET /v1/accounts?limit=20', request: () => get('/v1/accounts?limit=20') },
  { id: 'posts-list', title: 'GET /v1/posts?limit=20', request: () => get('/v1/posts?limit=20') },
  // Ten a page: the smallest size holds 16 published bluesky posts, so with 20 its page was 16 views and no cursor
  // against 20 views and a signed cursor at the larger sizes (18.4 KB against 22.3 KB), and the ratio read that
  // difference (0.80×). With ten, every size answers ten views and a next cursor.
  { id: 'posts-filtered', title: 'GET /v1/posts?limit=10&status=published&platform=bluesky', request: () => get('/v1/posts?limit=10&status=published&platform=bluesky') },
  { id: 'post-by-id', title: 'GET /v1/posts/{postId}', request: (s) => get(`/v1/posts/${s.postId}`) },
  { id: 'comments', title: 'GET /v1/comments?destinationId=…', request: (s) => get(`/v1/comments?destinationId=${s.destinationId}`) },
  // One a page: the fixture's Instagram account holds two conversations at every size, so the pages
  // compared are alike, one view and a next cursor (with the default 50, the largest size's page
  // held 25 times the views; with two, only it had a next cursor to sign).
  { id: 'conversations', title: 'GET /v1/inbox/conversations?accountId=…&limit=1', request: (s) => get(`/v1/inbox/conversations?accountId=${s.conversationAccountId}&limit=1`) },
  // One a page, for the same reason: the smallest size holds two uploads.
  { id: 'media-list', title: 'GET /v1/media?limit=1&include=total', request: () => get('/v1/media?limit=1&include=total') },
  { id: 'journal', title: 'GET /__control/journal?limit=20', request: () => get('/__control/journal?limit=20') },
  // Before any post is created, so the velocity ledger is one no write has filled yet: read from a copy filled from the posts.
  { id: 'limits', title: 'GET /__control/limits', request: () => get('/__control/limits') },
  {
    id: 'posts-create',
    title: 'POST /v1/posts (2 destinations)',
    request: (s, counter) => ({
      method: 'POST',
      path: '/v1/posts',
      headers: { 'content-type': 'application/json', 'x-api-key': DEFAULT_API_KEY },
      body: createPostBody(0, s.pairs[0] as DestinationPair),
      setupRequest: (request) => {
        const n = counter.n++;
        return { ...request, body: createPostBody(n, s.pairs[n % s.pairs.length] as DestinationPair) };
      },
    }),
  },
];

/**
 * Uploads `count` files through the API (presign, then the PUT), ten at a time: uploaded bytes live
 * only in the server's memory, so they cannot be written into its stores as the posts are.
 */
async function uploadMedia(baseUrl: string, count: number): Promise<void> {
  for (let i = 0; i < count; i += 10) {
    await Promise.all(
      Array.from({ length: Math.min(10, count - i) }, async (_, j) => {
        const { uploadUrl } = await callJson<{ uploadUrl: string }>(baseUrl, 'POST', '/v1/media/presign', { apiKey: DEFAULT_API_KEY, body: { filename: `growth-${i + j}.jpg`, contentType: 'image/jpeg' } });
        const put = await fetch(uploadUrl.replace(/^https?:\/\/[^/]+/, baseUrl), { method: 'PUT', headers: { 'content-type': 'image/jpeg' }, body: 'growth' });
        if (put.status >= 300) throw new Error(`growth: an upload answered ${put.status}: ${(await put.text()).slice(0, 200)}`);
      }),
    );
  }
}

async function startSize(size: number, root: string, pinning: Pinning): Promise<SizeServer> {
  const port = await freePort();
  const serverModule = join(dirname(mockEntry()), 'server.js');
  const server = startProcess({ command: process.execPath, args: ['--import', 'tsx', 'bench/servers/grown-mock.ts', '--server', serverModule, '--port', String(port), '--posts', String(size)], cwd: root }, pinning);
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitForOk(server, { url: `${baseUrl}/v1/connections`, headers: { 'x-api-key': DEFAULT_API_KEY } }, 180_000);
  // One for every hundred posts, and one more, so that every size's first page has a next one.
  await uploadMedia(baseUrl, Math.ceil(size / 100) + 1);
  const rssMb = server.memory()?.rssMb;
  const { connections } = await callJson<{ connections: ConnectionSummary[] }>(baseUrl, 'GET', '/v1/connections', { apiKey: DEFAULT_API_KEY });
  const newest = await callJson<{ data: Array<{ id: string; destinations: Array<{ id: string; status: string; platform: string }> }> }>(baseUrl, 'GET', '/v1/posts?limit=50&status=published', { apiKey: DEFAULT_API_KEY });
  const withComments = newest.data.flatMap((post) => post.destinations).find((d) => d.status === 'published' && d.platform !== 'pinterest');
  const instagram = connections.find((c) => c.platform === 'instagram') ?? connections[0];
  return {
    size,
    server,
    baseUrl,
    rssMb,
    postId: newest.data[0]?.id ?? '',
    destinationId: withComments?.id ?? '',
    conversationAccountId: instagram?.id ?? '',
    pairs: destinationPairs(DEFAULT_API_KEY, connections),
  };
}

/** One size's run of one round. */
type Run = { result: LoadResult; cpu: number | undefined };

async function measureOne(s: SizeServer, workload: GrowthWorkload, connections: number, seconds: number): Promise<Run> {
  const counter = { n: 0 };
  const before = s.server.cpuSeconds();
  const result = await runLoad({ url: s.baseUrl, connections, seconds, requests: [workload.request(s, counter)] });
  const after = s.server.cpuSeconds();
  return { result, cpu: before !== undefined && after !== undefined ? after - before : undefined };
}

/** Starts one server per size, runs every workload on all of them at once, round after round, and stops them. */
export async function measureGrowth(settings: GrowthSettings, root: string, pinning: Pinning, log: (line: string) => void): Promise<GrowthResult> {
  const servers: SizeServer[] = [];
  try {
    for (const size of settings.sizes) {
      const began = performance.now();
      servers.push(await startSize(size, root, pinning));
      log(`growth: ${size} posts grown and served in ${((performance.now() - began) / 1000).toFixed(1)} s, RSS ${servers.at(-1)?.rssMb ?? '?'} MB`);
    }
    // A warm-up of every read on each server, so that no size meets the first workload cold.
    for (const s of servers) {
      await runLoad({ url: s.baseUrl, connections: settings.connections, seconds: settings.warmupSeconds, requests: WORKLOADS.filter((w) => w.id !== 'posts-create').map((w) => w.request(s, { n: 0 })) });
    }
    const rows: GrowthRow[] = [];
    const seconds = Math.max(1, Math.round(settings.seconds / settings.rounds));
    for (const workload of WORKLOADS) {
      // Each operation once on each server first: a failure is reported, not load-tested.
      for (const s of servers) {
        const probe = workload.request(s, { n: 0 });
        const answer = await call(s.baseUrl, probe.method ?? 'GET', probe.path ?? '/', { body: probe.body, headers: (probe.headers ?? {}) as Record<string, string> });
        if (answer.status >= 300) throw new Error(`growth: ${workload.title} at ${s.size} posts answered ${answer.status}: ${answer.text.slice(0, 200)}`);
      }
      // A second of it on every size first, unmeasured: the warm-up above mixed every read, and an operation's
      // first second alone still ran slower (a limits read, 600 µs of CPU, then 360 µs from the next second on).
      await Promise.all(servers.map((s) => runLoad({ url: s.baseUrl, connections: settings.connections, seconds: 1, requests: [workload.request(s, { n: 0 })] })));
      const runs = new Map<number, Run[]>(servers.map((s) => [s.size, []]));
      for (let r = 0; r < settings.rounds; r++) {
        // Every size at once, sharing the server core: the host's speed, which swings by a factor of two within seconds
        // here, is the same for all of them at every instant, so their rates compare what a request costs at each size.
        const measured = await Promise.all(servers.map((s) => measureOne(s, workload, settings.connections, seconds)));
        servers.forEach((s, i) => runs.get(s.size)?.push(measured[i] as Run));
      }
      const cells = servers.map((s): GrowthCell => {
        const list = runs.get(s.size) ?? [];
        const total = list.reduce((sum, run) => sum + run.result.total, 0);
        const wall = list.reduce((sum, run) => sum + run.result.seconds, 0);
        const cpu = list.every((run) => run.cpu !== undefined) ? list.reduce((sum, run) => sum + (run.cpu as number), 0) : undefined;
        return {
          size: s.size,
          requestsPerSecond: wall > 0 ? Math.round(total / wall) : 0,
          p99Ms: Math.round(median(list.map((run) => run.result.p99Ms)) * 100) / 100,
          cpuUsPerRequest: cpu !== undefined && total > 0 ? Math.round((cpu / total) * 1e6) : undefined,
          non2xx: list.reduce((sum, run) => sum + run.result.non2xx, 0),
        };
      });
      const row: GrowthRow = { workload: workload.id, title: workload.title, cells, ...pairedRatios(runs.get(servers[0]?.size ?? 0) ?? [], runs.get(servers.at(-1)?.size ?? 0) ?? []) };
      log(
        `growth: ${workload.title}: ${cells.map((c) => `${c.size}: ${c.requestsPerSecond} req/s, p99 ${c.p99Ms} ms, ${c.cpuUsPerRequest ?? '?'} µs CPU${c.non2xx > 0 ? `, ${c.non2xx} non-2xx` : ''}`).join('; ')}; largest/smallest ${row.ratio ?? '?'} (CPU ${row.cpuRatio ?? '?'}; rounds ${row.roundRatios.join(', ')})`,
      );
      rows.push(row);
    }
    const postsAtEnd: number[] = [];
    for (const s of servers) {
      const page = await callJson<{ total?: number }>(s.baseUrl, 'GET', '/v1/posts?limit=1&include=total', { apiKey: DEFAULT_API_KEY });
      postsAtEnd.push(page.total ?? 0);
    }
    const rssMb = servers.map((s) => s.rssMb);
    const small = servers[0];
    const large = servers.at(-1);
    const bytesPerPost =
      small?.rssMb !== undefined && large?.rssMb !== undefined && large.size > small.size ? Math.round(((large.rssMb - small.rssMb) * 1024 * 1024) / (large.size - small.size)) : undefined;
    return { sizes: settings.sizes, rows, rssMb, bytesPerPost, postsAtEnd };
  } finally {
    for (const s of servers) await s.server.stop();
  }
}

/** The growth table: req/s and p99 per size, and the ratio of the largest size to the smallest. */
export function growthTable(result: GrowthResult): string {
  const header = ['workload', ...result.sizes.flatMap((size) => [`${size.toLocaleString('en-US')}: req/s`, 'p99 ms']), 'largest/smallest req/s (median of rounds)', 'by CPU µs/req'];
  const rows = result.rows.map((row) => [
    row.title,
    ...row.cells.flatMap((cell) => [cell.requestsPerSecond.toLocaleString('en-US'), cell.p99Ms.toFixed(2)]),
    row.ratio === undefined ? '–' : `${row.ratio.toFixed(2)}×${row.ratio < 0.8 ? ' (under 0.8)' : ''}`,
    row.cpuRatio === undefined ? '–' : `${row.cpuRatio.toFixed(2)}×`,
  ]);
  const right = new Set(Array.from({ length: header.length - 1 }, (_, i) => i + 1));
  return markdownTable(header, rows, right);
}

/** The closing lines: memory per post and the posts each workspace ended with. */
export function growthNote(result: GrowthResult): string {
  const rss = result.sizes.map((size, i) => `${size.toLocaleString('en-US')}: ${result.rssMb[i] ?? '?'} MB`).join(', ');
  const per = result.bytesPerPost === undefined ? '?' : `${(result.bytesPerPost / 1024).toFixed(2)} KB`;
  return `RSS after loading (${rss}); memory per post at ${(result.sizes.at(-1) ?? 0).toLocaleString('en-US')}: ${per}. Posts at the end (the create workload adds its own): ${result.postsAtEnd.map((n) => n.toLocaleString('en-US')).join(', ')}.`;
}

function envNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number; got '${raw}'`);
  return value;
}

/** The settings from BENCH_GROWTH_* (bench:growth's defaults, or `npm run bench`'s shorter ones). */
export function growthSettings(defaults: { seconds: number; rounds: number }): GrowthSettings {
  const sizes = (process.env.BENCH_GROWTH_SIZES ?? '100,10000,100000').split(',').map((s) => Number(s.trim()));
  if (sizes.some((size) => !Number.isInteger(size) || size < 0)) throw new Error(`BENCH_GROWTH_SIZES must be whole numbers; got '${process.env.BENCH_GROWTH_SIZES}'`);
  return {
    sizes,
    seconds: envNumber('BENCH_GROWTH_SECONDS', defaults.seconds),
    rounds: Math.round(envNumber('BENCH_GROWTH_ROUNDS', defaults.rounds)),
    connections: Math.round(envNumber('BENCH_GROWTH_CONNECTIONS', 10)),
    warmupSeconds: Math.round(envNumber('BENCH_GROWTH_WARMUP_SECONDS', 2)),
  };
}
