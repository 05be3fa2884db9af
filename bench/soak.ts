/**
 * npm run soak: a shared server under a team's CI for 10 minutes. An in-process mock
 * (strict responses, rate limits on, `--workspace-ttl`) takes concurrent "CI jobs"
 * (100 by default, one keep-alive connection each); every job creates a workspace
 * (every third one forks a prepared template instead), sets a webhook to a local
 * receiver, sends the mixed traffic of `bench/lib/soak-traffic.ts` (reads, writes,
 * scheduled posts, clock advances that publish them and fire its webhook), and then
 * deletes it; some jobs watch their workspace's event stream (`GET /__control/events`)
 * and some leave it open until the delete ends it, some run their workspace's clock, and
 * some walk away without deleting (closing their stream, as an ended job's connections
 * close), leaving the workspace to `--workspace-ttl`.
 *
 * Judged at the end (exit 1 with the failed checks): no 5xx, no socket error, no
 * unhandled rejection, no contract violation; a deleted or expired workspace's key
 * answers 401 and its webhook gets no delivery started after its end; and, compared
 * between two moments with every soak workspace gone (after a warm-up of a tenth of
 * the run and at least two TTLs, and after the run): heap after a full collection and
 * RSS within 10% (runs of a minute or more), no more active resources of any type, no
 * server connection and no event stream left open, no scheduler timer armed, and no
 * deleted workspace still reachable after a full collection.
 *
 *   SOAK_SECONDS (600)  SOAK_CONNECTIONS (100, concurrent jobs)  SOAK_TTL_MS (60000)
 *   SOAK_SAMPLE_MS (5000)  SOAK_SEED (1)  SOAK_HEAP_SNAPSHOTS (a folder: a heap snapshot at the start and at the end)
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { Agent, createServer, request as httpRequest, type ClientRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { writeHeapSnapshot } from 'node:v8';
import { collectGarbage } from '../src/lib/collect-garbage.js';
import { createMockServer } from '../src/server.js';
import { sweepIntervalMs } from '../src/workspaces/registry.js';
import { LatencyHistogram } from './lib/stats.js';
import { healthSnapshot, resourcesGrown, ServerWatch, settledRss, toMb, withinShare, type HealthSnapshot } from './lib/soak-probe.js';
import { aimAt, clockRead, picker, prng, requestKinds, webhookEvents, type JobWorkspace, type SoakCall, type SoakResponse } from './lib/soak-traffic.js';

export interface SoakOptions {
  seconds: number;
  /** Concurrent CI jobs, each on one keep-alive connection at a time (plus its event stream, when it opens one). */
  connections: number;
  sampleEveryMs: number;
  seed: number;
  /** The server's --workspace-ttl in wall milliseconds: how long a workspace a job walked away from lives. */
  ttlMs: number;
  /** A folder to write a heap snapshot into at the start and at the end, to compare them in DevTools. */
  heapSnapshots?: string;
  log: (line: string) => void;
}

export interface MemorySample {
  atSeconds: number;
  rssMb: number;
  heapMb: number;
  /** Workspaces the server held, the default one included. */
  workspaces: number;
}

/** The server with every soak workspace gone: after the warm-up (the start) and after the run (the end). */
export interface Checkpoint extends HealthSnapshot {
  atSeconds: number;
  /** RSS is read once it has settled (eight readings a second apart within 2%): this many seconds after the collection. */
  rssSettledAfterSeconds: number;
  /** Workspaces the server holds: the default one only, unless one leaked. */
  liveWorkspaces: number;
  /** Real timers armed by the schedulers of those workspaces (unreferenced timers, which the resource count leaves out). */
  armedTimers: number;
  /** Event streams the soak's clients still hold open. */
  openStreams: number;
  /** Workspaces deleted or evicted that a full collection could not free. */
  retainedWorkspaces: number;
}

export interface SoakReport {
  seconds: number;
  connections: number;
  ttlMs: number;
  requests: number;
  requestsPerSecond: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number };
  statuses: Record<string, number>;
  operations: Record<string, number>;
  /** The slowest answers, per kind of request: p99 and max in ms. */
  slowest: Record<string, { p99: number; max: number }>;
  socketErrors: number;
  unhandled: string[];
  workspaces: { jobs: number; created: number; forked: number; deleted: number; abandoned: number; expired: number; mostAtOnce: number };
  streams: { opened: number; closedByClient: number; endedByServer: number; events: number };
  deliveries: { received: number; refusedOnPurpose: number; startedAfterTheirEnd: number };
  memory: MemorySample[];
  start: Checkpoint | null;
  end: Checkpoint | null;
  problems: string[];
}

const SOAK_CLOCK = '2026-03-02T09:00:00Z';
/** The share of the run that warms up (every kind of job and request runs), before the start is measured. */
const WARM_UP_SHARE = 0.1;

/**
 * The warm-up: a tenth of the run, and at least two TTLs (capped at half the run), so
 * that workspaces left to the TTL pile up to their steady number and the allocator
 * reaches the working set it keeps before the start is measured.
 */
function warmUp(options: Pick<SoakOptions, 'seconds' | 'ttlMs'>): number {
  return Math.min(options.seconds / 2, Math.max(options.seconds * WARM_UP_SHARE, (2 * options.ttlMs) / 1000));
}
/** Memory at the end may differ from the start by this share at most. */
const MEMORY_LIMIT = 0.1;
/** Memory is judged on runs this long and longer; a shorter one has not warmed up enough to tell. */
const MEMORY_JUDGED_FROM_SECONDS = 60;
/** At most this long for RSS to settle at a checkpoint. */
const RSS_SETTLE_MS = 45_000;
/**
 * How long an idle pooled socket is kept: well under the server's keep-alive timeout
 * (DEFAULT_HTTP_LIMITS, 5 s). The soak and the server share one event loop, so a stall (a long
 * clock move, a full collection) holds both timers back: a socket the pool took up after a stall
 * that began before its own timeout and ended past the server's could carry a request the server's
 * timer then closed, answered as a socket hang up. At 4 s a stall of a second did that (the smoke
 * test beside the whole suite, 2026-12-07); at 1 s it takes four.
 */
const KEEP_ALIVE_MS = 1_000;
/** Longer than any answer should take, even an advance waiting for deliveries on a saturated loop. */
const REQUEST_TIMEOUT_MS = 60_000;
/** How long the server has to close what it should once its workspaces are gone (streams, connections). */
const SETTLE_MS = 3_000;

/**
 * A job's lifecycle by its number, so every shape of job shows up in any run of a few
 * dozen jobs, whatever the seed: every third forks the template, every fourth fresh
 * one runs its clock, every seventh walks away (left to the TTL); one in five leaves
 * its event stream open to the end and one in five closes it halfway; every other
 * job's receiver refuses a third of its deliveries, so retries get scheduled.
 */
function lifecycle(n: number) {
  const fork = n % 3 === 2;
  return { fork, runningClock: !fork && n % 4 === 1, abandon: n % 7 === 6, stream: n % 5 === 0 ? 'left open' : n % 5 === 3 ? 'closed halfway' : 'none', flakyReceiver: n % 2 === 1 } as const;
}

/** One event stream a job opened, as its client sees it. */
interface StreamClient {
  request: ClientRequest;
  closedByClient: boolean;
}

export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const unhandled: string[] = [];
  const onRejection = (reason: unknown) => unhandled.push(`unhandledRejection: ${String(reason)}`);
  const onException = (error: Error) => unhandled.push(`uncaughtException: ${error.message}`);
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  const problems: string[] = [];
  const began = performance.now();
  const atSeconds = () => Math.round((performance.now() - began) / 100) / 10;

  // ---------------------------------------------------------------- whose workspace is alive
  /** Soak workspaces the server holds, as far as the soak knows (a walked-away one until its eviction is seen). */
  const live = new Set<string>();
  /** Every soak workspace's object in the server, to see that the collector frees it after its end. */
  let held: WeakRef<object>[] = [];

  // ---------------------------------------------------------------- the webhook receiver
  // /hooks/<workspace>/<ok|flaky>: a flaky receiver answers every third delivery 503, so retries get scheduled.
  const deliveries = { received: 0, refusedOnPurpose: 0, startedAfterTheirEnd: 0 };
  let flakyCount = 0;
  const receiver: Server = createServer((req, res) => {
    const mode = (req.url ?? '').split('/')[3];
    req.resume();
    req.on('end', () => {
      deliveries.received++;
      const refuse = mode === 'flaky' && flakyCount++ % 3 === 0;
      if (refuse) deliveries.refusedOnPurpose++;
      res.writeHead(refuse ? 503 : 200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverHost = `127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const receiverBase = `http://${receiverHost}/hooks`;
  /**
   * A delivery the server starts for a workspace the soak saw end (its DELETE answered,
   * or its eviction listed) is work of a dead workspace. Watched where the sender starts
   * it, not where it lands: under load a delivery on the wire at the end may land late.
   */
  const onDeliveryStart = (message: unknown) => {
    const request = (message as { request: ClientRequest }).request;
    if (request.getHeader('host') !== receiverHost) return;
    const workspaceId = request.path.split('/')[2] ?? '';
    if (!live.has(workspaceId)) deliveries.startedAfterTheirEnd++;
  };
  subscribe('http.client.request.start', onDeliveryStart);

  // ---------------------------------------------------------------- the shared server
  const mock = await createMockServer({ seed: options.seed, clock: SOAK_CLOCK, clockFrozen: true, strictResponses: true, workspaceTtlMs: options.ttlMs });
  const { port } = new URL(await mock.listen(0));
  const watch = new ServerWatch(Number(port));
  // Idle sockets leave the pool before the server's keep-alive timeout (5 s) closes them: a request
  // written on a socket the server is closing would fail on the socket through no fault of either.
  const newPool = () => new Agent({ keepAlive: true, maxSockets: options.connections, timeout: KEEP_ALIVE_MS });
  let agent = newPool();

  const send: SoakCall = (method, path, body, key) =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      const headers = { ...(key !== undefined && { 'x-api-key': key }), ...(payload && { 'Content-Type': 'application/json', 'Content-Length': String(payload.length) }) };
      const req = httpRequest({ hostname: '127.0.0.1', port, path, method, agent, headers }, (res) => {
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
      });
      // A request the server never answers is a finding, not a reason for the soak to hang.
      req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
      req.on('error', reject);
      req.end(payload);
    });

  // ---------------------------------------------------------------- counting every answer
  const statuses: Record<string, number> = {};
  const operations: Record<string, number> = {};
  // Histograms, not lists: the soak shares the server's heap, and a list of every request's time would grow it.
  const latencies = new LatencyHistogram();
  const latenciesByKind: Record<string, LatencyHistogram> = {};
  let socketErrors = 0;
  let firstSocketError: string | null = null;
  const socketError = (name: string, error: unknown) => {
    socketErrors++;
    firstSocketError ??= `${name}: ${error instanceof Error ? error.message : String(error)}`;
  };
  /** Answers 401 to a workspace the soak still uses (one evicted under a job's feet), and what came before the first. */
  let refusedWhileLive = 0;
  let firstRefusal: string | null = null;
  const note = (name: string, status: number, took: number) => {
    latencies.record(took);
    (latenciesByKind[name] ??= new LatencyHistogram()).record(took);
    statuses[status] = (statuses[status] ?? 0) + 1;
    operations[name] = (operations[name] ?? 0) + 1;
  };
  /** One request, counted under `name`; undefined when it failed on the socket. */
  const timed = async (name: string, method: string, path: string, body?: unknown, key?: string): Promise<SoakResponse | undefined> => {
    const t0 = performance.now();
    try {
      const res = await send(method, path, body, key);
      note(name, res.status, performance.now() - t0);
      return res;
    } catch (error) {
      socketError(name, error);
      return undefined;
    }
  };

  /** A key that should be dead (its workspace deleted or evicted): anything but 401 is a problem. */
  let keysAlive = 0;
  const expectDeadKey = async (key: string) => {
    const res = await timed('keyAfterEnd', 'GET', '/v1/connections', undefined, key);
    if (res && res.status !== 401) keysAlive++;
  };

  // ---------------------------------------------------------------- event streams
  const streams = { opened: 0, closedByClient: 0, endedByServer: 0, events: 0 };
  const openStreams = new Set<StreamClient>();
  /** Opens the workspace's event stream; resolves once it is open (its headers came), as an EventSource's `open`. */
  const openStream = (key: string): Promise<StreamClient> =>
    new Promise((resolve) => {
      const t0 = performance.now();
      // Its own connection, as an EventSource has: a stream never holds one of the pool's.
      const request = httpRequest({ hostname: '127.0.0.1', port, path: '/__control/events', method: 'GET', agent: false, headers: { 'x-api-key': key, Accept: 'text/event-stream' } });
      const client: StreamClient = { request, closedByClient: false };
      openStreams.add(client);
      streams.opened++;
      request.on('response', (res) => {
        note('streamEvents', res.statusCode ?? 0, performance.now() - t0);
        if (res.statusCode === 401) {
          refusedWhileLive++;
          firstRefusal ??= `streamEvents ${Math.round(performance.now() - t0)} ms after it was sent`;
        }
        resolve(client);
        res.on('data', (chunk: Buffer) => {
          streams.events += chunk.toString('utf8').match(/^event: /gm)?.length ?? 0;
        });
        res.on('end', () => {
          if (!client.closedByClient) streams.endedByServer++;
        });
        res.on('error', () => undefined);
        res.on('close', () => openStreams.delete(client));
      });
      request.on('error', (error) => {
        if (!client.closedByClient) socketError('streamEvents', error);
        openStreams.delete(client);
        resolve(client);
      });
      request.end();
    });
  const closeStream = (client: StreamClient) => {
    client.closedByClient = true;
    streams.closedByClient++;
    client.request.destroy();
    openStreams.delete(client);
  };

  // ---------------------------------------------------------------- jobs
  const events = webhookEvents();
  const pick = picker(requestKinds(send));
  const workspaces = { jobs: 0, created: 0, forked: 0, deleted: 0, abandoned: 0, expired: 0, mostAtOnce: 0 };
  /** Workspaces a job walked away from, by id, with their key: the TTL is to evict them. */
  const abandoned = new Map<string, string>();
  let nextJob = 0;

  /** A new soak workspace the server answered: tracked from now until its end. */
  const adopt = (created: SoakResponse): { id: string; key: string; clock: { now: string; frozen: boolean } } => {
    const body = created.body as { workspaceId: string; apiKey: string; clock: { now: string; frozen: boolean } };
    live.add(body.workspaceId);
    return { id: body.workspaceId, key: body.apiKey, clock: body.clock };
  };

  /** Watches the workspace's object in the server, built by its first request (looking it up earlier would build it). */
  const hold = (id: string) => {
    const object = mock.registry.used().find((workspace) => workspace.id === id);
    if (object) held.push(new WeakRef(object));
  };

  /** Deletes a soak workspace and checks that its key is dead. */
  const remove = async (id: string, key: string) => {
    const res = await timed('deleteWorkspace', 'DELETE', `/__control/workspaces/${id}`);
    if (res?.status !== 200) return;
    live.delete(id);
    workspaces.deleted++;
    await expectDeadKey(key);
  };

  /**
   * The template the forking jobs copy: a fixture world with profiles and posts
   * scheduled, so each fork starts with pending jobs. Forks send its key, which keeps
   * it in use under the TTL; a timer keeps it so when no fork comes by.
   */
  const makeTemplate = async () => {
    const created = await timed('createWorkspace', 'POST', '/__control/workspaces', {});
    if (created?.status !== 201) throw new Error(`soak: the template's creation answered ${created?.status}`);
    const template = adopt(created);
    workspaces.created++;
    const accounts = await timed('setup: listAccounts', 'GET', '/v1/accounts?limit=100', undefined, template.key);
    hold(template.id);
    const { textAccountId } = aimAt(accounts?.body);
    for (let i = 0; i < 3; i++) {
      await timed('setup: createProfile', 'POST', '/v1/profiles', { name: `Template ${i}` }, template.key);
      await timed('setup: createPost', 'POST', '/v1/posts', { text: `Template post ${i}`, destinations: [{ connectionId: textAccountId }], scheduledFor: `2026-03-02T09:${10 + i * 10}:00`, timezone: 'UTC' }, template.key);
    }
    const keepAlive = setInterval(() => void timed('setup: keep the template', 'GET', '/v1/connections', undefined, template.key), Math.max(100, Math.floor(options.ttlMs / 3)));
    return { ...template, keepAlive };
  };

  const runJob = async (template: { id: string; key: string }, until: number) => {
    const n = nextJob++;
    const shape = lifecycle(n);
    workspaces.jobs++;
    const created = shape.fork
      ? await timed('forkWorkspace', 'POST', '/__control/workspaces', { from: template.id }, template.key)
      : await timed('createWorkspace', 'POST', '/__control/workspaces', shape.runningClock ? { clock: { frozen: false } } : {});
    if (created?.status !== 201) return;
    const { id, key, clock } = adopt(created);
    if (shape.fork) workspaces.forked++;
    else workspaces.created++;

    const accounts = await timed('setup: listAccounts', 'GET', '/v1/accounts?limit=100', undefined, key);
    hold(id);
    const job: JobWorkspace = { id, key, random: prng(options.seed * 1_000_003 + n), ...aimAt(accounts?.body), profiles: [], cursor: null, made: 0, clock: { virtualMs: 0, realMs: 0, running: false } };
    clockRead(job, clock);
    await timed('setup: createWebhook', 'POST', '/v1/webhooks', { name: 'Soak receiver', url: `${receiverBase}/${id}/${shape.flakyReceiver ? 'flaky' : 'ok'}`, events }, key);
    const stream = shape.stream === 'none' ? undefined : await openStream(key);

    const steps = 8 + Math.floor(job.random() * 24);
    let previous = { name: 'setup: createWebhook', startedAt: performance.now(), tookMs: 0 };
    for (let step = 0; step < steps && performance.now() < until; step++) {
      const kind = pick(job.random);
      const t0 = performance.now();
      try {
        const res = await kind.run(job);
        note(kind.name, res.status, performance.now() - t0);
        if (res.status === 401) {
          // Evicted under the job's feet: its workspace is gone, and every further request would say so again.
          refusedWhileLive++;
          firstRefusal ??= `${kind.name} ${Math.round(t0 - previous.startedAt)} ms after its job's previous request (${previous.name}, which took ${Math.round(previous.tookMs)} ms) began`;
          live.delete(id);
          return;
        }
      } catch (error) {
        socketError(kind.name, error);
      }
      previous = { name: kind.name, startedAt: t0, tookMs: performance.now() - t0 };
      if (stream && shape.stream === 'closed halfway' && step === steps >> 1) closeStream(stream);
    }

    // The end of the job: delete its workspace (a stream left open: the delete ends it), or walk
    // away and leave it to the TTL. A job that walked away is gone, and so are its connections: an
    // open stream is a request still being answered, which keeps its workspace in use.
    if (shape.abandon) {
      if (stream) closeStream(stream);
      abandoned.set(id, key);
      workspaces.abandoned++;
      return;
    }
    await remove(id, key);
  };

  /** Sees which walked-away workspaces the TTL has evicted, and that their keys are dead. */
  let lookingForExpired = false;
  const lookForExpired = async () => {
    if (lookingForExpired || abandoned.size === 0) return;
    lookingForExpired = true;
    try {
      const res = await timed('listWorkspaces', 'GET', '/__control/workspaces');
      const listed = new Set(((res?.body as { data?: { workspaceId: string }[] } | undefined)?.data ?? []).map((workspace) => workspace.workspaceId));
      workspaces.mostAtOnce = Math.max(workspaces.mostAtOnce, listed.size);
      if (!res || res.status !== 200) return;
      for (const [id, key] of [...abandoned]) {
        if (listed.has(id)) continue;
        abandoned.delete(id);
        live.delete(id);
        workspaces.expired++;
        await expectDeadKey(key);
      }
    } finally {
      lookingForExpired = false;
    }
  };

  /** The jobs until `until`, `options.connections` at a time, each slot running one job after another. */
  const drive = async (until: number) => {
    const template = await makeTemplate();
    await Promise.all(
      Array.from({ length: options.connections }, async () => {
        while (performance.now() < until) await runJob(template, until);
      }),
    );
    clearInterval(template.keepAlive);
    await remove(template.id, template.key);
  };

  // ---------------------------------------------------------------- memory over time
  const memory: MemorySample[] = [];
  const sample = () => {
    // After a full collection, as the old soak sampled: the figures move with what is held, not with when V8 last collected.
    collectGarbage();
    const usage = process.memoryUsage();
    const last = { atSeconds: atSeconds(), rssMb: toMb(usage.rss), heapMb: toMb(usage.heapUsed), workspaces: mock.registry.size };
    workspaces.mostAtOnce = Math.max(workspaces.mostAtOnce, last.workspaces);
    memory.push(last);
    options.log(`  ${last.atSeconds.toFixed(0).padStart(4)} s  rss ${last.rssMb} MB  heap ${last.heapMb} MB  workspaces ${last.workspaces}  requests ${latencies.count}`);
    void lookForExpired();
  };

  /**
   * Every soak workspace gone (the jobs ended, the walked-away ones evicted by the
   * TTL, the template deleted), the pool's connections closed: the server as a team's
   * CI leaves it between two busy hours. Memory after a full collection, resources,
   * connections and streams are taken here, after the warm-up and after the run.
   */
  const checkpoint = async (label: string): Promise<Checkpoint> => {
    const evictedBy = performance.now() + options.ttlMs + sweepIntervalMs(options.ttlMs) + SETTLE_MS;
    while (abandoned.size > 0 && performance.now() < evictedBy) {
      await lookForExpired();
      if (abandoned.size > 0) await sleep(100);
    }
    if (abandoned.size > 0) problems.push(`${label}: ${abandoned.size} workspaces left to --workspace-ttl were still listed ${Math.round((options.ttlMs + sweepIntervalMs(options.ttlMs) + SETTLE_MS) / 1000)} s after their last use`);
    agent.destroy();
    agent = newPool();
    // What the server must close by itself (streams of ended workspaces) and what follows the pool's closing.
    const settledBy = performance.now() + SETTLE_MS;
    while ((openStreams.size > 0 || (await watch.connections()) > 0) && performance.now() < settledBy) await sleep(50);
    // Deliveries on the wire when their workspace ended land.
    await sleep(500);
    const health = await healthSnapshot(watch);
    // Only a run whose memory is judged waits for RSS to settle.
    const rss = await settledRss(options.seconds >= MEMORY_JUDGED_FROM_SECONDS ? RSS_SETTLE_MS : 0);
    const retainedWorkspaces = held.filter((ref) => ref.deref() !== undefined).length;
    // Only the ones still held are worth looking at again; the freed ones would only grow this list.
    held = held.filter((ref) => ref.deref() !== undefined);
    const point: Checkpoint = {
      ...health,
      rssMb: rss.rssMb,
      rssSettledAfterSeconds: rss.afterSeconds,
      atSeconds: atSeconds(),
      liveWorkspaces: mock.registry.size,
      // Only a built workspace has a scheduler that could have armed one.
      armedTimers: mock.registry.used().filter((workspace) => workspace.scheduler.armed).length,
      openStreams: openStreams.size,
      retainedWorkspaces,
    };
    options.log(`  ${label}: ${describeCheckpoint(point)}`);
    if (options.heapSnapshots) options.log(`  heap snapshot: ${writeHeapSnapshot(join(options.heapSnapshots, `soak-${label.replace(/\W+/g, '-')}.heapsnapshot`))}`);
    return point;
  };

  // ---------------------------------------------------------------- the run
  sample();
  const sampler = setInterval(sample, options.sampleEveryMs);
  const warmUpSeconds = warmUp(options);
  await drive(began + warmUpSeconds * 1000);
  const start = await checkpoint('start (after the warm-up, every soak workspace gone)');
  // The run's own clock starts here: the checkpoint's waits are not traffic.
  const runStarted = performance.now();
  const requestsBefore = latencies.count;
  await drive(runStarted + (options.seconds - warmUpSeconds) * 1000);
  const runSeconds = (performance.now() - runStarted) / 1000;
  const end = await checkpoint('end (after the run, every soak workspace gone)');
  clearInterval(sampler);
  sample();

  watch.stop();
  unsubscribe('http.client.request.start', onDeliveryStart);
  agent.destroy();
  await mock.close();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
  process.off('unhandledRejection', onRejection);
  process.off('uncaughtException', onException);

  // ---------------------------------------------------------------- the verdict
  const fiveXx = Object.entries(statuses).filter(([status]) => Number(status) >= 500).reduce((sum, [, n]) => sum + n, 0);
  if (fiveXx > 0) problems.push(`${fiveXx} responses were 5xx`);
  if (socketErrors > 0) problems.push(`${socketErrors} requests failed on the socket (the first: ${firstSocketError})`);
  if (mock.violations.length > 0) problems.push(`${mock.violations.length} responses broke the contract`);
  problems.push(...unhandled);
  if (refusedWhileLive > 0) problems.push(`${refusedWhileLive} workspaces still in use were evicted (a request answered 401; the first: ${firstRefusal})`);
  if (keysAlive > 0) problems.push(`${keysAlive} keys of deleted or expired workspaces did not answer 401`);
  if (deliveries.startedAfterTheirEnd > 0) problems.push(`${deliveries.startedAfterTheirEnd} webhook deliveries were started after their workspace ended`);
  for (const [label, point] of [['start', start], ['end', end]] as const) {
    if (point.liveWorkspaces !== 1) problems.push(`${label}: the server held ${point.liveWorkspaces} workspaces, not the default one alone`);
    if (point.serverConnections > 0) problems.push(`${label}: ${point.serverConnections} connections still open on the server`);
    if (point.openStreams > 0) problems.push(`${label}: ${point.openStreams} event streams still open after their workspace ended`);
    if (point.armedTimers > 0) problems.push(`${label}: ${point.armedTimers} scheduler timers armed`);
    if (point.retainedWorkspaces > 0) problems.push(`${label}: ${point.retainedWorkspaces} ended workspaces still reachable after a full collection`);
  }
  const grown = resourcesGrown(start.resources, end.resources);
  if (grown.length > 0) problems.push(`more active resources at the end than at the start: ${grown.join(', ')}`);
  const heap = withinShare(start.heapMb, end.heapMb, MEMORY_LIMIT);
  const rss = withinShare(start.rssMb, end.rssMb, MEMORY_LIMIT);
  if (options.seconds >= MEMORY_JUDGED_FROM_SECONDS) {
    if (!heap.within) problems.push(`heap after a full collection ${start.heapMb} MB at the start, ${end.heapMb} MB at the end (${heap.ratio}x, over ${MEMORY_LIMIT * 100}% apart)`);
    if (!rss.within) problems.push(`RSS ${start.rssMb} MB at the start, ${end.rssMb} MB at the end (${rss.ratio}x, over ${MEMORY_LIMIT * 100}% apart)`);
  }

  const round = (n: number) => Math.round(n * 10) / 10;
  const slowest: SoakReport['slowest'] = {};
  for (const [name, histogram] of Object.entries(latenciesByKind)) slowest[name] = { p99: round(histogram.quantile(0.99)), max: round(histogram.max) };
  return {
    seconds: round(runSeconds),
    connections: options.connections,
    ttlMs: options.ttlMs,
    requests: latencies.count,
    // The run's rate: the warm-up's requests and the checkpoints' waits left out.
    requestsPerSecond: Math.round((latencies.count - requestsBefore) / runSeconds),
    latencyMs: { p50: round(latencies.quantile(0.5)), p90: round(latencies.quantile(0.9)), p99: round(latencies.quantile(0.99)), max: round(latencies.max) },
    statuses,
    operations,
    slowest,
    socketErrors,
    unhandled,
    workspaces,
    streams,
    deliveries,
    memory,
    start,
    end,
    problems,
  };
}

function describeCheckpoint(point: Checkpoint): string {
  const resources = Object.entries(point.resources)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([type, n]) => `${type} ${n}`)
    .join(', ');
  const spaces = Object.entries(point.heapSpacesMb)
    .map(([space, mb]) => `${space} ${mb}`)
    .join(', ');
  return `heap ${point.heapMb} MB {${spaces}}, heap held ${point.heapTotalMb} MB, external ${point.externalMb} MB, rss ${point.rssMb} MB (settled after ${point.rssSettledAfterSeconds} s), workspaces ${point.liveWorkspaces}, resources {${resources}}, server connections ${point.serverConnections}, open streams ${point.openStreams}, armed scheduler timers ${point.armedTimers}, ended workspaces still reachable ${point.retainedWorkspaces}`;
}

export function formatReport(report: SoakReport): string {
  const sorted = (record: Record<string, number>) =>
    Object.entries(record)
      .sort((a, b) => b[1] - a[1])
      .map(([key, n]) => `${key} ${n}`)
      .join(', ');
  const { workspaces: w, streams: s, deliveries: d } = report;
  return [
    `soak: ${report.requests} requests; the run after the warm-up ${report.seconds} s at ${report.requestsPerSecond} req/s, ${report.connections} concurrent jobs, --workspace-ttl ${report.ttlMs} ms`,
    `  latency ms: p50 ${report.latencyMs.p50}, p90 ${report.latencyMs.p90}, p99 ${report.latencyMs.p99}, max ${report.latencyMs.max}`,
    `  statuses: ${sorted(report.statuses)}`,
    `  requests: ${sorted(report.operations)}`,
    `  p99 / max ms by request: ${Object.entries(report.slowest)
      .sort((a, b) => b[1].p99 - a[1].p99)
      .map(([name, { p99, max }]) => `${name} ${p99} / ${max}`)
      .join(', ')}`,
    `  workspaces: ${w.jobs} jobs; ${w.created} created, ${w.forked} forked, ${w.deleted} deleted, ${w.abandoned} left to the TTL and ${w.expired} expired; at most ${w.mostAtOnce} at once`,
    `  event streams: ${s.opened} opened, ${s.closedByClient} closed by their client, ${s.endedByServer} ended by the server at their workspace's end, ${s.events} events received`,
    `  webhook deliveries: ${d.received} received (${d.refusedOnPurpose} refused on purpose), ${d.startedAfterTheirEnd} started after their workspace ended`,
    `  memory (MB) while running: ${report.memory.map((m) => `${m.atSeconds}s heap ${m.heapMb} rss ${m.rssMb} ws ${m.workspaces}`).join(' | ')}`,
    report.start ? `  start: ${describeCheckpoint(report.start)}` : '',
    report.end ? `  end:   ${describeCheckpoint(report.end)}` : '',
    report.problems.length === 0 ? '  result: PASS' : `  result: FAIL: ${report.problems.join('; ')}`,
  ]
    .filter((line) => line !== '')
    .join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
  const options: SoakOptions = {
    seconds: env('SOAK_SECONDS', 600),
    connections: env('SOAK_CONNECTIONS', 100),
    ttlMs: env('SOAK_TTL_MS', 60_000),
    sampleEveryMs: env('SOAK_SAMPLE_MS', 5000),
    seed: env('SOAK_SEED', 1),
    heapSnapshots: process.env.SOAK_HEAP_SNAPSHOTS,
    log: (line) => console.log(line),
  };
  console.log(`soak: ${options.connections} concurrent jobs for ${options.seconds} s, --workspace-ttl ${options.ttlMs} ms (seed ${options.seed})`);
  const report = await runSoak(options);
  console.log(formatReport(report));
  process.exitCode = report.problems.length === 0 ? 0 : 1;
}
