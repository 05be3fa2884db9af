import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { webhooksStore } from '../../src/api/webhooks/store.js';
import { drawHex, hexToUuid } from '../../src/lib/ids.js';
import type { Workspace } from '../../src/workspaces/workspace.js';
import { connectionOf, paramsOf, pathOf, signInForm } from '../helpers/accounts.js';
import { expectApiError, expectStatus, startMock, type StartedMock, type TestMock } from '../helpers/mock.js';

/*
 * Issue 28, item 2 (decision 0025): everything that lets a caller in (a workspace's key,
 * an upload URL's token, a sign-in session's id) comes from crypto randomness, while ids
 * and fake data still come from the seed. The attacker knows the seed (it is in the CI
 * config, the banner, the docs) and runs the same server: before this change they could
 * compute every credential before it was issued. And a page of another site cannot make
 * a browser decide a sign-in.
 */

const SEED = 7;
/** The Host every request names, so URLs built from it are the same on both servers. */
const HOST = 'localhost';
const REDIRECT = 'https://app.example/integrations/callback?state=abc';

const mocks: StartedMock[] = [];
const dirs: string[] = [];

async function server(options: Parameters<typeof startMock>[0] = {}): Promise<StartedMock> {
  const mock = await startMock({ seed: SEED, ...options });
  mocks.push(mock);
  return mock;
}

/** Two servers started alike: what one answers, an attacker running the other would see. */
function twins(): Promise<[StartedMock, StartedMock]> {
  return Promise.all([server(), server()]);
}

afterEach(async () => {
  for (const mock of mocks.splice(0)) await mock.close();
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function defaultWorkspace(mock: TestMock): Workspace {
  return mock.server.registry.defaultWorkspace;
}

/** What the default workspace's id stream would draw next: the value a seeded credential would have had. */
function nextSeededHex(mock: TestMock, ahead = 0): string {
  const { data } = defaultWorkspace(mock);
  return drawHex(data.seed, data.id, data.idCounter + ahead);
}

async function createWorkspace(mock: TestMock, body: Record<string, unknown> = {}): Promise<{ workspaceId: string; apiKey: string }> {
  const res = await mock.control('post', '/__control/workspaces').send(body);
  expectStatus(res, 201);
  return res.body as { workspaceId: string; apiKey: string };
}

async function presign(mock: TestMock) {
  const res = await mock.call('post', '/v1/media/presign').set('Host', HOST).send({ filename: 'cover.jpg', contentType: 'image/jpeg' });
  expectStatus(res, 200);
  return res.body as { uploadUrl: string; publicUrl: string; key: string; expiresIn: number };
}

/** Starts an OAuth connect on the default workspace and answers its sign-in URL. */
async function startSignIn(mock: TestMock, platform = 'tiktok', body: Record<string, unknown> = {}): Promise<string> {
  const res = await mock.call('post', `/v1/connections/${platform}/connect`).set('Host', HOST).send({ redirectUrl: REDIRECT, ...body });
  expectStatus(res, 200);
  return res.body.url as string;
}

const sessionOf = (url: string) => new URL(url).searchParams.get('session') ?? '';

describe('POST /__control/workspaces', () => {
  describe('on two servers with the same seed', () => {
    it('gives both the same workspace id and each its own key, which is not the one the seed gave', async () => {
      const [a, b] = await twins();
      const [mine, theirs] = [await createWorkspace(a), await createWorkspace(b)];
      expect(mine.workspaceId).toBe(theirs.workspaceId);
      expect(mine.apiKey).toMatch(/^sgw_test_[0-9a-f]{32}$/);
      expect(theirs.apiKey).toMatch(/^sgw_test_[0-9a-f]{32}$/);
      expect(mine.apiKey).not.toBe(theirs.apiKey);
      // What the seed used to make of the first workspace made from the control plane.
      expect(mine.apiKey).not.toBe(`sgw_test_${drawHex(SEED, 'workspace', 1).slice(12, 44)}`);
      // The key the attacker's twin issued opens nothing here.
      expectApiError(await a.call('get', '/v1/connections', theirs.apiKey), 401, 'UNAUTHORIZED');
      expectStatus(await a.call('get', '/v1/connections', mine.apiKey), 200);
    });
  });

  describe('with from (a fork)', () => {
    it('gives the fork a fresh random key: not the source\'s, not the twin fork\'s', async () => {
      const [a, b] = await twins();
      const forks = [];
      for (const mock of [a, b]) {
        const source = await createWorkspace(mock);
        const fork = await createWorkspace(mock, { from: source.workspaceId });
        expect(fork.apiKey).not.toBe(source.apiKey);
        forks.push(fork);
      }
      expect(forks[0]?.workspaceId).toBe(forks[1]?.workspaceId);
      expect(forks[0]?.apiKey).not.toBe(forks[1]?.apiKey);
      expectApiError(await a.call('get', '/v1/connections', forks[1]?.apiKey), 401, 'UNAUTHORIZED');
    });
  });
});

describe('POST /__control/keys', () => {
  it('mints a different key on each of two servers with the same seed, not the one the seed gave', async () => {
    const [a, b] = await twins();
    const [mine, theirs] = await Promise.all([a, b].map(async (mock) => {
      const res = await mock.control('post', '/__control/keys').send({ scope: 'read' });
      expectStatus(res, 201);
      return res.body.apiKey as string;
    }));
    expect(mine).toMatch(/^sgw_test_[0-9a-f]{32}$/);
    expect(mine).not.toBe(theirs);
    expect(mine).not.toBe(`sgw_test_${drawHex(SEED, 'key', 1).slice(0, 32)}`);
    expectApiError(await a.call('get', '/v1/connections', theirs), 401, 'UNAUTHORIZED');
  });

  it('leaves the ids of workspaces made after it as the seed gave them', async () => {
    const [a, b] = await twins();
    expectStatus(await a.control('post', '/__control/keys').send({}), 201);
    expectStatus(await b.control('post', '/__control/keys').send({}), 201);
    const [mine, theirs] = [await createWorkspace(a), await createWorkspace(b)];
    // The minted key kept its place in the server's count: the workspace is the count's second.
    expect(mine.workspaceId).toBe(`ws_${drawHex(SEED, 'workspace', 2).slice(0, 12)}`);
    expect(mine.workspaceId).toBe(theirs.workspaceId);
  });
});

describe('POST /v1/media/presign', () => {
  it('hands out an upload token and a media key the twin server cannot know, and the same id otherwise', async () => {
    const [a, b] = await twins();
    const seededKey = nextSeededHex(a, 0).slice(0, 32);
    const seeded = nextSeededHex(a, 2).slice(0, 32);
    const [mine, theirs] = [await presign(a), await presign(b)];
    const tokenOf = (url: string) => new URL(url).searchParams.get('token');
    expect(tokenOf(mine.uploadUrl)).toMatch(/^[0-9a-f]{32}$/);
    expect(tokenOf(mine.uploadUrl)).not.toBe(tokenOf(theirs.uploadUrl));
    // The token was the third draw of a presign (key, id, token).
    expect(tokenOf(mine.uploadUrl)).not.toBe(seeded);
    // The key names the file's public URL, which reads it without a key: another tenant must not guess it.
    expect(mine.key).toMatch(/^[0-9a-f]{32}/);
    expect(mine.key).not.toBe(theirs.key);
    expect(mine.key.slice(0, 32)).not.toBe(seededKey);
    const withoutCredentials = (body: typeof mine) => JSON.stringify({ ...body, uploadUrl: '', publicUrl: '', key: '' });
    expect(withoutCredentials(mine)).toBe(withoutCredentials(theirs));

    // The twin's upload URL names no file here, and its token does not open this server's; this server's own is taken.
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xd9]);
    expectApiError(await a.call('put', pathOf(theirs.uploadUrl), null).set('Content-Type', 'image/jpeg').send(jpeg), 404, 'NOT_FOUND');
    const theirToken = pathOf(mine.uploadUrl).replace(/token=[0-9a-f]+/, `token=${tokenOf(theirs.uploadUrl) ?? ''}`);
    expectApiError(await a.call('put', theirToken, null).set('Content-Type', 'image/jpeg').send(jpeg), 403, 'UPLOAD_URL_INVALID', 'token');
    expectStatus(await a.call('put', pathOf(mine.uploadUrl), null).set('Content-Type', 'image/jpeg').send(jpeg), 200);
  });

  it('leaves the ids drawn after it as the seed gave them: the token keeps its place in the id stream', async () => {
    const mock = await server();
    const { data } = defaultWorkspace(mock);
    const before = data.idCounter;
    await presign(mock);
    // A presign drew three values: the key, the record's id, the token.
    expect(data.idCounter).toBe(before + 3);
    const profile = await mock.call('post', '/v1/profiles').send({ name: 'After a presign' });
    expectStatus(profile, 201);
    expect(profile.body.id).toBe(hexToUuid(drawHex(data.seed, data.id, before + 3)));
  });
});

describe('the sign-in session of an OAuth connect', () => {
  it('has an id the twin server cannot know, and not the one the seed gave', async () => {
    const [a, b] = await twins();
    const seeded = nextSeededHex(a).slice(0, 20);
    const [mine, theirs] = [sessionOf(await startSignIn(a)), sessionOf(await startSignIn(b))];
    expect(mine).toMatch(/^os_ws_default_[0-9a-f]{20}$/);
    expect(mine).not.toBe(theirs);
    expect(mine).not.toBe(`os_ws_default_${seeded}`);
    // The twin's session is unknown here: it cannot be decided.
    const guessed = await a.call('get', `/__oauth/authorize?session=${theirs}&auto=approve`, null);
    expect(guessed.status).toBe(404);
  });

  it('hands a facebook_login sign-in a tempToken the twin server cannot know', async () => {
    const [a, b] = await twins();
    const tokens = [];
    for (const mock of [a, b]) {
      const url = await startSignIn(mock, 'instagram', { loginMethod: 'facebook_login' });
      const done = await mock.call('get', `${pathOf(url)}&auto=approve`, null);
      expect(done.status).toBe(303);
      tokens.push(paramsOf(done.headers.location).tempToken);
    }
    expect(tokens[0]).toMatch(/^tmp_[0-9a-f]{24}$/);
    expect(tokens[0]).not.toBe(tokens[1]);
    expectApiError(await a.call('get', `/v1/connections/oauth/instagram/accounts?tempToken=${tokens[1]}`), 404, 'NOT_FOUND');
  });
});

describe('POST /v1/webhooks', () => {
  it('never makes a secret of its own: a webhook created without one signs nothing', async () => {
    const mock = await server();
    const res = await mock.call('post', '/v1/webhooks').send({ name: 'no secret', url: 'https://hooks.example/in', events: ['post.published'] });
    expectStatus(res, 201);
    expect(res.body.hasSecret).toBe(false);
    expect(webhooksStore.read(defaultWorkspace(mock)).webhooks[res.body.id]?.secret).toBeNull();
  });
});

describe('two servers with the same seed', () => {
  it('answer the same data byte for byte after every kind of credential was issued, the credentials aside', async () => {
    const [a, b] = await twins();
    const credentials: string[][] = [[], []];
    for (const [i, mock] of [a, b].entries()) {
      const own = credentials[i] ?? [];
      const created = await createWorkspace(mock);
      own.push(created.apiKey);
      own.push((await mock.control('post', '/__control/keys').send({})).body.apiKey);
      const upload = await presign(mock);
      own.push(new URL(upload.uploadUrl).searchParams.get('token') ?? '');
      // The media key is a credential too: its public URL is all it takes to read the file.
      own.push(upload.key);
      own.push(sessionOf(await startSignIn(mock)));
      // An id drawn after the credentials.
      expectStatus(await mock.call('post', '/v1/profiles').send({ name: 'After the credentials' }), 201);
    }
    const reads = async (mock: TestMock, own: string[]) => {
      const bodies: string[] = [];
      for (const path of ['/v1/accounts?limit=100', '/v1/connections', '/v1/profiles?limit=100', '/v1/posts?limit=20']) {
        const res = await mock.call('get', path);
        expectStatus(res, 200);
        bodies.push(res.text);
      }
      const fresh = await mock.call('get', '/v1/accounts?limit=100', own[0]);
      expectStatus(fresh, 200);
      bodies.push(fresh.text);
      // The whole world, with the credentials masked: the sign-in form's token is random too.
      let state = (await mock.control('get', '/__control/state')).text.replace(/"formToken":"[0-9a-f]{32}"/g, '"formToken":"(masked)"');
      for (const credential of own) state = state.replaceAll(credential, '(masked)');
      bodies.push(state);
      return bodies;
    };
    expect(await reads(a, credentials[0] ?? [])).toEqual(await reads(b, credentials[1] ?? []));
  });
});

describe('with --data', () => {
  it('keeps the random keys and upload tokens it issued across a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sgw-credentials-'));
    dirs.push(dir);
    const dataFile = join(dir, 'data.json');
    const first = await server({ dataFile });
    const created = await createWorkspace(first);
    const minted = (await first.control('post', '/__control/keys').send({})).body.apiKey as string;
    const { uploadUrl } = await presign(first);
    await first.close();
    mocks.splice(mocks.indexOf(first), 1);

    const second = await server({ dataFile });
    expectStatus(await second.call('get', '/v1/connections', created.apiKey), 200);
    expectStatus(await second.call('get', '/v1/connections', minted), 200);
    expectStatus(await second.call('put', pathOf(uploadUrl), null).set('Content-Type', 'image/jpeg').send(Buffer.from([0xff, 0xd8, 0xff, 0xd9])), 200);
  });
});

describe('the sign-in page (/__oauth)', () => {
  /** A reconnect of the fixture's expired professional account: approving brings it back active. */
  async function expiredReconnect(mock: TestMock): Promise<{ url: string; accountId: string }> {
    const linkedin = await connectionOf(mock, 'sgw_test_default', 'linkedin');
    expect(linkedin.status).toBe('expired');
    const res = await mock.call('post', `/v1/accounts/${linkedin.id}/reconnect`).send({ redirectUrl: REDIRECT });
    expectStatus(res, 200);
    return { url: res.body.url as string, accountId: linkedin.id };
  }

  /** Nothing was decided: the account is still expired and the page still offers the choice. */
  async function expectUndecided(mock: TestMock, url: string, accountId: string): Promise<void> {
    expect((await mock.call('get', `/v1/accounts/${accountId}`)).body.status).toBe('expired');
    const page = await mock.call('get', pathOf(url), null);
    expect(page.status, page.text).toBe(200);
  }

  function expectRefusalPage(res: { status: number; headers: Record<string, string>; text: string }): void {
    expect(res.status).toBe(403);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('Sign-in refused');
    expect(res.headers.location).toBeUndefined();
  }

  describe.each(['cross-site', 'same-site'])('when a page of another origin (Sec-Fetch-Site: %s) sends the browser', (site) => {
    it('refuses a link with auto=approve with a 403 page, and nothing changes', async () => {
      const mock = await server();
      const { url, accountId } = await expiredReconnect(mock);
      expectRefusalPage(await mock.call('get', `${pathOf(url)}&auto=approve`, null).set('Sec-Fetch-Site', site).set('Sec-Fetch-Mode', 'navigate'));
      await expectUndecided(mock, url, accountId);
    });

    it('refuses a posted decision with a 403 page, even with every field of the page\'s form, and nothing changes', async () => {
      const mock = await server();
      const { url, accountId } = await expiredReconnect(mock);
      // Every hidden field the page has (read leniently: the attack is the same whatever the form holds).
      const html = (await mock.call('get', pathOf(url), null)).text;
      const form = Object.fromEntries([...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((match) => [match[1], match[2]]));
      expect(form.session).toBe(sessionOf(url));
      expectRefusalPage(await mock.call('post', '/__oauth/decide', null).set('Sec-Fetch-Site', site).type('form').send({ ...form, decision: 'approve' }));
      await expectUndecided(mock, url, accountId);
    });
  });

  describe('when a decision is posted without the page\'s form token', () => {
    it('refuses it even from an origin --cors lets in, and nothing changes', async () => {
      // --cors '*' opens the API alone (decision 0024): the cross-origin write check refuses the post before the page sees it.
      const mock = await server({ cors: ['*'] });
      const { url, accountId } = await expiredReconnect(mock);
      const posted = await mock.call('post', '/__oauth/decide', null).set('Origin', 'https://evil.example').type('form').send({ session: sessionOf(url), decision: 'approve' });
      expectApiError(posted, 403, 'FORBIDDEN', 'Origin');
      await expectUndecided(mock, url, accountId);
      // Without an Origin (a client that is no browser), the form token alone still stands in the way.
      expectRefusalPage(await mock.call('post', '/__oauth/decide', null).type('form').send({ session: sessionOf(url), decision: 'approve' }));
      await expectUndecided(mock, url, accountId);
    });

    it.each([
      ['a wrong token', '0123456789abcdef0123456789abcdef'],
      ['an empty token', ''],
    ])('refuses %s with a 403 page, and nothing changes', async (_case, token) => {
      const mock = await server();
      const { url, accountId } = await expiredReconnect(mock);
      expectRefusalPage(await mock.call('post', '/__oauth/decide', null).type('form').send({ session: sessionOf(url), token, decision: 'approve' }));
      await expectUndecided(mock, url, accountId);
    });

    it('refuses the token of another session\'s page', async () => {
      const mock = await server();
      const { url, accountId } = await expiredReconnect(mock);
      const other = signInForm((await mock.call('get', pathOf(await startSignIn(mock)), null)).text);
      expectRefusalPage(await mock.call('post', '/__oauth/decide', null).type('form').send({ session: sessionOf(url), token: other.token, decision: 'approve' }));
      await expectUndecided(mock, url, accountId);
    });
  });

  describe('when the decision comes from the page itself or from no page', () => {
    it('approves from the page\'s own form (Sec-Fetch-Site: same-origin, its token)', async () => {
      const mock = await server();
      const { url, accountId } = await expiredReconnect(mock);
      const form = signInForm((await mock.call('get', pathOf(url), null)).text);
      const done = await mock.call('post', '/__oauth/decide', null).set('Sec-Fetch-Site', 'same-origin').set('Origin', `http://${HOST}`).set('Host', HOST).type('form').send({ ...form, decision: 'approve' });
      expect(done.status, done.text).toBe(303);
      expect(paramsOf(done.headers.location)).toMatchObject({ accountId, connectSession: form.session });
      expect((await mock.call('get', `/v1/accounts/${accountId}`)).body.status).toBe('active');
    });

    it.each([
      ['a test\'s HTTP client (no Sec-Fetch-Site)', undefined],
      ['an address typed in the browser (Sec-Fetch-Site: none)', 'none'],
    ])('approves auto=approve from %s', async (_case, site) => {
      const mock = await server();
      const { url, accountId } = await expiredReconnect(mock);
      const req = mock.call('get', `${pathOf(url)}&auto=approve`, null);
      const done = await (site === undefined ? req : req.set('Sec-Fetch-Site', site));
      expect(done.status, done.text).toBe(303);
      expect(paramsOf(done.headers.location)).toMatchObject({ accountId });
    });
  });
});
