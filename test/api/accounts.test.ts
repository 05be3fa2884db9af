import { describe, expect, it } from 'vitest';
import { PLATFORM_IDS } from '../../src/platforms/catalog.js';
import { newWorkspace } from '../helpers/accounts.js';
import { expectApiError, expectStatus, useMock } from '../helpers/mock.js';

const mock = useMock();

describe('GET /v1/connections', () => {
  it('lists one connection per network of the fixture world, oldest first', async () => {
    const res = await mock.call('get', '/v1/connections');
    expectStatus(res, 200);
    const platforms = res.body.connections.map((c: { platform: string }) => c.platform);
    expect([...platforms].sort()).toEqual([...PLATFORM_IDS].sort());
    const created = res.body.connections.map((c: { createdAt: string }) => c.createdAt);
    expect(created).toEqual([...created].sort());
  });

  it('reports the realistic mix: one expired, one needing action, a premium microblog account', async () => {
    const { body } = await mock.call('get', '/v1/connections');
    const connections = body.connections as Array<{ status: string; authHealth: string; platform: string; microblogSubscriptionType?: string | null }>;
    expect(connections.filter((c) => c.status === 'expired')).toHaveLength(1);
    expect(connections.some((c) => c.authHealth === 'action_required')).toBe(true);
    expect(connections.find((c) => c.platform === 'twitter')?.microblogSubscriptionType).toBe('premium');
    // The subscription field is the microblogging network's alone.
    expect(connections.filter((c) => c.platform !== 'twitter').every((c) => !('microblogSubscriptionType' in c))).toBe(true);
  });

  it('answers the list read again and again the same, and as soon as an account changes, with the change', async () => {
    const ws = await newWorkspace(mock);
    const read = async () => (await mock.call('get', '/v1/connections', ws.apiKey)).text;
    const first = await read();
    expect(await read()).toBe(first);
    const { id } = (JSON.parse(first) as { connections: Array<{ id: string }> }).connections[0] as { id: string };
    expectStatus(await mock.control('post', `/__control/accounts/${id}/status`, ws.apiKey).send({ status: 'revoked' }), 200);
    const revoked = await read();
    expect((JSON.parse(revoked) as { connections: Array<{ id: string; status: string }> }).connections.find((c) => c.id === id)?.status).toBe('revoked');
    expect(await read()).toBe(revoked);
    expectStatus(await mock.call('delete', `/v1/accounts/${id}`, ws.apiKey), 200);
    expect((JSON.parse(await read()) as { connections: Array<{ id: string }> }).connections.map((c) => c.id)).not.toContain(id);
  });
});

describe('GET /v1/accounts/{id}', () => {
  it('answers the single-account shape', async () => {
    const { body } = await mock.call('get', '/v1/connections');
    const id = body.connections[0].id as string;
    const res = await mock.call('get', `/v1/accounts/${id}`);
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ id, metadata: expect.any(Object), canAutoRenew: expect.any(Boolean) });
    expect(res.body).toHaveProperty('profile');
  });

  describe('when the id is unknown', () => {
    it('answers 404 NOT_FOUND', async () => {
      expectApiError(await mock.call('get', '/v1/accounts/8c1f4a52-0000-4000-8000-000000000000'), 404, 'NOT_FOUND');
    });

    it.each([
      ['get', '/v1/accounts/constructor'],
      ['get', '/v1/accounts/__proto__'],
      ['delete', '/v1/accounts/toString'],
      ['get', '/v1/connections/hasOwnProperty/stats'],
      ['get', '/v1/connect-sessions/constructor/candidates'],
      ['get', '/v1/connections/oauth/instagram/accounts?tempToken=__proto__'],
      ['delete', '/v1/profiles/constructor'],
    ] as const)('answers 404 NOT_FOUND for %s %s, a name of Object itself', async (method, path) => {
      expectApiError(await mock.call(method, path), 404, 'NOT_FOUND');
    });
  });
});

describe('GET /v1/accounts', () => {
  it('pages through every account exactly once, newest first by default', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await mock.call('get', `/v1/accounts?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expectStatus(res, 200);
      seen.push(...res.body.data.map((a: { id: string }) => a.id));
      expect(res.body.hasMore).toBe(res.body.nextCursor !== null);
      cursor = res.body.nextCursor;
      pages++;
    } while (cursor && pages < 10);
    expect(pages).toBe(4);
    expect(new Set(seen).size).toBe(10);
    const all = await mock.call('get', '/v1/accounts?limit=100');
    expect(all.body.data.map((a: { id: string }) => a.id)).toEqual(seen);
    const created = all.body.data.map((a: { createdAt: string }) => a.createdAt);
    expect(created).toEqual([...created].sort().reverse());
  });

  it('sorts oldest first with sort=created_asc', async () => {
    const desc = await mock.call('get', '/v1/accounts?sort=created_desc');
    const asc = await mock.call('get', '/v1/accounts?sort=created_asc');
    expect(asc.body.data.map((a: { id: string }) => a.id)).toEqual([...desc.body.data].reverse().map((a: { id: string }) => a.id));
  });

  it('filters by platform and status, and counts with include=total', async () => {
    const res = await mock.call('get', '/v1/accounts?platform=bluesky&include=total');
    expectStatus(res, 200);
    expect(res.body.total).toBe(1);
    expect(res.body.data[0].platform).toBe('bluesky');
    const expired = await mock.call('get', '/v1/accounts?status=expired&include=total');
    expect(expired.body.total).toBe(1);
    const plain = await mock.call('get', '/v1/accounts');
    expect(plain.body).not.toHaveProperty('total');
  });

  it('filters on connection time with since (inclusive) and until (exclusive)', async () => {
    const all = (await mock.call('get', '/v1/accounts?sort=created_asc')).body.data as Array<{ createdAt: string }>;
    const pivot = all[4]?.createdAt as string;
    const since = await mock.call('get', `/v1/accounts?sort=created_asc&since=${encodeURIComponent(pivot)}`);
    const until = await mock.call('get', `/v1/accounts?sort=created_asc&until=${encodeURIComponent(pivot)}`);
    expect(since.body.data[0].createdAt).toBe(pivot);
    expect(since.body.data.length + until.body.data.length).toBe(all.length);
  });

  describe('when the cursor does not belong to the request', () => {
    it('answers 400 INVALID_CURSOR for a changed parameter', async () => {
      const first = await mock.call('get', '/v1/accounts?limit=2');
      const res = await mock.call('get', `/v1/accounts?limit=3&cursor=${encodeURIComponent(first.body.nextCursor)}`);
      expectApiError(res, 400, 'INVALID_CURSOR', 'cursor');
    });

    it('answers 400 INVALID_CURSOR for a garbled cursor', async () => {
      expectApiError(await mock.call('get', '/v1/accounts?cursor=bm90LWEtY3Vyc29y'), 400, 'INVALID_CURSOR', 'cursor');
    });

    it('answers 400 INVALID_CURSOR for a cursor of another list', async () => {
      const profiles = await mock.call('get', '/v1/profiles?limit=1');
      expect(profiles.body.nextCursor).not.toBeNull();
      const res = await mock.call('get', `/v1/accounts?limit=1&cursor=${encodeURIComponent(profiles.body.nextCursor)}`);
      expectApiError(res, 400, 'INVALID_CURSOR', 'cursor');
    });
  });

  describe('when since is not before until', () => {
    it('answers 400 INVALID_RANGE', async () => {
      const res = await mock.call('get', '/v1/accounts?since=2026-03-02T00:00:00Z&until=2026-03-01T00:00:00Z');
      expectApiError(res, 400, 'INVALID_RANGE');
    });
  });

  describe('when include names an unknown value', () => {
    it('answers 400 VALIDATION_ERROR naming the accepted values', async () => {
      const res = await mock.call('get', '/v1/accounts?include=facets');
      expectApiError(res, 400, 'VALIDATION_ERROR', 'include');
      expect(res.body.error.message).toContain('total');
    });
  });
});
