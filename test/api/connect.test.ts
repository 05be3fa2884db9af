import { beforeAll, describe, expect, it } from 'vitest';
import { addOutage } from '../../src/platforms/outages.js';
import { connectionOf, eventsOf, newWorkspace, paramsOf, pathOf, signInForm, type TestWorkspace } from '../helpers/accounts.js';
import { expectApiError, expectStatus, TEST_CLOCK, useMock } from '../helpers/mock.js';

// The sign-in URL is built from the Host the request came to: one the server was told to answer.
const mock = useMock({ allowedHosts: ['mock.test'] });

const REDIRECT = 'https://app.example-client.com/integrations/callback?state=abc';

async function wallet(ws: TestWorkspace) {
  const res = await mock.control('get', '/__control/wallet', ws.apiKey);
  expectStatus(res, 200);
  return res.body as { balanceCents: number; accountsBilled: number; connectedAccounts: number; pricePerAccountCents: number };
}

async function connectionCount(ws: TestWorkspace): Promise<number> {
  return (await mock.call('get', '/v1/connections', ws.apiKey)).body.connections.length as number;
}

/** Starts an OAuth connect and answers its sign-in URL. */
async function startConnect(ws: TestWorkspace, platform: string, body: Record<string, unknown> = {}): Promise<{ url: string; expiresAt: string }> {
  const res = await mock.call('post', `/v1/connections/${platform}/connect`, ws.apiKey).send({ redirectUrl: REDIRECT, ...body });
  expectStatus(res, 200);
  return res.body as { url: string; expiresAt: string };
}

/** Opens the sign-in page and posts its form with a decision, as a click on its button does. */
async function decideOnPage(url: string, decision: string) {
  const page = await mock.call('get', pathOf(url), null);
  expect(page.status, page.text).toBe(200);
  return mock.call('post', '/__oauth/decide', null).type('form').send({ ...signInForm(page.text), decision });
}

/** Decides on the sign-in page with auto=…, answering the redirect's query parameters. */
async function signIn(url: string, decision: 'approve' | 'deny' = 'approve'): Promise<Record<string, string>> {
  const res = await mock.call('get', `${pathOf(url)}&auto=${decision}`, null);
  expect(res.status, res.text).toBe(303);
  expect(res.headers.location?.startsWith('https://app.example-client.com/integrations/callback?')).toBe(true);
  return paramsOf(res.headers.location);
}

describe('POST /v1/connections/{platform}/connect', () => {
  describe('on the decentralized network (bluesky)', () => {
    let ws: TestWorkspace;
    beforeAll(async () => {
      ws = await newWorkspace(mock);
    });

    it('connects with an identifier and an app password, filed under a new profile, billed once', async () => {
      const before = await wallet(ws);
      const res = await mock.call('post', '/v1/connections/bluesky/connect', ws.apiKey).send({
        identifier: 'Studio-North.bsky.social',
        appPassword: 'abcd-efgh-ijkl-mnop',
        profileName: 'Studio North',
        metadata: { tenantId: 't_1' },
      });
      expectStatus(res, 200);
      expect(res.body.connection).toMatchObject({
        platform: 'bluesky',
        handle: 'studio-north.bsky.social',
        displayName: 'Studio North',
        status: 'active',
        authHealth: 'healthy',
        tokenExpiresAt: null,
        canAutoRenew: true,
        profileName: 'Studio North',
        createdAt: TEST_CLOCK,
      });
      const account = await mock.call('get', `/v1/accounts/${res.body.connection.id}`, ws.apiKey);
      expect(account.body).toMatchObject({ profile: 'Studio North', metadata: { tenantId: 't_1' } });
      const profiles = (await mock.call('get', '/v1/profiles?limit=100', ws.apiKey)).body.data as Array<{ name: string; connectionCount: number }>;
      expect(profiles.find((p) => p.name === 'Studio North')?.connectionCount).toBe(1);
      const after = await wallet(ws);
      expect(after.balanceCents).toBe(before.balanceCents - 500);
      expect(after.accountsBilled).toBe(before.accountsBilled + 1);
      const connected = eventsOf(mock, ws.id, 'account.connected');
      expect(connected.at(-1)?.data).toMatchObject({ account: { id: res.body.connection.id, platform: 'bluesky' } });
    });

    it('files the account under the workspace default profile without profileName', async () => {
      const res = await mock.call('post', '/v1/connections/bluesky/connect', ws.apiKey).send({ identifier: 'maya@example.org', appPassword: 'abcd-efgh-ijkl-mnop' });
      expectStatus(res, 200);
      expect(res.body.connection).toMatchObject({ handle: 'maya.bsky.social', profileName: 'Default' });
    });

    describe('when the account is already connected', () => {
      it('answers 409 CONFLICT naming identifier and the account', async () => {
        const existing = await connectionOf(mock, ws.apiKey, 'bluesky');
        const res = await mock.call('post', '/v1/connections/bluesky/connect', ws.apiKey).send({ identifier: `@${existing.handle}`, appPassword: 'abcd-efgh-ijkl-mnop' });
        expectApiError(res, 409, 'CONFLICT', 'identifier');
        expect(res.body.error.details.accountId).toBe(existing.id);
      });
    });

    describe('when the network refuses the app password (fail-fail-fail-fail)', () => {
      it('answers 400 VALIDATION_ERROR naming appPassword and changes nothing', async () => {
        const [count, before] = [await connectionCount(ws), await wallet(ws)];
        const res = await mock.call('post', '/v1/connections/bluesky/connect', ws.apiKey).send({ identifier: 'nobody.bsky.social', appPassword: 'fail-fail-fail-fail', profileName: 'Never made' });
        expectApiError(res, 400, 'VALIDATION_ERROR', 'appPassword');
        expect(await connectionCount(ws)).toBe(count);
        expect((await wallet(ws)).balanceCents).toBe(before.balanceCents);
        const profiles = (await mock.call('get', '/v1/profiles?limit=100', ws.apiKey)).body.data as Array<{ name: string }>;
        expect(profiles.map((p) => p.name)).not.toContain('Never made');
      });
    });

    it.each([
      ['an app password not of the form xxxx-xxxx-xxxx-xxxx', { identifier: 'a.bsky.social', appPassword: 'hunter2' }, 'appPassword'],
      ['an identifier that is no handle, email or DID', { identifier: 'not a handle', appPassword: 'abcd-efgh-ijkl-mnop' }, 'identifier'],
      ['no identifier', { appPassword: 'abcd-efgh-ijkl-mnop' }, 'identifier'],
      ['no app password', { identifier: 'a.bsky.social' }, 'appPassword'],
      ['OAuth fields', { identifier: 'a.bsky.social', appPassword: 'abcd-efgh-ijkl-mnop', redirectUrl: REDIRECT, headless: true }, 'redirectUrl'],
    ])('answers 400 VALIDATION_ERROR for %s', async (_case, body, param) => {
      const res = await mock.call('post', '/v1/connections/bluesky/connect', ws.apiKey).send(body);
      expectApiError(res, 400, 'VALIDATION_ERROR', param);
      if (param === 'redirectUrl') expect(res.body.error.message).toContain('headless');
    });

    describe('with reconnectId', () => {
      it('re-authorizes the same account without a slot or a bill, ignoring profileName', async () => {
        const existing = await connectionOf(mock, ws.apiKey, 'bluesky');
        await mock.control('post', `/__control/accounts/${existing.id}/status`, ws.apiKey).send({ status: 'revoked' });
        // The list read above is remembered; it must follow the account each way.
        expect(await connectionOf(mock, ws.apiKey, 'bluesky')).toMatchObject({ id: existing.id, status: 'revoked', authHealth: 'action_required' });
        const [count, before] = [await connectionCount(ws), await wallet(ws)];
        const res = await mock.call('post', '/v1/connections/bluesky/connect', ws.apiKey).send({
          identifier: existing.handle,
          appPassword: 'wxyz-wxyz-wxyz-wxyz',
          reconnectId: existing.id,
          profileName: 'Ignored',
        });
        expectStatus(res, 200);
        expect(res.body.connection).toMatchObject({ id: existing.id, status: 'active', authHealth: 'healthy', profileName: existing.profileName });
        // And back: active again, in the profile it was in.
        const listed = await connectionOf(mock, ws.apiKey, 'bluesky');
        expect(listed).toMatchObject({ id: existing.id, status: 'active', authHealth: 'healthy', profileName: existing.profileName });
        expect(await connectionCount(ws)).toBe(count);
        expect((await wallet(ws)).balanceCents).toBe(before.balanceCents);
        expect(eventsOf(mock, ws.id, 'account.reconnected').at(-1)?.data).toMatchObject({ account: { id: existing.id } });
      });

      it('answers 404 for an unknown id and 400 for an account of another network', async () => {
        const body = { identifier: 'a.bsky.social', appPassword: 'abcd-efgh-ijkl-mnop' };
        expectApiError(await mock.call('post', '/v1/connections/bluesky/connect', ws.apiKey).send({ ...body, reconnectId: 'no-such-account' }), 404, 'NOT_FOUND');
        const tiktok = await connectionOf(mock, ws.apiKey, 'tiktok');
        expectApiError(await mock.call('post', '/v1/connections/bluesky/connect', ws.apiKey).send({ ...body, reconnectId: tiktok.id }), 400, 'VALIDATION_ERROR', 'reconnectId');
      });

      it('answers 400 naming identifier when it names another account', async () => {
        const existing = await connectionOf(mock, ws.apiKey, 'bluesky');
        const res = await mock.call('post', '/v1/connections/bluesky/connect', ws.apiKey).send({ identifier: 'someone-else.bsky.social', appPassword: 'abcd-efgh-ijkl-mnop', reconnectId: existing.id });
        expectApiError(res, 400, 'VALIDATION_ERROR', 'identifier');
      });
    });

    describe('while the network is down', () => {
      it('answers 502 PLATFORM_ERROR naming bluesky', async () => {
        const other = await newWorkspace(mock, { fixtures: false });
        const workspace = mock.server.registry.get(other.id);
        if (!workspace) throw new Error('workspace missing');
        addOutage(workspace, { platform: 'bluesky', fromMs: workspace.now(), untilMs: null, message: 'maintenance' });
        const res = await mock.call('post', '/v1/connections/bluesky/connect', other.apiKey).send({ identifier: 'a.bsky.social', appPassword: 'abcd-efgh-ijkl-mnop' });
        expectApiError(res, 502, 'PLATFORM_ERROR');
        expect(res.body.error.details).toEqual({ platform: 'bluesky' });
      });
    });
  });

  describe('on an OAuth network', () => {
    let ws: TestWorkspace;
    beforeAll(async () => {
      ws = await newWorkspace(mock);
    });

    it('answers the sign-in URL on the host the request came to, valid 15 virtual minutes', async () => {
      const res = await mock.call('post', '/v1/connections/instagram/connect', ws.apiKey).set('Host', 'mock.test:9999').send({ redirectUrl: REDIRECT });
      expectStatus(res, 200);
      expect(res.body).toEqual({ type: 'oauth', url: expect.stringMatching(/^http:\/\/mock\.test:9999\/__oauth\/authorize\?session=os_ws_[a-z0-9]+_[0-9a-f]{20}$/), expiresAt: '2026-03-02T09:15:00.000Z' });
    });

    it.each([
      ['no redirectUrl', 'threads', {}, 'redirectUrl'],
      ['app-password fields', 'threads', { redirectUrl: REDIRECT, identifier: 'x', appPassword: 'abcd-efgh-ijkl-mnop' }, 'identifier'],
      ['loginMethod outside instagram', 'facebook', { redirectUrl: REDIRECT, loginMethod: 'facebook_login' }, 'loginMethod'],
      ['a javascript: redirectUrl', 'youtube', { redirectUrl: 'javascript:alert(1)' }, 'redirectUrl'],
      ['a JavaScript: redirectUrl in capitals', 'youtube', { redirectUrl: 'JavaScript:alert(1)' }, 'redirectUrl'],
      ['a data: redirectUrl', 'youtube', { redirectUrl: 'data:text/html,<script>alert(1)</script>' }, 'redirectUrl'],
      ['a vbscript: redirectUrl', 'youtube', { redirectUrl: 'vbscript:msgbox(1)' }, 'redirectUrl'],
      ['a file: redirectUrl', 'youtube', { redirectUrl: 'file:///etc/passwd' }, 'redirectUrl'],
      ['tempToken outside instagram', 'facebook', { tempToken: 'tmp_x', candidateId: '1' }, 'tempToken'],
      ['a candidateId without a session', 'facebook', { candidateId: '1' }, 'connectSession'],
      ['a choice mixed with a new connect', 'facebook', { connectSession: 'os_x', candidateId: '1', redirectUrl: REDIRECT }, 'redirectUrl'],
    ])('answers 400 VALIDATION_ERROR for %s', async (_case, platform, body, param) => {
      expectApiError(await mock.call('post', `/v1/connections/${platform}/connect`, ws.apiKey).send(body), 400, 'VALIDATION_ERROR', param);
    });

    describe('with a redirectUrl that is an app link or another absolute URI', () => {
      it.each([
        ['an app deep link', 'myapp://oauth/done'],
        ['an app link with a query', 'com.example.app:/oauth/callback?state=xyz'],
        ['a plain http URL', 'http://localhost:3000/callback'],
      ])('accepts %s', async (_case, redirectUrl) => {
        const res = await mock.call('post', '/v1/connections/threads/connect', ws.apiKey).send({ redirectUrl });
        expectStatus(res, 200);
        expect(res.body.type).toBe('oauth');
      });
    });

    it('answers 400 PLATFORM_NOT_SUPPORTED for a network the mock does not play', async () => {
      expectApiError(await mock.call('post', '/v1/connections/myspace/connect', ws.apiKey).send({ redirectUrl: REDIRECT }), 400, 'PLATFORM_NOT_SUPPORTED', 'platform');
    });
  });
});

describe('the sign-in page (/__oauth)', () => {
  let ws: TestWorkspace;
  beforeAll(async () => {
    ws = await newWorkspace(mock);
  });

  it('renders an HTML form with the network, Approve and Deny, and no script', async () => {
    const { url } = await startConnect(ws, 'tiktok', { profileName: 'Video team' });
    const res = await mock.call('get', pathOf(url), null);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('Sign in to Short-video network');
    expect(res.text).toContain('<form method="post" action="/__oauth/decide">');
    expect(res.text).toMatch(/<button type="submit" name="decision" value="approve">Approve<\/button>/);
    expect(res.text).toMatch(/<button type="submit" name="decision" value="deny">Deny<\/button>/);
    expect(res.text).toContain('Video team');
    expect(res.text).not.toContain('<script');
  });

  it('connects at Approve and returns to the redirect URL with connectSession and accountId', async () => {
    const [count, before] = [await connectionCount(ws), await wallet(ws)];
    const { url } = await startConnect(ws, 'tiktok', { profileName: 'Video team', metadata: { crm: 'c-9' } });
    const session = new URL(url).searchParams.get('session') as string;
    const page = await decideOnPage(url, 'approve');
    expect(page.status).toBe(303);
    const params = paramsOf(page.headers.location);
    expect(params).toEqual({ state: 'abc', platform: 'tiktok', accountId: expect.any(String), connectSession: session });

    const account = await mock.call('get', `/v1/accounts/${params.accountId}`, ws.apiKey);
    expectStatus(account, 200);
    expect(account.body).toMatchObject({ platform: 'tiktok', status: 'active', authHealth: 'healthy', canAutoRenew: true, profile: 'Video team', metadata: { crm: 'c-9' }, tokenExpiresAt: '2026-03-03T09:00:00.000Z' });
    expect(await connectionCount(ws)).toBe(count + 1);
    expect((await wallet(ws)).balanceCents).toBe(before.balanceCents - 500);
    expect(eventsOf(mock, ws.id, 'account.connected').at(-1)?.data).toMatchObject({ account: { id: params.accountId } });

    // The candidates of a plain connect: the account that was connected.
    const candidates = await mock.call('get', `/v1/connect-sessions/${session}/candidates`, ws.apiKey);
    expectStatus(candidates, 200);
    expect(candidates.body.data).toEqual([{ id: expect.any(String), platform: 'tiktok', name: account.body.displayName, username: account.body.handle, pictureUrl: account.body.avatarUrl, category: null, pageName: null }]);

    const again = await mock.call('get', pathOf(url), null);
    expect(again.status).toBe(409);
    expect(again.headers['content-type']).toMatch(/^text\/html/);
  });

  describe('when redirectUrl is an app deep link', () => {
    it('names the app link on the page and returns to it (303) with its query parameters kept', async () => {
      const res = await mock.call('post', '/v1/connections/tiktok/connect', ws.apiKey).send({ redirectUrl: 'myapp://oauth/done?state=s1' });
      expectStatus(res, 200);
      const page = await mock.call('get', pathOf(res.body.url), null);
      expect(page.status).toBe(200);
      expect(page.text).toContain('myapp://oauth');
      const session = new URL(res.body.url).searchParams.get('session') as string;
      const done = await decideOnPage(res.body.url, 'approve');
      expect(done.status).toBe(303);
      const location = new URL(done.headers.location as string);
      expect(`${location.protocol}//${location.host}${location.pathname}`).toBe('myapp://oauth/done');
      expect(Object.fromEntries(location.searchParams)).toEqual({ state: 's1', platform: 'tiktok', accountId: expect.any(String), connectSession: session });
    });

    it('returns a reconnect to the app link too, with the account id', async () => {
      const tiktok = await connectionOf(mock, ws.apiKey, 'tiktok');
      const res = await mock.call('post', `/v1/accounts/${tiktok.id}/reconnect`, ws.apiKey).send({ redirectUrl: 'myapp://oauth/reconnected' });
      expectStatus(res, 200);
      const done = await mock.call('get', `${pathOf(res.body.url)}&auto=approve`, null);
      expect(done.status).toBe(303);
      expect(done.headers.location).toMatch(/^myapp:\/\/oauth\/reconnected\?/);
      expect(paramsOf(done.headers.location)).toMatchObject({ platform: 'tiktok', accountId: tiktok.id });
    });

    it('refuses a reconnect to a javascript: URL with 400 VALIDATION_ERROR', async () => {
      const tiktok = await connectionOf(mock, ws.apiKey, 'tiktok');
      expectApiError(await mock.call('post', `/v1/accounts/${tiktok.id}/reconnect`, ws.apiKey).send({ redirectUrl: 'javascript:alert(1)' }), 400, 'VALIDATION_ERROR', 'redirectUrl');
    });
  });

  it('returns with error=ACCESS_DENIED at Deny and connects nothing', async () => {
    const count = await connectionCount(ws);
    const { url } = await startConnect(ws, 'reddit');
    expect(await signIn(url, 'deny')).toEqual({ state: 'abc', platform: 'reddit', error: 'ACCESS_DENIED' });
    expect(await connectionCount(ws)).toBe(count);
    const session = new URL(url).searchParams.get('session') as string;
    expectApiError(await mock.call('get', `/v1/connect-sessions/${session}/candidates`, ws.apiKey), 404, 'NOT_FOUND');
  });

  it('returns with error=SESSION_EXPIRED when the sign-in finishes after expiresAt', async () => {
    const other = await newWorkspace(mock);
    const count = await connectionCount(other);
    const { url } = await startConnect(other, 'youtube');
    await mock.control('post', '/__control/clock/advance', other.apiKey).send({ by: 'PT15M1S' });
    const page = await mock.call('get', pathOf(url), null);
    expect(page.text).toContain('SESSION_EXPIRED');
    expect(await signIn(url)).toEqual({ state: 'abc', platform: 'youtube', error: 'SESSION_EXPIRED' });
    expect(await connectionCount(other)).toBe(count);
  });

  it('returns with error=PLATFORM_ERROR while the network is down', async () => {
    const other = await newWorkspace(mock);
    const { url } = await startConnect(other, 'linkedin');
    const workspace = mock.server.registry.get(other.id);
    if (!workspace) throw new Error('workspace missing');
    addOutage(workspace, { platform: 'linkedin', fromMs: workspace.now(), untilMs: null, message: 'down' });
    expect((await signIn(url)).error).toBe('PLATFORM_ERROR');
  });

  it.each([
    ['no session', '/__oauth/authorize', 400],
    ['an unknown session', '/__oauth/authorize?session=os_ws_default_00000000000000000000', 404],
    ['a session of no shape', '/__oauth/authorize?session=hello', 404],
    ['an unknown page', '/__oauth/elsewhere', 404],
  ])('answers an HTML %s page with a 4xx status', async (_case, path, status) => {
    const res = await mock.call('get', path, null);
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).not.toMatch(/at .+\.ts:\d+/);
  });

  it('answers 400 for a decision that is neither approve nor deny', async () => {
    const { url } = await startConnect(ws, 'pinterest');
    expect((await mock.call('get', `${pathOf(url)}&auto=maybe`, null)).status).toBe(400);
    expect((await decideOnPage(url, 'yes')).status).toBe(400);
    // Still pending: a proper decision still works.
    expect((await signIn(url)).platform).toBe('pinterest');
  });
});

describe('a headless connect', () => {
  let ws: TestWorkspace;
  beforeAll(async () => {
    ws = await newWorkspace(mock);
  });

  it('lists the pages as candidates, connects nothing until one is chosen, then connects it once', async () => {
    const count = await connectionCount(ws);
    const { url } = await startConnect(ws, 'facebook', { headless: true, profileName: 'Pages' });
    const session = new URL(url).searchParams.get('session') as string;
    expectApiError(await mock.call('get', `/v1/connect-sessions/${session}/candidates`, ws.apiKey), 404, 'NOT_FOUND');

    expect(await signIn(url)).toEqual({ state: 'abc', platform: 'facebook', connectSession: session });
    expect(await connectionCount(ws)).toBe(count);

    const res = await mock.call('get', `/v1/connect-sessions/${session}/candidates`, ws.apiKey);
    expectStatus(res, 200);
    expect(res.body.data).toHaveLength(2);
    for (const candidate of res.body.data) {
      expect(candidate).toEqual({
        id: expect.stringMatching(/^\d{15}$/),
        platform: 'facebook',
        name: expect.any(String),
        username: expect.any(String),
        pictureUrl: expect.stringMatching(/^https:\/\//),
        category: expect.any(String),
        pageName: candidate.name,
      });
    }
    const chosen = res.body.data[1];

    expectApiError(await mock.call('get', `/v1/connect-sessions/${session}/candidates`), 404, 'NOT_FOUND');

    const connect = await mock.call('post', '/v1/connections/facebook/connect', ws.apiKey).send({ connectSession: session, candidateId: chosen.id });
    expectStatus(connect, 200);
    expect(connect.body.connection).toMatchObject({ platform: 'facebook', displayName: chosen.name, handle: chosen.username, profileName: 'Pages', status: 'active' });
    expect(await connectionCount(ws)).toBe(count + 1);

    expectApiError(await mock.call('post', '/v1/connections/facebook/connect', ws.apiKey).send({ connectSession: session, candidateId: chosen.id }), 409, 'CONFLICT', 'candidateId');
    expectApiError(await mock.call('post', '/v1/connections/facebook/connect', ws.apiKey).send({ connectSession: session, candidateId: 'not-offered' }), 400, 'VALIDATION_ERROR', 'candidateId');
    expectApiError(await mock.call('post', '/v1/connections/threads/connect', ws.apiKey).send({ connectSession: session, candidateId: res.body.data[0].id }), 400, 'VALIDATION_ERROR', 'platform');

    await mock.control('post', '/__control/clock/advance', ws.apiKey).send({ by: 'PT1H1S' });
    expectApiError(await mock.call('get', `/v1/connect-sessions/${session}/candidates`, ws.apiKey), 404, 'NOT_FOUND');
    expectApiError(await mock.call('post', '/v1/connections/facebook/connect', ws.apiKey).send({ connectSession: session, candidateId: res.body.data[0].id }), 404, 'NOT_FOUND');
  });

  it('offers the person and a company page on the professional network', async () => {
    const { url } = await startConnect(ws, 'linkedin', { headless: true });
    const { connectSession } = await signIn(url);
    const res = await mock.call('get', `/v1/connect-sessions/${connectSession}/candidates`, ws.apiKey);
    expect(res.body.data.map((c: { id: string }) => c.id)).toEqual([expect.stringMatching(/^urn:li:person:/), expect.stringMatching(/^urn:li:organization:\d+$/)]);
    expect(res.body.data[0].username).toBeNull();
  });
});

describe('a photo-sharing connect with facebook_login', () => {
  it('returns a tempToken, lists the page-linked accounts and connects the chosen one', async () => {
    const ws = await newWorkspace(mock);
    const count = await connectionCount(ws);
    const { url } = await startConnect(ws, 'instagram', { loginMethod: 'facebook_login', metadata: { source: 'onboarding' } });
    const params = await signIn(url);
    expect(params).toEqual({ state: 'abc', platform: 'instagram', tempToken: expect.stringMatching(/^tmp_[0-9a-f]{24}$/) });
    expect(await connectionCount(ws)).toBe(count);

    const res = await mock.call('get', `/v1/connections/oauth/instagram/accounts?tempToken=${params.tempToken}`, ws.apiKey);
    expectStatus(res, 200);
    expect(res.body.accounts).toHaveLength(2);
    for (const pending of res.body.accounts) {
      expect(pending).toEqual({
        pageId: expect.stringMatching(/^\d{15}$/),
        pageName: expect.any(String),
        instagramAccountId: expect.stringMatching(/^17841\d{12}$/),
        username: expect.any(String),
        name: pending.pageName,
        profilePictureUrl: expect.stringMatching(/^https:\/\//),
      });
    }
    const chosen = res.body.accounts[0];
    const connect = await mock.call('post', '/v1/connections/instagram/connect', ws.apiKey).send({ tempToken: params.tempToken, candidateId: chosen.instagramAccountId });
    expectStatus(connect, 200);
    expect(connect.body.connection).toMatchObject({ platform: 'instagram', handle: chosen.username, displayName: chosen.name });
    const account = await mock.call('get', `/v1/accounts/${connect.body.connection.id}`, ws.apiKey);
    expect(account.body.metadata).toEqual({ source: 'onboarding' });

    expectApiError(await mock.call('get', '/v1/connections/oauth/instagram/accounts?tempToken=tmp_unknown', ws.apiKey), 404, 'NOT_FOUND');
    expectApiError(await mock.call('get', `/v1/connections/oauth/instagram/accounts?tempToken=${params.tempToken}`), 404, 'NOT_FOUND');
  });
});

describe('the wallet', () => {
  describe('when a pay-as-you-go wallet cannot pay for another account', () => {
    it('answers 402 INSUFFICIENT_WALLET on every new connect, still reconnects for free, and connects again once topped up', async () => {
      const ws = await newWorkspace(mock);
      const set = await mock.control('post', '/__control/wallet', ws.apiKey).send({ balanceCents: 499 });
      expectStatus(set, 200);
      expect(set.body).toMatchObject({ plan: 'payg', currency: 'USD', balanceCents: 499, pricePerAccountCents: 500, accountSlots: null });
      const count = await connectionCount(ws);

      const app = await mock.call('post', '/v1/connections/bluesky/connect', ws.apiKey).send({ identifier: 'new.bsky.social', appPassword: 'abcd-efgh-ijkl-mnop' });
      expectApiError(app, 402, 'INSUFFICIENT_WALLET');
      expect(app.body.error.details).toEqual({ balanceCents: 499, priceCents: 500, currency: 'USD' });
      expectApiError(await mock.call('post', '/v1/connections/threads/connect', ws.apiKey).send({ redirectUrl: REDIRECT }), 402, 'INSUFFICIENT_WALLET');

      // A reconnect is never billed.
      const bluesky = await connectionOf(mock, ws.apiKey, 'bluesky');
      expectStatus(await mock.call('post', `/v1/accounts/${bluesky.id}/reconnect`, ws.apiKey).send({ appPassword: 'abcd-efgh-ijkl-mnop' }), 200);
      expect((await wallet(ws)).balanceCents).toBe(499);

      // A sign-in started while there was credit finishes with the error once it is gone.
      await mock.control('post', '/__control/wallet', ws.apiKey).send({ balanceCents: 500 });
      const { url } = await startConnect(ws, 'threads');
      await mock.control('post', '/__control/wallet', ws.apiKey).send({ balanceCents: 100 });
      expect((await signIn(url)).error).toBe('INSUFFICIENT_WALLET');
      expect(await connectionCount(ws)).toBe(count);

      await mock.control('post', '/__control/wallet', ws.apiKey).send({ balanceCents: 600 });
      expectStatus(await mock.call('post', '/v1/connections/bluesky/connect', ws.apiKey).send({ identifier: 'new.bsky.social', appPassword: 'abcd-efgh-ijkl-mnop' }), 200);
      expect(await wallet(ws)).toMatchObject({ balanceCents: 100, accountsBilled: 1, connectedAccounts: count + 1 });
    });
  });

  describe('when a free workspace has used its 15 account slots', () => {
    it('answers 402 PLAN_LIMIT_REACHED', async () => {
      const ws = await newWorkspace(mock, { plan: 'free' });
      const count = await connectionCount(ws);
      for (let i = count; i < 15; i++) {
        expectStatus(await mock.call('post', '/v1/connections/bluesky/connect', ws.apiKey).send({ identifier: `slot-${i}.bsky.social`, appPassword: 'abcd-efgh-ijkl-mnop' }), 200);
      }
      const res = await mock.call('post', '/v1/connections/bluesky/connect', ws.apiKey).send({ identifier: 'one-too-many.bsky.social', appPassword: 'abcd-efgh-ijkl-mnop' });
      expectApiError(res, 402, 'PLAN_LIMIT_REACHED');
      expect(res.body.error.details).toEqual({ plan: 'free', slots: 15, connected: 15 });
      expect(await wallet(ws)).toMatchObject({ plan: 'free', accountSlots: 15, accountsBilled: 0, balanceCents: 5000 });
    });
  });

  it('refuses a negative balance naming it', async () => {
    expectApiError(await mock.control('post', '/__control/wallet').send({ balanceCents: -1 }), 400, 'VALIDATION_ERROR', 'balanceCents');
  });
});
