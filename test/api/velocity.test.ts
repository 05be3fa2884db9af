import type { Response } from 'supertest';
import { describe, expect, it } from 'vitest';
import { addOutage, clearOutages } from '../../src/platforms/outages.js';
import { expectApiError, expectStatus, useMock } from '../helpers/mock.js';

const mock = useMock();

interface World {
  key: string;
  account(platform: string): string;
  post(platform: string, extra?: Record<string, unknown>): Promise<Response>;
  advance(ms: number): Promise<unknown>;
}

/** A fixture world of its own, frozen at `start`. */
async function world(start = '2026-03-02T10:00:00.000Z'): Promise<World> {
  const created = await mock.control('post', '/__control/workspaces').send({ clock: { start, frozen: true } });
  const key = created.body.apiKey as string;
  const connections = (await mock.call('get', '/v1/connections', key)).body.connections as Array<{ id: string; platform: string }>;
  const account = (platform: string) => connections.find((c) => c.platform === platform)?.id as string;
  return {
    key,
    account,
    post: (platform, extra = {}) => mock.call('post', '/v1/posts', key).send({ text: 'Fresh beans today.', destinations: [{ connectionId: account(platform) }], ...extra }),
    advance: (ms) => mock.control('post', '/__control/clock/advance', key).send({ ms }),
  };
}

describe('POST /v1/posts and posting velocity', () => {
  describe('when an account has published 25 times in the rolling hour', () => {
    it('refuses the 26th with 429 VELOCITY_LIMITED naming the cooldown', async () => {
      const w = await world();
      for (let i = 0; i < 25; i++) {
        expectStatus(await w.post('bluesky'), 201);
        await w.advance(60_000);
      }
      // The first went out at 10:00:05 (2 s queued, 3 s publishing); it is now 10:25:00.
      const res = await w.post('bluesky');
      expectApiError(res, 429, 'VELOCITY_LIMITED', 'destinations[0].connectionId');
      expect(res.headers['retry-after']).toBe(String(3600 - 25 * 60 + 5));
      expect(res.body.error.details).toEqual({ accountId: w.account('bluesky'), platform: 'bluesky', window: 'hour', limit: 25, retryAfterSeconds: 3600 - 25 * 60 + 5 });
      // Nothing of the refused request exists.
      const list = await mock.call('get', `/v1/posts?connectionId=${w.account('bluesky')}&include=total&limit=1`, w.key);
      const before = list.body.total as number;
      await w.post('bluesky');
      expect((await mock.call('get', `/v1/posts?connectionId=${w.account('bluesky')}&include=total&limit=1`, w.key)).body.total).toBe(before);
      // Another account is not affected.
      expectStatus(await w.post('instagram', { mediaUrls: ['https://cdn.example/a.jpg'] }), 201);
    });
  });

  describe('when the daily cap of the network is reached', () => {
    it('refuses until the next UTC midnight', async () => {
      const w = await world('2026-03-02T01:00:00.000Z');
      const twitter = w.account('twitter');
      await mock.control('post', '/__control/limits', w.key).send({ velocity: [{ accountId: twitter, published: 25 }] });
      await w.advance(3600_001);
      await mock.control('post', '/__control/limits', w.key).send({ velocity: [{ accountId: twitter, published: 25 }] });
      await w.advance(3600_001);
      const res = await w.post('twitter');
      expectApiError(res, 429, 'VELOCITY_LIMITED');
      expect(res.body.error.details).toMatchObject({ window: 'day', limit: 50, platform: 'twitter' });
      const clock = await mock.control('get', '/__control/clock', w.key);
      const untilMidnight = Math.ceil((Date.parse('2026-03-03T00:00:00Z') - Date.parse(clock.body.now)) / 1000);
      expect(res.headers['retry-after']).toBe(String(untilMidnight));
      await mock.control('post', '/__control/clock/set', w.key).send({ to: '2026-03-03T00:00:00Z' });
      expectStatus(await w.post('twitter'), 201);
    });
  });

  describe('when earlier posts failed or are only scheduled', () => {
    it('does not count them', async () => {
      const w = await world();
      const bluesky = w.account('bluesky');
      await mock.control('post', '/__control/limits', w.key).send({ velocity: [{ accountId: bluesky, published: 23 }] });
      // Five scheduled posts for tomorrow hold no place today.
      for (let i = 0; i < 5; i++) expectStatus(await w.post('bluesky', { scheduledFor: '2026-03-03T09:00:00', timezone: 'UTC' }), 201);
      // A post that fails (the network is down) frees its place once it has failed.
      const workspace = mock.server.registry.byApiKey(w.key);
      if (!workspace) throw new Error('workspace missing');
      addOutage(workspace, { platform: 'bluesky', fromMs: 0, untilMs: null, message: 'maintenance' });
      const failing = await w.post('bluesky');
      expectStatus(failing, 201);
      await w.advance(10_000);
      expect((await mock.call('get', `/v1/posts/${failing.body.post.id}`, w.key)).body.post.status).toBe('failed');
      clearOutages(workspace, 'bluesky');
      expectStatus(await w.post('bluesky'), 201);
      expectStatus(await w.post('bluesky'), 201);
      // Queued, those two do not count yet; once they went out, the cap is reached.
      await w.advance(10_000);
      expectApiError(await w.post('bluesky'), 429, 'VELOCITY_LIMITED');
    });
  });

  describe('when a scheduled post fires past the cap', () => {
    it('fails terminally with VELOCITY_LIMITED on the destination and the event', async () => {
      const w = await world();
      const bluesky = w.account('bluesky');
      const scheduled = await w.post('bluesky', { scheduledFor: '2026-03-02T11:00:00', timezone: 'UTC' });
      expectStatus(scheduled, 201);
      await w.advance(59 * 60_000);
      await mock.control('post', '/__control/limits', w.key).send({ velocity: [{ accountId: bluesky, published: 25 }] });
      await mock.control('post', '/__control/clock/set', w.key).send({ to: '2026-03-02T11:00:30Z' });
      const post = (await mock.call('get', `/v1/posts/${scheduled.body.post.id}`, w.key)).body.post;
      expect(post.status).toBe('failed');
      expect(post.destinations[0]).toMatchObject({ status: 'failed', errorCode: 'VELOCITY_LIMITED', publishedAt: null });
      const events = mock.server.registry.byApiKey(w.key)?.events.recent() ?? [];
      const failed = events.filter((e) => e.event === 'post.platform.failed' && e.data.postId === post.id);
      expect(failed).toHaveLength(1);
      expect(failed[0]?.data).toMatchObject({ destination: { errorCode: 'VELOCITY_LIMITED' } });
    });
  });

  describe('when 30 publishes to one account arrive at once', () => {
    it('accepts all 30 (queued posts do not count), publishes exactly 25, and fails the other 5 at send time with VELOCITY_LIMITED and its webhook event', async () => {
      const w = await world();
      const results = await Promise.all(Array.from({ length: 30 }, () => w.post('threads')));
      expect(results.map((r) => r.status)).toEqual(Array.from({ length: 30 }, () => 201));
      await w.advance(60_000 * 5);
      const threads = w.account('threads');
      const published = await mock.call('get', `/v1/posts?connectionId=${threads}&status=published&since=2026-03-02T10:00:00Z&include=total`, w.key);
      expect(published.body.total).toBe(25);
      const failed = await mock.call('get', `/v1/posts?connectionId=${threads}&status=failed&since=2026-03-02T10:00:00Z&include=total&limit=100`, w.key);
      expect(failed.body.total).toBe(5);
      for (const post of failed.body.data) expect(post.destinations[0]).toMatchObject({ status: 'failed', errorCode: 'VELOCITY_LIMITED', publishedAt: null });
      const events = mock.server.registry.byApiKey(w.key)?.events.recent() ?? [];
      const refused = events.filter((e) => e.event === 'post.platform.failed' && (e.data as { destination: { errorCode: string } }).destination.errorCode === 'VELOCITY_LIMITED');
      expect(refused).toHaveLength(5);
      // Now the cap is reached by posts that went out: the 31st is refused at once.
      expectApiError(await w.post('threads'), 429, 'VELOCITY_LIMITED');
    });
  });

  describe('when 25 posts are queued and none has gone out', () => {
    it('accepts the 26th, as the reference says: only posts that went out count', async () => {
      const w = await world();
      for (let i = 0; i < 25; i++) expectStatus(await w.post('bluesky'), 201);
      const limits = await mock.control('get', '/__control/limits', w.key);
      expect(limits.body.velocity.find((entry: { accountId: string }) => entry.accountId === w.account('bluesky'))).toMatchObject({ hour: { count: 0 }, inFlight: 0 });
      expectStatus(await w.post('bluesky'), 201);
    });
  });
});
