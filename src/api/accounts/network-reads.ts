import { encodeComponent } from '../../lib/uri.js';
import type { components } from '../../generated/openapi.js';
import { ApiError } from '../../lib/errors.js';
import { parseInclude, parseTimeRange } from '../../http/lists.js';
import { platformFacts } from '../../platforms/catalog.js';
import { assertNetworkUp } from '../../platforms/outages.js';
import { platformHost, postUrl } from '../../platforms/external-ids.js';
import type { Workspace } from '../../workspaces/workspace.js';
import { postsStore } from '../posts/store.js';
import { type MediaKind } from '../posts/records.js';
import { reviewsStore, type ReviewRecord } from '../reviews/store.js';
import { drawDigits, drawInt, drawPick, drawStream } from './draws.js';
import { accountFacts, type InsightKey, type MediaType, type StatSpec } from './networks.js';
import { getAccount } from './service.js';
import type { AccountRecord } from './store.js';

/*
 * What the networks answer about a connected account: stats, media, creator info,
 * boards, daily insights. The answers are computed, not stored: drawn from the
 * workspace seed and the account's network id (never from the workspace faker, so a
 * read moves no id stream), grown with the virtual clock, and joined with the real
 * state the mock holds (the posts the account published, the page's reviews).
 */

const DAY_MS = 86_400_000;
/** The longest insights range one request may ask for. */
export const MAX_INSIGHTS_DAYS = 90;

export interface NetworkReadOptions {
  /** The only network the read exists on; others answer 400 PLATFORM_NOT_SUPPORTED. */
  platform?: string;
  /** Whether the network must accept the account's token (true for every read but stats). */
  requireActive: boolean;
}

/** A network read of an account that is not active (also what a scenario rule's ACCOUNT_RECONNECT_REQUIRED answers on one). */
export function reconnectToRead(account: { id: string; status: string }): ApiError {
  return new ApiError(400, 'ACCOUNT_RECONNECT_REQUIRED', `Account ${account.id} is ${account.status}: the network refuses its token until the owner reconnects it (POST /v1/accounts/${account.id}/reconnect).`, {
    param: 'id',
    details: { accountId: account.id, status: account.status },
  });
}

/**
 * The account a network read is about, after the checks every read makes in this
 * order: it exists here (404), it is on the right network (400
 * PLATFORM_NOT_SUPPORTED), its token works (400 ACCOUNT_RECONNECT_REQUIRED), the
 * network is up (502 PLATFORM_ERROR).
 */
export function readableAccount(workspace: Workspace, id: string, options: NetworkReadOptions): AccountRecord {
  const account = getAccount(workspace, id);
  if (options.platform !== undefined && account.platform !== options.platform) assertPlatform(account, options.platform, 'id');
  if (options.requireActive && account.status !== 'active') throw reconnectToRead(account);
  assertNetworkUp(workspace, account.platform);
  return account;
}

export function assertPlatform(account: AccountRecord, platform: string, param: string): void {
  if (account.platform === platform) return;
  const label = platformFacts(platform)?.label ?? platform;
  throw new ApiError(400, 'PLATFORM_NOT_SUPPORTED', `This works only on ${label} (${platform}) connections; ${account.id} is a ${account.platform} connection.`, {
    param,
    details: { platform: account.platform, supported: [platform] },
  });
}

// ---------------------------------------------------------------------------
// Stats
// ---------------------------------------------------------------------------

function statValue(workspace: Workspace, account: AccountRecord, spec: StatSpec, atMs: number): number {
  const next = drawStream(workspace.data.seed, account.platformUserId, 'stat', spec.key);
  // A log-spread draw: most accounts are ordinary, a few are five times the typical one.
  const atConnection = spec.typical * 0.2 * 25 ** next();
  const days = Math.max(0, (atMs - Date.parse(account.createdAt)) / DAY_MS);
  return Math.floor(atConnection * (1 + spec.dailyGrowth) ** days);
}

/** Posts the account published through the service: the network counts them too. */
function publishedCount(workspace: Workspace, account: AccountRecord): number {
  let count = 0;
  for (const post of Object.values(postsStore.get(workspace).posts)) {
    for (const destination of post.destinations) if (destination.connectionId === account.id && destination.status === 'published') count++;
  }
  return count;
}

function reviewsOfAccount(workspace: Workspace, account: AccountRecord): ReviewRecord[] {
  return Object.values(reviewsStore.get(workspace).reviews)
    .filter((review) => review.accountId === account.id)
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
}

/** The network's counters for the account now; null while its token is refused. */
export function statsOf(workspace: Workspace, account: AccountRecord): Record<string, number | null> | null {
  if (account.status !== 'active') return null;
  const now = workspace.now();
  const stats: Record<string, number | null> = {};
  const posts = publishedCount(workspace, account);
  for (const spec of accountFacts(account.platform).stats) {
    stats[spec.key] = statValue(workspace, account, spec, now) + (spec.countsPosts ? posts : 0);
  }
  if (account.platform === 'pinterest') stats.boardCount = pinBoardsOf(workspace, account).boards.length;
  if (account.platform === 'reddit') stats.totalKarma = (stats.linkKarma ?? 0) + (stats.commentKarma ?? 0);
  if (account.platform === 'facebook') {
    // Star ratings come from the page's real reviews; recommendations carry none.
    const ratings = reviewsOfAccount(workspace, account).flatMap((review) => (review.rating === null ? [] : [review.rating]));
    stats.ratingCount = ratings.length;
    stats.overallStarRating = ratings.length === 0 ? null : Math.round((ratings.reduce((sum, rating) => sum + rating, 0) / ratings.length) * 10) / 10;
  }
  return stats;
}

/**
 * `GET /v1/connections/{id}/stats`: the page-based network's extras (`include`) are
 * refused elsewhere before the network is asked; they are left out while the
 * account's token is refused, as its stats are.
 */
export function connectionStats(workspace: Workspace, id: string, query: { include?: unknown; limit?: number }) {
  const account = getAccount(workspace, id);
  const include = parseInclude(query.include, ['messenger-profile', 'reviews'] as const);
  if (include.size > 0) assertPlatform(account, 'facebook', 'include');
  readableAccount(workspace, account.id, { requireActive: false });
  const stats = statsOf(workspace, account);
  return {
    accountId: account.id,
    platform: account.platform,
    status: account.status,
    stats,
    fetchedAt: workspace.nowIso(),
    ...(stats !== null && include.has('messenger-profile') && { messengerProfile: messengerProfileOf(account) }),
    ...(stats !== null && include.has('reviews') && { reviews: latestReviews(workspace, account, query.limit ?? 20) }),
  };
}

export function messengerProfileOf(account: AccountRecord) {
  return {
    greeting: `Hi {{user_first_name}}! Thanks for messaging ${account.displayName}. How can we help?`,
    iceBreakers: ['What are your opening hours?', 'Do you ship abroad?', 'Can I talk to a person?'],
    persistentMenu: [
      { title: 'Visit our page', type: 'web_url', url: `https://${platformHost(account.platform)}/${encodeComponent(account.handle)}` },
      { title: 'Talk to a person', type: 'postback', payload: 'HUMAN_AGENT' },
    ],
  };
}

export function latestReviews(workspace: Workspace, account: AccountRecord, limit: number) {
  return reviewsOfAccount(workspace, account)
    .slice(0, limit)
    .map((review) => ({ id: review.id, recommendation: review.recommendation, rating: review.rating, text: review.text, reviewerName: review.reviewerName, createdAt: review.createdAt }));
}

// ---------------------------------------------------------------------------
// Media
// ---------------------------------------------------------------------------

export type NetworkMediaItem = components['schemas']['ConnectionMediaItem'];

const CAPTIONS = [
  'New week, new batch. Come say hi.',
  'Behind the scenes: how it is made.',
  'Thank you for 10 great years!',
  'Weekend hours: 9 to 5, both days.',
  'Our favourite from this season.',
  'Sneak peek of what is coming next month.',
  'Meet the team, part three.',
  'Customer photo of the week. Thanks for sharing!',
  'Rainy day special, today only.',
  'Back in stock, finally.',
];

const MEDIA_TYPE_OF_KIND: Record<MediaKind, MediaType> = { text: 'TEXT', image: 'IMAGE', 'multi-image': 'CAROUSEL_ALBUM', video: 'VIDEO', stories: 'IMAGE' };
const SORTABLE_BASE32 = '234567abcdefghijklmnopqrstuvwxyz';
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

function drawChars(next: () => number, alphabet: string, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet.charAt(Math.floor(next() * alphabet.length));
  return out;
}

/** A post id in the network's style (as src/platforms/external-ids.ts makes them), drawn instead of taken from the id stream. */
function historicPostId(next: () => number, idStyle: string): string {
  const digits = /^digits(\d+)$/.exec(idStyle);
  if (digits?.[1]) return drawDigits(next, Number(digits[1]));
  if (idStyle === 'tid') return `3${drawChars(next, SORTABLE_BASE32, 12)}`;
  if (idStyle === 'base36') return `1${drawChars(next, '0123456789abcdefghijklmnopqrstuvwxyz', 6)}`;
  if (idStyle === 'video11') return drawChars(next, BASE64URL, 11);
  return drawChars(next, '0123456789abcdef', 16);
}

function permalinkOf(account: AccountRecord, recordKey: string): string | null {
  const facts = platformFacts(account.platform);
  if (!facts) return null;
  return postUrl(facts, account, recordKey);
}

/**
 * The account's media on the network, newest first: what it published through the
 * service (from the posts store) and, before it was connected, a history drawn
 * from the seed (12 to 41 posts, hours to days apart).
 */
export function networkMediaOf(workspace: Workspace, account: AccountRecord): NetworkMediaItem[] {
  const host = platformHost(account.platform);
  const items: NetworkMediaItem[] = [];
  for (const post of Object.values(postsStore.get(workspace).posts)) {
    for (const destination of post.destinations) {
      if (destination.connectionId !== account.id || destination.status !== 'published' || !destination.externalPostId || !destination.publishedAt) continue;
      const mediaType = MEDIA_TYPE_OF_KIND[post.mediaKind] ?? 'IMAGE';
      items.push({
        id: destination.externalPostId,
        mediaType,
        mediaUrl: post.mediaUrls[0] ?? null,
        thumbnailUrl: mediaType === 'VIDEO' ? `https://${host}/thumbnails/${destination.id}.jpg` : null,
        caption: destination.text ?? post.text,
        permalink: destination.externalUrl,
        timestamp: destination.publishedAt,
      });
    }
  }
  const facts = accountFacts(account.platform);
  const idStyle = platformFacts(account.platform)?.idStyle ?? 'hex';
  const next = drawStream(workspace.data.seed, account.platformUserId, 'media');
  const count = drawInt(next, 12, 41);
  let atMs = Date.parse(account.createdAt);
  for (let i = 0; i < count; i++) {
    atMs -= drawInt(next, 6, 120) * 3_600_000 + drawInt(next, 0, 3599) * 1000;
    // Half the posts are of the network's most common kind.
    const mediaType = next() < 0.5 ? (facts.mediaTypes[0] ?? 'IMAGE') : drawPick(next, facts.mediaTypes);
    const recordKey = historicPostId(next, idStyle);
    const file = drawChars(next, '0123456789abcdef', 32);
    items.push({
      id: account.platform === 'bluesky' && account.platformUserId.startsWith('did:') ? `at://${account.platformUserId}/app.bsky.feed.post/${recordKey}` : recordKey,
      mediaType,
      mediaUrl: mediaType === 'TEXT' ? null : `https://${host}/media/${file}${mediaType === 'VIDEO' ? '.mp4' : '.jpg'}`,
      thumbnailUrl: mediaType === 'VIDEO' ? `https://${host}/media/${file}_thumb.jpg` : null,
      caption: drawPick(next, CAPTIONS),
      permalink: permalinkOf(account, recordKey),
      timestamp: new Date(atMs).toISOString(),
    });
  }
  return items.sort((a, b) => b.timestamp.localeCompare(a.timestamp) || b.id.localeCompare(a.id));
}

// ---------------------------------------------------------------------------
// Short-video creator info and pin boards
// ---------------------------------------------------------------------------

/** What the short-video network lets this creator post with; drawn once per account, stable. */
export function creatorInfoOf(workspace: Workspace, account: AccountRecord) {
  const next = drawStream(workspace.data.seed, account.platformUserId, 'creator-info');
  // About one creator in six has a private account: no public posts.
  const privateAccount = next() < 0.17;
  return {
    creatorAvatarUrl: account.avatarUrl,
    creatorUsername: account.handle,
    creatorNickname: account.displayName,
    privacyLevelOptions: privateAccount ? ['FOLLOWER_OF_CREATOR', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'] : ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'],
    commentDisabled: next() < 0.15,
    duetDisabled: next() < 0.3,
    stitchDisabled: next() < 0.3,
    maxVideoPostDurationSec: drawPick(next, [60, 180, 300, 600]),
  };
}

const BOARD_NAMES = ['Recipes', 'Shop interiors', 'Gift ideas', 'Behind the scenes', 'Seasonal', 'Our products', 'Inspiration', 'Events', 'Team favourites', 'Packaging'];

/** The pin-board account's boards: 3 to 6, drawn once per account, the first the default. */
export function pinBoardsOf(workspace: Workspace, account: AccountRecord) {
  const next = drawStream(workspace.data.seed, account.platformUserId, 'boards');
  const count = drawInt(next, 3, 6);
  const names = [...BOARD_NAMES];
  const boards: Array<{ id: string; name: string }> = [];
  for (let i = 0; i < count; i++) {
    const [name] = names.splice(Math.floor(next() * names.length), 1);
    boards.push({ id: drawDigits(next, 18), name: name ?? `Board ${i + 1}` });
  }
  return { boards, defaultBoardId: boards[0]?.id ?? null };
}

// ---------------------------------------------------------------------------
// Daily insights
// ---------------------------------------------------------------------------

export type InsightPoint = components['schemas']['AccountInsightPoint'];

/** Weekday rhythm of attention, Sunday first: feeds are busiest mid-week. */
const WEEKDAY_FACTOR = [0.8, 1.05, 1.1, 1.1, 1.05, 0.95, 0.85];

function startOfDay(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

/**
 * The UTC days an insights request covers: every finished day since the account
 * was connected that overlaps [since, until); without them the network's default
 * period ending today. A `since` not before `until` (now by default) or a range longer than
 * 90 days is 400 INVALID_RANGE.
 */
export function insightDays(workspace: Workspace, account: AccountRecord, query: { since?: unknown; until?: unknown }): number[] {
  const { sinceMs, untilMs } = parseTimeRange(query);
  const now = workspace.now();
  const today = startOfDay(now);
  const defaultSpan = accountFacts(account.platform).insightsDays * DAY_MS;
  let from: number;
  let to: number;
  if (sinceMs === undefined && untilMs === undefined) {
    to = today;
    from = today - defaultSpan;
  } else {
    to = untilMs ?? now;
    from = sinceMs ?? to - defaultSpan;
    // As the timelines do (src/api/analytics/readings.ts): `until` defaults to now, so a `since` in the future is an empty range.
    if (from >= to) {
      const until = untilMs === undefined ? `until (now, ${new Date(to).toISOString()})` : 'until';
      throw new ApiError(400, 'INVALID_RANGE', `since must be before ${until}.`, { param: 'since' });
    }
  }
  if (to - from > MAX_INSIGHTS_DAYS * DAY_MS) {
    throw new ApiError(400, 'INVALID_RANGE', `An insights range covers at most ${MAX_INSIGHTS_DAYS} days; split the request.`, { param: sinceMs === undefined ? 'until' : 'since' });
  }
  const days: number[] = [];
  const firstDay = Math.max(startOfDay(from), startOfDay(Date.parse(account.createdAt)));
  for (let day = firstDay; day < to && day + DAY_MS <= today; day += DAY_MS) days.push(day);
  return days;
}

/** `GET /v1/accounts/{id}/analytics`: the days asked for, checked before the network is asked (a bad range never reaches it). */
export function accountInsightDays(workspace: Workspace, id: string, query: { since?: unknown; until?: unknown }): { account: AccountRecord; days: number[] } {
  const account = getAccount(workspace, id);
  const days = insightDays(workspace, account, query);
  readableAccount(workspace, account.id, { requireActive: true });
  return { account, days };
}

export function insightPoint(workspace: Workspace, account: AccountRecord, dayMs: number): InsightPoint {
  const facts = accountFacts(account.platform);
  const reported = new Set<InsightKey>(facts.insights);
  const audienceSpec = facts.stats[0];
  const followers = audienceSpec ? statValue(workspace, account, audienceSpec, dayMs + DAY_MS) : 4000;
  const day = new Date(dayMs).toISOString().slice(0, 10);
  const next = drawStream(workspace.data.seed, account.platformUserId, 'insights', day);
  const impressions = Math.round(followers * (0.15 + 0.5 * next()) * (WEEKDAY_FACTOR[new Date(dayMs).getUTCDay()] ?? 1));
  const values: Record<InsightKey, number> = {
    followers,
    impressions,
    reach: Math.round(impressions * (0.55 + 0.3 * next())),
    profileViews: Math.round(impressions * (0.01 + 0.04 * next())),
    engagement: Math.round(impressions * (0.01 + 0.06 * next())),
  };
  const value = (key: InsightKey): number | null => (reported.has(key) ? values[key] : null);
  return { day, followers: value('followers'), impressions: value('impressions'), reach: value('reach'), profileViews: value('profileViews'), engagement: value('engagement') };
}
