import { beforeAll, describe, expect, it } from 'vitest';
import { resolveLocalTime, formatLocalTime } from '../../src/api/posts/local-time.js';
import { postsStore } from '../../src/api/posts/store.js';
import { compareKeys, type SortKey } from '../../src/http/lists.js';
import { addOutage } from '../../src/platforms/outages.js';
import type { Workspace } from '../../src/workspaces/workspace.js';
import { expectApiError, expectStatus, TEST_CLOCK, useMock } from '../helpers/mock.js';

interface Metrics {
  [name: string]: number | null;
}
interface DestinationView {
  platform: string;
  connectionId: string;
  status: string;
  publishedAt: string | null;
  metrics: Metrics | null;
}
interface PostView {
  id: string;
  status: string;
  scheduledFor: string | null;
  timezone: string | null;
  source: string;
  createdAt: string;
  destinations: DestinationView[];
}

const T0 = Date.parse(TEST_CLOCK);
const MINUTE = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

const mock = useMock();
let workspace: Workspace;
let key: string;
let ids: Record<string, string>;
/** The 120 posts as the list shows them at the end of the setup (the clock stays frozen from then on). */
let all: PostView[];

/*
 * A workspace holding exactly 120 posts made through the API, one a minute:
 * most published now on one or two networks, every sixth scheduled in one of
 * three zones (some have fired by the end), one cancelled, one failed in an
 * outage, one marked as imported by sync.
 */
beforeAll(async () => {
  const created = await mock.control('post', '/__control/workspaces').send({});
  key = created.body.apiKey;
  const found = mock.server.registry.get(created.body.workspaceId);
  if (!found) throw new Error('no workspace');
  workspace = found;
  // Start from no posts: the fixture's own would blur the counts.
  workspace.scheduler.cancel(() => true);
  postsStore.get(workspace).posts = {};
  const posts = postsStore.get(workspace).posts;

  const { body } = await mock.call('get', '/v1/connections', key);
  ids = Object.fromEntries((body.connections as Array<{ platform: string; id: string }>).map((c) => [c.platform, c.id]));
  const platforms = ['bluesky', 'facebook', 'threads', 'twitter', 'reddit'];
  const zones = ['America/New_York', 'Europe/Berlin', 'Asia/Tokyo'];
  const destination = (platform: string) => (platform === 'reddit' ? { connectionId: ids.reddit, subreddit: 'Coffee', title: 'Roast notes' } : { connectionId: ids[platform] });

  for (let i = 0; i < 120; i++) {
    const platform = platforms[i % platforms.length] as string;
    const destinations = [destination(platform)];
    if (i % 4 === 0) destinations.push(destination(platform === 'facebook' ? 'bluesky' : 'facebook'));
    const schedule: Record<string, string> = {};
    if (i % 6 === 5) {
      const zone = zones[i % zones.length] as string;
      const fireMs = workspace.now() + (30 + ((i * 37) % 600)) * MINUTE;
      schedule.scheduledFor = formatLocalTime(fireMs, zone);
      schedule.timezone = zone;
    }
    if (i === 62) addOutage(workspace, { platform: 'threads', fromMs: workspace.now(), untilMs: workspace.now() + 30_000, message: 'down' });
    const res = await mock.call('post', '/v1/posts', key).send({ text: `Post number ${i}`, ...schedule, destinations });
    expectStatus(res, 201);
    if (i === 11) expectStatus(await mock.call('post', `/v1/posts/${res.body.post.id}/cancel`, key), 200);
    if (i === 7) {
      const record = posts[res.body.post.id];
      // As if imported by an account sync.
      if (record) record.source = 'external';
    }
    // The scheduler directly (what /__control/clock/advance calls): half the requests of the setup.
    await workspace.scheduler.advanceTo(workspace.now() + MINUTE);
  }
  expectStatus(await mock.control('post', '/__control/clock/advance', key).send({ by: 'PT2H' }), 200);
  all = await pageThrough('sort=created_asc', 100);
  expect(all).toHaveLength(120);
});

async function pageThrough(params: string, limit: number): Promise<PostView[]> {
  const seen: PostView[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 20; page++) {
    const res = await mock.call('get', `/v1/posts?${params}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, key);
    expectStatus(res, 200);
    expect(res.body.data.length).toBeLessThanOrEqual(limit);
    expect(res.body.hasMore).toBe(res.body.nextCursor !== null);
    seen.push(...res.body.data);
    cursor = res.body.nextCursor;
    if (!cursor) return seen;
  }
  throw new Error('paging did not end');
}

function publishedMs(post: PostView): number | null {
  const times = post.destinations.flatMap((d) => (d.publishedAt ? [Date.parse(d.publishedAt)] : []));
  return times.length > 0 ? Math.min(...times) : null;
}

function scheduledMs(post: PostView): number | null {
  return post.scheduledFor && post.timezone ? (resolveLocalTime(post.scheduledFor, post.timezone)?.instantMs ?? null) : null;
}

function metricTotal(post: PostView, name: string): number | null {
  const values = post.destinations.flatMap((d) => (d.metrics && typeof d.metrics[name] === 'number' ? [d.metrics[name] as number] : []));
  return values.length > 0 ? values.reduce((a, b) => a + b, 0) : null;
}

/** The order each sort promises, computed from what the responses show. */
const SORTS: Array<[string, (post: PostView) => SortKey, 'asc' | 'desc']> = [
  ['created_desc', (p) => [Date.parse(p.createdAt), p.id], 'desc'],
  ['created_asc', (p) => [Date.parse(p.createdAt), p.id], 'asc'],
  ['published_desc', (p) => [publishedMs(p), p.id], 'desc'],
  ['published_asc', (p) => [publishedMs(p), p.id], 'asc'],
  ['scheduled_desc', (p) => [scheduledMs(p), p.id], 'desc'],
  ['scheduled_asc', (p) => [scheduledMs(p), p.id], 'asc'],
  ['metric:impressions', (p) => [metricTotal(p, 'impressions'), p.id], 'desc'],
  ['metric:likes', (p) => [metricTotal(p, 'likes'), p.id], 'desc'],
  ['metric:engagement', (p) => [metricTotal(p, 'engagement'), p.id], 'desc'],
  // No network here counts plays: every post lacks the value, so the id alone orders them.
  ['metric:plays', (p) => [metricTotal(p, 'plays'), p.id], 'desc'],
];

describe('GET /v1/posts', () => {
  it('holds the mix the setup made', () => {
    const statuses = new Set(all.map((p) => p.status));
    expect([...statuses].sort()).toEqual(['cancelled', 'failed', 'published', 'scheduled']);
    expect(all.filter((p) => p.scheduledFor !== null && p.status === 'published').length).toBeGreaterThan(0);
  });

  describe.each(SORTS)('with sort=%s', (sort, keyOf, direction) => {
    it('pages through all 120 posts exactly once, in the promised order', async () => {
      const paged = await pageThrough(`sort=${sort}`, 25);
      const pagedIds = paged.map((p) => p.id);
      expect(new Set(pagedIds).size).toBe(120);
      const expected = [...all].sort((a, b) => compareKeys(keyOf(a), keyOf(b), direction)).map((p) => p.id);
      expect(pagedIds).toEqual(expected);
    });

    // A filter on a network or an account walks that network's or account's posts only (the index's narrowed orders):
    // the pages still hold exactly the matching posts, in the same order, with a time range on the list's basis.
    it.each([
      ['a network', (): string => 'platform=bluesky', (p: PostView): boolean => p.destinations.some((d) => d.platform === 'bluesky')],
      ['an account', (): string => `connectionId=${ids.bluesky}`, (p: PostView): boolean => p.destinations.some((d) => d.connectionId === ids.bluesky)],
      ['an account and another network', (): string => `connectionId=${ids.bluesky}&platform=facebook`, (p: PostView): boolean => p.destinations.some((d) => d.connectionId === ids.bluesky) && p.destinations.some((d) => d.platform === 'facebook')],
    ] as const)('pages the posts of %s before a time in the promised order', async (_of, filter, keeps) => {
      const pivot = T0 + 60 * MINUTE;
      const basisMs = (p: PostView): number => scheduledMs(p) ?? publishedMs(p) ?? Date.parse(p.createdAt);
      const paged = await pageThrough(`sort=${sort}&${filter()}&until=${encodeURIComponent(iso(pivot))}`, 7);
      const expected = all.filter((p) => keeps(p) && basisMs(p) < pivot).sort((a, b) => compareKeys(keyOf(a), keyOf(b), direction));
      expect(expected.length).toBeGreaterThan(3);
      expect(paged.map((p) => p.id)).toEqual(expected.map((p) => p.id));
    });
  });

  it('sorts created_desc by default', async () => {
    const res = await mock.call('get', '/v1/posts?limit=5', key);
    expect(res.body.data.map((p: PostView) => p.id)).toEqual([...all].reverse().slice(0, 5).map((p) => p.id));
  });

  it('puts posts without the metric last on metric:<name>', async () => {
    const paged = await pageThrough('sort=metric:impressions', 50);
    const withoutMetrics = paged.filter((p) => metricTotal(p, 'impressions') === null);
    expect(withoutMetrics.length).toBeGreaterThan(0);
    expect(paged.slice(-withoutMetrics.length)).toEqual(withoutMetrics);
    expect(withoutMetrics.every((p) => p.status !== 'published')).toBe(true);
  });

  it('shows metrics on published destinations only', () => {
    for (const post of all) {
      for (const destination of post.destinations) {
        if (destination.status === 'published') expect(destination.metrics).toMatchObject({ impressions: expect.any(Number) });
        else expect(destination.metrics).toBeNull();
      }
    }
  });

  describe('filters', () => {
    it.each([
      ['status=published', (p: PostView) => p.status === 'published'],
      ['status=scheduled', (p: PostView) => p.status === 'scheduled'],
      ['status=failed', (p: PostView) => p.status === 'failed'],
      ['status=cancelled', (p: PostView) => p.status === 'cancelled'],
      ['platform=reddit', (p: PostView) => p.destinations.some((d) => d.platform === 'reddit')],
      ['platform=facebook', (p: PostView) => p.destinations.some((d) => d.platform === 'facebook')],
      ['platform=instagram', () => false],
      ['source=external', (p: PostView) => p.source === 'external'],
      ['source=api', (p: PostView) => p.source === 'api'],
      ['status=published&platform=threads', (p: PostView) => p.status === 'published' && p.destinations.some((d) => d.platform === 'threads')],
    ])('%s keeps exactly the matching posts, counted by include=total', async (params, matches) => {
      const expected = all.filter(matches).map((p) => p.id).sort();
      const paged = await pageThrough(`${params}&include=total`, 100);
      expect(paged.map((p) => p.id).sort()).toEqual(expected);
      const first = await mock.call('get', `/v1/posts?${params}&include=total&limit=1`, key);
      expect(first.body.total).toBe(expected.length);
    });

    it('an account and a network none of its posts also goes to keep nothing', async () => {
      expect(all.some((p) => p.destinations.some((d) => d.connectionId === ids.bluesky) && p.destinations.some((d) => d.platform === 'reddit'))).toBe(false);
      const res = await mock.call('get', `/v1/posts?connectionId=${ids.bluesky}&platform=reddit&include=total`, key);
      expectStatus(res, 200);
      expect(res.body).toMatchObject({ data: [], nextCursor: null, hasMore: false, total: 0 });
    });

    it('connectionId keeps the posts with a destination on that connection', async () => {
      const expected = all.filter((p) => p.destinations.some((d) => d.connectionId === ids.bluesky)).map((p) => p.id).sort();
      const paged = await pageThrough(`connectionId=${ids.bluesky}`, 100);
      expect(paged.map((p) => p.id).sort()).toEqual(expected);
      expect(expected.length).toBeGreaterThan(24);
    });
  });

  describe('include', () => {
    it('facets count every matching post per status and per network, across all pages', async () => {
      const res = await mock.call('get', '/v1/posts?include=total,facets&limit=1', key);
      expectStatus(res, 200);
      expect(res.body.data).toHaveLength(1);
      expect(res.body.total).toBe(120);
      const statusCounts: Record<string, number> = {};
      const platformCounts: Record<string, number> = {};
      for (const post of all) {
        statusCounts[post.status] = (statusCounts[post.status] ?? 0) + 1;
        for (const platform of new Set(post.destinations.map((d) => d.platform))) platformCounts[platform] = (platformCounts[platform] ?? 0) + 1;
      }
      expect(res.body.facets).toEqual({ status: statusCounts, platform: platformCounts });
    });

    it('facets follow the filters', async () => {
      const res = await mock.call('get', '/v1/posts?platform=reddit&include=facets', key);
      expect(Object.keys(res.body.facets.platform)).toContain('reddit');
      expect(res.body.facets.platform.reddit).toBe(res.body.data.length);
      expect(res.body).not.toHaveProperty('total');
    });

    it.each([
      ['network', (p: PostView): boolean => p.destinations.some((d) => d.platform === 'reddit'), (): string => 'platform=reddit'],
      ['account', (p: PostView): boolean => p.destinations.some((d) => d.connectionId === ids.bluesky), (): string => `connectionId=${ids.bluesky}`],
    ] as const)('on a filter by %s, total and facets count the matching posts, each under every network it goes to', async (_by, keeps, filter) => {
      const matching = all.filter(keeps);
      const status: Record<string, number> = {};
      const platform: Record<string, number> = {};
      for (const post of matching) {
        status[post.status] = (status[post.status] ?? 0) + 1;
        for (const name of new Set(post.destinations.map((d) => d.platform))) platform[name] = (platform[name] ?? 0) + 1;
      }
      // A post that also goes to another network is counted there too, so the facets name more than the filtered one.
      expect(Object.keys(platform).length).toBeGreaterThan(1);
      const res = await mock.call('get', `/v1/posts?${filter()}&include=total,facets&limit=1`, key);
      expectStatus(res, 200);
      expect(res.body.total).toBe(matching.length);
      expect(res.body.facets).toEqual({ status, platform });
    });

    it('adds nothing when not asked', async () => {
      const res = await mock.call('get', '/v1/posts?limit=1', key);
      expect(Object.keys(res.body).sort()).toEqual(['data', 'hasMore', 'nextCursor']);
    });

    it('answers an unknown value with 400 VALIDATION_ERROR naming include', async () => {
      const res = await mock.call('get', '/v1/posts?include=total,histogram', key);
      expectApiError(res, 400, 'VALIDATION_ERROR', 'include');
      expect(res.body.error.message).toContain('total, facets');
    });
  });

  describe('since and until', () => {
    const window = async (fromMs: number, toMs: number) => {
      const res = await mock.call('get', `/v1/posts?since=${encodeURIComponent(iso(fromMs))}&until=${encodeURIComponent(iso(toMs))}&limit=100`, key);
      expectStatus(res, 200);
      return res.body.data.map((p: PostView) => p.id);
    };

    it('filter a scheduled post on its schedule time', async () => {
      const post = all.find((p) => p.status === 'scheduled');
      const at = post ? scheduledMs(post) : null;
      if (!post || at === null) throw new Error('no scheduled post');
      expect(at).toBeGreaterThan(Date.parse(post.createdAt));
      expect(await window(at, at + 1)).toContain(post.id);
      expect(await window(Date.parse(post.createdAt), Date.parse(post.createdAt) + 1)).not.toContain(post.id);
    });

    it('filter a published post that was not scheduled on its publish time', async () => {
      const post = all.find((p) => p.status === 'published' && p.scheduledFor === null);
      const at = post ? publishedMs(post) : null;
      if (!post || at === null) throw new Error('no published post');
      // Published 5 s after it was made: a window around the publish time finds it, one at its creation does not.
      expect(at).toBe(Date.parse(post.createdAt) + 5000);
      expect(await window(at - 1000, at + 1)).toEqual([post.id]);
      expect(await window(Date.parse(post.createdAt), at - 1000)).not.toContain(post.id);
    });

    it('filter a post that never went out on its creation time', async () => {
      const post = all.find((p) => p.status === 'failed');
      if (!post) throw new Error('no failed post');
      expect(await window(Date.parse(post.createdAt), Date.parse(post.createdAt) + 1)).toEqual([post.id]);
    });

    it('are inclusive at since and exclusive at until, and split the list in two', async () => {
      const pivot = T0 + 60 * MINUTE;
      const before = await pageThrough(`until=${encodeURIComponent(iso(pivot))}`, 100);
      const after = await pageThrough(`since=${encodeURIComponent(iso(pivot))}`, 100);
      expect(before.length + after.length).toBe(120);
      expect(new Set([...before, ...after].map((p) => p.id)).size).toBe(120);
    });

    it('answer 400 INVALID_RANGE when since is not before until', async () => {
      expectApiError(await mock.call('get', `/v1/posts?since=${iso(T0)}&until=${iso(T0)}`, key), 400, 'INVALID_RANGE');
    });

    it('answer 400 VALIDATION_ERROR for a time without a zone', async () => {
      expectApiError(await mock.call('get', '/v1/posts?since=2026-03-02T09:00:00', key), 400, 'VALIDATION_ERROR', 'since');
    });
  });

  describe('when the cursor does not belong to the request', () => {
    let cursor: string;
    beforeAll(async () => {
      const res = await mock.call('get', '/v1/posts?sort=created_desc&limit=25', key);
      cursor = encodeURIComponent(res.body.nextCursor);
    });

    it('pages on with the parameters unchanged', async () => {
      expectStatus(await mock.call('get', `/v1/posts?sort=created_desc&limit=25&cursor=${cursor}`, key), 200);
    });

    it.each([
      ['another sort', 'sort=created_asc&limit=25'],
      ['another limit', 'sort=created_desc&limit=30'],
      ['an added filter', 'sort=created_desc&limit=25&platform=bluesky'],
      ['an added include', 'sort=created_desc&limit=25&include=total'],
    ])('answers 400 INVALID_CURSOR for %s', async (_label, params) => {
      expectApiError(await mock.call('get', `/v1/posts?${params}&cursor=${cursor}`, key), 400, 'INVALID_CURSOR', 'cursor');
    });

    it('answers 400 INVALID_CURSOR for a cursor of another workspace', async () => {
      const theirs = await mock.call('get', '/v1/posts?limit=2');
      expect(theirs.body.nextCursor).not.toBeNull();
      expectApiError(await mock.call('get', `/v1/posts?limit=2&cursor=${encodeURIComponent(theirs.body.nextCursor)}`, key), 400, 'INVALID_CURSOR', 'cursor');
    });
  });

  describe('when the sort is not one of the list\'s', () => {
    it.each([['metric:views'], ['metric:'], ['newest'], ['created']])('answers 400 VALIDATION_ERROR naming sort for %s', async (sort) => {
      expectApiError(await mock.call('get', `/v1/posts?sort=${sort}`, key), 400, 'VALIDATION_ERROR', 'sort');
    });
  });
});

describe('GET /v1/posts/{id}', () => {
  it('answers the post as the list shows it', async () => {
    const post = all[17] as PostView;
    const res = await mock.call('get', `/v1/posts/${post.id}`, key);
    expectStatus(res, 200);
    expect(res.body.post).toEqual(post);
  });

  describe('when the post is unknown or another workspace\'s', () => {
    it('answers 404 NOT_FOUND', async () => {
      expectApiError(await mock.call('get', '/v1/posts/0f8e7d6c-5b4a-4392-8a1b-2c3d4e5f6a7b', key), 404, 'NOT_FOUND');
      const theirs = await mock.call('get', '/v1/posts?limit=1');
      expectApiError(await mock.call('get', `/v1/posts/${theirs.body.data[0].id}`, key), 404, 'NOT_FOUND');
      expectStatus(await mock.call('get', `/v1/posts/${theirs.body.data[0].id}`), 200);
    });
  });
});
