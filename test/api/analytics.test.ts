import { describe, expect, it } from 'vitest';
import { timelineMetrics } from '../../src/api/analytics/readings.js';
import { metricsAt } from '../../src/api/posts/metrics.js';
import { addPost } from '../../src/api/posts/store.js';
import { type DestinationStatus, type PostRecord, type PostStatus } from '../../src/api/posts/records.js';
import type { Workspace } from '../../src/workspaces/workspace.js';
import { expectApiError, expectStatus, TEST_CLOCK, useMock } from '../helpers/mock.js';

const mock = useMock();

const at = (iso: string) => Date.parse(iso);
const KEYS = ['impressions', 'reach', 'likes', 'comments', 'shares', 'saves', 'views', 'engagement'] as const;

interface DestinationSpec {
  platform: string;
  publishedAt: string | null;
  status?: DestinationStatus;
  connectionId?: string;
  metricsSeed?: number;
}

/** An empty world (clock frozen at TEST_CLOCK) whose posts the test writes itself. */
async function world() {
  const { body } = await mock.control('post', '/__control/workspaces').send({ fixtures: false });
  const workspace = mock.server.registry.get(body.workspaceId as string) as Workspace;
  const key = body.apiKey as string;
  let n = 0;
  return {
    key,
    workspace,
    get: (path: string) => mock.call('get', path, key),
    setClock: async (to: string) => expectStatus(await mock.control('post', '/__control/clock/set', key).send({ to }), 200),
    addPost(destinations: DestinationSpec[], status: PostStatus = 'published', updatedAt = TEST_CLOCK): PostRecord {
      n++;
      const post: PostRecord = {
        id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
        text: `Post ${n}`,
        mediaUrls: [],
        mediaKind: 'text',
        status,
        scheduledFor: null,
        timezone: null,
        scheduledAtMs: null,
        source: 'api',
        thread: null,
        destinations: destinations.map((spec, i) => ({
          id: `00000000-0000-4000-9000-${String(n * 100 + i).padStart(12, '0')}`,
          connectionId: spec.connectionId ?? `conn-${spec.platform}`,
          platform: spec.platform,
          status: spec.status ?? (spec.publishedAt === null ? 'queued' : 'published'),
          externalPostId: spec.publishedAt === null ? null : `ext-${n}-${i}`,
          externalUrl: null,
          errorCode: null,
          errorMessage: null,
          publishedAt: spec.publishedAt,
          text: null,
          options: {},
          metricsSeed: spec.metricsSeed ?? 1000 + n * 10 + i,
        })),
        createdAt: TEST_CLOCK,
        updatedAt,
      };
      addPost(workspace, post);
      return post;
    },
  };
}

type Point = { day: string; metrics: Record<(typeof KEYS)[number], number>; delta: Record<(typeof KEYS)[number], number | null> };

describe('GET /v1/posts/{id}/analytics/timeline', () => {
  it('has no points on the publish day until midnight UTC passes, then one per day with a reading', async () => {
    const w = await world();
    const post = w.addPost([{ platform: 'instagram', publishedAt: '2026-03-02T08:00:00.000Z' }]);
    const now = await w.get(`/v1/posts/${post.id}/analytics/timeline`);
    expectStatus(now, 200);
    expect(now.body).toEqual({ postId: post.id, from: '2025-12-02', to: '2026-03-02', points: [] });

    await w.setClock('2026-03-05T09:00:00Z');
    const res = await w.get(`/v1/posts/${post.id}/analytics/timeline`);
    expect(res.body.from).toBe('2025-12-05');
    expect(res.body.to).toBe('2026-03-05');
    const points = res.body.points as Point[];
    expect(points.map((p) => p.day)).toEqual(['2026-03-02', '2026-03-03', '2026-03-04']);
    // Each point is the curve at the end of its day.
    const destination = post.destinations[0] as PostRecord['destinations'][number];
    expect(points[1]?.metrics).toEqual(timelineMetrics(metricsAt(destination, 'instagram', at('2026-03-04T00:00:00Z')) ?? ({} as never)));
  });

  it('gives the first point null for every delta, then the change since the point before', async () => {
    const w = await world();
    const post = w.addPost([{ platform: 'youtube', publishedAt: '2026-03-02T06:00:00.000Z' }]);
    await w.setClock('2026-03-09T12:00:00Z');
    const points = (await w.get(`/v1/posts/${post.id}/analytics/timeline`)).body.points as Point[];
    expect(points).toHaveLength(7);
    expect(points[0]?.delta).toEqual(Object.fromEntries(KEYS.map((key) => [key, null])));
    for (let i = 1; i < points.length; i++) {
      for (const key of KEYS) expect(points[i]?.delta[key]).toBe((points[i]?.metrics[key] ?? 0) - (points[i - 1]?.metrics[key] ?? 0));
    }
    // Metrics grow over virtual time; the video network's plays are the timeline's views.
    expect(points[6]?.metrics.impressions).toBeGreaterThan(points[0]?.metrics.impressions ?? Infinity);
    expect(points[6]?.metrics.views).toBeGreaterThan(0);
  });

  it('covers the UTC days from since to the day in which the range ends, with no point before publishing', async () => {
    const w = await world();
    const post = w.addPost([{ platform: 'facebook', publishedAt: '2026-03-02T08:00:00.000Z' }]);
    await w.setClock('2026-03-08T12:00:00Z');
    const res = await w.get(`/v1/posts/${post.id}/analytics/timeline?since=2026-02-25T18:00:00Z&until=2026-03-05T00:00:01Z`);
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ from: '2026-02-25', to: '2026-03-05' });
    expect((res.body.points as Point[]).map((p) => p.day)).toEqual(['2026-03-02', '2026-03-03', '2026-03-04', '2026-03-05']);
    // A range starting after the first reading starts its deltas again.
    const later = await w.get(`/v1/posts/${post.id}/analytics/timeline?since=2026-03-04T00:00:00%2B01:00`);
    expect(later.body.from).toBe('2026-03-03');
    const first = (later.body.points as Point[])[0];
    expect(first?.day).toBe('2026-03-03');
    expect(first?.delta.likes).toBeNull();
  });

  describe('when until is exactly midnight UTC', () => {
    it('ends on the day before: until is exclusive, so the next day has no instant in the range', async () => {
      const w = await world();
      const post = w.addPost([{ platform: 'facebook', publishedAt: '2026-03-02T08:00:00.000Z' }]);
      await w.setClock('2026-03-08T12:00:00Z');
      const res = await w.get(`/v1/posts/${post.id}/analytics/timeline?since=2026-03-02T00:00:00Z&until=2026-03-05T00:00:00Z`);
      expectStatus(res, 200);
      expect(res.body).toMatchObject({ from: '2026-03-02', to: '2026-03-04' });
      expect((res.body.points as Point[]).map((p) => p.day)).toEqual(['2026-03-02', '2026-03-03', '2026-03-04']);
    });

    it('covers one day for a range of that whole day, and one day for a single millisecond before midnight', async () => {
      const w = await world();
      const post = w.addPost([{ platform: 'facebook', publishedAt: '2026-03-02T08:00:00.000Z' }]);
      await w.setClock('2026-03-08T12:00:00Z');
      const whole = await w.get(`/v1/posts/${post.id}/analytics/timeline?since=2026-03-03T00:00:00Z&until=2026-03-04T00:00:00Z`);
      expect(whole.body).toMatchObject({ from: '2026-03-03', to: '2026-03-03' });
      expect((whole.body.points as Point[]).map((p) => p.day)).toEqual(['2026-03-03']);
      const last = await w.get(`/v1/posts/${post.id}/analytics/timeline?since=2026-03-03T23:59:59.999Z&until=2026-03-04T00:00:00Z`);
      expect(last.body).toMatchObject({ from: '2026-03-03', to: '2026-03-03' });
    });
  });

  it('sums the destinations of a post, leaving its twitter destinations out', async () => {
    const w = await world();
    const specs = [
      { platform: 'instagram', publishedAt: '2026-03-02T08:00:00.000Z', metricsSeed: 11 },
      { platform: 'threads', publishedAt: '2026-03-02T08:00:05.000Z', metricsSeed: 22 },
    ];
    const both = w.addPost([...specs, { platform: 'twitter', publishedAt: '2026-03-02T08:00:09.000Z', metricsSeed: 33 }]);
    const alone = specs.map((spec) => w.addPost([spec]));
    await w.setClock('2026-03-06T00:00:01Z');
    const summed = (await w.get(`/v1/posts/${both.id}/analytics/timeline`)).body.points as Point[];
    const parts = await Promise.all(alone.map(async (post) => (await w.get(`/v1/posts/${post.id}/analytics/timeline`)).body.points as Point[]));
    expect(summed).toHaveLength(4);
    summed.forEach((point, i) => {
      for (const key of KEYS) expect(point.metrics[key]).toBe((parts[0]?.[i]?.metrics[key] ?? 0) + (parts[1]?.[i]?.metrics[key] ?? 0));
    });
  });

  it('keeps the readings of a remotely deleted post taken before the delete', async () => {
    const w = await world();
    const post = w.addPost([{ platform: 'instagram', publishedAt: '2026-03-02T08:00:00.000Z', status: 'deleted' }], 'deleted', '2026-03-04T10:00:00.000Z');
    await w.setClock('2026-03-08T00:00:00Z');
    expect(((await w.get(`/v1/posts/${post.id}/analytics/timeline`)).body.points as Point[]).map((p) => p.day)).toEqual(['2026-03-02', '2026-03-03']);
  });

  it('answers empty points for a post that has not published', async () => {
    const w = await world();
    const post = w.addPost([{ platform: 'instagram', publishedAt: null }], 'queued');
    expect((await w.get(`/v1/posts/${post.id}/analytics/timeline`)).body.points).toEqual([]);
  });

  describe('when the range is wrong', () => {
    it.each([
      ['longer than 90 days', 'since=2025-11-30T23:59:59Z&until=2026-03-01T00:00:00Z'],
      ['since alone, more than 90 days ago', 'since=2025-12-01T08:59:59Z'],
      ['since equal to until', 'since=2026-03-01T00:00:00Z&until=2026-03-01T00:00:00Z'],
      ['since after until', 'since=2026-03-01T00:00:01Z&until=2026-03-01T00:00:00Z'],
      ['since alone, after now', 'since=2026-03-02T09:00:01Z'],
    ])('answers 400 INVALID_RANGE for %s', async (_label, query) => {
      const w = await world();
      const post = w.addPost([{ platform: 'instagram', publishedAt: '2026-03-01T08:00:00.000Z' }]);
      expectApiError(await w.get(`/v1/posts/${post.id}/analytics/timeline?${query}`), 400, 'INVALID_RANGE', 'since');
    });

    it('takes exactly 90 days, which end on the 90th UTC day', async () => {
      const w = await world();
      const post = w.addPost([{ platform: 'instagram', publishedAt: '2026-03-01T08:00:00.000Z' }]);
      const res = await w.get(`/v1/posts/${post.id}/analytics/timeline?since=2025-12-01T00:00:00Z&until=2026-03-01T00:00:00Z`);
      expectStatus(res, 200);
      expect(res.body).toMatchObject({ from: '2025-12-01', to: '2026-02-28' });
    });

    it.each([
      ['since=2026-03-01', 'since'],
      ['until=2026-03-01T10:00:00', 'until'],
    ])('answers 400 VALIDATION_ERROR for %s', async (query, param) => {
      const w = await world();
      const post = w.addPost([{ platform: 'instagram', publishedAt: '2026-03-01T08:00:00.000Z' }]);
      expectApiError(await w.get(`/v1/posts/${post.id}/analytics/timeline?${query}`), 400, 'VALIDATION_ERROR', param);
    });
  });

  describe('when the post is on the microblogging network only', () => {
    it('answers 400 PLATFORM_NOT_SUPPORTED', async () => {
      const w = await world();
      const post = w.addPost([{ platform: 'twitter', publishedAt: '2026-03-01T08:00:00.000Z' }]);
      const res = await w.get(`/v1/posts/${post.id}/analytics/timeline`);
      expectApiError(res, 400, 'PLATFORM_NOT_SUPPORTED', 'id');
      expect(res.body.error.details).toEqual({ platform: 'twitter' });
    });
  });

  describe('when the post is unknown or another workspace\'s', () => {
    it.each(['constructor', '__proto__', 'toString'])('answers 404 NOT_FOUND for an id that names an Object property (%s)', async (id) => {
      expectApiError(await mock.call('get', `/v1/posts/${id}/analytics/timeline`), 404, 'NOT_FOUND');
    });

    it('answers 404 NOT_FOUND', async () => {
      const w = await world();
      const other = await world();
      const post = other.addPost([{ platform: 'instagram', publishedAt: '2026-03-01T08:00:00.000Z' }]);
      expectApiError(await w.get(`/v1/posts/${post.id}/analytics/timeline`), 404, 'NOT_FOUND');
      expectApiError(await w.get('/v1/posts/no-such-post/analytics/timeline'), 404, 'NOT_FOUND');
    });
  });
});

describe('GET /v1/analytics', () => {
  async function analyticsWorld() {
    const w = await world();
    const posts = [
      w.addPost([{ platform: 'instagram', publishedAt: '2026-02-20T10:00:00.000Z', connectionId: 'ig-1' }]),
      w.addPost([
        { platform: 'tiktok', publishedAt: '2026-02-25T10:00:00.000Z', connectionId: 'tt-1' },
        { platform: 'instagram', publishedAt: '2026-02-25T10:00:04.000Z', connectionId: 'ig-2' },
        { platform: 'twitter', publishedAt: null, status: 'failed', connectionId: 'tw-1' },
      ]),
      w.addPost([{ platform: 'twitter', publishedAt: '2026-02-27T10:00:00.000Z', connectionId: 'tw-1' }]),
      w.addPost([{ platform: 'instagram', publishedAt: '2026-02-28T10:00:00.000Z', status: 'deleted', connectionId: 'ig-1' }], 'deleted'),
      w.addPost([{ platform: 'instagram', publishedAt: '2026-03-01T10:00:00.000Z', connectionId: 'ig-1' }]),
      w.addPost([{ platform: 'facebook', publishedAt: null, connectionId: 'fb-1' }], 'queued'),
    ];
    return { ...w, posts };
  }
  type Item = { postId: string; destinationId: string; connectionId: string; platform: string; publishedAt: string; metrics: Record<string, number | null> };

  it('has one item per published destination, newest publish first, with its metrics now', async () => {
    const w = await analyticsWorld();
    const res = await w.get('/v1/analytics');
    expectStatus(res, 200);
    const data = res.body.data as Item[];
    expect(data.map((item) => `${item.platform}@${item.publishedAt.slice(0, 10)}`)).toEqual([
      'instagram@2026-03-01',
      'twitter@2026-02-27',
      'instagram@2026-02-25',
      'tiktok@2026-02-25',
      'instagram@2026-02-20',
    ]);
    const first = w.posts[4]?.destinations[0] as PostRecord['destinations'][number];
    expect(data[0]).toEqual({ postId: w.posts[4]?.id, destinationId: first.id, connectionId: 'ig-1', platform: 'instagram', publishedAt: first.publishedAt, metrics: metricsAt(first, 'instagram', at(TEST_CLOCK)) });
    expect(res.body).toMatchObject({ nextCursor: null, hasMore: false });
  });

  it('pages with limit and cursor, each item once', async () => {
    const w = await analyticsWorld();
    const all = ((await w.get('/v1/analytics')).body.data as Item[]).map((item) => item.destinationId);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await w.get(`/v1/analytics?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expectStatus(res, 200);
      seen.push(...(res.body.data as Item[]).map((item) => item.destinationId));
      expect(res.body.hasMore).toBe(res.body.nextCursor !== null);
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all);
    const page = await w.get('/v1/analytics?limit=2');
    expectApiError(await w.get(`/v1/analytics?limit=2&platform=instagram&cursor=${encodeURIComponent(page.body.nextCursor)}`), 400, 'INVALID_CURSOR', 'cursor');
  });

  it.each([
    ['platform=instagram', ['instagram@2026-03-01', 'instagram@2026-02-25', 'instagram@2026-02-20']],
    ['connectionId=ig-1', ['instagram@2026-03-01', 'instagram@2026-02-20']],
    ['since=2026-02-25T10:00:00Z&until=2026-02-27T10:00:00Z', ['instagram@2026-02-25', 'tiktok@2026-02-25']],
    ['connectionId=nobody', []],
  ])('filters with %s', async (query, expected) => {
    const w = await analyticsWorld();
    const res = await w.get(`/v1/analytics?${query}`);
    expectStatus(res, 200);
    expect((res.body.data as Item[]).map((item) => `${item.platform}@${item.publishedAt.slice(0, 10)}`)).toEqual(expected);
  });

  it.each([
    ['since=2026-03-01T00:00:00Z&until=2026-02-01T00:00:00Z', 400, 'INVALID_RANGE', 'since'],
    ['since=yesterday', 400, 'VALIDATION_ERROR', 'since'],
    ['limit=0', 400, 'VALIDATION_ERROR', 'limit'],
    ['platform=Not-A-Platform', 400, 'VALIDATION_ERROR', 'platform'],
  ])('refuses %s', async (query, status, code, param) => {
    const w = await world();
    expectApiError(await w.get(`/v1/analytics?${query}`), status, code, param);
  });

  it('answers for the fixture world under the contract', async () => {
    const res = await mock.call('get', '/v1/analytics?limit=100');
    expectStatus(res, 200);
    expect(res.body.data.length).toBeGreaterThan(10);
  });
});

describe('GET /v1/analytics/timeline', () => {
  async function timelineWorld() {
    const w = await world();
    const posts = [
      w.addPost([{ platform: 'instagram', publishedAt: '2026-01-10T10:00:00.000Z', connectionId: 'ig-1' }]),
      w.addPost([{ platform: 'tiktok', publishedAt: '2026-02-01T10:00:00.000Z', connectionId: 'tt-1' }]),
      w.addPost([{ platform: 'twitter', publishedAt: '2026-01-20T10:00:00.000Z', connectionId: 'tw-1' }]),
      w.addPost([{ platform: 'instagram', publishedAt: '2026-02-20T10:00:00.000Z', connectionId: 'ig-2' }]),
    ];
    return { ...w, posts };
  }

  it('sums every destination with a timeline per UTC day, oldest first, over the default 90 days', async () => {
    const w = await timelineWorld();
    const res = await w.get('/v1/analytics/timeline?limit=100');
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ from: '2025-12-02', to: '2026-03-02', nextCursor: null, hasMore: false });
    const points = res.body.data as Point[];
    // 2026-01-10 to 2026-03-01: one point per day with a reading.
    expect(points).toHaveLength(51);
    expect(points[0]?.day).toBe('2026-01-10');
    expect(points.at(-1)?.day).toBe('2026-03-01');
    expect(points[0]?.delta.reach).toBeNull();

    const perPost = await Promise.all([0, 1, 3].map(async (i) => (await w.get(`/v1/posts/${w.posts[i]?.id}/analytics/timeline`)).body.points as Point[]));
    const day = '2026-02-25';
    const expected = Object.fromEntries(KEYS.map((key) => [key, perPost.reduce((sum, points) => sum + (points.find((p) => p.day === day)?.metrics[key] ?? 0), 0)]));
    expect(points.find((p) => p.day === day)?.metrics).toEqual(expected);
  });

  it('pages the points with the deltas of the whole range', async () => {
    const w = await timelineWorld();
    const whole = (await w.get('/v1/analytics/timeline?limit=100')).body.data as Point[];
    const first = await w.get('/v1/analytics/timeline?limit=30');
    expect(first.body).toMatchObject({ hasMore: true, from: '2025-12-02', to: '2026-03-02' });
    const second = await w.get(`/v1/analytics/timeline?limit=30&cursor=${encodeURIComponent(first.body.nextCursor)}`);
    expect(second.body).toMatchObject({ hasMore: false, nextCursor: null });
    expect([...first.body.data, ...second.body.data]).toEqual(whole);
    expect((second.body.data as Point[])[0]?.delta.impressions).not.toBeNull();
    expectApiError(await w.get(`/v1/analytics/timeline?limit=30&connectionId=ig-1&cursor=${encodeURIComponent(first.body.nextCursor)}`), 400, 'INVALID_CURSOR', 'cursor');
  });

  it('filters by platform, connection and range', async () => {
    const w = await timelineWorld();
    const tiktok = await w.get('/v1/analytics/timeline?platform=tiktok&limit=100');
    expect((tiktok.body.data as Point[])[0]?.day).toBe('2026-02-01');
    expect((tiktok.body.data as Point[]).every((p) => p.metrics.views > 0)).toBe(true);
    const ig2 = await w.get('/v1/analytics/timeline?connectionId=ig-2&limit=100');
    expect((ig2.body.data as Point[]).map((p) => p.day)[0]).toBe('2026-02-20');
    // The same range rules as the post timeline: an exclusive until at midnight adds no day.
    const range = await w.get('/v1/analytics/timeline?since=2026-02-01T00:00:00Z&until=2026-02-03T00:00:00Z');
    expect(range.body).toMatchObject({ from: '2026-02-01', to: '2026-02-02' });
    expect((range.body.data as Point[]).map((p) => p.day)).toEqual(['2026-02-01', '2026-02-02']);
    expect((range.body.data as Point[])[0]?.delta.likes).toBeNull();
  });

  it.each([
    ['platform=twitter', 400, 'PLATFORM_NOT_SUPPORTED', 'platform'],
    ['since=2025-11-01T00:00:00Z', 400, 'INVALID_RANGE', 'since'],
    ['since=2026-02-01T00:00:00Z&until=2026-01-01T00:00:00Z', 400, 'INVALID_RANGE', 'since'],
    ['limit=101', 400, 'VALIDATION_ERROR', 'limit'],
  ])('refuses %s', async (query, status, code, param) => {
    const w = await timelineWorld();
    expectApiError(await w.get(`/v1/analytics/timeline?${query}`), status, code, param);
  });

  it('refuses a twitter connectionId with 400 PLATFORM_NOT_SUPPORTED', async () => {
    const connections = (await mock.call('get', '/v1/connections')).body.connections as Array<{ id: string; platform: string }>;
    const twitter = connections.find((c) => c.platform === 'twitter');
    expectApiError(await mock.call('get', `/v1/analytics/timeline?connectionId=${twitter?.id}`), 400, 'PLATFORM_NOT_SUPPORTED', 'connectionId');
  });
});
