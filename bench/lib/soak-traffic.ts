/**
 * The mixed traffic one soak job sends to its own workspace: reads, writes, scheduled
 * posts, clock advances that publish them (and fire its webhook), and every inbound
 * event of the control plane with its contract's example. Requests only: the job's
 * lifecycle (create, fork, stream, delete, abandon) is `bench/soak.ts`'s.
 */
import { loadSpec } from '../../src/http/spec.js';

export interface SoakResponse {
  status: number;
  body: unknown;
}

/** Sends one request with a workspace's key (none: the control plane's default). */
export type SoakCall = (method: string, path: string, body?: unknown, key?: string) => Promise<SoakResponse>;

interface Account {
  id: string;
  platform: string;
  status: string;
}

/** One CI job's workspace, as its requests see it. */
export interface JobWorkspace {
  id: string;
  key: string;
  random: () => number;
  /** Active accounts, and the ones that take a text post and inbound messages. */
  accounts: Account[];
  textAccountId: string;
  inboxAccountId: string | undefined;
  /** Profiles this job created and has not deleted yet. */
  profiles: string[];
  cursor: string | null;
  made: number;
  /** The workspace's virtual time at a moment of real time (`performance.now()`), and whether it runs from there. */
  clock: { virtualMs: number; realMs: number; running: boolean };
}

/** One kind of request: its weight in the mix, and how to make it. */
export interface RequestKind {
  name: string;
  weight: number;
  run: (job: JobWorkspace) => Promise<SoakResponse>;
}

/** mulberry32: a small seeded PRNG, so a soak's mix repeats for a seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Where the workspace's clock stands now: a running clock has moved with real time since it was read. */
export function virtualNow(job: JobWorkspace): number {
  return job.clock.virtualMs + (job.clock.running ? performance.now() - job.clock.realMs : 0);
}

/** Notes a clock the server answered (`{ now, frozen }`). */
export function clockRead(job: JobWorkspace, clock: { now: string; frozen: boolean }): void {
  job.clock = { virtualMs: Date.parse(clock.now), realMs: performance.now(), running: !clock.frozen };
}

/** Every event the contract names: the soak's webhooks subscribe to all of them. */
export function webhookEvents(): string[] {
  return (loadSpec('openapi.yaml').document.components?.schemas?.WebhookEventName as { enum?: string[] } | undefined)?.enum ?? ['post.published'];
}

/** Whatever /__control/inbound/* operations the control contract has, each with its own example body. */
function inboundEvents(): { path: string; example: Record<string, unknown> }[] {
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
  return inbound;
}

/** Networks that take a text post without media, in the order the soak prefers them. */
const TEXT_PLATFORMS = ['bluesky', 'threads', 'linkedin', 'facebook', 'twitter'];
const INBOX_PLATFORMS = ['instagram', 'facebook', 'bluesky'];

/** The accounts a job aims at, from its workspace's first page of accounts. */
export function aimAt(accountsBody: unknown): Pick<JobWorkspace, 'accounts' | 'textAccountId' | 'inboxAccountId'> {
  const accounts = ((accountsBody as { data?: Account[] } | undefined)?.data ?? []).filter((account) => account.status === 'active');
  const text = TEXT_PLATFORMS.map((platform) => accounts.find((account) => account.platform === platform)).find((account) => account !== undefined);
  return { accounts, textAccountId: text?.id ?? 'none', inboxAccountId: accounts.find((account) => INBOX_PLATFORMS.includes(account.platform))?.id };
}

const localTime = (ms: number) => new Date(ms).toISOString().slice(0, 19);

/**
 * When a job's scheduled post falls due: on a frozen clock half an hour ahead, which
 * the job's advances of ten minutes reach; on a running clock a few real seconds
 * ahead, so the scheduler's own timer publishes it (or is still armed when the
 * workspace is deleted).
 */
function scheduledFor(job: JobWorkspace): string {
  const ahead = job.clock.running ? 3_000 + Math.floor(job.random() * 5_000) : 30 * 60_000;
  return localTime(virtualNow(job) + ahead);
}

/** The request kinds of the mix, by weight. */
export function requestKinds(call: SoakCall): RequestKind[] {
  const inbound = inboundEvents();
  return [
    { name: 'listConnections', weight: 3, run: (job) => call('GET', '/v1/connections', undefined, job.key) },
    {
      name: 'listAccounts',
      weight: 3,
      run: async (job) => {
        const cursor = job.cursor && job.random() < 0.5 ? `&cursor=${encodeURIComponent(job.cursor)}` : '';
        const res = await call('GET', `/v1/accounts?limit=3${cursor}`, undefined, job.key);
        job.cursor = (res.body as { nextCursor?: string | null } | undefined)?.nextCursor ?? null;
        return res;
      },
    },
    { name: 'getAccount', weight: 2, run: (job) => call('GET', `/v1/accounts/${job.accounts[Math.floor(job.random() * job.accounts.length)]?.id ?? 'none'}`, undefined, job.key) },
    { name: 'listProfiles', weight: 2, run: (job) => call('GET', '/v1/profiles?limit=20', undefined, job.key) },
    {
      name: 'createProfile',
      weight: 2,
      run: async (job) => {
        const res = await call('POST', '/v1/profiles', { name: `Soak ${job.made++}` }, job.key);
        if (res.status === 201) job.profiles.push((res.body as { id: string }).id);
        return res;
      },
    },
    // Deletes what this job created (a 404 when it has nothing left).
    { name: 'deleteProfile', weight: 1, run: (job) => call('DELETE', `/v1/profiles/${job.profiles.shift() ?? 'nothing-to-delete'}`, undefined, job.key) },
    { name: 'badRequest', weight: 1, run: (job) => call('GET', '/v1/accounts?limit=0', undefined, job.key) },
    { name: 'listPosts', weight: 2, run: (job) => call('GET', '/v1/posts?limit=20', undefined, job.key) },
    {
      name: 'createPost',
      weight: 2,
      run: (job) =>
        call(
          'POST',
          '/v1/posts',
          {
            text: `Soak post ${job.made++}`,
            destinations: [{ connectionId: job.textAccountId }],
            ...(job.random() < 0.7 && { scheduledFor: scheduledFor(job), timezone: 'UTC' }),
          },
          job.key,
        ),
    },
    {
      name: 'advanceClock',
      weight: 0.7,
      run: async (job) => {
        const res = await call('POST', '/__control/clock/advance', { by: 'PT10M' }, job.key);
        if (res.status === 200) clockRead(job, (res.body as { clock: { now: string; frozen: boolean } }).clock);
        return res;
      },
    },
    ...inbound.map(({ path, example }) => ({
      name: `inbound ${path.split('/').pop() ?? ''}`,
      weight: 0.4,
      run: (job: JobWorkspace) => call('POST', path, 'accountId' in example && job.inboxAccountId ? { ...example, accountId: job.inboxAccountId } : example, job.key),
    })),
  ];
}

/** Picks a kind by weight with the job's own PRNG. */
export function picker(kinds: RequestKind[]): (random: () => number) => RequestKind {
  const total = kinds.reduce((sum, kind) => sum + kind.weight, 0);
  return (random) => {
    let r = random() * total;
    for (const kind of kinds) {
      r -= kind.weight;
      if (r <= 0) return kind;
    }
    return kinds[kinds.length - 1] as RequestKind;
  };
}
