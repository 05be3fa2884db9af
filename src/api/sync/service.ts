import type { components } from '../../generated/openapi.js';
import { ApiError } from '../../lib/errors.js';
import { assertNetworkUp } from '../../platforms/outages.js';
import type { Workspace } from '../../workspaces/workspace.js';
import { getAccount } from '../accounts/service.js';
import type { AccountRecord } from '../accounts/store.js';
import { metricsAt } from '../posts/metrics.js';
import { addPost, postsStore } from '../posts/store.js';
import { publishedNewestFirst } from '../posts/published-index.js';
import { type DestinationRecord, type PostRecord } from '../posts/records.js';
import { postView } from '../posts/views.js';
import { textLimitFor } from '../posts/network-rules.js';
import { checkTextLimit } from '../../platforms/text-limit.js';
import { postedNetworkPost, recentNetworkPosts, type NetworkPost } from './network-timeline.js';
import { postedOnNetworkStore, syncStore } from './store.js';

/** How many of the account's most recent network posts a sync reads (the reference's 20). */
export const SYNC_DEPTH = 20;
/** A sync within this long of the last one is skipped (the reference's 15 seconds, virtual time). */
export const SYNC_SKIP_MS = 15_000;

export type SyncRequest = components['schemas']['SyncAccountBody'];

/** A post of the account as the service knows it: one destination of a grouped post. */
interface KnownPost {
  post: PostRecord;
  destination: DestinationRecord;
}

/** One entry of the account's network timeline: known to the service, or only on the network. */
type TimelineEntry = { known: KnownPost; network?: undefined } | { known?: undefined; network: NetworkPost };

export interface SyncOutcome {
  /** Newest first. */
  posts: KnownPost[];
  skipped: boolean;
}

/** Syncing an account that is not active (also what a scenario rule's ACCOUNT_RECONNECT_REQUIRED answers on syncAccount). */
export function reconnectToSync(account: { id: string; status: string }): ApiError {
  return new ApiError(400, 'ACCOUNT_RECONNECT_REQUIRED', `Account ${account.id} is ${account.status}; reconnect it before syncing.`, {
    param: 'id',
    details: { accountId: account.id, status: account.status },
  });
}

/**
 * POST /v1/accounts/{id}/sync. Reads the account's 20 most recent network posts
 * (or, with `url`/`platformPostId`, looks for that one post among them), adds the
 * ones the service does not know as `source: external` posts and emits
 * `post.external.created` once for each. Within 15 seconds of the last sync the
 * network is not asked again: the answer holds only posts already known.
 */
export function syncAccount(workspace: Workspace, accountId: string, request: SyncRequest): SyncOutcome {
  const account = getAccount(workspace, accountId);
  if (account.status !== 'active') throw reconnectToSync(account);
  const now = workspace.now();
  const store = syncStore.get(workspace);
  const last = store.lastSyncedAtMs[account.id];
  const matches = matcher(request);

  if (last !== undefined && now - last < SYNC_SKIP_MS) {
    // The service answers from what it holds, without asking the network.
    const known = newestKnownPublished(workspace, account, SYNC_DEPTH);
    return { posts: known.filter(({ destination }) => matches(destination.externalPostId, destination.externalUrl)), skipped: true };
  }

  assertNetworkUp(workspace, account.platform);
  const found = networkTimeline(workspace, account, now).filter((entry) =>
    entry.known ? matches(entry.known.destination.externalPostId, entry.known.destination.externalUrl) : matches(entry.network.platformPostId, entry.network.url),
  );
  // Imported oldest first, so events and ids follow the network's own order.
  const imported = new Map<NetworkPost, KnownPost>();
  for (const entry of [...found].reverse()) {
    if (entry.network) imported.set(entry.network, importPost(workspace, account, entry.network));
  }
  store.lastSyncedAtMs[account.id] = now;
  workspace.changed();
  return { posts: found.map((entry) => entry.known ?? (imported.get(entry.network) as KnownPost)), skipped: false };
}

/**
 * The account's 20 most recent posts on the network, newest first: what was posted
 * there directly, merged with what the service published (or imported) to it. A post
 * deleted through the service is gone from the network.
 */
function networkTimeline(workspace: Workspace, account: AccountRecord, now: number): TimelineEntry[] {
  const known = knownPosts(workspace, account);
  const byNetworkId = new Map(known.map((entry) => [entry.destination.externalPostId, entry]));
  const deleted = known.filter(({ destination }) => destination.status === 'deleted').length;
  // Enough network posts that dropping the deleted ones still leaves 20.
  const networkPosts = recentNetworkPosts(workspace.data.seed, account, now, SYNC_DEPTH + deleted);
  const posted = postedOnNetworkStore.peek(workspace)?.byAccount[account.id] ?? [];
  const entries: Array<TimelineEntry & { atMs: number; key: string }> = [];
  for (const network of [...networkPosts, ...posted]) {
    if (!byNetworkId.has(network.platformPostId)) entries.push({ network, atMs: network.publishedAtMs, key: network.platformPostId });
  }
  for (const entry of known) {
    if (entry.destination.status !== 'published') continue;
    entries.push({ known: entry, atMs: Date.parse(entry.destination.publishedAt ?? ''), key: entry.destination.externalPostId ?? '' });
  }
  entries.sort((a, b) => b.atMs - a.atMs || (a.key < b.key ? 1 : a.key > b.key ? -1 : 0));
  return entries.slice(0, SYNC_DEPTH);
}

export interface NetworkPostInput {
  /** Every post's text; left out, drawn like the seeded timeline's. */
  text?: string;
  /** How many posts (default 1). */
  count?: number;
}

/** Every check of postOnNetwork, changing nothing: a scenario's `network.post` step runs it when the scenario loads. */
export function checkNetworkPost(workspace: Workspace, accountId: string, input: NetworkPostInput): AccountRecord {
  const account = getAccount(workspace, accountId);
  if (input.text !== undefined) checkTextLimit(input.text, textLimitFor(account), account.platform);
  return account;
}

/**
 * The account publishes on its network itself, outside the service: `count` posts,
 * a second apart, the last one now. They join the account's network timeline, so
 * the next sync that reaches the network imports them (`post.external.created`).
 */
export function postOnNetwork(workspace: Workspace, accountId: string, input: NetworkPostInput): NetworkPost[] {
  const account = checkNetworkPost(workspace, accountId, input);
  const count = input.count ?? 1;
  const posted = (postedOnNetworkStore.get(workspace).byAccount[account.id] ??= []);
  const now = workspace.now();
  const added: NetworkPost[] = [];
  for (let i = 0; i < count; i++) added.push(postedNetworkPost(workspace.data.seed, account, posted.length + i, now - (count - 1 - i) * 1000, input.text));
  posted.push(...added);
  workspace.changed();
  return added;
}

/** Newest first, as the network orders its timeline: by publish time, then network id. */
function newestKnownFirst(a: KnownPost, b: KnownPost): number {
  return (b.destination.publishedAt ?? '').localeCompare(a.destination.publishedAt ?? '') || (b.destination.externalPostId ?? '').localeCompare(a.destination.externalPostId ?? '');
}

/**
 * Every destination of this account that reached the network (published, or since deleted), newest
 * first: O(p log p) in the account's p published destinations (a sync that reaches the network,
 * at most once per account in 15 virtual seconds).
 */
function knownPosts(workspace: Workspace, account: AccountRecord): KnownPost[] {
  const found: KnownPost[] = [];
  for (const entry of publishedNewestFirst(postsStore.get(workspace).posts, account.id)) {
    if (entry.destination.externalPostId === null) continue;
    if (entry.destination.status === 'published' || entry.destination.status === 'deleted') found.push(entry);
  }
  return found.sort(newestKnownFirst);
}

/**
 * The account's `count` newest destinations still published on the network, as `knownPosts`
 * orders them: O(count + k) for the k deleted ones walked past (posts/published-index.ts), not a
 * walk of every post. The walk goes on past the last one kept while publish times tie, since the
 * network id breaks those ties.
 */
function newestKnownPublished(workspace: Workspace, account: AccountRecord, count: number): KnownPost[] {
  const found: KnownPost[] = [];
  for (const entry of publishedNewestFirst(postsStore.get(workspace).posts, account.id)) {
    if (found.length >= count && entry.destination.publishedAt !== found[found.length - 1]?.destination.publishedAt) break;
    if (entry.destination.externalPostId !== null && entry.destination.status === 'published') found.push(entry);
  }
  return found.sort(newestKnownFirst).slice(0, count);
}

/** Adds a network post as a published `source: external` post with one destination, and says so. */
function importPost(workspace: Workspace, account: AccountRecord, network: NetworkPost): KnownPost {
  const nowIso = workspace.nowIso();
  const publishedAt = new Date(network.publishedAtMs).toISOString();
  const postId = workspace.newId();
  const destination: DestinationRecord = {
    id: workspace.newId(),
    connectionId: account.id,
    platform: account.platform,
    status: 'published',
    externalPostId: network.platformPostId,
    externalUrl: network.url,
    errorCode: null,
    errorMessage: null,
    publishedAt,
    text: null,
    options: structuredClone(network.options),
    metricsSeed: network.metricsSeed,
  };
  const post: PostRecord = {
    id: postId,
    text: network.text,
    mediaUrls: [...network.mediaUrls],
    mediaKind: network.mediaKind,
    status: 'published',
    scheduledFor: null,
    timezone: null,
    scheduledAtMs: null,
    source: 'external',
    thread: null,
    destinations: [destination],
    createdAt: nowIso,
    updatedAt: nowIso,
  };
  addPost(workspace, post);
  workspace.events.emit('post.external.created', { post: postView(workspace, post) });
  return { post, destination };
}

/** Whether a post is the one asked for: every given reference must match; none given matches all. */
function matcher(request: SyncRequest): (platformPostId: string | null, url: string | null) => boolean {
  const wantedUrl = request.url === undefined ? undefined : comparableUrl(request.url);
  return (platformPostId, url) => {
    if (request.platformPostId !== undefined && platformPostId !== request.platformPostId) return false;
    if (wantedUrl !== undefined && (url === null || comparableUrl(url) !== wantedUrl)) return false;
    return true;
  };
}

/** Query parameters that share links carry and that never name the post. */
const TRACKING_PARAMS = /^(utm_.*|fbclid|gclid|igsh|igshid|si|s|t|ref|ref_src|feature)$/;

/**
 * A post URL reduced to what names the post, so a link copied from a browser or a
 * share sheet still matches: any scheme, host without `www.`, case-insensitive path
 * without a trailing slash, no fragment, tracking parameters dropped (the video
 * network keeps its id in `?v=`, so the query is not dropped whole).
 */
export function comparableUrl(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  let path = url.pathname;
  try {
    path = decodeURIComponent(path);
  } catch {
    // Keep a path with a stray % as it is.
  }
  const query = [...url.searchParams.entries()]
    .filter(([name]) => !TRACKING_PARAMS.test(name))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  return `${url.hostname.toLowerCase().replace(/^www\./, '')}${path.replace(/\/+$/, '').toLowerCase()}?${query}`;
}

/** The single-account post shape (AccountPost): one destination of a post, as an account sync answers it. */
export function accountPostView(workspace: Workspace, { post, destination }: KnownPost): components['schemas']['AccountPost'] {
  return {
    id: destination.id,
    groupId: post.id,
    accountId: destination.connectionId,
    platform: destination.platform,
    source: post.source,
    status: destination.status,
    text: destination.text ?? post.text,
    mediaKind: post.mediaKind,
    media: post.mediaUrls.map((url) => ({ url, type: post.mediaKind === 'video' || /\.(mp4|mov|webm)(\?|$)/i.test(url) ? ('video' as const) : ('image' as const) })),
    thread: post.thread ?? [],
    scheduledFor: post.scheduledFor,
    timezone: post.timezone,
    options: destination.options,
    platformPostId: destination.externalPostId ?? '',
    url: destination.externalUrl,
    error: destination.errorCode === null ? null : { code: destination.errorCode, message: destination.errorMessage ?? '' },
    publishedAt: destination.publishedAt,
    metrics: metricsAt(destination, destination.platform, workspace.now()),
    createdAt: post.createdAt,
    updatedAt: post.updatedAt,
  };
}
