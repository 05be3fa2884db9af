import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricsAt } from '../../src/api/posts/metrics.js';
import { listPosts, METRIC_NAMES, type ListPostsQuery, type PostList } from '../../src/api/posts/service.js';
import { addPost, postChanged, postsStore } from '../../src/api/posts/store.js';
import { PostIndex, type IndexedPost } from '../../src/api/posts/list-index.js';
import { POST_STATUSES, type DestinationRecord, type PostRecord, type PostStatus } from '../../src/api/posts/records.js';
import { compareKeys, listPage, parseInclude, parseTimeRange, type Direction, type SortKey } from '../../src/http/lists.js';
import { createMockServer, type MockServer } from '../../src/server.js';
import type { Workspace } from '../../src/workspaces/workspace.js';
import { TEST_CLOCK } from '../helpers/mock.js';

/*
 * GET /v1/posts reads its pages off indexes kept up to date as posts are added
 * and publish (list-index.ts). This holds them to what the list promises: the
 * very pages, cursors, totals and facets of the plain way (filter every post,
 * sort them all, cut the page), on random worlds, for every sort and filter,
 * with posts added and published after the indexes were built, statuses
 * changed behind their back and the clock moving between pages.
 */

const MINUTE = 60_000;
/** tiktok and youtube count plays; mastodon is a network this build does not know. */
const PLATFORMS = ['twitter', 'bluesky', 'tiktok', 'youtube', 'mastodon'] as const;
const CONNECTIONS = ['conn-a', 'conn-b', 'conn-c'] as const;
const SORTS = ['created_desc', 'created_asc', 'published_desc', 'published_asc', 'scheduled_desc', 'scheduled_asc', ...METRIC_NAMES.map((name) => `metric:${name}`)];

// ---------------------------------------------------------------------------
// The plain way: what listPosts did before it had indexes.
// ---------------------------------------------------------------------------

function publishedMs(post: PostRecord): number | null {
  const times = post.destinations.flatMap((d) => (d.publishedAt === null || Number.isNaN(Date.parse(d.publishedAt)) ? [] : [Date.parse(d.publishedAt)]));
  return times.length > 0 ? Math.min(...times) : null;
}

function metricTotal(post: PostRecord, name: string, atMs: number): number | null {
  const values = post.destinations.flatMap((d) => {
    const value = metricsAt(d, d.platform, atMs)?.[name as (typeof METRIC_NAMES)[number]];
    return typeof value === 'number' ? [value] : [];
  });
  return values.length > 0 ? values.reduce((a, b) => a + b, 0) : null;
}

function plainList(workspace: Workspace, query: ListPostsQuery): PostList {
  const include = parseInclude(query.include, ['total', 'facets'] as const);
  const { sinceMs, untilMs } = parseTimeRange(query);
  const sort = query.sort ?? 'created_desc';
  const atMs = workspace.now();
  let keyOf: (post: PostRecord) => SortKey;
  let direction: Direction = 'desc';
  if (sort.startsWith('metric:')) {
    keyOf = (post) => [metricTotal(post, sort.slice('metric:'.length), atMs), post.id];
  } else {
    const [field, way] = sort.split('_');
    direction = way === 'asc' ? 'asc' : 'desc';
    keyOf = field === 'published' ? (post) => [publishedMs(post), post.id] : field === 'scheduled' ? (post) => [post.scheduledAtMs, post.id] : (post) => [Date.parse(post.createdAt), post.id];
  }
  const matching = Object.values(postsStore.get(workspace).posts).filter((post) => {
    if (query.status !== undefined && post.status !== query.status) return false;
    if (query.source !== undefined && post.source !== query.source) return false;
    if (query.platform !== undefined && !post.destinations.some((d) => d.platform === query.platform)) return false;
    if (query.connectionId !== undefined && !post.destinations.some((d) => d.connectionId === query.connectionId)) return false;
    const at = post.scheduledAtMs ?? publishedMs(post) ?? Date.parse(post.createdAt);
    if (sinceMs !== undefined && at < sinceMs) return false;
    if (untilMs !== undefined && at >= untilMs) return false;
    return true;
  });
  matching.sort((a, b) => compareKeys(keyOf(a), keyOf(b), direction));
  const list: PostList = { page: listPage(workspace, { list: 'posts', query, sorted: matching, keyOf, direction, limit: query.limit ?? 50 }) };
  if (include.has('total')) list.total = matching.length;
  if (include.has('facets')) {
    const status: Record<string, number> = {};
    const platform: Record<string, number> = {};
    for (const post of matching) {
      status[post.status] = (status[post.status] ?? 0) + 1;
      for (const name of new Set(post.destinations.map((d) => d.platform))) platform[name] = (platform[name] ?? 0) + 1;
    }
    list.facets = { status, platform };
  }
  return list;
}

// ---------------------------------------------------------------------------
// Random worlds
// ---------------------------------------------------------------------------

const destinationSpec = fc.record({
  platform: fc.constantFrom(...PLATFORMS),
  connectionId: fc.constantFrom(...CONNECTIONS),
  // Minutes from the world's start; a few in its future (no metrics yet), some never.
  publishedMin: fc.option(fc.integer({ min: -3000, max: 20 }), { nil: null }),
  status: fc.constantFrom<PostStatus>('published', 'published', 'published', 'failed', 'deleted', 'queued', 'processing'),
  seed: fc.integer({ min: 1, max: 0x7fffffff }),
});

const postSpec = fc.record({
  // A narrow range, so creation times tie and ids must break the ties.
  createdMin: fc.integer({ min: -40, max: 0 }),
  scheduledMin: fc.option(fc.integer({ min: -30, max: 30 }), { nil: null }),
  status: fc.constantFrom(...POST_STATUSES),
  source: fc.constantFrom<'api' | 'external'>('api', 'external'),
  destinations: fc.array(destinationSpec, { minLength: 1, maxLength: 3 }),
});

/** Something that happens to a post after the indexes exist. */
const changeSpec = fc.record({
  post: fc.nat(),
  destination: fc.nat(),
  kind: fc.constantFrom<'publish' | 'delete' | 'status'>('publish', 'delete', 'status'),
  minutes: fc.integer({ min: -50, max: 10 }),
  status: fc.constantFrom(...POST_STATUSES),
});

const querySpec = fc.record({
  sort: fc.option(fc.constantFrom(...SORTS), { nil: undefined }),
  status: fc.option(fc.constantFrom(...POST_STATUSES), { nil: undefined }),
  platform: fc.option(fc.constantFrom(...PLATFORMS), { nil: undefined }),
  connectionId: fc.option(fc.constantFrom(...CONNECTIONS), { nil: undefined }),
  source: fc.option(fc.constantFrom<'api' | 'external'>('api', 'external'), { nil: undefined }),
  sinceMin: fc.option(fc.integer({ min: -3000, max: 30 }), { nil: undefined }),
  spanMin: fc.option(fc.integer({ min: 1, max: 3000 }), { nil: undefined }),
  include: fc.option(fc.constantFrom('total', 'facets', 'total,facets'), { nil: undefined }),
  limit: fc.integer({ min: 1, max: 7 }),
  /** Minutes the clock moves between two pages (metrics grow meanwhile). */
  stepMin: fc.constantFrom(0, 0, 1, 90),
});

let server: MockServer;
let workspace: Workspace;

beforeAll(async () => {
  server = await createMockServer({ seed: 7, clock: TEST_CLOCK, clockFrozen: true, fixtures: false });
  workspace = server.registry.defaultWorkspace;
});
afterAll(() => server.close());

function makePost(spec: PostSpec, startMs: number): PostRecord {
  const iso = (minutes: number) => new Date(startMs + minutes * MINUTE).toISOString();
  return {
    id: workspace.newId(),
    text: 'x',
    mediaUrls: [],
    mediaKind: 'text',
    status: spec.status,
    scheduledFor: null,
    timezone: null,
    scheduledAtMs: spec.scheduledMin === null ? null : startMs + spec.scheduledMin * MINUTE,
    source: spec.source,
    thread: null,
    destinations: spec.destinations.map(
      (d): DestinationRecord => ({
        id: workspace.newId(),
        connectionId: d.connectionId,
        platform: d.platform,
        status: d.status,
        externalPostId: null,
        externalUrl: null,
        errorCode: null,
        errorMessage: null,
        publishedAt: d.publishedMin === null ? null : iso(d.publishedMin),
        text: null,
        options: {},
        metricsSeed: d.seed,
      }),
    ),
    createdAt: iso(spec.createdMin),
    updatedAt: iso(spec.createdMin),
  };
}
type PostSpec = typeof postSpec extends fc.Arbitrary<infer T> ? T : never;
type QuerySpec = typeof querySpec extends fc.Arbitrary<infer T> ? T : never;

function queryOf(spec: QuerySpec, startMs: number): ListPostsQuery {
  const query: ListPostsQuery = { limit: spec.limit };
  for (const name of ['sort', 'status', 'platform', 'connectionId', 'source', 'include'] as const) {
    if (spec[name] !== undefined) Object.assign(query, { [name]: spec[name] });
  }
  if (spec.sinceMin !== undefined) query.since = new Date(startMs + spec.sinceMin * MINUTE).toISOString();
  if (spec.spanMin !== undefined) query.until = new Date(startMs + ((spec.sinceMin ?? -3000) + spec.spanMin) * MINUTE).toISOString();
  return query;
}

/** Pages through both ways at once, comparing each page; returns how many pages it read. */
function compareAllPages(query: ListPostsQuery, stepMin: number): number {
  let cursor: string | null = null;
  for (let page = 1; page <= 200; page++) {
    const asked = cursor === null ? query : { ...query, cursor };
    const indexed = listPosts(workspace, asked);
    const plain = plainList(workspace, asked);
    expect(indexed.page.data.map((p) => p.id), `page ${page} of ${JSON.stringify(query)}`).toEqual(plain.page.data.map((p) => p.id));
    expect(indexed.page.hasMore).toBe(plain.page.hasMore);
    expect(indexed.page.nextCursor).toBe(plain.page.nextCursor);
    expect(indexed.total).toBe(plain.total);
    expect(indexed.facets).toEqual(plain.facets);
    cursor = indexed.page.nextCursor;
    if (cursor === null) return page;
    workspace.clock.moveTo(workspace.now() + stepMin * MINUTE);
  }
  throw new Error('paging did not end');
}

describe('GET /v1/posts from its indexes', () => {
  it('answers every page, cursor, total and facet as filtering and sorting every post would', () => {
    fc.assert(
      fc.property(
        fc.array(postSpec, { maxLength: 40 }),
        fc.nat(),
        fc.array(changeSpec, { maxLength: 12 }),
        fc.array(querySpec, { minLength: 1, maxLength: 4 }),
        (specs, split, changes, queries) => {
          // A fresh posts record, so a fresh index; the clock carries on from the last run.
          postsStore.get(workspace).posts = {};
          const startMs = workspace.now();
          const posts = specs.map((spec) => makePost(spec, startMs));
          const builtAt = posts.length === 0 ? 0 : split % (posts.length + 1);
          for (const post of posts.slice(0, builtAt)) addPost(workspace, post);
          // Every order is built from the posts so far, each network's and account's too; the rest arrive into them.
          for (const sort of SORTS) {
            listPosts(workspace, { sort, limit: 1 });
            for (const platform of PLATFORMS) listPosts(workspace, { sort, platform, limit: 1 });
            for (const connectionId of CONNECTIONS) listPosts(workspace, { sort, connectionId, limit: 1 });
          }
          for (const post of posts.slice(builtAt)) addPost(workspace, post);

          for (const change of changes) {
            const post = posts[change.post % Math.max(1, posts.length)];
            if (!post) break;
            const destination = post.destinations[change.destination % post.destinations.length] as DestinationRecord;
            if (change.kind === 'publish') {
              // What the publishing pipeline does, then tells the index.
              destination.status = 'published';
              destination.publishedAt = new Date(workspace.now() + change.minutes * MINUTE).toISOString();
              postChanged(workspace, post);
            } else if (change.kind === 'delete') {
              // A remote delete: statuses only, read live by the list.
              destination.status = 'deleted';
              post.status = 'deleted';
            } else {
              post.status = change.status;
            }
          }

          for (const spec of queries) compareAllPages(queryOf(spec, startMs), spec.stepMin);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('pages through a larger world as the plain way does, a metric sort crossing into the posts without the metric', () => {
    postsStore.get(workspace).posts = {};
    const startMs = workspace.now();
    const specs = fc.sample(postSpec, { numRuns: 400, seed: 42 });
    for (const spec of specs) addPost(workspace, makePost(spec, startMs));
    for (const sort of SORTS) {
      const pages = compareAllPages({ sort, limit: 25 }, 0);
      expect(pages).toBeGreaterThanOrEqual(16);
    }
    expect(compareAllPages({ sort: 'metric:impressions', status: 'published', platform: 'tiktok', limit: 3, include: 'total' }, 30)).toBeGreaterThan(1);
  });
});

describe('a page filtered on a network or an account', () => {
  /** 3,000 posts, one in thirty to bluesky on conn-b, the others to twitter on conn-a; every fifth of the bluesky ones failed. */
  function world(): PostIndex {
    const startMs = workspace.now();
    const posts = Array.from({ length: 3_000 }, (_, i) => {
      const bluesky = i % 30 === 0;
      const status: PostStatus = bluesky && i % 150 === 0 ? 'failed' : 'published';
      const destination = { platform: bluesky ? 'bluesky' : 'twitter', connectionId: bluesky ? 'conn-b' : 'conn-a', status, publishedMin: i + 1, seed: i + 1 };
      return makePost({ createdMin: i, scheduledMin: null, status, source: 'api', destinations: [destination] } as PostSpec, startMs);
    });
    return new PostIndex(posts);
  }

  it.each([
    ['platform', { by: 'platform', value: 'bluesky' }],
    ['connectionId', { by: 'connectionId', value: 'conn-b' }],
  ] as const)('walks only the posts of that %s: a page of 20 reads about 20, not the 600 among the others', (_, narrowing) => {
    const index = world();
    let read = 0;
    const matches = (entry: IndexedPost) => {
      read++;
      return entry.post.status === 'published' && entry.post.destinations.some((d) => d[narrowing.by] === narrowing.value);
    };
    const page = index.byTime('createdMs', 'desc', matches, undefined, 20, narrowing);
    expect(page).toHaveLength(20);
    expect(page.every((entry) => entry.post.destinations[0]?.[narrowing.by] === narrowing.value)).toBe(true);
    // 20 published among the newest bluesky posts, and the failed ones passed over on the way.
    expect(read).toBeLessThanOrEqual(25);
    // A total or facets counts over the same 100 posts, not the 3,000.
    expect([...index.all(narrowing)]).toHaveLength(100);
    // A post added afterwards is in the narrowed order; one of another network is not walked.
    const later = makePost({ createdMin: 10_000, scheduledMin: null, status: 'published', source: 'api', destinations: [{ platform: 'bluesky', connectionId: 'conn-b', status: 'published', publishedMin: 10_001, seed: 7 }] } as PostSpec, workspace.now());
    index.add(later);
    index.add(makePost({ createdMin: 10_002, scheduledMin: null, status: 'published', source: 'api', destinations: [{ platform: 'twitter', connectionId: 'conn-a', status: 'published', publishedMin: 10_003, seed: 8 }] } as PostSpec, workspace.now()));
    read = 0;
    expect(index.byTime('createdMs', 'desc', matches, undefined, 1, narrowing)[0]?.post).toBe(later);
    expect(read).toBe(1);
  });

  it('reads the posts once for the values no post has, however many are asked for (an account since removed, a typo, a hostile value)', () => {
    const startMs = workspace.now();
    let reads = 0;
    const posts = Array.from({ length: 3_000 }, (_, i) => {
      const post = makePost({ createdMin: i, scheduledMin: null, status: 'published', source: 'api', destinations: [{ platform: 'twitter', connectionId: 'conn-a', status: 'published', publishedMin: i + 1, seed: i + 1 }] } as PostSpec, startMs);
      const destinations = post.destinations;
      // Every look at a post's destinations is a read of the post, whoever makes it.
      Object.defineProperty(post, 'destinations', { get: () => (reads++, destinations), enumerable: true });
      return post;
    });
    const index = new PostIndex(posts);
    reads = 0;
    const unknown = ['conn-c', 'conn-typo', '\u0000', '\ud800', 'x'.repeat(6_000)];
    for (const value of unknown) {
      expect(index.byTime('createdMs', 'desc', () => true, undefined, 20, { by: 'connectionId', value })).toEqual([]);
      expect([...index.all({ by: 'platform', value })]).toEqual([]);
    }
    // The first narrowed page counts each post's networks and accounts once; the nine after it read none.
    expect(reads).toBe(3_000);
    // A post added afterwards is counted: its account is no longer unknown.
    index.add(makePost({ createdMin: 5_000, scheduledMin: null, status: 'published', source: 'api', destinations: [{ platform: 'bluesky', connectionId: 'conn-c', status: 'published', publishedMin: 5_001, seed: 9 }] } as PostSpec, startMs));
    expect(index.byTime('createdMs', 'desc', () => true, undefined, 20, { by: 'connectionId', value: 'conn-c' })).toHaveLength(1);
  });

  it('reads no post for a network no post goes to', () => {
    const index = world();
    let read = 0;
    const page = index.byTime('createdMs', 'desc', () => ++read > 0, undefined, 20, { by: 'platform', value: 'mastodon' });
    expect(page).toEqual([]);
    expect(read).toBe(0);
  });
});

describe('what the posts list sorts on', () => {
  /** Every .ts file under src/. */
  function sources(dir: string): string[] {
    return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name);
      return entry.isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
    });
  }

  it('changes only where the index is told: every file that sets a publishedAt or scheduledAtMs calls postChanged', () => {
    const writers = sources('src').filter((file) => /\.(publishedAt|scheduledAtMs)\s*=[^=]/.test(readFileSync(file, 'utf8')));
    expect(writers.length).toBeGreaterThan(0);
    for (const file of writers) expect(readFileSync(file, 'utf8'), `${file} sets a time the posts list sorts on`).toMatch(/postChanged\(/);
  });
});
