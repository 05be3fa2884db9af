import { ApiError } from '../../lib/errors.js';
import { platformFacts } from '../../platforms/catalog.js';
import { defineStore } from '../../store/define-store.js';
import type { Workspace } from '../../workspaces/workspace.js';
import { postsChangeCount, postsStore } from './store.js';

/** The reference's pace: 25 destinations per rolling hour per account. */
export const HOURLY_CAP = 25;
const HOUR_MS = 3600_000;
const DAY_MS = 24 * HOUR_MS;
/** Daily cap for a platform this build does not know ("every other platform"). */
const DEFAULT_DAILY_CAP = 50;

/**
 * Posting velocity of one workspace. Only destinations that actually published
 * count; but a destination on its way out (its post is processing) holds a place,
 * so parallel publishes to one account can never overshoot a cap.
 */
export const velocityStore = defineStore('velocity', () => ({
  /** Set once the ledger has been filled from the posts that were already published. */
  initialized: false,
  /** Publish times (virtual ms) per account of destinations that published; older than two days is pruned. */
  published: {} as Record<string, number[]>,
  /** Destinations on their way out (admitted when their post started) and not yet published or failed, per account. */
  inFlight: {} as Record<string, string[]>,
}));

export interface VelocityAccount {
  id: string;
  platform: string;
}

export interface VelocityRefusal {
  accountId: string;
  platform: string;
  window: 'hour' | 'day';
  limit: number;
  retryAfterSeconds: number;
}

export function dailyCap(platform: string): number {
  return platformFacts(platform)?.dailyCap ?? DEFAULT_DAILY_CAP;
}

function startOfUtcDay(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

type Ledger = ReturnType<typeof velocityStore.get>;

/**
 * Fills a ledger from the posts already published (the fixture world, an older data file): every
 * post, so O(posts). It runs once per workspace, on the first write that reads or changes the
 * ledger (`ledger`), which keeps it from then on; a read of a ledger no write has touched yet
 * (`readLedger`: GET /__control/limits, a scenario's velocity failure) fills a copy kept outside
 * the store, since a read must not change the workspace. (It used to run on every create of a
 * frozen clock, whose posts never go out to fill the ledger: 14.5 s of a 17 s profile at 10,000
 * posts, issue 37.)
 */
function fillFromPosts(workspace: Workspace, store: Ledger): Ledger {
  for (const post of Object.values(postsStore.read(workspace).posts)) {
    for (const destination of post.destinations) {
      if (destination.publishedAt === null) continue;
      (store.published[destination.connectionId] ??= []).push(Date.parse(destination.publishedAt));
    }
  }
  for (const times of Object.values(store.published)) times.sort((a, b) => a - b);
  store.initialized = true;
  return store;
}

/** The ledger to write to: stored, and filled once (O(posts) that once, O(1) after). */
function ledger(workspace: Workspace): Ledger {
  const store = velocityStore.get(workspace);
  return store.initialized ? store : fillFromPosts(workspace, store);
}

/** The filled copies of unfilled ledgers, by the posts record they were filled from. */
const readCopies = new WeakMap<object, { from: Ledger | undefined; changeCount: number; copy: Ledger }>();

/**
 * The ledger to read: a read never creates or fills the stored one. An unfilled one is read from a
 * copy filled from the posts, kept while no post is added or changes its publish time: O(posts)
 * once, then O(1). GET /__control/limits reads it once per account, and filled it again for each.
 */
function readLedger(workspace: Workspace): Ledger {
  const stored = velocityStore.peek(workspace);
  if (stored?.initialized) return stored;
  const posts = postsStore.read(workspace).posts;
  const changeCount = postsChangeCount(posts);
  const kept = readCopies.get(posts);
  if (kept && kept.from === stored && kept.changeCount === changeCount) return kept.copy;
  const copy = fillFromPosts(workspace, stored ? structuredClone(stored) : velocityStore.read(workspace));
  readCopies.set(posts, { from: stored, changeCount, copy });
  return copy;
}

function prune(times: number[], nowMs: number): number[] {
  const keepFrom = startOfUtcDay(nowMs) - DAY_MS;
  const drop = firstAtOrAfter(times, keepFrom);
  return drop === 0 ? times : times.slice(drop);
}

/** The index of the first time >= `ms` in ascending `times`: a binary search, O(log n). */
function firstAtOrAfter(times: readonly number[], ms: number): number {
  let low = 0;
  let high = times.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((times[mid] as number) < ms) low = mid + 1;
    else high = mid;
  }
  return low;
}

/**
 * The windows of one account at `now`, read from its sorted publish times by binary search:
 * O(log k) for an account's k kept publishes (at most two UTC days' worth, bounded by its caps
 * plus any pre-load), whatever the size of the workspace.
 */
function windowsOf(store: Ledger, accountId: string, now: number) {
  const times = store.published[accountId] ?? [];
  // Publishes at exactly an hour ago have aged out (t > now - 1 h counts).
  const hourFrom = firstAtOrAfter(times, now - HOUR_MS + 1);
  const dayFrom = firstAtOrAfter(times, startOfUtcDay(now));
  return { times, hourFrom, inHour: times.length - hourFrom, today: times.length - dayFrom, inFlight: (store.inFlight[accountId] ?? []).length };
}

/** The account's usage now: published in the rolling hour and the UTC day, and in flight. O(log k + the hour's publishes). */
export function velocityUsage(workspace: Workspace, accountId: string) {
  const windows = windowsOf(readLedger(workspace), accountId, workspace.now());
  return {
    lastHour: windows.times.slice(windows.hourFrom),
    today: windows.today,
    inFlight: windows.inFlight,
  };
}

/**
 * Whether `count` more destinations may publish on the account now; the refusal names the window.
 * `goingOut: false` counts only what went out, for a post that is merely accepted now (queued
 * posts do not count, the reference says); by default the destinations on their way out count
 * too, for one that leaves now, so parallel publishes cannot overshoot a cap.
 *
 * Called only on writes (a create, a post leaving, a quote), so it reads the stored ledger, filled
 * once per workspace: O(log k) in the account's kept publishes, flat in the workspace's posts.
 */
export function velocityRefusal(workspace: Workspace, account: VelocityAccount, count: number, { goingOut = true }: { goingOut?: boolean } = {}): VelocityRefusal | undefined {
  const now = workspace.now();
  const { times, hourFrom, inHour, today, inFlight: flying } = windowsOf(ledger(workspace), account.id, now);
  const inFlight = goingOut ? flying : 0;
  const cap = dailyCap(account.platform);
  if (today + inFlight + count > cap) {
    // The daily cap resets at the next UTC midnight.
    return { accountId: account.id, platform: account.platform, window: 'day', limit: cap, retryAfterSeconds: Math.ceil((startOfUtcDay(now) + DAY_MS - now) / 1000) };
  }
  const over = inHour + inFlight + count - HOURLY_CAP;
  if (over > 0) {
    // Enough of the hour's oldest publishes must age out; in-flight ones are not in the ledger yet, so a
    // window full of them alone waits a whole hour.
    const agingOut = over <= inHour ? times[hourFrom + over - 1] : undefined;
    const wait = agingOut === undefined ? HOUR_MS : agingOut + HOUR_MS - now;
    return { accountId: account.id, platform: account.platform, window: 'hour', limit: HOURLY_CAP, retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)) };
  }
  return undefined;
}

/** What a refusal says, in the 429 and in a scheduled destination's errorMessage. */
export function velocityMessage(refusal: VelocityRefusal): string {
  const per = refusal.window === 'hour' ? 'per rolling hour' : 'per UTC day';
  return `Account ${refusal.accountId} reached its cap of ${refusal.limit} posts ${per} on ${refusal.platform}; retry after ${refusal.retryAfterSeconds} s.`;
}

export function velocityError(refusal: VelocityRefusal, param?: string): ApiError {
  return new ApiError(429, 'VELOCITY_LIMITED', velocityMessage(refusal), {
    ...(param !== undefined && { param }),
    details: { ...refusal },
    headers: { 'Retry-After': String(refusal.retryAfterSeconds) },
  });
}

/**
 * Holds a place for a destination about to publish; the caller has checked `velocityRefusal`
 * first. Once: a data file from before decision 0003's revision holds places taken at creation.
 */
export function reserve(workspace: Workspace, accountId: string, destinationId: string): void {
  // O(the account's destinations in flight): at most its hourly cap, since each one was admitted under it.
  const inFlight = (ledger(workspace).inFlight[accountId] ??= []);
  if (!inFlight.includes(destinationId)) inFlight.push(destinationId);
}

/** A reserved destination published (counts from `atMs` on) or failed (frees its place). */
export function settle(workspace: Workspace, accountId: string, destinationId: string, published: boolean): void {
  const store = ledger(workspace);
  const inFlight = store.inFlight[accountId] ?? [];
  const index = inFlight.indexOf(destinationId);
  if (index >= 0) inFlight.splice(index, 1);
  if (published) record(store, accountId, workspace.now(), 1);
}

/** Adds publishes to an account's times, dropping those no window reads any more: O(log k + count), and a copy of the kept times when some are dropped. */
function record(store: Ledger, accountId: string, nowMs: number, count: number): void {
  const times = prune(store.published[accountId] ?? [], nowMs);
  for (let i = 0; i < count; i++) times.push(nowMs);
  store.published[accountId] = times;
}

/**
 * `count` publishes at the current virtual time that were never reserved: a quote,
 * which goes out within its own request, or the control plane's pre-load.
 */
export function recordPublishes(workspace: Workspace, accountId: string, count: number): void {
  record(ledger(workspace), accountId, workspace.now(), count);
}
