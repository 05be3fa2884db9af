import type { Response } from 'supertest';
import { describe, expect, it } from 'vitest';
import type { AccountRecord } from '../../src/api/accounts/store.js';
import { postsStore } from '../../src/api/posts/store.js';
import { recentNetworkPosts, type NetworkPost } from '../../src/api/sync/network-timeline.js';
import { addOutage, clearOutages } from '../../src/platforms/outages.js';
import type { Workspace } from '../../src/workspaces/workspace.js';
import { expectApiError, expectStatus, useMock } from '../helpers/mock.js';

const mock = useMock();

interface World {
  key: string;
  workspace: Workspace;
  account(platform: string): AccountRecord;
  /** The account's posts made on the network itself (not through the service), newest first. */
  networkPosts(platform: string, count?: number): NetworkPost[];
  sync(platform: string, body?: object): Promise<Response>;
  advance(by: string): Promise<void>;
  /** post.external.created events so far. */
  imports(): Array<{ post: { id: string; source: string; destinations: Array<{ externalPostId: string }> } }>;
  externalPosts(accountId: string): Array<{ id: string; externalPostId: string | null }>;
}

/** A fresh fixture world of its own, so each test's syncs start from nothing. */
async function world(): Promise<World> {
  const { body } = await mock.control('post', '/__control/workspaces').send({});
  const workspace = mock.server.registry.get(body.workspaceId as string) as Workspace;
  const account = (platform: string) => Object.values((workspace.data.stores['accounts'] as { accounts: Record<string, AccountRecord> }).accounts).find((a) => a.platform === platform) as AccountRecord;
  return {
    key: body.apiKey,
    workspace,
    account,
    networkPosts: (platform, count = 20) => recentNetworkPosts(workspace.data.seed, account(platform), workspace.now(), count),
    sync: (platform, syncBody) => {
      const req = mock.call('post', `/v1/accounts/${account(platform).id}/sync`, body.apiKey);
      return syncBody === undefined ? req : req.send(syncBody);
    },
    advance: async (by) => {
      expectStatus(await mock.control('post', '/__control/clock/advance', body.apiKey).send({ by }), 200);
    },
    imports: () => workspace.events.recent().filter((event) => event.event === 'post.external.created').map((event) => event.data as ReturnType<World['imports']>[number]),
    externalPosts: (accountId) =>
      Object.values(postsStore.get(workspace).posts)
        .filter((post) => post.source === 'external')
        .flatMap((post) => post.destinations.filter((d) => d.connectionId === accountId).map((d) => ({ id: post.id, externalPostId: d.externalPostId }))),
  };
}

type Item = { id: string; groupId: string; accountId: string; platform: string; source: string; status: string; platformPostId: string; url: string | null; publishedAt: string; metrics: unknown };

describe('POST /v1/accounts/{id}/sync', () => {
  describe('when neither url nor platformPostId is sent', () => {
    it('answers the 20 most recent network posts, newest first, importing the unknown ones as external posts', async () => {
      const w = await world();
      const res = await w.sync('instagram');
      expectStatus(res, 200);
      expect(res.body.skipped).toBe(false);
      const data = res.body.data as Item[];
      expect(data).toHaveLength(20);
      const published = data.map((item) => item.publishedAt);
      expect(published).toEqual([...published].sort().reverse());
      expect(published.every((at) => Date.parse(at) <= w.workspace.now())).toBe(true);
      const account = w.account('instagram');
      expect(data.every((item) => item.accountId === account.id && item.platform === 'instagram' && item.status === 'published')).toBe(true);
      // The fixture's own instagram posts are on the network too: known, answered, not imported.
      const external = data.filter((item) => item.source === 'external');
      const known = data.filter((item) => item.source === 'api');
      expect(known.length).toBeGreaterThan(0);
      expect(external.length + known.length).toBe(20);
      const networkIds = w.networkPosts('instagram', 40).map((post) => post.platformPostId);
      for (const item of external) {
        expect(networkIds).toContain(item.platformPostId);
        expect(item.platformPostId).toMatch(/^\d{17}$/);
        expect(item.url).toBe(`https://instagram.example/p/${item.platformPostId}`);
        expect(item.metrics).not.toBeNull();
        expect(item.id).not.toBe(item.groupId);
      }
    });

    it('emits post.external.created once per imported post, with the grouped post', async () => {
      const w = await world();
      const res = await w.sync('bluesky');
      const external = (res.body.data as Item[]).filter((item) => item.source === 'external');
      const events = w.imports();
      expect(events).toHaveLength(external.length);
      expect(events.map((event) => event.post.id).sort()).toEqual(external.map((item) => item.groupId).sort());
      expect(events.every((event) => event.post.source === 'external')).toBe(true);
      // Imported oldest first: events follow the network's own order.
      expect(events.map((event) => event.post.destinations[0]?.externalPostId)).toEqual(external.map((item) => item.platformPostId).reverse());
    });

    it('adds each post to the posts store once, however often the account is synced', async () => {
      const w = await world();
      const first = await w.sync('tiktok');
      await w.advance('PT16S');
      const second = await w.sync('tiktok');
      expectStatus(second, 200);
      expect(second.body.skipped).toBe(false);
      expect((second.body.data as Item[]).map((item) => item.id)).toEqual((first.body.data as Item[]).map((item) => item.id));
      const stored = w.externalPosts(w.account('tiktok').id);
      expect(new Set(stored.map((post) => post.externalPostId)).size).toBe(stored.length);
      const imported = (first.body.data as Item[]).filter((item) => item.source === 'external').length;
      expect(w.imports()).toHaveLength(imported);
    });

    it('finds the posts made on the network as virtual time passes', async () => {
      const w = await world();
      const first = await w.sync('threads');
      const before = w.imports().length;
      // Less than the 40 hours after which the fixture's text-thread token runs out (it cannot renew).
      await w.advance('PT36H');
      const later = await w.sync('threads');
      const firstNewest = Date.parse((first.body.data as Item[])[0]?.publishedAt ?? '');
      const fresh = (later.body.data as Item[]).filter((item) => Date.parse(item.publishedAt) > firstNewest);
      // The service's own scheduled posts publish meanwhile too; only the network's posts are imported.
      const freshExternal = fresh.filter((item) => item.source === 'external');
      expect(freshExternal.length).toBeGreaterThan(0);
      expect(w.imports().length - before).toBe(freshExternal.length);
    });
  });

  describe('when a url or platformPostId names one post', () => {
    it('imports only that post, found by url among the 20 most recent', async () => {
      const w = await world();
      const target = w.networkPosts('instagram')[4] as NetworkPost;
      const res = await w.sync('instagram', { url: target.url });
      expectStatus(res, 200);
      expect(res.body).toMatchObject({ skipped: false, data: [{ source: 'external', platformPostId: target.platformPostId, url: target.url }] });
      expect(res.body.data).toHaveLength(1);
      expect(w.imports()).toHaveLength(1);
      expect(w.externalPosts(w.account('instagram').id).filter((post) => post.externalPostId === target.platformPostId)).toHaveLength(1);
    });

    it('matches a url as shared: www., another scheme, a trailing slash and tracking parameters', async () => {
      const w = await world();
      const target = w.networkPosts('instagram')[2] as NetworkPost;
      const shared = `${(target.url ?? '').replace('https://', 'http://www.')}/?utm_source=ig_web_copy_link&igsh=abc123#comments`;
      const res = await w.sync('instagram', { url: shared });
      expect((res.body.data as Item[]).map((item) => item.platformPostId)).toEqual([target.platformPostId]);
    });

    it('finds a post by platformPostId, in the network\'s own id style', async () => {
      const w = await world();
      const target = w.networkPosts('bluesky')[7] as NetworkPost;
      expect(target.platformPostId).toMatch(/^at:\/\/did:plc:[a-z2-7]+\/app\.bsky\.feed\.post\/[2-7a-z]{13}$/);
      const res = await w.sync('bluesky', { platformPostId: target.platformPostId });
      expect((res.body.data as Item[]).map((item) => item.platformPostId)).toEqual([target.platformPostId]);
      expect(w.imports()).toHaveLength(1);
    });

    it('answers a post the service published itself, without importing it', async () => {
      const w = await world();
      const account = w.account('reddit');
      const own = Object.values(postsStore.get(w.workspace).posts).flatMap((post) => post.destinations).find((d) => d.connectionId === account.id && d.status === 'published');
      const res = await w.sync('reddit', { url: own?.externalUrl });
      expect(res.body.data).toMatchObject([{ source: 'api', platformPostId: own?.externalPostId, id: own?.id }]);
      expect(w.imports()).toHaveLength(0);
    });

    it.each([
      ['a platformPostId older than the 20 most recent', (posts: NetworkPost[]) => ({ platformPostId: posts[25]?.platformPostId })],
      ['a url older than the 20 most recent', (posts: NetworkPost[]) => ({ url: posts[22]?.url })],
      ['a platformPostId the network never had', () => ({ platformPostId: '17999999999999999' })],
      ['a url and a platformPostId naming different posts', (posts: NetworkPost[]) => ({ url: posts[1]?.url, platformPostId: posts[2]?.platformPostId })],
    ])('answers empty data for %s, importing nothing', async (_label, bodyOf) => {
      const w = await world();
      const res = await w.sync('instagram', bodyOf(w.networkPosts('instagram', 30)));
      expectStatus(res, 200);
      expect(res.body).toEqual({ data: [], skipped: false });
      expect(w.imports()).toHaveLength(0);
    });
  });

  describe('when the account was synced in the last 15 seconds', () => {
    it('skips: answers only posts already known, imports nothing, and syncs again after 16 s', async () => {
      const w = await world();
      const target = w.networkPosts('facebook')[3] as NetworkPost;
      expect((await w.sync('facebook', { url: target.url })).body.data).toHaveLength(1);

      await w.advance('PT10S');
      const skipped = await w.sync('facebook');
      expectStatus(skipped, 200);
      expect(skipped.body.skipped).toBe(true);
      const skippedItems = skipped.body.data as Item[];
      // What is known: the one imported post and the fixture's own facebook posts, never the rest of the network.
      expect(skippedItems.filter((item) => item.source === 'external').map((item) => item.platformPostId)).toEqual([target.platformPostId]);
      expect(skippedItems.every((item) => item.source === 'api' || item.platformPostId === target.platformPostId)).toBe(true);
      expect(w.imports()).toHaveLength(1);

      const unknown = w.networkPosts('facebook')[0] as NetworkPost;
      expect((await w.sync('facebook', { url: unknown.url })).body).toEqual({ data: [], skipped: true });

      // 16 s after the sync that reached the network (the skipped ones do not restart the window).
      await w.advance('PT6S');
      const again = await w.sync('facebook');
      expect(again.body.skipped).toBe(false);
      const imported = (again.body.data as Item[]).filter((item) => item.source === 'external');
      expect(imported.length).toBeGreaterThan(1);
      expect(w.imports()).toHaveLength(imported.length);
    });

    it('does not ask the network, so an outage does not fail a skipped sync', async () => {
      const w = await world();
      await w.sync('youtube');
      addOutage(w.workspace, { platform: 'youtube', fromMs: 0, untilMs: null, message: 'upstream timeout' });
      const res = await w.sync('youtube');
      expectStatus(res, 200);
      expect(res.body.skipped).toBe(true);
    });
  });

  describe('with an Idempotency-Key', () => {
    it('replays the first answer without syncing again, and refuses the key with another body', async () => {
      const w = await world();
      const account = w.account('pinterest');
      const send = (key: string, body: object) => mock.call('post', `/v1/accounts/${account.id}/sync`, w.key).set('Idempotency-Key', key).send(body);
      const first = await send('sync-1', {});
      expectStatus(first, 200);
      const imported = w.imports().length;
      expect(imported).toBeGreaterThan(0);

      const replay = await send('sync-1', {});
      expectStatus(replay, 200);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body).toEqual(first.body);
      expect(replay.body.skipped).toBe(false);
      expect(w.imports()).toHaveLength(imported);

      // A new key within 15 s does reach the handler, which skips.
      expect((await send('sync-2', {})).body.skipped).toBe(true);
      expectApiError(await send('sync-1', { platformPostId: '1' }), 422, 'IDEMPOTENCY_KEY_REUSED', 'Idempotency-Key');
    });
  });

  describe('when the network is down', () => {
    it('answers 502 PLATFORM_ERROR naming it, keeps nothing, and a retry with the same key runs again', async () => {
      const w = await world();
      addOutage(w.workspace, { platform: 'tiktok', fromMs: 0, untilMs: null, message: 'upstream timeout' });
      const send = () => mock.call('post', `/v1/accounts/${w.account('tiktok').id}/sync`, w.key).set('Idempotency-Key', 'retry-me').send({});
      const failed = await send();
      expectApiError(failed, 502, 'PLATFORM_ERROR');
      expect(failed.body.error.details).toEqual({ platform: 'tiktok' });
      expect(w.imports()).toHaveLength(0);
      // A failed sync does not count as one: no skip afterwards.
      clearOutages(w.workspace, 'tiktok');
      const retried = await send();
      expectStatus(retried, 200);
      expect(retried.headers['idempotent-replayed']).toBeUndefined();
      expect(retried.body.skipped).toBe(false);
    });
  });

  describe('when the account is not active', () => {
    it('answers 400 ACCOUNT_RECONNECT_REQUIRED naming the id', async () => {
      const w = await world();
      const res = await w.sync('linkedin', {});
      expectApiError(res, 400, 'ACCOUNT_RECONNECT_REQUIRED', 'id');
      expect(res.body.error.details).toEqual({ accountId: w.account('linkedin').id, status: 'expired' });
    });
  });

  describe('when the account is unknown or another workspace\'s', () => {
    it('answers 404 NOT_FOUND', async () => {
      const w = await world();
      expectApiError(await mock.call('post', '/v1/accounts/8c1f4a52-0000-4000-8000-000000000000/sync').send({}), 404, 'NOT_FOUND');
      expectApiError(await mock.call('post', `/v1/accounts/${w.account('instagram').id}/sync`).send({}), 404, 'NOT_FOUND');
    });
  });

  describe('when the body is invalid', () => {
    it.each([
      [{ url: 'not a url' }, 'url'],
      [{ platformPostId: '' }, 'platformPostId'],
      [{ post: '123' }, 'post'],
    ])('answers 400 VALIDATION_ERROR for %j', async (body, param) => {
      const w = await world();
      expectApiError(await w.sync('instagram', body), 400, 'VALIDATION_ERROR', param);
    });
  });
});
