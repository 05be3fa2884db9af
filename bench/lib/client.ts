import type { DestinationPair, Target } from './workloads.js';
import { DEFAULT_API_KEY } from './servers.js';

export interface Answer {
  status: number;
  text: string;
  headers: Headers;
}

/** One request; the body is sent as JSON when it is not a string already. */
export async function call(baseUrl: string, method: string, path: string, options: { apiKey?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...(options.apiKey !== undefined && { 'x-api-key': options.apiKey }), ...options.headers };
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${baseUrl}${path}`, { method, headers, ...(body !== undefined && { body }) });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

export async function callJson<T>(baseUrl: string, method: string, path: string, options: Parameters<typeof call>[3] = {}): Promise<T> {
  const answer = await call(baseUrl, method, path, options);
  if (answer.status >= 300) throw new Error(`${method} ${path} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
  return JSON.parse(answer.text) as T;
}

/** What the benchmark needs of a connection. */
export interface ConnectionSummary {
  id: string;
  platform: string;
  status: string;
  canAutoRenew: boolean;
  tokenExpiresAt: string | null;
}

/**
 * Networks that take a plain text post with no per-network fields (no media,
 * subreddit, title or board), so a two-destination post is valid on any of them.
 */
const TEXT_NETWORKS = new Set(['twitter', 'bluesky', 'facebook', 'threads', 'linkedin']);

/**
 * Every pair of accounts of one workspace a text post can go to: active, on a text
 * network, and with a token that cannot run out while the bench moves the clock.
 */
export function destinationPairs(apiKey: string, connections: readonly ConnectionSummary[]): DestinationPair[] {
  const usable = connections.filter((c) => c.status === 'active' && TEXT_NETWORKS.has(c.platform) && (c.tokenExpiresAt === null || c.canAutoRenew));
  const pairs: DestinationPair[] = [];
  for (let i = 0; i < usable.length; i++) {
    for (let j = i + 1; j < usable.length; j++) {
      const first = usable[i] as ConnectionSummary;
      const second = usable[j] as ConnectionSummary;
      if (first.platform !== second.platform) pairs.push({ apiKey, first: first.id, second: second.id });
    }
  }
  return pairs;
}

/** Pairs of several workspaces, interleaved: consecutive posts go to different workspaces. */
export function interleave(perWorkspace: ReadonlyArray<readonly DestinationPair[]>): DestinationPair[] {
  const out: DestinationPair[] = [];
  const longest = Math.max(0, ...perWorkspace.map((pairs) => pairs.length));
  for (let i = 0; i < longest; i++) {
    for (const pairs of perWorkspace) {
      const pair = pairs[i];
      if (pair) out.push(pair);
    }
  }
  return out;
}

/**
 * Workspaces `POST /v1/posts` rotates over. Each has three accounts a text post
 * can go to, each capped at 25 posts per rolling hour; with the clock frozen
 * between two ticks of the ClockDriver, 64 workspaces take about 2,400 posts per
 * tick before any account reaches its cap (at 200 ms a tick, 12,000 a second).
 */
export const DEFAULT_POOL_WORKSPACES = 64;

/**
 * The mock's posts go to a pool of workspaces (the default one and fresh ones made
 * from the control plane), so no account sees more than a handful of posts per
 * virtual day. The pool is only made when `POST /v1/posts` exists.
 */
/** The newest post of the default workspace: what `GET /v1/posts/{postId}` reads (a fixed id where there is none). */
export async function newestPostId(baseUrl: string): Promise<string> {
  const answer = await call(baseUrl, 'GET', '/v1/posts?limit=1', { apiKey: DEFAULT_API_KEY });
  const first = answer.status === 200 ? (JSON.parse(answer.text) as { data: Array<{ id: string }> }).data[0] : undefined;
  return first?.id ?? '00000000-0000-4000-8000-000000000000';
}

export async function workspacePool(baseUrl: string, connections: readonly ConnectionSummary[], workspaces: number): Promise<{ target: Target; keys: string[] }> {
  const keys = [DEFAULT_API_KEY];
  const perWorkspace = [destinationPairs(DEFAULT_API_KEY, connections)];
  const first = perWorkspace[0]?.[0];
  const probeAnswer = first
    ? await call(baseUrl, 'POST', '/v1/posts', { apiKey: DEFAULT_API_KEY, body: { text: 'Probe', destinations: [{ connectionId: first.first }, { connectionId: first.second }] } })
    : undefined;
  if (probeAnswer?.status === 201) {
    // The pool's own accounts keep their tokens: the fixture world renews about 60 a virtual day,
    // work that grows with the pool and the ticks, not with the posts the workload sends.
    const lastingTokens = `accounts:\n${[...new Set(connections.map((c) => c.platform))].map((platform) => `  - account: ${platform}\n    tokenExpiresAt: null\n`).join('')}`;
    for (let i = 1; i < workspaces; i++) {
      const { apiKey } = await callJson<{ apiKey: string }>(baseUrl, 'POST', '/__control/workspaces', { body: { scenario: lastingTokens } });
      const { connections: own } = await callJson<{ connections: ConnectionSummary[] }>(baseUrl, 'GET', '/v1/connections', { apiKey });
      keys.push(apiKey);
      perWorkspace.push(destinationPairs(apiKey, own));
    }
  }
  return { target: { apiKey: DEFAULT_API_KEY, postId: await newestPostId(baseUrl), pairs: interleave(perWorkspace) }, keys };
}

/**
 * Moves the clock of the benchmark's workspaces a day forward every `intervalMs`
 * while posts are being created: the posts publish (real work, done by the mock's
 * scheduler), and velocity windows (per hour, per UTC day) never fill up, whatever
 * the throughput, because each day's posts are spread over many workspaces.
 */
export class ClockDriver {
  private running = false;
  private loop: Promise<void> | undefined;
  ticks = 0;
  failures = 0;
  jobsRun = 0;

  constructor(
    private readonly baseUrl: string,
    private readonly apiKeys: readonly string[],
    private readonly intervalMs: number,
  ) {}

  start(): void {
    if (this.intervalMs <= 0 || this.running) return;
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        await new Promise((resolve) => setTimeout(resolve, this.intervalMs));
        if (!this.running) break;
        await this.tick();
      }
    })();
  }

  /** Moves every workspace's clock a day on, now; answers how many jobs ran. */
  async tick(): Promise<number> {
    let ran = 0;
    // All at once: a tick takes as long as the server needs for them, not one round trip per workspace.
    await Promise.all(
      this.apiKeys.map(async (apiKey) => {
        try {
          const answer = await call(this.baseUrl, 'POST', '/__control/clock/advance', { apiKey, body: { by: 'P1D' } });
          if (answer.status !== 200) this.failures++;
          else ran += (JSON.parse(answer.text) as { ran: unknown[] }).ran.length;
        } catch {
          this.failures++;
        }
      }),
    );
    this.ticks++;
    this.jobsRun += ran;
    return ran;
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }
}
