import { describe, expect, it } from 'vitest';
import { rawExchange } from '../helpers/raw-http.js';
import { DEFAULT_API_KEY } from '../../src/server.js';
import { expectApiError, expectStatus, useMock } from '../helpers/mock.js';

const mock = useMock({ bodyLimit: '2kb' });

describe('authentication', () => {
  it('accepts the key as x-api-key', async () => {
    expectStatus(await mock.call('get', '/v1/connections'), 200);
  });

  it('accepts the key as Authorization: Bearer', async () => {
    const res = await mock.call('get', '/v1/connections', null).set('Authorization', 'Bearer sgw_test_default');
    expectStatus(res, 200);
  });

  describe('when the key is missing', () => {
    it('answers 401 UNAUTHORIZED', async () => {
      expectApiError(await mock.call('get', '/v1/connections', null), 401, 'UNAUTHORIZED');
    });
  });

  describe('when the key is the whole Authorization header, without Bearer', () => {
    it('answers 401 UNAUTHORIZED saying the Bearer scheme is missing, without echoing the key', async () => {
      const res = await mock.call('get', '/v1/connections', null).set('Authorization', DEFAULT_API_KEY);
      expectApiError(res, 401, 'UNAUTHORIZED');
      expect(res.body.error.message).toBe('The Authorization header has no Bearer scheme: send Authorization: Bearer <key> (the word Bearer, a space, then the key), or the key alone as x-api-key.');
      expect(JSON.stringify(res.body)).not.toContain(DEFAULT_API_KEY);
      expect((await mock.call('get', '/v1/connections', null).set('Authorization', 'Basic dXNlcjpwYXNz')).body.error.message).toMatch(/^The Authorization header has no Bearer scheme/);
    });
  });

  describe('when the key is unknown', () => {
    it('answers 401 UNAUTHORIZED on both header forms', async () => {
      expectApiError(await mock.call('get', '/v1/connections', 'sgw_test_nobody'), 401, 'UNAUTHORIZED');
      expectApiError(await mock.call('get', '/v1/connections', null).set('Authorization', 'Bearer sgw_test_nobody'), 401, 'UNAUTHORIZED');
    });
  });

  it('answers 401 before validating, so a bad request without a key is still 401', async () => {
    expectApiError(await mock.call('get', '/v1/accounts?limit=abc', null), 401, 'UNAUTHORIZED');
  });
});

describe('request validation', () => {
  it.each([
    ['a wrong type', 'get', '/v1/accounts?limit=abc', undefined, 'limit'],
    ['a value below the range', 'get', '/v1/accounts?limit=0', undefined, 'limit'],
    ['a value above the range', 'get', '/v1/accounts?limit=101', undefined, 'limit'],
    ['an enum value not allowed', 'get', '/v1/accounts?sort=newest', undefined, 'sort'],
    ['a date without a time', 'get', '/v1/accounts?since=2026-01-01', undefined, 'since'],
    ['a time without a zone', 'get', '/v1/accounts?until=2026-01-01T10:00:00', undefined, 'until'],
    ['an unknown query parameter', 'get', '/v1/accounts?colour=red', undefined, 'colour'],
    ['a string too short', 'post', '/v1/profiles', { name: '' }, 'name'],
    ['a string too long', 'post', '/v1/profiles', { name: 'x'.repeat(61) }, 'name'],
    ['a missing required field', 'post', '/v1/profiles', {}, 'name'],
    ['an unknown body field', 'post', '/v1/profiles', { name: 'Brand', colour: 'red' }, 'colour'],
    ['a wrong body type', 'post', '/v1/profiles', { name: 42 }, 'name'],
    ['a pattern mismatch', 'post', '/v1/connections/bluesky/connect', { identifier: 'me.bsky.social', appPassword: 'not-an-app-password' }, 'appPassword'],
    ['a nested field', 'post', '/v1/posts', { destinations: [{ connectionId: '' }] }, 'destinations[0].connectionId'],
    ['an array too long', 'post', '/v1/posts', { destinations: [{ connectionId: 'c' }], mediaUrls: Array.from({ length: 11 }, (_, i) => `https://cdn.example/${i}.png`) }, 'mediaUrls'],
  ] as const)('answers 400 VALIDATION_ERROR naming the param for %s', async (_kind, method, path, body, param) => {
    const res = body === undefined ? await mock.call(method, path) : await mock.call(method, path).send(body);
    expectApiError(res, 400, 'VALIDATION_ERROR', param);
  });

  it('says a message that names its field once, without prefixing the field again', async () => {
    expect((await mock.call('get', '/v1/accounts?colour=red')).body.error.message).toBe("Unknown query parameter 'colour'");
    expect((await mock.call('get', '/v1/accounts?limit=abc')).body.error.message).toMatch(/^limit must be /);
  });

  it.each([
    ['DELETE', '/v1/likes', 'destinationId'],
    ['POST', '/v1/profiles', 'name'],
  ])('reads a JSON %s %s sent with no body at all (no Content-Length) as an empty one: 400 naming %s, not a 500', async (method, path, param) => {
    const url = await mock.server.listen(0);
    const res = await rawExchange(Number(new URL(url).port), {
      chunks: [`${method} ${path} HTTP/1.1\r\nHost: localhost\r\nx-api-key: ${DEFAULT_API_KEY}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n`],
      giveUpMs: 5000,
    });
    expect(res.status, res.body).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: 'VALIDATION_ERROR', param } });
  });

  it('leaves the state as it was after a rejected request', async () => {
    const before = await mock.call('get', '/v1/profiles');
    await mock.call('post', '/v1/profiles').send({ name: 'x'.repeat(61) });
    const after = await mock.call('get', '/v1/profiles');
    expect(after.body).toEqual(before.body);
  });
});

describe('errors outside the handlers', () => {
  it('answers an unknown route with 404 NOT_FOUND in the envelope', async () => {
    expectApiError(await mock.call('get', '/v1/nothing-here'), 404, 'NOT_FOUND');
    expectApiError(await mock.call('get', '/elsewhere'), 404, 'NOT_FOUND');
  });

  it('names the path as the client sent it, mounted or not, without its query', async () => {
    expect((await mock.call('get', '/v1')).body.error.message).toBe('No route for GET /v1.');
    expect((await mock.call('get', '/v1/nothing-here?x=1')).body.error.message).toBe('No route for GET /v1/nothing-here.');
    expect((await mock.control('get', '/__control')).body.error.message).toBe('No route for GET /__control.');
    expect((await mock.call('put', '/v1/connections?limit=5')).body.error.message).toBe('PUT is not allowed on /v1/connections; use GET.');
  });

  it('answers a wrong method with 405 and an Allow header', async () => {
    const res = await mock.call('put', '/v1/connections');
    expectApiError(res, 405, 'METHOD_NOT_ALLOWED');
    expect(res.headers.allow).toBe('GET');
  });

  it('answers malformed JSON with 400 VALIDATION_ERROR', async () => {
    const res = await mock.call('post', '/v1/profiles').set('Content-Type', 'application/json').send('{"name": ');
    expectApiError(res, 400, 'VALIDATION_ERROR', 'body');
  });

  it('answers an oversized body with 413 PAYLOAD_TOO_LARGE', async () => {
    const res = await mock.call('post', '/v1/profiles').send({ name: 'x'.repeat(5000) });
    expectApiError(res, 413, 'PAYLOAD_TOO_LARGE');
  });

  it('answers a body that is not JSON with 415', async () => {
    const res = await mock.call('post', '/v1/profiles').set('Content-Type', 'text/plain').send('name=x');
    expectApiError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('never answers with HTML', async () => {
    const res = await mock.call('get', '/v1/%E0%A4%A');
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.status).toBeLessThan(500);
  });
});

describe('the journal hook', () => {
  it('records each /v1 request with its operation, status and error code', async () => {
    const { body: before } = await mock.control('get', '/__control/journal?limit=1');
    const after = before.data[0]?.seq ?? 0;
    await mock.call('get', '/v1/connections');
    await mock.call('get', '/v1/accounts?limit=0');
    const res = await mock.control('get', `/__control/journal?after=${after}`);
    expectStatus(res, 200);
    expect(res.body.data).toMatchObject([
      { method: 'GET', path: '/v1/connections', operationId: 'listConnections', status: 200, errorCode: null },
      { method: 'GET', path: '/v1/accounts', operationId: 'listAccounts', status: 400, errorCode: 'VALIDATION_ERROR' },
    ]);
  });
});
