import { beforeAll, describe, expect, it } from 'vitest';
import { postsStore } from '../../src/api/posts/store.js';
import { reviewsStore } from '../../src/api/reviews/store.js';
import { PLATFORM_IDS } from '../../src/platforms/catalog.js';
import { addOutage } from '../../src/platforms/outages.js';
import type { Workspace } from '../../src/workspaces/workspace.js';
import { connectionOf, newWorkspace, type TestWorkspace } from '../helpers/accounts.js';
import { expectApiError, expectStatus, TEST_CLOCK, useMock } from '../helpers/mock.js';

const mock = useMock();
let ws: TestWorkspace;
const ids: Record<string, string> = {};
beforeAll(async () => {
  ws = await newWorkspace(mock);
  for (const platform of PLATFORM_IDS) ids[platform] = (await connectionOf(mock, ws.apiKey, platform)).id;
});

function workspaceOf(test: TestWorkspace): Workspace {
  const workspace = mock.server.registry.get(test.id);
  if (!workspace) throw new Error(`no workspace ${test.id}`);
  return workspace;
}

/** Every network read, with the one network it exists on (undefined: every network). */
const READS: Array<{ name: string; path: (id: string) => string; only?: string }> = [
  { name: 'stats', path: (id) => `/v1/connections/${id}/stats` },
  { name: 'media', path: (id) => `/v1/connections/${id}/media` },
  { name: 'creator info', path: (id) => `/v1/connections/${id}/tiktok/creator-info`, only: 'tiktok' },
  { name: 'pin boards', path: (id) => `/v1/connections/${id}/pinterest/boards`, only: 'pinterest' },
  { name: 'account analytics', path: (id) => `/v1/accounts/${id}/analytics` },
];

describe('every network read', () => {
  describe.each(READS)('$name', ({ path, only }) => {
    const home = only ?? 'instagram';

    it(`answers 200 on ${home}`, async () => {
      expectStatus(await mock.call('get', path(ids[home] as string), ws.apiKey), 200);
    });

    if (only) {
      it('answers 400 PLATFORM_NOT_SUPPORTED on every other network', async () => {
        for (const platform of PLATFORM_IDS.filter((p) => p !== only)) {
          const res = await mock.call('get', path(ids[platform] as string), ws.apiKey);
          expectApiError(res, 400, 'PLATFORM_NOT_SUPPORTED', 'id');
          expect(res.body.error.details).toEqual({ platform, supported: [only] });
        }
      });
    }

    it('answers 404 for an id of another workspace', async () => {
      expectApiError(await mock.call('get', path(ids[home] as string)), 404, 'NOT_FOUND');
    });

    it('answers 502 PLATFORM_ERROR while its network is down, and 200 again after', async () => {
      const other = await newWorkspace(mock);
      const workspace = workspaceOf(other);
      const id = (await connectionOf(mock, other.apiKey, home)).id;
      addOutage(workspace, { platform: home, fromMs: workspace.now(), untilMs: workspace.now() + 3_600_000, message: 'upstream timeout' });
      const res = await mock.call('get', path(id), other.apiKey);
      expectApiError(res, 502, 'PLATFORM_ERROR');
      expect(res.body.error.details).toEqual({ platform: home });
      // Another network is not affected.
      if (!only) expectStatus(await mock.call('get', path((await connectionOf(mock, other.apiKey, 'facebook')).id), other.apiKey), 200);
      await mock.control('post', '/__control/clock/advance', other.apiKey).send({ by: 'PT1H' });
      expectStatus(await mock.call('get', path(id), other.apiKey), 200);
    });
  });
});

describe('GET /v1/connections/{id}/stats', () => {
  it.each([
    ['tiktok', ['followerCount', 'followingCount', 'likesCount', 'videoCount']],
    ['twitter', ['followersCount', 'followingCount', 'tweetCount', 'listedCount']],
    ['bluesky', ['followersCount', 'followsCount', 'postsCount']],
    ['instagram', ['followersCount', 'followsCount', 'mediaCount']],
    ['facebook', ['followersCount', 'fanCount', 'ratingCount', 'overallStarRating']],
    ['threads', ['followersCount', 'postsCount']],
    ['pinterest', ['followerCount', 'followingCount', 'pinCount', 'boardCount', 'monthlyViews']],
    ['reddit', ['linkKarma', 'commentKarma', 'totalKarma']],
    ['youtube', ['subscriberCount', 'viewCount', 'videoCount']],
  ])('answers the %s counters', async (platform, keys) => {
    const res = await mock.call('get', `/v1/connections/${ids[platform]}/stats`, ws.apiKey);
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ accountId: ids[platform], platform, status: 'active', fetchedAt: TEST_CLOCK });
    expect(Object.keys(res.body.stats).sort()).toEqual([...keys].sort());
    for (const key of keys) if (key !== 'overallStarRating') expect(Number.isInteger(res.body.stats[key]), key).toBe(true);
    expect(res.body).not.toHaveProperty('reviews');
  });

  it('answers stats null for an account whose token the network refuses', async () => {
    const res = await mock.call('get', `/v1/connections/${ids.linkedin}/stats`, ws.apiKey);
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ status: 'expired', stats: null });
  });

  it('counts the page-based network’s ratings from its reviews, and adds the messenger profile and the newest reviews', async () => {
    const reviews = Object.values(reviewsStore.get(workspaceOf(ws)).reviews)
      .filter((review) => review.accountId === ids.facebook)
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
    const rated = reviews.filter((review) => review.rating !== null);
    const res = await mock.call('get', `/v1/connections/${ids.facebook}/stats?include=messenger-profile,reviews&limit=2`, ws.apiKey);
    expectStatus(res, 200);
    expect(res.body.stats.ratingCount).toBe(rated.length);
    expect(res.body.messengerProfile).toMatchObject({ greeting: expect.any(String), iceBreakers: expect.any(Array), persistentMenu: expect.any(Array) });
    expect(res.body.reviews.map((review: { id: string }) => review.id)).toEqual(reviews.slice(0, 2).map((review) => review.id));
    const onlyProfile = await mock.call('get', `/v1/connections/${ids.facebook}/stats?include=messenger-profile`, ws.apiKey);
    expect(onlyProfile.body).not.toHaveProperty('reviews');
  });

  it('answers 400 PLATFORM_NOT_SUPPORTED for the page-based extras elsewhere, and VALIDATION_ERROR for an unknown include', async () => {
    expectApiError(await mock.call('get', `/v1/connections/${ids.instagram}/stats?include=reviews`, ws.apiKey), 400, 'PLATFORM_NOT_SUPPORTED', 'include');
    expectApiError(await mock.call('get', `/v1/connections/${ids.facebook}/stats?include=followers`, ws.apiKey), 400, 'VALIDATION_ERROR', 'include');
    expectApiError(await mock.call('get', `/v1/connections/${ids.facebook}/stats?include=reviews&limit=51`, ws.apiKey), 400, 'VALIDATION_ERROR', 'limit');
  });

  it('repeats exactly, and grows slowly with the virtual clock', async () => {
    const other = await newWorkspace(mock);
    const tiktok = (await connectionOf(mock, other.apiKey, 'tiktok')).id;
    const first = await mock.call('get', `/v1/connections/${tiktok}/stats`, other.apiKey);
    expect((await mock.call('get', `/v1/connections/${tiktok}/stats`, other.apiKey)).body).toEqual(first.body);
    await mock.control('post', '/__control/clock/advance', other.apiKey).send({ by: 'P10D' });
    const later = (await mock.call('get', `/v1/connections/${tiktok}/stats`, other.apiKey)).body.stats;
    const growth = later.followerCount / first.body.stats.followerCount;
    expect(growth).toBeGreaterThan(1.01);
    expect(growth).toBeLessThan(1.1);
    expect(later.followingCount).toBeGreaterThanOrEqual(first.body.stats.followingCount);
  });
});

describe('GET /v1/connections/{id}/media', () => {
  it('pages through the account’s media newest first, each item once, with the posts it published through the mock', async () => {
    const seen: Array<{ id: string; timestamp: string }> = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await mock.call('get', `/v1/connections/${ids.twitter}/media?limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, ws.apiKey);
      expectStatus(res, 200);
      expect(res.body).toMatchObject({ connectionId: ids.twitter, platform: 'twitter' });
      expect(res.body).not.toHaveProperty('hasMore');
      seen.push(...res.body.items);
      cursor = res.body.nextCursor;
      pages++;
    } while (cursor && pages < 20);
    expect(new Set(seen.map((item) => item.id)).size).toBe(seen.length);
    expect(seen.length).toBeGreaterThanOrEqual(12);
    const times = seen.map((item) => item.timestamp);
    expect(times).toEqual([...times].sort().reverse());
    // What the account published through the mock is on the network too: the newest items.
    const published = Object.values(postsStore.get(workspaceOf(ws)).posts)
      .flatMap((post) => post.destinations)
      .filter((destination) => destination.connectionId === ids.twitter && destination.status === 'published');
    expect(published.length).toBeGreaterThan(0);
    for (const destination of published) {
      expect(seen).toContainEqual(expect.objectContaining({ id: destination.externalPostId, permalink: destination.externalUrl, timestamp: destination.publishedAt }));
    }
    expect(seen[0]?.timestamp).toBe(published.map((destination) => destination.publishedAt ?? '').sort().at(-1));

    const whole = await mock.call('get', `/v1/connections/${ids.twitter}/media`, ws.apiKey);
    expect(whole.body.items).toHaveLength(Math.min(20, seen.length));
  });

  it('shows only the network’s media kinds (videos on the short-video network)', async () => {
    const res = await mock.call('get', `/v1/connections/${ids.tiktok}/media?limit=20`, ws.apiKey);
    expect(new Set(res.body.items.map((item: { mediaType: string }) => item.mediaType))).toEqual(new Set(['VIDEO']));
    expect(res.body.items.every((item: { thumbnailUrl: string | null }) => item.thumbnailUrl !== null)).toBe(true);
  });

  it.each([
    ['limit=0', 'limit', 'VALIDATION_ERROR'],
    ['limit=21', 'limit', 'VALIDATION_ERROR'],
    ['cursor=bm90LWEtY3Vyc29y', 'cursor', 'INVALID_CURSOR'],
  ])('answers 400 for %s', async (query, param, code) => {
    expectApiError(await mock.call('get', `/v1/connections/${ids.instagram}/media?${query}`, ws.apiKey), 400, code, param);
  });

  it('refuses a cursor of another connection’s media', async () => {
    const first = await mock.call('get', `/v1/connections/${ids.instagram}/media?limit=2`, ws.apiKey);
    const res = await mock.call('get', `/v1/connections/${ids.facebook}/media?limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`, ws.apiKey);
    expectApiError(res, 400, 'INVALID_CURSOR', 'cursor');
  });

  it('answers 400 ACCOUNT_RECONNECT_REQUIRED for an account that is not active', async () => {
    expectApiError(await mock.call('get', `/v1/connections/${ids.linkedin}/media`, ws.apiKey), 400, 'ACCOUNT_RECONNECT_REQUIRED', 'id');
  });
});

describe('GET /v1/connections/{id}/tiktok/creator-info', () => {
  it('answers the creator’s options, the same each time', async () => {
    const res = await mock.call('get', `/v1/connections/${ids.tiktok}/tiktok/creator-info`, ws.apiKey);
    expectStatus(res, 200);
    const tiktok = await connectionOf(mock, ws.apiKey, 'tiktok');
    expect(res.body).toMatchObject({ connectionId: ids.tiktok, platform: 'tiktok', fetchedAt: TEST_CLOCK, creatorInfo: { creatorUsername: tiktok.handle } });
    expect(res.body.creatorInfo.privacyLevelOptions).toContain('SELF_ONLY');
    expect((await mock.call('get', `/v1/connections/${ids.tiktok}/tiktok/creator-info`, ws.apiKey)).body).toEqual(res.body);
  });
});

describe('GET /v1/connections/{id}/pinterest/boards', () => {
  it('answers 3 to 6 boards, the first the default, as many as the stats count', async () => {
    const res = await mock.call('get', `/v1/connections/${ids.pinterest}/pinterest/boards`, ws.apiKey);
    expectStatus(res, 200);
    expect(res.body.boards.length).toBeGreaterThanOrEqual(3);
    expect(res.body.boards.length).toBeLessThanOrEqual(6);
    expect(res.body).toMatchObject({ defaultBoardId: res.body.boards[0].id, sandbox: false, connectionId: ids.pinterest, platform: 'pinterest' });
    const stats = await mock.call('get', `/v1/connections/${ids.pinterest}/stats`, ws.apiKey);
    expect(stats.body.stats.boardCount).toBe(res.body.boards.length);
  });
});

describe('PATCH /v1/connections/{id}/bluesky/settings', () => {
  it('sets the default languages, and null clears them', async () => {
    const res = await mock.call('patch', `/v1/connections/${ids.bluesky}/bluesky/settings`, ws.apiKey).send({ defaultLangs: ['en', 'pt-BR'] });
    expectStatus(res, 200);
    expect(res.body).toEqual({ accountId: ids.bluesky, platform: 'bluesky', defaultLangs: ['en', 'pt-BR'], updatedAt: TEST_CLOCK });
    const cleared = await mock.call('patch', `/v1/connections/${ids.bluesky}/bluesky/settings`, ws.apiKey).send({ defaultLangs: null });
    expect(cleared.body.defaultLangs).toBeNull();
    expect(workspaceOf(ws).data.stores.accounts).toMatchObject({ accounts: { [ids.bluesky as string]: { defaultLangs: null } } });
  });

  it.each([
    ['eleven languages', { defaultLangs: ['en', 'de', 'fr', 'es', 'it', 'pt', 'nl', 'sv', 'da', 'fi', 'pl'] }, 'defaultLangs'],
    ['a tag that is not BCP 47', { defaultLangs: ['en', 'english!'] }, 'defaultLangs[1]'],
    ['a tag twice', { defaultLangs: ['en', 'EN'] }, 'defaultLangs[1]'],
    ['no defaultLangs', {}, 'defaultLangs'],
  ])('answers 400 VALIDATION_ERROR for %s', async (_case, body, param) => {
    expectApiError(await mock.call('patch', `/v1/connections/${ids.bluesky}/bluesky/settings`, ws.apiKey).send(body), 400, 'VALIDATION_ERROR', param);
  });

  it('answers 400 PLATFORM_NOT_SUPPORTED on another network', async () => {
    expectApiError(await mock.call('patch', `/v1/connections/${ids.twitter}/bluesky/settings`, ws.apiKey).send({ defaultLangs: ['en'] }), 400, 'PLATFORM_NOT_SUPPORTED', 'id');
  });
});

describe('GET /v1/accounts/{id}/analytics', () => {
  it('answers the network’s default period, one point per finished UTC day, oldest first', async () => {
    const tiktok = await mock.call('get', `/v1/accounts/${ids.tiktok}/analytics`, ws.apiKey);
    expectStatus(tiktok, 200);
    expect(tiktok.body).toMatchObject({ accountId: ids.tiktok, platform: 'tiktok', nextCursor: null, hasMore: false });
    const days = tiktok.body.data.map((point: { day: string }) => point.day);
    expect(days).toHaveLength(30);
    expect(days[0]).toBe('2026-01-31');
    expect(days.at(-1)).toBe('2026-03-01');
    const facebook = await mock.call('get', `/v1/accounts/${ids.facebook}/analytics`, ws.apiKey);
    expect(facebook.body.data).toHaveLength(28);
  });

  it('leaves null what the network does not report', async () => {
    const res = await mock.call('get', `/v1/accounts/${ids.reddit}/analytics?limit=1`, ws.apiKey);
    expect(res.body.data[0]).toEqual({ day: expect.any(String), followers: null, impressions: null, reach: null, profileViews: null, engagement: expect.any(Number) });
  });

  it('lists the days overlapping since/until and pages them with the shared rules', async () => {
    const query = `since=${encodeURIComponent('2026-02-10T12:00:00Z')}&until=${encodeURIComponent('2026-02-20T00:00:00Z')}`;
    const first = await mock.call('get', `/v1/accounts/${ids.instagram}/analytics?${query}&limit=4`, ws.apiKey);
    expectStatus(first, 200);
    expect(first.body.data.map((p: { day: string }) => p.day)).toEqual(['2026-02-10', '2026-02-11', '2026-02-12', '2026-02-13']);
    expect(first.body.hasMore).toBe(true);
    const second = await mock.call('get', `/v1/accounts/${ids.instagram}/analytics?${query}&limit=4&cursor=${encodeURIComponent(first.body.nextCursor)}`, ws.apiKey);
    expect(second.body.data[0].day).toBe('2026-02-14');
    const all = await mock.call('get', `/v1/accounts/${ids.instagram}/analytics?${query}`, ws.apiKey);
    expect(all.body.data).toHaveLength(10);
    expect(all.body.data.slice(0, 4)).toEqual(first.body.data);
    expectApiError(await mock.call('get', `/v1/accounts/${ids.instagram}/analytics?${query}&limit=5&cursor=${encodeURIComponent(first.body.nextCursor)}`, ws.apiKey), 400, 'INVALID_CURSOR', 'cursor');
  });

  it('starts at the day the account was connected', async () => {
    const connect = await mock.call('post', '/v1/connections/bluesky/connect', ws.apiKey).send({ identifier: 'fresh.bsky.social', appPassword: 'abcd-efgh-ijkl-mnop' });
    const res = await mock.call('get', `/v1/accounts/${connect.body.connection.id}/analytics`, ws.apiKey);
    expectStatus(res, 200);
    expect(res.body.data).toEqual([]);
  });

  it.each([
    ['a range over 90 days', `since=${encodeURIComponent('2025-10-01T00:00:00Z')}&until=${encodeURIComponent('2026-03-01T00:00:00Z')}`, 'INVALID_RANGE', 'since'],
    ['since not before until', `since=${encodeURIComponent('2026-02-10T00:00:00Z')}&until=${encodeURIComponent('2026-02-01T00:00:00Z')}`, 'INVALID_RANGE', 'since'],
    ['a date without a time', 'since=2026-02-10', 'VALIDATION_ERROR', 'since'],
    ['limit=101', 'limit=101', 'VALIDATION_ERROR', 'limit'],
  ])('answers 400 for %s', async (_case, query, code, param) => {
    expectApiError(await mock.call('get', `/v1/accounts/${ids.instagram}/analytics?${query}`, ws.apiKey), 400, code, param);
  });

  it('answers 400 INVALID_RANGE for a since in the future, as both timelines do', async () => {
    const since = `since=${encodeURIComponent(new Date(Date.parse(TEST_CLOCK) + 86_400_000).toISOString())}`;
    const insights = await mock.call('get', `/v1/accounts/${ids.instagram}/analytics?${since}`, ws.apiKey);
    expectApiError(insights, 400, 'INVALID_RANGE', 'since');
    const timeline = await mock.call('get', `/v1/analytics/timeline?${since}`, ws.apiKey);
    expectApiError(timeline, 400, 'INVALID_RANGE', 'since');
    expect(insights.body.error.message).toBe(timeline.body.error.message);
  });

  it('answers 400 ACCOUNT_RECONNECT_REQUIRED for an account that is not active', async () => {
    expectApiError(await mock.call('get', `/v1/accounts/${ids.linkedin}/analytics`, ws.apiKey), 400, 'ACCOUNT_RECONNECT_REQUIRED', 'id');
  });
});
