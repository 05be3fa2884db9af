import { describe, expect, it } from 'vitest';
import { expectApiError, expectStatus, startMock, type TestMock, useMock } from '../helpers/mock.js';

/** A free workspace (60 requests a minute, 6 a second for analytics) on its own frozen clock. */
async function freeWorkspace(mock: TestMock, start = '2026-03-02T09:00:20.000Z') {
  const res = await mock.control('post', '/__control/workspaces').send({ plan: 'free', fixtures: false, clock: { start, frozen: true } });
  expectStatus(res, 201);
  return res.body.apiKey as string;
}

const mock = useMock();

const advance = (key: string, ms: number) => mock.control('post', '/__control/clock/advance', key).send({ ms });

describe('the per-minute request budget', () => {
  it('refuses the 61st request of a free workspace in a minute, with every field and header', async () => {
    const key = await freeWorkspace(mock);
    const startSeconds = Date.parse('2026-03-02T09:00:20.000Z') / 1000;
    const first = await mock.call('get', '/v1/connections', key);
    expect(first.headers).toMatchObject({ 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '59', 'x-ratelimit-reset': String(startSeconds + 60) });
    await advance(key, 30_000);
    for (let i = 2; i <= 60; i++) {
      const res = await mock.call('get', '/v1/connections', key);
      expectStatus(res, 200);
      expect(res.headers['x-ratelimit-remaining']).toBe(String(60 - i));
    }
    const refused = await mock.call('get', '/v1/connections', key);
    expect(refused.status).toBe(429);
    // The flat envelope of the reference's rate-limit page.
    expect(refused.body).toEqual({ error: expect.stringContaining('60'), code: 'RATE_LIMITED', details: { currentCount: 60, limit: 60, retryAfterSeconds: 30 } });
    expect(refused.headers).toMatchObject({ 'retry-after': '30', 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(startSeconds + 60) });
  });

  it('lets the 62nd through once the oldest request ages out, not at a minute boundary', async () => {
    const key = await freeWorkspace(mock);
    await mock.call('get', '/v1/connections', key);
    await advance(key, 30_000);
    for (let i = 2; i <= 60; i++) await mock.call('get', '/v1/connections', key);
    // 09:01:00 is a minute boundary, but the window slides: at 09:01:19.999 the first request is still inside it.
    await advance(key, 29_999);
    expect((await mock.call('get', '/v1/connections', key)).status).toBe(429);
    await advance(key, 1);
    const res = await mock.call('get', '/v1/connections', key);
    expectStatus(res, 200);
    expect(res.headers['x-ratelimit-remaining']).toBe('0');
    // The next ones age out at 09:01:50, thirty seconds after they arrived.
    const again = await mock.call('get', '/v1/connections', key);
    expect(again.body.details.retryAfterSeconds).toBe(30);
  });

  it('does not count a refused request: backing off for Retry-After always gets through', async () => {
    const key = await freeWorkspace(mock);
    await mock.control('post', '/__control/limits', key).send({ drain: ['requests'] });
    for (let i = 0; i < 5; i++) expect((await mock.call('get', '/v1/connections', key)).status).toBe(429);
    const limits = await mock.control('get', '/__control/limits', key);
    expect(limits.body.budgets.requests).toMatchObject({ count: 60, remaining: 0 });
    await advance(key, 60_000);
    expectStatus(await mock.call('get', '/v1/connections', key), 200);
  });

  it('is shared by every key of the workspace', async () => {
    const key = await freeWorkspace(mock);
    const minted = await mock.control('post', '/__control/keys', key);
    expectStatus(minted, 201);
    const second = minted.body.apiKey as string;
    for (let i = 0; i < 30; i++) await mock.call('get', '/v1/connections', key);
    for (let i = 0; i < 30; i++) await mock.call('get', '/v1/connections', second);
    expect((await mock.call('get', '/v1/connections', key)).status).toBe(429);
    expect((await mock.call('get', '/v1/connections', second)).status).toBe(429);
  });

  it('counts 400 and 404 answers too, and puts the headers on them', async () => {
    const key = await freeWorkspace(mock);
    const bad = await mock.call('get', '/v1/accounts?limit=0', key);
    expectApiError(bad, 400, 'VALIDATION_ERROR', 'limit');
    expect(bad.headers['x-ratelimit-remaining']).toBe('59');
    const missing = await mock.call('get', '/v1/accounts/00000000-0000-4000-8000-000000000000', key);
    expectApiError(missing, 404, 'NOT_FOUND');
    expect(missing.headers['x-ratelimit-remaining']).toBe('58');
    const noRoute = await mock.call('get', '/v1/nowhere', key);
    expectApiError(noRoute, 404, 'NOT_FOUND');
    expect(noRoute.headers['x-ratelimit-remaining']).toBe('57');
  });

  it('puts the headers on a 401, counted per client address', async () => {
    const res = await mock.call('get', '/v1/connections', null);
    expectApiError(res, 401, 'UNAUTHORIZED');
    expect(res.headers['x-ratelimit-limit']).toBe('60');
    expect(Number(res.headers['x-ratelimit-remaining'])).toBeLessThan(60);
    expect(Number(res.headers['x-ratelimit-reset'])).toBeGreaterThan(0);
  });
});

describe('the per-second analytics budget', () => {
  it('is max(6, rpm/60) and independent of the per-minute budget', async () => {
    const key = await freeWorkspace(mock);
    await mock.call('get', '/v1/connections', key);
    for (let i = 0; i < 6; i++) {
      const res = await mock.call('get', '/v1/analytics', key);
      expect(res.headers['x-ratelimit-limit']).toBe('6');
      expect(res.headers['x-ratelimit-remaining']).toBe(String(5 - i));
    }
    const refused = await mock.call('get', '/v1/analytics/timeline', key);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'RATE_LIMITED', details: { limit: 6, currentCount: 6, retryAfterSeconds: 1 } });
    // The minute window saw only the one /v1/connections call.
    const minute = await mock.call('get', '/v1/connections', key);
    expect(minute.headers['x-ratelimit-remaining']).toBe('58');
    await advance(key, 1000);
    expect((await mock.call('get', '/v1/analytics', key)).status).not.toBe(429);
  });

  it('grows with the plan: payg allows 10 a second', async () => {
    const key = await freeWorkspace(mock);
    const switched = await mock.control('post', '/__control/limits', key).send({ plan: 'payg' });
    expect(switched.body).toMatchObject({ plan: 'payg', budgets: { requests: { limit: 600 }, analytics: { limit: 10, windowSeconds: 1 } } });
    const res = await mock.call('get', '/v1/analytics', key);
    expect(res.headers['x-ratelimit-limit']).toBe('10');
  });
});

describe('/__control/limits', () => {
  it('drains and refills a budget in one call', async () => {
    const key = await freeWorkspace(mock);
    const drained = await mock.control('post', '/__control/limits', key).send({ drain: ['requests', 'analytics'] });
    expect(drained.body.budgets).toMatchObject({ requests: { count: 60, remaining: 0 }, analytics: { count: 6, remaining: 0 } });
    expect((await mock.call('get', '/v1/connections', key)).status).toBe(429);
    await mock.control('post', '/__control/limits', key).send({ refill: ['requests'] });
    expectStatus(await mock.call('get', '/v1/connections', key), 200);
  });

  it('refuses an unknown budget name', async () => {
    expectApiError(await mock.control('post', '/__control/limits').send({ drain: ['everything'] }), 400, 'VALIDATION_ERROR', 'drain[0]');
  });
});

describe('with the rate limit off', () => {
  it('counts and tells but never refuses', async () => {
    const loose = await startMock({ rateLimit: false, plan: 'free' });
    for (let i = 0; i < 65; i++) expectStatus(await loose.call('get', '/v1/connections'), 200);
    const res = await loose.call('get', '/v1/connections');
    expect(res.headers['x-ratelimit-remaining']).toBe('0');
    await loose.close();
  });
});

describe('velocity in /__control/limits', () => {
  it('shows each account’s windows and pre-loads one in a single call', async () => {
    const { body: created } = await mock.control('post', '/__control/workspaces').send({ clock: { start: '2026-03-02T10:00:00Z', frozen: true } });
    const key = created.apiKey as string;
    const accounts = (await mock.call('get', '/v1/connections', key)).body.connections as Array<{ id: string; platform: string }>;
    const pinterest = accounts.find((a) => a.platform === 'pinterest');
    const res = await mock.control('post', '/__control/limits', key).send({ velocity: [{ accountId: pinterest?.id, published: 20 }] });
    expectStatus(res, 200);
    const entry = res.body.velocity.find((v: { accountId: string }) => v.accountId === pinterest?.id);
    expect(entry).toMatchObject({ platform: 'pinterest', hour: { limit: 25, resetAt: '2026-03-02T11:00:00.000Z' }, day: { limit: 25, resetAt: '2026-03-03T00:00:00.000Z' }, inFlight: 0 });
    expect(entry.hour.count).toBeGreaterThanOrEqual(20);
    expect(res.body.velocity).toHaveLength(accounts.length);
  });

  it('refuses to pre-load an unknown account and changes nothing', async () => {
    const before = await mock.control('get', '/__control/limits');
    const res = await mock.control('post', '/__control/limits').send({ plan: 'free', velocity: [{ accountId: 'nobody', published: 3 }] });
    expectApiError(res, 404, 'NOT_FOUND');
    expect((await mock.control('get', '/__control/limits')).body).toEqual(before.body);
  });
});
