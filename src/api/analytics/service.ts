import { ApiError, notFound } from '../../lib/errors.js';
import { compareKeys, parseTimeRange, type SortKey } from '../../http/lists.js';
import { getOwn } from '../../lib/records.js';
import type { Workspace } from '../../workspaces/workspace.js';
import { accountsStore } from '../accounts/store.js';
import { metricsAt, type NormalizedMetrics } from '../posts/metrics.js';
import { postsStore } from '../posts/store.js';
import { type DestinationRecord, type PostRecord } from '../posts/records.js';
import { resolveTimelineRange, timelinePoints, type DayRange, type ReadableDestination, type TimelinePoint } from './readings.js';

/** The microblogging network gives no daily readings: no timelines there (the reference). */
const NO_TIMELINE_PLATFORMS: ReadonlySet<string> = new Set(['twitter']);

interface DestinationFilter {
  platform?: string;
  connectionId?: string;
}

/** A destination with its post. */
export interface PostDestination {
  post: PostRecord;
  destination: DestinationRecord;
}

function readable(post: PostRecord, destination: DestinationRecord): ReadableDestination {
  // A remote delete is the post's last change, so its updatedAt is when the destination left the network.
  return { ...destination, deletedAtMs: destination.status === 'deleted' ? Date.parse(post.updatedAt) : null };
}

function platformNotSupported(param: string, platform: string): ApiError {
  return new ApiError(400, 'PLATFORM_NOT_SUPPORTED', `Daily metrics timelines are not available on ${platform}.`, { param, details: { platform } });
}

/** GET /v1/posts/{id}/analytics/timeline: the post's daily points, summed over its destinations that have timelines. */
export function postTimeline(workspace: Workspace, postId: string, query: { since?: string; until?: string }): DayRange & { points: TimelinePoint[] } {
  const range = resolveTimelineRange(parseTimeRange(query), workspace.now());
  const post = getOwn(postsStore.read(workspace).posts, postId);
  if (!post) throw notFound('Post', postId);
  const withTimeline = post.destinations.filter((destination) => !NO_TIMELINE_PLATFORMS.has(destination.platform));
  const first = post.destinations[0];
  if (withTimeline.length === 0 && first) throw platformNotSupported('id', first.platform);
  return { ...range, points: timelinePoints(withTimeline.map((destination) => readable(post, destination)), range, workspace.now()) };
}

/** GET /v1/analytics/timeline: daily points summed over the workspace's matching destinations. */
export function workspaceTimeline(workspace: Workspace, query: { since?: string; until?: string } & DestinationFilter): DayRange & { points: TimelinePoint[] } {
  const range = resolveTimelineRange(parseTimeRange(query), workspace.now());
  if (query.platform !== undefined && NO_TIMELINE_PLATFORMS.has(query.platform)) throw platformNotSupported('platform', query.platform);
  const account = query.connectionId === undefined ? undefined : getOwn(accountsStore.read(workspace).accounts, query.connectionId);
  if (account && NO_TIMELINE_PLATFORMS.has(account.platform)) throw platformNotSupported('connectionId', account.platform);
  const destinations: ReadableDestination[] = [];
  for (const { post, destination } of destinationsMatching(workspace, query)) {
    if (NO_TIMELINE_PLATFORMS.has(destination.platform)) continue;
    if (destination.status === 'published' || destination.status === 'deleted') destinations.push(readable(post, destination));
  }
  return { ...range, points: timelinePoints(destinations, range, workspace.now()) };
}

/** Published destinations with their current metrics, newest publish first; `since`/`until` on the publish time. */
export function publishedDestinations(workspace: Workspace, query: { since?: string; until?: string } & DestinationFilter): Array<PostDestination & { metrics: NormalizedMetrics }> {
  const { sinceMs, untilMs } = parseTimeRange(query);
  const now = workspace.now();
  const found: Array<PostDestination & { metrics: NormalizedMetrics }> = [];
  for (const entry of destinationsMatching(workspace, query)) {
    const { destination } = entry;
    if (destination.status !== 'published' || destination.publishedAt === null) continue;
    const publishedMs = Date.parse(destination.publishedAt);
    if (sinceMs !== undefined && publishedMs < sinceMs) continue;
    if (untilMs !== undefined && publishedMs >= untilMs) continue;
    const metrics = metricsAt(destination, destination.platform, now);
    if (metrics) found.push({ ...entry, metrics });
  }
  return found.sort((a, b) => compareKeys(analyticsSortKey(a), analyticsSortKey(b), 'desc'));
}

/** Newest publish first, the destination id breaking ties; also the list's cursor key. */
export function analyticsSortKey({ destination }: PostDestination): SortKey {
  return [destination.publishedAt, destination.id];
}

function* destinationsMatching(workspace: Workspace, filter: DestinationFilter): Generator<PostDestination> {
  for (const post of Object.values(postsStore.read(workspace).posts)) {
    for (const destination of post.destinations) {
      if (filter.platform !== undefined && destination.platform !== filter.platform) continue;
      if (filter.connectionId !== undefined && destination.connectionId !== filter.connectionId) continue;
      yield { post, destination };
    }
  }
}
