import type { Response } from 'supertest';
import { describe, expect, it } from 'vitest';
import { TEST_CLOCK, expectStatus, useMock } from '../helpers/mock.js';
import { accountOn, addRule } from '../helpers/scenarios.js';

/*
 * Each error the mock answers by itself, once for real and once injected by a scenario rule, in
 * two workspaces made alike (same seed, same clock, the same requests before): the two answers
 * must match field by field (status, body with its details, the headers a client reads), and
 * neither may emit a webhook. Only what must differ between two workspaces is masked: the
 * account's id (each workspace's world has its own). Decision 0049.
 */

const mock = useMock();

/** Headers a client reads off an error; Date and the framing are the transport's. */
const READ_HEADERS = ['retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'content-type'];

interface Twin {
  key: string;
  id: string;
}

async function twinWorkspace(plan: 'free' | 'payg' = 'payg'): Promise<Twin> {
  const res = await mock.control('post', '/__control/workspaces').send({ plan, seed: 36, pending: false, clock: { start: TEST_CLOCK, frozen: true } });
  expectStatus(res, 201);
  return { key: res.body.apiKey, id: res.body.workspaceId };
}

function eventCount(twin: Twin): number {
  const workspace = mock.server.registry.get(twin.id);
  if (!workspace) throw new Error(`no workspace ${twin.id}`);
  return workspace.events.recent().length;
}

/** The answer a client sees, with the workspace's own account id masked, and the events the request emitted. */
async function seen(twin: Twin, send: () => Promise<Response>, accountId?: string): Promise<{ status: number; body: unknown; headers: Record<string, string | undefined>; events: number }> {
  const before = eventCount(twin);
  const res = await send();
  const headers = Object.fromEntries(READ_HEADERS.map((name) => [name, res.headers[name] as string | undefined]));
  const body = accountId === undefined ? res.body : JSON.parse(JSON.stringify(res.body).replaceAll(accountId, '<account>'));
  return { status: res.status, body, headers, events: eventCount(twin) - before };
}

const advance = (twin: Twin, by: string) => mock.control('post', '/__control/clock/advance', twin.key).send({ by });

describe('an injected error is its real twin', () => {
  it('VELOCITY_LIMITED: details, Retry-After and message as the cap itself answers', async () => {
    const real = await twinWorkspace();
    const injected = await twinWorkspace();
    const accounts = new Map<Twin, { bluesky: string; threads: string }>();
    for (const twin of [real, injected]) accounts.set(twin, { bluesky: await accountOn(mock, twin.key, 'bluesky'), threads: await accountOn(mock, twin.key, 'threads') });
    const post = (twin: Twin, platform: 'bluesky' | 'threads', n: number) => mock.call('post', '/v1/posts', twin.key).send({ text: `Post ${n}`, destinations: [{ connectionId: accounts.get(twin)?.[platform] }] });

    // The real one: 25 posts go out within the hour, ten minutes apart at the start.
    for (let n = 0; n < 25; n++) {
      expectStatus(await post(real, 'bluesky', n), 201);
      // The injected one: the same requests, but the last goes to another account, so bluesky's hour is not full.
      expectStatus(await post(injected, n === 24 ? 'threads' : 'bluesky', n), 201);
      if (n < 3) for (const twin of [real, injected]) await advance(twin, 'PT10M');
    }
    for (const twin of [real, injected]) await advance(twin, 'PT5M');
    await addRule(mock, injected.key, { id: 'cap', match: { operationId: 'createPost' }, then: { error: { status: 429, code: 'VELOCITY_LIMITED' } }, times: 1 });

    const fromReal = await seen(real, () => post(real, 'bluesky', 25), accounts.get(real)?.bluesky);
    const fromRule = await seen(injected, () => post(injected, 'bluesky', 25), accounts.get(injected)?.bluesky);
    expect(fromReal.status).toBe(429);
    expect(fromReal.body).toMatchObject({ error: { code: 'VELOCITY_LIMITED', param: 'destinations[0].connectionId', details: { accountId: '<account>', platform: 'bluesky', window: 'hour', limit: 25 } } });
    // The oldest of the hour went out 35 minutes ago: its place frees in 25 minutes (less its 5 s on the way out).
    expect(Number(fromReal.headers['retry-after'])).toBeGreaterThan(20 * 60);
    expect(fromRule).toEqual(fromReal);
  });

  it('VELOCITY_LIMITED on a quote: the account that published the quoted destination', async () => {
    const real = await twinWorkspace();
    const injected = await twinWorkspace();
    const facts = new Map<Twin, { account: string; destination: string }>();
    for (const twin of [real, injected]) {
      const state = (await mock.control('get', '/__control/state', twin.key)).body.workspace.stores;
      const posts = Object.values(state.posts.posts as Record<string, { destinations: Array<{ id: string; platform: string; status: string; connectionId: string }> }>);
      const destination = posts.flatMap((post) => post.destinations).find((d) => d.platform === 'twitter' && d.status === 'published');
      if (!destination) throw new Error('no published twitter destination');
      facts.set(twin, { account: destination.connectionId, destination: destination.id });
    }
    // The real one's hour holds exactly 25 publishes (the fixture world's and the pre-loaded), the injected one's 24.
    for (const [twin, full] of [[real, 25], [injected, 24]] as const) {
      const { account } = facts.get(twin) as { account: string };
      const limits = (await mock.control('get', '/__control/limits', twin.key)).body as { velocity: Array<{ accountId: string; hour: { count: number } }> };
      const already = limits.velocity.find((entry) => entry.accountId === account)?.hour.count ?? 0;
      expectStatus(await mock.control('post', '/__control/limits', twin.key).send({ velocity: [{ accountId: account, published: full - already }] }), 200);
      await advance(twin, 'PT10M');
    }
    await addRule(mock, injected.key, { match: { operationId: 'quotePost' }, then: { error: { status: 429, code: 'VELOCITY_LIMITED' } }, times: 1 });
    const quote = (twin: Twin) => mock.call('post', '/v1/quotes', twin.key).send({ destinationId: facts.get(twin)?.destination, text: 'Worth a read.' });

    const fromReal = await seen(real, () => quote(real), facts.get(real)?.account);
    const fromRule = await seen(injected, () => quote(injected), facts.get(injected)?.account);
    expect(fromReal).toMatchObject({ status: 429, body: { error: { code: 'VELOCITY_LIMITED', details: { accountId: '<account>', platform: 'twitter', window: 'hour', limit: 25 } } } });
    expect(fromRule).toEqual(fromReal);
  });

  it('RATE_LIMITED: the flat envelope, Retry-After and X-RateLimit-* as the spent budget answers, and the request does not count', async () => {
    const real = await twinWorkspace('free');
    const injected = await twinWorkspace('free');
    const list = (twin: Twin) => mock.call('get', '/v1/accounts', twin.key);
    // The free plan's 60 a minute: the real one spends them, the injected one one fewer; 20 s apart, so Retry-After is 40.
    expectStatus(await list(real), 200);
    expectStatus(await list(injected), 200);
    for (const twin of [real, injected]) await advance(twin, 'PT20S');
    for (let n = 1; n < 60; n++) expectStatus(await list(real), 200);
    for (let n = 1; n < 59; n++) expectStatus(await list(injected), 200);
    await addRule(mock, injected.key, { id: 'spent', match: { operationId: 'listAccounts' }, then: { error: { status: 429, code: 'RATE_LIMITED' } }, times: 1 });

    const fromReal = await seen(real, () => list(real));
    const fromRule = await seen(injected, () => list(injected));
    expect(fromReal).toMatchObject({ status: 429, body: { code: 'RATE_LIMITED', details: { currentCount: 60, limit: 60, retryAfterSeconds: 40 } }, headers: { 'retry-after': '40', 'x-ratelimit-remaining': '0' } });
    expect(fromRule).toEqual(fromReal);
    // A real 429 takes no place in the window, and neither does its twin: the injected workspace still has its 60th request.
    expectStatus(await list(injected), 200);
    expect((await list(injected)).status).toBe(429);
  });

  describe('ACCOUNT_RECONNECT_REQUIRED, as each kind of operation answers it for an expired account', () => {
    const cases: Array<{ name: string; operationId: string; send: (twin: Twin, account: string) => Promise<Response> }> = [
      { name: 'a post', operationId: 'createPost', send: (twin, account) => mock.call('post', '/v1/posts', twin.key).send({ text: 'Hello', destinations: [{ connectionId: account }] }) },
      { name: 'a sync', operationId: 'syncAccount', send: (twin, account) => mock.call('post', `/v1/accounts/${account}/sync`, twin.key).send({}) },
      { name: 'a network read', operationId: 'getAccountAnalytics', send: (twin, account) => mock.call('get', `/v1/accounts/${account}/analytics`, twin.key) },
      { name: 'a message', operationId: 'createConversation', send: (twin, account) => mock.call('post', `/v1/accounts/${account}/conversations`, twin.key).send({ recipientId: '6218435790123456' }) },
    ];
    it.each(cases)('$name ($operationId)', async ({ operationId, send }) => {
      const real = await twinWorkspace();
      const injected = await twinWorkspace();
      const realAccount = await accountOn(mock, real.key, 'bluesky');
      const injectedAccount = await accountOn(mock, injected.key, 'bluesky');
      expectStatus(await mock.control('post', `/__control/accounts/${realAccount}/status`, real.key).send({ status: 'expired' }), 200);
      await addRule(mock, injected.key, { id: 'reconnect', match: { operationId }, then: { error: { status: 400, code: 'ACCOUNT_RECONNECT_REQUIRED' } }, times: 1 });

      const fromReal = await seen(real, () => send(real, realAccount), realAccount);
      const fromRule = await seen(injected, () => send(injected, injectedAccount), injectedAccount);
      expect(fromReal).toMatchObject({ status: 400, body: { error: { code: 'ACCOUNT_RECONNECT_REQUIRED', details: { accountId: '<account>', status: 'expired' } } } });
      expect(fromRule).toEqual(fromReal);
    });
  });

  it('keeps what the rule says over what is filled: its message, details and headers', async () => {
    const twin = await twinWorkspace();
    const bluesky = await accountOn(mock, twin.key, 'bluesky');
    await addRule(mock, twin.key, { match: { operationId: 'createPost' }, then: { error: { status: 429, code: 'VELOCITY_LIMITED', message: 'Slow down.', details: { window: 'day', retryAfterSeconds: 90 } } }, times: 1 });
    const res = await mock.call('post', '/v1/posts', twin.key).send({ text: 'Hi', destinations: [{ connectionId: bluesky }] });
    expect(res.status).toBe(429);
    expect(res.body.error).toEqual({ code: 'VELOCITY_LIMITED', message: 'Slow down.', param: 'destinations[0].connectionId', details: { accountId: bluesky, platform: 'bluesky', window: 'day', limit: 50, retryAfterSeconds: 90 } });
    expect(res.headers['retry-after']).toBe('90');
  });
});
