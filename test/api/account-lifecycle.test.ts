import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionOf, eventsOf, newWorkspace, paramsOf, pathOf, signInForm, startRedirectReceiver, type RedirectReceiver, type TestWorkspace } from '../helpers/accounts.js';
import { expectApiError, expectStatus, TEST_CLOCK, useMock } from '../helpers/mock.js';

const mock = useMock({}, { listen: true });
let receiver: RedirectReceiver;
beforeAll(async () => {
  receiver = await startRedirectReceiver();
});
afterAll(() => receiver.close());

const at = (ms: number) => new Date(Date.parse(TEST_CLOCK) + ms).toISOString();
const HOUR = 3_600_000;

async function account(ws: TestWorkspace, id: string) {
  const res = await mock.call('get', `/v1/accounts/${id}`, ws.apiKey);
  expectStatus(res, 200);
  return res.body as { id: string; status: string; authHealth: string; tokenExpiresAt: string | null; canAutoRenew: boolean; profile: string | null; updatedAt: string };
}

describe('the token lifecycle on the virtual clock', () => {
  let ws: TestWorkspace;
  beforeAll(async () => {
    ws = await newWorkspace(mock);
  });

  it('expires an account whose token runs out and cannot renew, sending account.expired', async () => {
    // The fixture's text-thread account: active, cannot renew, token runs out in 40 hours.
    const threads = await connectionOf(mock, ws.apiKey, 'threads');
    expect(threads).toMatchObject({ status: 'active', canAutoRenew: false, tokenExpiresAt: at(40 * HOUR) });

    await mock.control('post', '/__control/clock/advance', ws.apiKey).send({ by: 'PT39H59M' });
    expect((await account(ws, threads.id)).status).toBe('active');
    expect(eventsOf(mock, ws.id, 'account.expired')).toHaveLength(0);

    const move = await mock.control('post', '/__control/clock/advance', ws.apiKey).send({ by: 'PT1M' });
    expect(move.body.ran).toContainEqual(expect.objectContaining({ kind: 'account.token-expiry', dueAt: at(40 * HOUR), ok: true }));
    const after = await account(ws, threads.id);
    expect(after).toMatchObject({ status: 'expired', authHealth: 'action_required', tokenExpiresAt: at(40 * HOUR), updatedAt: at(40 * HOUR) });
    const expired = eventsOf(mock, ws.id, 'account.expired');
    expect(expired).toHaveLength(1);
    expect(expired[0]).toMatchObject({ createdAt: at(40 * HOUR), data: { account: { id: threads.id, status: 'expired', authHealth: 'action_required' } } });
  });

  it('renews a token that can renew itself, moving tokenExpiresAt on each time', async () => {
    const other = await newWorkspace(mock);
    // The fixture's microblog account renews: its token runs out in 1.5 hours, then lives 2 hours.
    const twitter = await connectionOf(mock, other.apiKey, 'twitter');
    expect(twitter).toMatchObject({ canAutoRenew: true, tokenExpiresAt: at(1.5 * HOUR) });
    await mock.control('post', '/__control/clock/advance', other.apiKey).send({ by: 'PT2H' });
    expect(await account(other, twitter.id)).toMatchObject({ status: 'active', authHealth: 'healthy', tokenExpiresAt: at(3.5 * HOUR), updatedAt: at(1.5 * HOUR) });
    await mock.control('post', '/__control/clock/advance', other.apiKey).send({ by: 'P1D' });
    expect((await account(other, twitter.id)).tokenExpiresAt).toBe(at(27.5 * HOUR));
    expect(eventsOf(mock, other.id, 'account.expired').map((event) => (event.data.account as { id: string }).id)).not.toContain(twitter.id);
  });
});

describe('POST /__control/accounts/{id}/status', () => {
  let ws: TestWorkspace;
  beforeAll(async () => {
    ws = await newWorkspace(mock);
  });

  it('revokes without an event, expires with account.expired, reactivates with account.reconnected', async () => {
    const tiktok = await connectionOf(mock, ws.apiKey, 'tiktok');
    const revoked = await mock.control('post', `/__control/accounts/${tiktok.id}/status`, ws.apiKey).send({ status: 'revoked' });
    expectStatus(revoked, 200);
    expect(revoked.body).toMatchObject({ id: tiktok.id, status: 'revoked', authHealth: 'action_required' });
    expect(eventsOf(mock, ws.id)).toHaveLength(0);

    const expired = await mock.control('post', `/__control/accounts/${tiktok.id}/status`, ws.apiKey).send({ status: 'expired' });
    expect(expired.body).toMatchObject({ status: 'expired', tokenExpiresAt: TEST_CLOCK });
    expect(eventsOf(mock, ws.id).map((event) => event.event)).toEqual(['account.expired']);

    const active = await mock.control('post', `/__control/accounts/${tiktok.id}/status`, ws.apiKey).send({ status: 'active' });
    expect(active.body).toMatchObject({ status: 'active', authHealth: 'healthy', tokenExpiresAt: at(24 * HOUR) });
    expect(eventsOf(mock, ws.id).map((event) => event.event)).toEqual(['account.expired', 'account.reconnected']);

    const error = await mock.control('post', `/__control/accounts/${tiktok.id}/status`, ws.apiKey).send({ status: 'error', authHealth: 'healthy' });
    expect(error.body).toMatchObject({ status: 'error', authHealth: 'healthy' });
  });

  it('schedules the expiry the change sets', async () => {
    const pinterest = await connectionOf(mock, ws.apiKey, 'pinterest');
    await mock.control('post', `/__control/accounts/${pinterest.id}/status`, ws.apiKey).send({ status: 'active', canAutoRenew: false, tokenExpiresAt: at(10 * 60_000) });
    await mock.control('post', '/__control/clock/advance', ws.apiKey).send({ by: 'PT10M' });
    expect(await account(ws, pinterest.id)).toMatchObject({ status: 'expired', authHealth: 'action_required' });
  });

  it.each([
    ['an unknown status', { status: 'sleeping' }, 'status'],
    ['an active account with a token already run out', { status: 'active', tokenExpiresAt: '2020-01-01T00:00:00Z' }, 'tokenExpiresAt'],
  ])('answers 400 VALIDATION_ERROR for %s', async (_case, body, param) => {
    const reddit = await connectionOf(mock, ws.apiKey, 'reddit');
    expectApiError(await mock.control('post', `/__control/accounts/${reddit.id}/status`, ws.apiKey).send(body), 400, 'VALIDATION_ERROR', param);
  });

  it('answers 404 for an account of another workspace', async () => {
    const mine = await connectionOf(mock, ws.apiKey, 'reddit');
    expectApiError(await mock.control('post', `/__control/accounts/${mine.id}/status`).send({ status: 'revoked' }), 404, 'NOT_FOUND');
  });
});

describe('DELETE /v1/accounts/{id}', () => {
  it('disconnects: account.disconnected carries the record, then the account is 404 everywhere', async () => {
    const ws = await newWorkspace(mock);
    const youtube = await connectionOf(mock, ws.apiKey, 'youtube');
    const jobsBefore = (await mock.control('get', '/__control/clock', ws.apiKey)).body.pendingJobs as number;
    const res = await mock.call('delete', `/v1/accounts/${youtube.id}`, ws.apiKey);
    expectStatus(res, 200);
    expect(res.text).toBe('');
    expect(eventsOf(mock, ws.id, 'account.disconnected').map((event) => event.data)).toEqual([
      { id: youtube.id, platform: 'youtube', displayName: expect.any(String), handle: youtube.handle, profile: youtube.profileName, disconnectedAt: TEST_CLOCK },
    ]);
    expect((await mock.control('get', '/__control/clock', ws.apiKey)).body.pendingJobs).toBe(jobsBefore - 1);

    expectApiError(await mock.call('get', `/v1/accounts/${youtube.id}`, ws.apiKey), 404, 'NOT_FOUND');
    expectApiError(await mock.call('delete', `/v1/accounts/${youtube.id}`, ws.apiKey), 404, 'NOT_FOUND');
    expectApiError(await mock.call('get', `/v1/connections/${youtube.id}/stats`, ws.apiKey), 404, 'NOT_FOUND');
    expectApiError(await mock.call('post', `/v1/accounts/${youtube.id}/reconnect`, ws.apiKey).send({ redirectUrl: receiver.url }), 404, 'NOT_FOUND');
    const connections = (await mock.call('get', '/v1/connections', ws.apiKey)).body.connections as Array<{ id: string }>;
    expect(connections.map((c) => c.id)).not.toContain(youtube.id);
  });

  it('makes a reconnect sign-in of the account return with error=ACCOUNT_DISCONNECTED', async () => {
    const ws = await newWorkspace(mock);
    const reddit = await connectionOf(mock, ws.apiKey, 'reddit');
    const { body } = await mock.call('post', `/v1/accounts/${reddit.id}/reconnect`, ws.apiKey).send({ redirectUrl: receiver.url });
    await mock.call('delete', `/v1/accounts/${reddit.id}`, ws.apiKey);
    const res = await mock.call('get', `${pathOf(body.url)}&auto=approve`, null);
    expect(res.status).toBe(303);
    expect(paramsOf(res.headers.location)).toMatchObject({ error: 'ACCOUNT_DISCONNECTED', accountId: reddit.id });
  });

  it('leaves a deleted profile’s connections connected with profile null', async () => {
    const ws = await newWorkspace(mock);
    const connect = await mock.call('post', '/v1/connections/bluesky/connect', ws.apiKey).send({ identifier: 'temp-team.bsky.social', appPassword: 'abcd-efgh-ijkl-mnop', profileName: 'Temp team' });
    expectStatus(connect, 200);
    const profile = ((await mock.call('get', '/v1/profiles?limit=100', ws.apiKey)).body.data as Array<{ id: string; name: string }>).find((p) => p.name === 'Temp team');
    expectStatus(await mock.call('delete', `/v1/profiles/${profile?.id}`, ws.apiKey), 200);
    const after = await account(ws, connect.body.connection.id);
    expect(after).toMatchObject({ status: 'active', profile: null });
  });
});

describe('POST /v1/accounts/{id}/reconnect', () => {
  describe('on an OAuth network', () => {
    it('goes round the sign-in page as a browser would and brings the same account back active, unbilled', async () => {
      const ws = await newWorkspace(mock);
      // The fixture's professional account ran out three days ago and cannot renew.
      const linkedin = await connectionOf(mock, ws.apiKey, 'linkedin');
      expect(linkedin).toMatchObject({ status: 'expired', authHealth: 'action_required' });
      const walletBefore = (await mock.control('get', '/__control/wallet', ws.apiKey)).body;

      const first = await mock.call('post', `/v1/accounts/${linkedin.id}/reconnect`, ws.apiKey).set('Idempotency-Key', 'rc-1').send({ redirectUrl: receiver.url });
      expectStatus(first, 200);
      expect(first.body).toEqual({ type: 'oauth', url: expect.stringMatching(/\/__oauth\/authorize\?session=os_/), expiresAt: at(15 * 60_000) });
      const replay = await mock.call('post', `/v1/accounts/${linkedin.id}/reconnect`, ws.apiKey).set('Idempotency-Key', 'rc-1').send({ redirectUrl: receiver.url });
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body).toEqual(first.body);

      // A real browser's path: open the page on the mock's real port, submit its form, follow the 303.
      const signInUrl = `${mock.url}${pathOf(first.body.url)}`;
      const page = await fetch(signInUrl);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain('reconnect');
      const action = /<form method="post" action="([^"]+)">/.exec(html)?.[1];
      const { session, token } = signInForm(html);
      expect(action).toBe('/__oauth/decide');
      const landed = await fetch(new URL(action ?? '', signInUrl), {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ session, token, decision: 'approve' }),
      });
      expect(landed.status).toBe(200);
      expect(landed.redirected).toBe(true);
      const params = paramsOf(landed.url);
      expect(landed.url.startsWith(receiver.url.split('?')[0] ?? '')).toBe(true);
      expect(params).toEqual({ state: 'xyz', platform: 'linkedin', accountId: linkedin.id, connectSession: session });
      expect(receiver.hits).toContain(landed.url);

      const after = await account(ws, linkedin.id);
      expect(after).toMatchObject({ id: linkedin.id, status: 'active', authHealth: 'healthy', tokenExpiresAt: at(60 * 24 * HOUR), profile: linkedin.profileName });
      expect(eventsOf(mock, ws.id, 'account.reconnected').map((event) => (event.data.account as { id: string }).id)).toEqual([linkedin.id]);
      expect((await mock.control('get', '/__control/wallet', ws.apiKey)).body).toEqual(walletBefore);
      const candidates = await mock.call('get', `/v1/connect-sessions/${params.connectSession}/candidates`, ws.apiKey);
      expect(candidates.body.data).toHaveLength(1);
    });

    it('returns with error=SESSION_EXPIRED when the owner signs in after expiresAt, and the account stays expired', async () => {
      const ws = await newWorkspace(mock);
      const linkedin = await connectionOf(mock, ws.apiKey, 'linkedin');
      const { body } = await mock.call('post', `/v1/accounts/${linkedin.id}/reconnect`, ws.apiKey).send({ redirectUrl: receiver.url });
      await mock.control('post', '/__control/clock/advance', ws.apiKey).send({ by: 'PT16M' });

      const signInUrl = `${mock.url}${pathOf(body.url)}`;
      const html = await (await fetch(signInUrl)).text();
      const landed = await fetch(`${mock.url}/__oauth/decide`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ ...signInForm(html), decision: 'approve' }),
      });
      expect(landed.redirected).toBe(true);
      expect(paramsOf(landed.url)).toEqual({ state: 'xyz', platform: 'linkedin', accountId: linkedin.id, error: 'SESSION_EXPIRED' });
      expect(await account(ws, linkedin.id)).toMatchObject({ status: 'expired', authHealth: 'action_required' });
      expect(eventsOf(mock, ws.id, 'account.reconnected')).toHaveLength(0);
    });

    it.each([
      ['no redirectUrl', {}, 'redirectUrl'],
      ['app-password fields', { redirectUrl: 'https://app.example/cb', appPassword: 'abcd-efgh-ijkl-mnop' }, 'appPassword'],
    ])('answers 400 VALIDATION_ERROR for %s', async (_case, body, param) => {
      const instagram = await connectionOf(mock, 'sgw_test_default', 'instagram');
      expectApiError(await mock.call('post', `/v1/accounts/${instagram.id}/reconnect`).send(body), 400, 'VALIDATION_ERROR', param);
    });
  });

  describe('on the decentralized network', () => {
    let ws: TestWorkspace;
    beforeAll(async () => {
      ws = await newWorkspace(mock);
    });

    it('reconnects at once with a new app password and answers { type: account, ...account }', async () => {
      const bluesky = await connectionOf(mock, ws.apiKey, 'bluesky');
      await mock.control('post', `/__control/accounts/${bluesky.id}/status`, ws.apiKey).send({ status: 'error' });
      const res = await mock.call('post', `/v1/accounts/${bluesky.id}/reconnect`, ws.apiKey).send({ appPassword: 'abcd-efgh-ijkl-mnop', redirectUrl: 'https://ignored.example/cb' });
      expectStatus(res, 200);
      expect(res.body).toMatchObject({ type: 'account', id: bluesky.id, platform: 'bluesky', status: 'active', authHealth: 'healthy', profile: bluesky.profileName });
    });

    it.each([
      ['no app password', {}, 'appPassword'],
      ['another account’s identifier', { identifier: 'someone-else.bsky.social', appPassword: 'abcd-efgh-ijkl-mnop' }, 'identifier'],
      ['a refused app password', { appPassword: 'fail-fail-fail-fail' }, 'appPassword'],
    ])('answers 400 VALIDATION_ERROR for %s', async (_case, body, param) => {
      const bluesky = await connectionOf(mock, ws.apiKey, 'bluesky');
      expectApiError(await mock.call('post', `/v1/accounts/${bluesky.id}/reconnect`, ws.apiKey).send(body), 400, 'VALIDATION_ERROR', param);
    });
  });
});
