import { ApiError, notFound, validationError } from '../../lib/errors.js';
import { indexedListPage, parseInclude, parseTimeRange, type Direction, type Following, type Page, type SortKey, type TimeRange } from '../../http/lists.js';
import type { Workspace } from '../../workspaces/workspace.js';
import { basisMs, metricOf, postIndex, type IndexedPost, type Narrowing, type PostIndex, type TimeField } from './list-index.js';
import type { MetricName, NormalizedMetrics } from './metrics.js';
import { admitNow, START_DELAY_MS, scheduleStart, unschedulePost } from './publish.js';
import { addPost, postsStore } from './store.js';
import { type DestinationRecord, type PostRecord, type PostSource, type PostStatus } from './records.js';
import { planPost, type CreatePostBody } from './validate.js';
import { postView } from './views.js';
import { getOwn } from '../../lib/records.js';

/**
 * Creates a post after checking the whole request (validate.ts): `scheduled` with
 * a job at its instant, or `queued` with a job to start publishing shortly.
 */
export function createPost(workspace: Workspace, body: CreatePostBody): PostRecord {
  const plan = planPost(workspace, body);
  // Published now: the velocity cap answers synchronously (429), before anything is created.
  if (!plan.schedule) admitNow(workspace, plan.destinations.map((d) => d.account));
  const nowIso = workspace.nowIso();
  const status: PostStatus = plan.schedule ? 'scheduled' : 'queued';
  const post: PostRecord = {
    id: workspace.newId(),
    text: plan.text,
    mediaUrls: plan.mediaUrls,
    mediaKind: plan.mediaKind,
    status,
    scheduledFor: plan.schedule?.scheduledFor ?? null,
    timezone: plan.schedule?.timezone ?? null,
    scheduledAtMs: plan.schedule?.atMs ?? null,
    source: 'api',
    thread: plan.thread,
    destinations: plan.destinations.map(
      ({ account, text, options }): DestinationRecord => ({
        id: workspace.newId(),
        connectionId: account.id,
        platform: account.platform,
        status,
        externalPostId: null,
        externalUrl: null,
        errorCode: null,
        errorMessage: null,
        publishedAt: null,
        text,
        options,
        metricsSeed: workspace.faker.number.int({ min: 1, max: 0x7fffffff }),
      }),
    ),
    createdAt: nowIso,
    updatedAt: nowIso,
  };
  addPost(workspace, post);
  if (plan.schedule) {
    scheduleStart(workspace, post, plan.schedule.atMs);
    workspace.events.emit('post.scheduled', { post: postView(workspace, post) });
  } else {
    scheduleStart(workspace, post, workspace.now() + START_DELAY_MS);
  }
  workspace.changed();
  return post;
}

/** A post of this workspace, or 404: ids of other workspaces are never found. */
export function getPost(workspace: Workspace, id: string): PostRecord {
  const posts = postsStore.read(workspace).posts;
  const post = getOwn(posts, id);
  if (!post) throw notFound('Post', id);
  return post;
}

/** Cancels a scheduled post before it fires: its job goes, it and its destinations become `cancelled`. */
export function cancelPost(workspace: Workspace, id: string): PostRecord {
  const post = getPost(workspace, id);
  if (post.status !== 'scheduled') {
    throw new ApiError(409, 'CONFLICT', `Post ${id} is ${post.status}; only a scheduled post can be cancelled.`, { details: { status: post.status } });
  }
  unschedulePost(workspace, id);
  post.status = 'cancelled';
  for (const destination of post.destinations) destination.status = 'cancelled';
  post.updatedAt = workspace.nowIso();
  workspace.events.emit('post.cancelled', { post: postView(workspace, post) });
  workspace.changed();
  return post;
}

/**
 * Deletes a published post from its networks: the post and its published
 * destinations become `deleted` (failed ones stay failed; `publishedAt` and the
 * network ids stay, as a record of what was out there).
 */
export function deletePost(workspace: Workspace, id: string): PostRecord {
  const post = getPost(workspace, id);
  if (post.status !== 'published') {
    const hint = post.status === 'scheduled' ? ' Cancel a scheduled post instead.' : '';
    throw new ApiError(409, 'CONFLICT', `Post ${id} is ${post.status}; only a published post can be deleted from its networks.${hint}`, { details: { status: post.status } });
  }
  for (const destination of post.destinations) {
    if (destination.status === 'published') destination.status = 'deleted';
  }
  post.status = 'deleted';
  post.updatedAt = workspace.nowIso();
  workspace.events.emit('post.deleted', { post: postView(workspace, post) });
  workspace.changed();
  return post;
}

// ---------------------------------------------------------------------------
// The list
// ---------------------------------------------------------------------------

export const METRIC_NAMES = ['impressions', 'reach', 'likes', 'comments', 'shares', 'saves', 'plays', 'engagement'] as const satisfies ReadonlyArray<keyof NormalizedMetrics>;

export interface ListPostsQuery {
  status?: string;
  platform?: string;
  connectionId?: string;
  source?: PostSource;
  since?: string;
  until?: string;
  sort?: string;
  include?: string;
  limit?: number;
  cursor?: string;
}

export interface PostList {
  page: Page<PostRecord>;
  total?: number;
  facets?: { status: Record<string, number>; platform: Record<string, number> };
}

/** The page after a cursor in the requested order, and the key a cursor holds. */
interface Ordering {
  following: Following<IndexedPost>;
  keyOf: (entry: IndexedPost) => SortKey;
}

/** `created_*`, `published_*`, `scheduled_*`, or `metric:<name>` (highest first). Posts without the value come last. */
function ordering(index: PostIndex, sort: string, atMs: number, matches: (entry: IndexedPost) => boolean, narrowing: Narrowing | undefined): Ordering {
  if (sort.startsWith('metric:')) {
    const name = sort.slice('metric:'.length);
    if (!(METRIC_NAMES as readonly string[]).includes(name)) {
      throw validationError('sort', `metric:${name} is not a metric; use one of ${METRIC_NAMES.map((m) => `metric:${m}`).join(', ')}.`);
    }
    const metric = name as MetricName;
    // Read at the time of the request: the values grow with virtual time, so each page is cut at the time it is asked for.
    return {
      following: (after, count) => index.byMetric(metric, atMs, matches, after, count),
      keyOf: (entry) => [metricOf(entry, metric, atMs), entry.id],
    };
  }
  const [name, way] = sort.split('_') as [string, string];
  const direction: Direction = way === 'asc' ? 'asc' : 'desc';
  const field: TimeField = name === 'published' ? 'publishedMs' : name === 'scheduled' ? 'scheduledMs' : 'createdMs';
  return {
    following: (after, count) => index.byTime(field, direction, matches, after, count, narrowing),
    keyOf: (entry) => [entry[field], entry.id],
  };
}

/** The filter a page walks a narrowed order for: the account, the narrower, else the network. */
function narrowingOf(query: ListPostsQuery): Narrowing | undefined {
  if (query.connectionId !== undefined) return { by: 'connectionId', value: query.connectionId };
  if (query.platform !== undefined) return { by: 'platform', value: query.platform };
  return undefined;
}

/** The list's filters as one test of a post; the time range on the reference's basis. */
function filterOf(query: ListPostsQuery, { sinceMs, untilMs }: TimeRange): (entry: IndexedPost) => boolean {
  return (entry) => {
    const post = entry.post;
    if (query.status !== undefined && post.status !== query.status) return false;
    if (query.source !== undefined && post.source !== query.source) return false;
    if (query.platform !== undefined && !post.destinations.some((d) => d.platform === query.platform)) return false;
    if (query.connectionId !== undefined && !post.destinations.some((d) => d.connectionId === query.connectionId)) return false;
    if (sinceMs !== undefined || untilMs !== undefined) {
      const at = basisMs(entry);
      if (sinceMs !== undefined && at < sinceMs) return false;
      if (untilMs !== undefined && at >= untilMs) return false;
    }
    return true;
  };
}

/**
 * GET /v1/posts: filters, time range on the reference's basis, sorts, include,
 * shared cursor rules. A page walks the list's index from the cursor and tests
 * each post against the filters until the page is full; `include=total|facets`
 * counts every matching post, a scan. Filtered on an account or a network, both walk
 * that account's or network's posts only (list-index.ts's narrowed orders).
 */
export function listPosts(workspace: Workspace, query: ListPostsQuery): PostList {
  const include = parseInclude(query.include, ['total', 'facets'] as const);
  const matches = filterOf(query, parseTimeRange(query));
  const index = postIndex(postsStore.read(workspace).posts);
  const narrowing = narrowingOf(query);
  const { following, keyOf } = ordering(index, query.sort ?? 'created_desc', workspace.now(), matches, narrowing);

  const page = indexedListPage(workspace, { list: 'posts', query, following, keyOf, limit: query.limit ?? 50 });
  const list: PostList = { page: { ...page, data: page.data.map((entry) => entry.post) } };
  if (include.size === 0) return list;
  let total = 0;
  const status: Record<string, number> = {};
  const platform: Record<string, number> = {};
  const facets = include.has('facets');
  for (const entry of index.all(narrowing)) {
    if (!matches(entry)) continue;
    total++;
    if (!facets) continue;
    const post = entry.post;
    status[post.status] = (status[post.status] ?? 0) + 1;
    // A post counts once per network it goes to.
    for (const name of new Set(post.destinations.map((d) => d.platform))) platform[name] = (platform[name] ?? 0) + 1;
  }
  if (include.has('total')) list.total = total;
  if (facets) list.facets = { status, platform };
  return list;
}
