import { connect } from 'node:net';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { parseFixture } from '../../src/api/world/fixture-file.js';
import { STATE_BODY_LIMIT_BYTES } from '../../src/control/body-limits.js';
import { expectApiError, expectStatus, startMock, TEST_CLOCK, useMock } from '../helpers/mock.js';
import { rawExchange } from '../helpers/raw-http.js';

/** Names on Object.prototype that a lookup `records[id]` would find without an own record. */
const INHERITED_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__'];

const prototypeNames = Object.getOwnPropertyNames(Object.prototype).sort();

/** Object.prototype is exactly as Node made it: nothing added, nothing replaced. */
function expectNoPollution(): void {
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeNames);
  expect(Object.getPrototypeOf({})).toBe(Object.prototype);
}

function portOf(url: string): number {
  return Number(new URL(url).port);
}

const mock = useMock({}, { listen: true });

describe('request bodies', () => {
  describe('when the body is over the 1 MiB default limit', () => {
    it('answers 413 PAYLOAD_TOO_LARGE in the envelope, before validating it', async () => {
      const res = await mock.call('post', '/v1/profiles').set('Content-Type', 'application/json').send(JSON.stringify({ name: 'x'.repeat(1024 * 1024) }));
      expectApiError(res, 413, 'PAYLOAD_TOO_LARGE');
    });

    it('reads a snapshot to restore up to 64 MiB: 1 MiB on PUT /__control/state is validated, not refused', async () => {
      const res = await mock.control('put', '/__control/state').set('Content-Type', 'application/json').send(JSON.stringify({ pad: 'x'.repeat(1024 * 1024) }));
      expectApiError(res, 400, 'VALIDATION_ERROR');
    });

    it('answers 413 on PUT /__control/state over its 64 MiB limit', async () => {
      const body = JSON.stringify({ pad: 'x'.repeat(STATE_BODY_LIMIT_BYTES) });
      const res = await mock.control('put', '/__control/state').set('Content-Type', 'application/json').send(body);
      expectApiError(res, 413, 'PAYLOAD_TOO_LARGE');
    });

    it('answers 413 on any other control operation over --body-limit, as on /v1', async () => {
      const res = await mock.control('post', '/__control/clock/advance').set('Content-Type', 'application/json').send(JSON.stringify({ by: 'PT1H', pad: 'x'.repeat(1024 * 1024) }));
      expectApiError(res, 413, 'PAYLOAD_TOO_LARGE');
    });
  });

  describe('when the body is just under the limit', () => {
    it('reads it and validates it (400, not 413)', async () => {
      const res = await mock.call('post', '/v1/profiles').set('Content-Type', 'application/json').send(JSON.stringify({ name: 'x'.repeat(1024 * 1024 - 100) }));
      expectApiError(res, 400, 'VALIDATION_ERROR', 'name');
    });
  });

  describe('when an operation that takes no body gets one', () => {
    it.each([
      ['past the body limit', 'application/json', JSON.stringify({ padding: 'x'.repeat(1_100_000) })],
      ['that is not JSON', 'application/json', '{"padding":'],
      ['of another type', 'text/plain', 'plain words'],
    ])('ignores a body %s (GET /v1/connections declares neither 413 nor 415)', async (_kind, type, body) => {
      expectStatus(await mock.call('get', '/v1/connections').set('Content-Type', type).send(body), 200);
    });
  });
});

describe('Content-Type', () => {
  // The validator builds and keeps a validator per distinct header value; the pipeline
  // cuts the header to its media type first (docs/reliability.md has the figures).
  it.each(['application/json; charset=utf-8', 'application/json; v=1', 'Application/JSON; profile="x"; v=2'])('reads the body of %s as JSON', async (type) => {
    const name = `Typed ${type.length}-${type.charCodeAt(type.length - 1)}`;
    expectStatus(await mock.call('post', '/v1/profiles').set('Content-Type', type).send(JSON.stringify({ name })), 201);
  });

  it.each(['application/vnd.api+json', 'application/x-www-form-urlencoded', 'text/json', 'multipart/form-data; boundary=x'])('answers %s with 415 UNSUPPORTED_MEDIA_TYPE naming the header', async (type) => {
    expectApiError(await mock.call('post', '/v1/profiles').set('Content-Type', type).send('{"name":"x"}'), 415, 'UNSUPPORTED_MEDIA_TYPE', 'Content-Type');
  });
});

describe('numbers that are not finite', () => {
  it.each(['Infinity', '1e309', '-Infinity'])('answers 400 VALIDATION_ERROR for ?limit=%s (the validator lets it through maximum: 100)', async (value) => {
    expectApiError(await mock.call('get', `/v1/accounts?limit=${value}`), 400, 'VALIDATION_ERROR', 'limit');
  });

  it('answers 400 for 1e999 in a JSON body (JSON.parse makes it Infinity)', async () => {
    const res = await mock.control('post', '/__control/clock/advance').set('Content-Type', 'application/json').send('{"ms": 1e999}');
    expectApiError(res, 400, 'VALIDATION_ERROR', 'ms');
  });
});

describe('the control plane, on requests its operations do not expect', () => {
  it.each(['/__control/health', '/__control/clock', '/__control/limits'])('answers GET %s?x=1 with 400 VALIDATION_ERROR, a status its contract declares', async (path) => {
    expectApiError(await mock.control('get', `${path}?x=1`), 400, 'VALIDATION_ERROR', 'x');
  });

  it.each(['/__control/clock/freeze', '/__control/clock/resume', '/__control/keys'])('answers POST %s?x=1 with 400 too', async (path) => {
    expectApiError(await mock.control('post', `${path}?x=1`), 400, 'VALIDATION_ERROR', 'x');
  });

  it.each(['/__control/workspaces', '/__control/clock/advance', '/__control/clock/set', '/__control/limits', '/__control/keys'])('answers a POST %s body that is not JSON with 415, a status its contract declares', async (path) => {
    expectApiError(await mock.control('post', path).set('Content-Type', 'application/xml').send('<by>PT1H</by>'), 415, 'UNSUPPORTED_MEDIA_TYPE');
  });
});

describe('prototype pollution', () => {
  describe('from JSON bodies', () => {
    it.each([
      ['at the top level', '{"name":"Safe","__proto__":{"polluted":"yes"}}', '/v1/profiles'],
      ['as constructor.prototype', '{"name":"Safe","constructor":{"prototype":{"polluted":"yes"}}}', '/v1/profiles'],
      ['inside a free-form map', '{"redirectUrl":"https://app.example/cb","metadata":{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}}', '/v1/connections/instagram/connect'],
    ])('leaves Object.prototype alone %s', async (_where, body, path) => {
      const res = await mock.call('post', path).set('Content-Type', 'application/json').send(body);
      expect(res.status, res.text).toBeLessThan(500);
      expectNoPollution();
    });

    it('refuses __proto__ as an unknown field of a closed body, naming it', async () => {
      const res = await mock.call('post', '/v1/profiles').set('Content-Type', 'application/json').send('{"name":"Safe","__proto__":{"polluted":"yes"}}');
      expectApiError(res, 400, 'VALIDATION_ERROR', '__proto__');
    });
  });

  describe('from query strings', () => {
    it.each(['__proto__[polluted]=yes', '__proto__.polluted=yes', 'constructor[prototype][polluted]=yes', '__proto__=yes'])('refuses ?%s as an unknown parameter and pollutes nothing', async (query) => {
      const res = await mock.call('get', `/v1/accounts?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expectNoPollution();
    });
  });

  describe('from YAML', () => {
    it('keeps __proto__ keys as plain data in the yaml parser the mock uses', () => {
      const parsed = parseYaml('__proto__:\n  polluted: yes\nconstructor:\n  prototype:\n    polluted: yes\n') as Record<string, unknown>;
      expect(Object.hasOwn(parsed, '__proto__')).toBe(true);
      expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
      expectNoPollution();
    });

    it('refuses __proto__ in a fixture file as an unknown field, with its line', () => {
      expect(() => parseFixture('__proto__:\n  polluted: yes\n', 'evil.yaml')).toThrow(/^evil\.yaml:\d+:\d+: __proto__: unknown field "__proto__"/);
      expectNoPollution();
    });
  });
});

describe('ids that name members of Object.prototype', () => {
  describe('GET /v1/accounts/{id}', () => {
    it.each(INHERITED_NAMES)('answers 404 NOT_FOUND for %s', async (name) => {
      expectApiError(await mock.call('get', `/v1/accounts/${encodeURIComponent(name)}`), 404, 'NOT_FOUND');
    });
  });

  describe('a post named in a query or a body', () => {
    it.each(INHERITED_NAMES)('GET /v1/comments?post=%s answers 400 asking for the account a network post id needs', async (name) => {
      expectApiError(await mock.call('get', `/v1/comments?post=${encodeURIComponent(name)}`), 400, 'VALIDATION_ERROR', 'accountId');
    });

    it.each(INHERITED_NAMES)('POST /v1/likes { post: %s } too', async (name) => {
      expectApiError(await mock.call('post', '/v1/likes').send({ post: name }), 400, 'VALIDATION_ERROR', 'accountId');
    });
  });

  describe('DELETE /v1/profiles/{id}', () => {
    it.each(INHERITED_NAMES)('answers 404 NOT_FOUND for %s and deletes nothing', async (name) => {
      const before = await mock.call('get', '/v1/profiles?limit=100');
      expectApiError(await mock.call('delete', `/v1/profiles/${encodeURIComponent(name)}`), 404, 'NOT_FOUND');
      expect((await mock.call('get', '/v1/profiles?limit=100')).body).toEqual(before.body);
    });
  });
});

describe('URL and header limits', () => {
  describe('when the request target is over 8 KiB', () => {
    it('answers 414 URI_TOO_LONG in the envelope, with the rate-limit headers of a /v1 call', async () => {
      const res = await mock.call('get', `/v1/accounts?cursor=${'a'.repeat(9000)}`);
      expectApiError(res, 414, 'URI_TOO_LONG');
      expect(res.headers['x-ratelimit-limit']).toBeDefined();
    });

    it('answers 414 on any path, known or not', async () => {
      expectApiError(await mock.call('get', `/${'b'.repeat(9000)}`), 414, 'URI_TOO_LONG');
    });
  });

  describe('when the target is just under 8 KiB', () => {
    it('goes on to the pipeline', async () => {
      const res = await mock.call('get', `/v1/accounts?cursor=${'a'.repeat(8000)}`);
      expectApiError(res, 400, 'INVALID_CURSOR', 'cursor');
    });
  });

  describe('when the request line and headers are over 16 KiB', () => {
    it('answers 431 HEADERS_TOO_LARGE in the envelope and closes the connection', async () => {
      const res = await rawExchange(portOf(mock.url), {
        chunks: [`GET /v1/connections HTTP/1.1\r\nHost: localhost\r\nx-api-key: sgw_test_default\r\nX-Padding: ${'p'.repeat(17 * 1024)}\r\n\r\n`],
        giveUpMs: 5000,
      });
      expect(res.status).toBe(431);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse(res.body)).toEqual({ error: { code: 'HEADERS_TOO_LARGE', message: expect.stringContaining('16384') } });
      expect(res.closedByServer).toBe(true);
    });

    it('answers 431 for a URL past the header limit too', async () => {
      const res = await rawExchange(portOf(mock.url), { chunks: [`GET /v1/accounts?cursor=${'c'.repeat(20 * 1024)} HTTP/1.1\r\nHost: localhost\r\n\r\n`], giveUpMs: 5000 });
      expect(res.status).toBe(431);
      expect(JSON.parse(res.body).error.code).toBe('HEADERS_TOO_LARGE');
    });

    it('reads off what the client still sends after the answer, so a client writing a 1 MB request line gets the 431, not a reset', async () => {
      // The fuzz's 100 KB hostile query strings, percent-encoded: Node's http client was still
      // writing them when the server closed, and saw EPIPE instead of the answer in its buffer.
      const outcome = await new Promise<{ answer: string; error?: string }>((resolve) => {
        const socket = connect({ port: portOf(mock.url), host: '127.0.0.1', allowHalfOpen: true });
        let answer = '';
        let rest = false;
        socket.on('data', (chunk: Buffer) => {
          answer += chunk.toString('utf8');
          if (rest || !answer.includes('HEADERS_TOO_LARGE')) return;
          rest = true;
          // The answer is here; the client has 1 MB of its request line still to send, a chunk a turn.
          const more = Buffer.alloc(64 * 1024, 'a');
          let left = 16;
          const next = (): void => {
            if (socket.destroyed) return;
            if (left-- === 0) return void socket.end();
            socket.write(more, () => setImmediate(next));
          };
          next();
        });
        socket.on('error', (error: NodeJS.ErrnoException) => resolve({ answer, error: error.code }));
        socket.on('close', () => resolve({ answer }));
        socket.write(`GET /v1/accounts?cursor=${'%E2%80%AE'.repeat(4 * 1024)}`);
      });
      expect(outcome.error).toBeUndefined();
      expect(outcome.answer).toMatch(/^HTTP\/1\.1 431 /);
    });

    it('cuts a client that goes on sending past 4 MiB after the answer', async () => {
      const outcome = await new Promise<{ sent: number; error?: string }>((resolve) => {
        const socket = connect({ port: portOf(mock.url), host: '127.0.0.1', allowHalfOpen: true });
        let sent = 0;
        const more = Buffer.alloc(64 * 1024, 'a');
        const pump = (): void => {
          while (sent < 64 * 1024 * 1024 && !socket.destroyed) {
            sent += more.length;
            if (!socket.write(more)) return void socket.once('drain', pump);
          }
          socket.end();
        };
        socket.on('error', (error: NodeJS.ErrnoException) => resolve({ sent, error: error.code }));
        socket.on('close', () => resolve({ sent }));
        socket.on('data', () => {});
        socket.write('GET /v1/accounts?cursor=');
        pump();
      });
      expect(outcome.error).toMatch(/^(EPIPE|ECONNRESET)$/);
      expect(outcome.sent).toBeLessThan(64 * 1024 * 1024);
    });
  });

  describe('when the request is not HTTP', () => {
    it('answers 400 in the envelope and closes the connection', async () => {
      const res = await rawExchange(portOf(mock.url), { chunks: ['HELLO THERE\r\n\r\n'], giveUpMs: 5000 });
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body).error.code).toBe('VALIDATION_ERROR');
      expect(res.closedByServer).toBe(true);
    });
  });
});

describe('slow clients', () => {
  const slow = useMock({ httpLimits: { headersTimeoutMs: 400, requestTimeoutMs: 800, keepAliveTimeoutMs: 300 } }, { listen: true });

  describe('when the headers dribble in and never end', () => {
    it('answers 408 REQUEST_TIMEOUT in the envelope and closes the socket after headersTimeout', async () => {
      const header = Array.from({ length: 40 }, (_, i) => `X-Slow-${i}: ${i}\r\n`);
      const res = await rawExchange(portOf(slow.url), { chunks: ['GET /v1/connections HTTP/1.1\r\nHost: localhost\r\n', ...header], gapMs: 100, giveUpMs: 6000 });
      expect(res.closedByServer).toBe(true);
      expect(res.status).toBe(408);
      expect(JSON.parse(res.body).error.code).toBe('REQUEST_TIMEOUT');
      // Closed well before the client would have finished (40 lines, 100 ms apart).
      expect(res.elapsedMs).toBeLessThan(3000);
    });
  });

  describe('when the body dribbles in', () => {
    it('closes the socket after requestTimeout', async () => {
      const body = '{"name":"' + 'x'.repeat(30) + '"}';
      const head = `POST /v1/profiles HTTP/1.1\r\nHost: localhost\r\nx-api-key: sgw_test_default\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
      const res = await rawExchange(portOf(slow.url), { chunks: [head, ...body.split('')], gapMs: 100, giveUpMs: 8000 });
      expect(res.closedByServer).toBe(true);
      expect(res.status).toBe(408);
      expect(res.elapsedMs).toBeLessThan(4000);
    });
  });

  describe('when a keep-alive connection sits idle', () => {
    it('closes it after keepAliveTimeout', async () => {
      const res = await rawExchange(portOf(slow.url), { chunks: ['GET /__control/health HTTP/1.1\r\nHost: localhost\r\n\r\n'], giveUpMs: 5000 });
      expect(res.status).toBe(200);
      expect(res.closedByServer).toBe(true);
      expect(res.elapsedMs).toBeGreaterThanOrEqual(250);
      expect(res.elapsedMs).toBeLessThan(3000);
    });
  });
});

describe('shutdown', () => {
  describe('when a client never finishes its request', () => {
    it('closes its connection after the grace period instead of waiting for it', async () => {
      const server = await startMock({ httpLimits: { shutdownGraceMs: 200 } });
      const port = portOf(await server.server.listen(0));
      const stuck = rawExchange(port, { chunks: ['GET /v1/connections HTTP/1.1\r\nHost: localhost\r\n'], giveUpMs: 10_000 });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const started = performance.now();
      await server.close();
      expect(performance.now() - started).toBeLessThan(3_000);
      expect((await stuck).closedByServer).toBe(true);
    });
  });
});

describe('--cors', () => {
  const browser = useMock({ cors: ['http://app.example:3000'] });

  describe('a preflight from an allowed origin', () => {
    it('answers 204 with the methods and headers a client sends', async () => {
      const res = await request(browser.server.app)
        .options('/v1/posts')
        .set('Origin', 'http://app.example:3000')
        .set('Access-Control-Request-Method', 'POST')
        .set('Access-Control-Request-Headers', 'content-type, x-api-key, idempotency-key');
      expect(res.status).toBe(204);
      expect(res.headers).toMatchObject({ 'access-control-allow-origin': 'http://app.example:3000', vary: 'Origin' });
      // Answered before any workspace is known: dated by the default workspace's virtual clock, not the wall clock.
      expect(res.headers.date).toBe(new Date(TEST_CLOCK).toUTCString());
      expect(res.headers['access-control-allow-methods']).toContain('POST');
      expect(res.headers['access-control-allow-headers']).toMatch(/x-api-key/i);
      expect(res.headers['access-control-allow-headers']).toMatch(/Idempotency-Key/i);
    });
  });

  describe('a request from an allowed origin', () => {
    it('carries the allow-origin and expose headers, on errors too', async () => {
      const ok = await browser.call('get', '/v1/connections').set('Origin', 'http://app.example:3000');
      expectStatus(ok, 200);
      expect(ok.headers['access-control-allow-origin']).toBe('http://app.example:3000');
      expect(ok.headers['access-control-expose-headers']).toContain('X-RateLimit-Remaining');
      const refused = await browser.call('get', '/v1/connections', null).set('Origin', 'http://app.example:3000');
      expectApiError(refused, 401, 'UNAUTHORIZED');
      expect(refused.headers['access-control-allow-origin']).toBe('http://app.example:3000');
    });
  });

  describe('a request from another origin', () => {
    it('gets no CORS headers, so the browser withholds the answer', async () => {
      const res = await browser.call('get', '/v1/connections').set('Origin', 'http://evil.example');
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    });

    it('gets no preflight approval: the pipeline answers it like any keyless request', async () => {
      const res = await request(browser.server.app).options('/v1/posts').set('Origin', 'http://evil.example').set('Access-Control-Request-Method', 'DELETE');
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
      expectApiError(res, 401, 'UNAUTHORIZED');
    });
  });

  describe('without --cors', () => {
    it('sends no CORS headers at all', async () => {
      const res = await mock.call('get', '/v1/connections').set('Origin', 'http://app.example:3000');
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    });
  });

  describe("with '*'", () => {
    it('allows any origin without Vary', async () => {
      const open = await startMock({ cors: ['*'] });
      const res = await open.call('get', '/v1/connections').set('Origin', 'http://anything.example');
      expect(res.headers['access-control-allow-origin']).toBe('*');
      await open.close();
    });
  });
});

describe('webhook URLs', () => {
  // The contract's pattern ^https?:// refuses these before any webhook code runs.
  it.each(['ftp://hooks.example/x', 'file:///etc/passwd', 'javascript:alert(1)', 'gopher://hooks.example/', 'mailto:ops@hooks.example'])('refuses %s with 400 VALIDATION_ERROR on url', async (hookUrl) => {
    const res = await mock.call('post', '/v1/webhooks').send({ name: 'Hook', url: hookUrl, events: ['post.published'] });
    expectApiError(res, 400, 'VALIDATION_ERROR', 'url');
    expectApiError(await mock.call('patch', '/v1/webhooks/any-id').send({ url: hookUrl }), 400, 'VALIDATION_ERROR', 'url');
  });
});

describe('upload keys', () => {
  it('makes a presigned key from random hex, never from the file name, and refuses keys that are paths', async () => {
    for (const filename of ['../../../etc/passwd.png', '..\\..\\boot.ini.png', '/abs/olute.png', 'a/../../b.png', '%2e%2e%2fx.png']) {
      const res = await mock.call('post', '/v1/media/presign').send({ filename, contentType: 'image/png' });
      expectStatus(res, 200);
      const key = res.body.key as string;
      expect(key, filename).toMatch(/^[0-9a-f]{32}\.png$/);
      expect(new URL(res.body.uploadUrl as string).pathname).toBe(`/__uploads/${key}`);
    }
    for (const path of ['/__uploads/..%2f..%2fetc%2fpasswd', '/__uploads/%2e%2e', '/__media/..%2fpackage.json']) {
      const res = await request(mock.url).put(path).set('Content-Type', 'image/png').send(Buffer.from('x'));
      expect([400, 404], `${path}: ${res.status}`).toContain(res.status);
      expect(res.body, path).toMatchObject({ error: { code: expect.stringMatching(/^(VALIDATION_ERROR|NOT_FOUND)$/) as unknown } });
    }
  });
});
