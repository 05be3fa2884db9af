import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { rawExchange } from '../helpers/raw-http.js';
import { expectApiError, expectStatus, startMock, useMock } from '../helpers/mock.js';

/*
 * DNS rebinding: a page on evil.example points its own name at 127.0.0.1 and calls the mock
 * as a page of its own origin; the only trace is the Host header (decision 0019).
 */
const mock = useMock();

const PATHS = ['/v1/connections', '/__control/health', '/__control/journal', '/__dashboard', '/', '/docs', '/openapi.yaml', '/__media/0123456789abcdef0123456789abcdef.png', '/__oauth/authorize?session=x', '/no/such/path'];

describe('a request whose Host names another site', () => {
  it.each(PATHS)('answers 403 FORBIDDEN on %s, naming the host and --allowed-hosts', async (path) => {
    const res = await mock.call('get', path).set('Host', 'evil.example:4010');
    expectApiError(res, 403, 'FORBIDDEN', 'Host');
    expect(res.body.error.message).toContain("'evil.example'");
    expect(res.body.error.message).toContain('--allowed-hosts evil.example');
    expect(res.body.error.details).toEqual({ host: 'evil.example' });
  });

  it('still sends the X-RateLimit-* headers every /v1 answer carries', async () => {
    const res = await mock.call('get', '/v1/connections').set('Host', 'evil.example');
    expectApiError(res, 403, 'FORBIDDEN');
    expect(res.headers['x-ratelimit-limit']).toBeDefined();
  });

  it('is refused before anything runs: a write changes nothing and is in no journal', async () => {
    const before = (await mock.control('get', '/__control/journal')).body;
    expectApiError(await mock.call('post', '/v1/profiles').set('Host', 'evil.example').send({ name: 'Rebound' }), 403, 'FORBIDDEN');
    expectApiError(await mock.control('post', '/__control/reset').set('Host', 'evil.example'), 403, 'FORBIDDEN');
    expect((await mock.control('get', '/__control/journal')).body).toEqual(before);
    const profiles = (await mock.call('get', '/v1/profiles')).body.data as Array<{ name: string }>;
    expect(profiles.map((profile) => profile.name)).not.toContain('Rebound');
  });

  it('is refused before routing: with a loopback Host, an unknown path is a 404 and the dashboard answers', async () => {
    expectApiError(await mock.call('get', '/no/such/path'), 404, 'NOT_FOUND');
    expectStatus(await mock.call('get', '/__dashboard'), 200);
  });
});

describe('a request whose Host names this machine', () => {
  it.each(['localhost', 'localhost:4010', 'LocalHost:4010', 'app.localhost:4010', '127.0.0.1:4010', '127.0.0.2', '[::1]:4010'])('is answered with Host %s', async (host) => {
    expectStatus(await mock.call('get', '/v1/connections').set('Host', host), 200);
    expectStatus(await mock.control('get', '/__control/health').set('Host', host), 200);
  });
});

describe('a request with no Host or a malformed one', () => {
  let url: string;
  beforeAll(async () => {
    url = await mock.server.listen(0);
  });

  it('answers an HTTP/1.0 request without Host with 400 VALIDATION_ERROR on Host', async () => {
    const res = await rawExchange(Number(new URL(url).port), { chunks: ['GET /__control/health HTTP/1.0\r\n\r\n'], giveUpMs: 5000 });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: 'VALIDATION_ERROR', param: 'Host' } });
  });

  it('answers 400 to a Host that is no host name, without echoing it', async () => {
    const res = await mock.call('get', '/').set('Host', 'a"><script>x</script>');
    expectApiError(res, 400, 'VALIDATION_ERROR', 'Host');
    expect(res.text).not.toContain('<script>');
  });
});

describe('with allowedHosts', () => {
  const named = useMock({ allowedHosts: ['mock.test', '.corp.example'] });

  it.each(['mock.test:9999', 'corp.example', 'api.corp.example:8443'])('answers %s on /v1, /__control and any other path', async (host) => {
    expectStatus(await named.call('get', '/v1/connections').set('Host', host), 200);
    expectStatus(await named.control('get', '/__control/health').set('Host', host), 200);
    expectStatus(await named.call('get', '/__dashboard').set('Host', host), 200);
    expectApiError(await named.call('get', '/no/such/path').set('Host', host), 404, 'NOT_FOUND');
  });

  it('still answers loopback names, and still refuses the rest', async () => {
    expectStatus(await named.call('get', '/v1/connections').set('Host', 'localhost:4010'), 200);
    expectApiError(await named.call('get', '/v1/connections').set('Host', 'api.mock.test'), 403, 'FORBIDDEN');
    expectApiError(await named.call('get', '/v1/connections').set('Host', 'evil.example'), 403, 'FORBIDDEN');
  });

  it('refuses an entry that is not a host name when the server is made', async () => {
    await expect(startMock({ allowedHosts: ['*.corp.example'] })).rejects.toThrow(/allowedHosts: '\*\.corp\.example' is a wildcard/);
  });
});

describe('with allowedHosts: true (--allowed-hosts all)', () => {
  it('answers any Host', async () => {
    const open = await startMock({ allowedHosts: true });
    try {
      expectStatus(await open.call('get', '/v1/connections').set('Host', 'evil.example'), 200);
      expectStatus(await open.control('get', '/__control/health').set('Host', 'evil.example'), 200);
    } finally {
      await open.close();
    }
  });
});

describe('CORS by default', () => {
  it('grants nothing to another origin, on the API, the control plane or a preflight', async () => {
    const api = await mock.call('get', '/v1/connections').set('Origin', 'http://evil.example');
    expectStatus(api, 200);
    const control = await mock.control('get', '/__control/journal').set('Origin', 'http://evil.example');
    const preflight = await request(mock.server.app).options('/__control/reset').set('Origin', 'http://evil.example').set('Access-Control-Request-Method', 'POST');
    for (const res of [api, control, preflight]) {
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
      expect(res.headers['access-control-allow-methods']).toBeUndefined();
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    }
  });
});

describe('the control token', () => {
  it('is read from the x-control-token header only, never from the URL', async () => {
    const guarded = await startMock({ controlToken: 's3cret-token' });
    try {
      for (const query of ['x-control-token', 'token', 'controlToken', 'access_token']) {
        const res = await guarded.control('get', `/__control/journal?${query}=s3cret-token`);
        expectApiError(res, 401, 'UNAUTHORIZED');
      }
      expectStatus(await guarded.control('get', '/__control/journal').set('x-control-token', 's3cret-token'), 200);
    } finally {
      await guarded.close();
    }
  });
});

describe('a write from a page of another origin', () => {
  it.each([
    ['post', '/__control/reset'],
    ['post', '/__control/clock/freeze'],
    ['post', '/v1/profiles'],
    ['delete', '/__control/rules/none'],
  ] as const)('%s %s answers 403 FORBIDDEN naming the origin and what --cors can open, and changes nothing', async (method, path) => {
    const before = (await mock.control('get', '/__control/journal')).body;
    const res = await mock.call(method, path).set('Origin', 'http://evil.example').send(path === '/v1/profiles' ? { name: 'Cross-site' } : {});
    expectApiError(res, 403, 'FORBIDDEN', 'Origin');
    expect(res.body.error.details).toEqual({ origin: 'http://evil.example' });
    // --cors opens the API alone: for the control plane, the message says it cannot be opened.
    expect(res.body.error.message).toContain(path.startsWith('/v1') ? '--cors http://evil.example' : '--cors opens only the API');
    expect((await mock.control('get', '/__control/journal')).body).toEqual(before);
  });

  it('refuses a sandboxed page (Origin: null) too, and still sends X-RateLimit-* on /v1', async () => {
    const res = await mock.call('post', '/v1/profiles').set('Origin', 'null').send({ name: 'Sandboxed' });
    expectApiError(res, 403, 'FORBIDDEN', 'Origin');
    expect(res.headers['x-ratelimit-limit']).toBeDefined();
  });

  it("takes writes from the server's own pages (the dashboard), from clients that send no Origin, and reads from anywhere", async () => {
    const own = await mock.control('post', '/__control/clock/resume').set('Host', 'localhost:4010').set('Origin', 'http://localhost:4010');
    expectStatus(own, 200);
    expectStatus(await mock.control('post', '/__control/clock/freeze'), 200);
    expectStatus(await mock.call('get', '/v1/connections').set('Origin', 'http://evil.example'), 200);
  });

  it('takes writes from the origins --cors allows, and from any with --cors *', async () => {
    for (const cors of [['http://app.example:3000'], ['*']]) {
      const browser = await startMock({ cors });
      try {
        const res = await browser.call('post', '/v1/profiles').set('Origin', 'http://app.example:3000').send({ name: 'From the app' });
        expectStatus(res, 201);
        expect(res.headers['access-control-allow-origin']).toBe(cors[0]);
      } finally {
        await browser.close();
      }
    }
  });
});
