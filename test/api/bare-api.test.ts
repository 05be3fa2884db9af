import { IncomingMessage } from 'node:http';
import express from 'express';
import request from 'supertest';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_API_KEY } from '../../src/server.js';
import { TEST_CLOCK, useMock } from '../helpers/mock.js';
import { listening, proxyTo } from '../proxy/helpers.js';
import { HOSTILE_STRINGS } from '../fuzz/requests.js';
import { percentEncode } from '../fuzz/wire.js';

/**
 * The API and the control plane are answered on Node's own request and response objects, before
 * Express (src/http/bare-api.ts); a request that already carries Express's prototypes (the mock
 * mounted in another Express app) goes through Express. Both must answer alike.
 */
describe('the API on Node’s objects and through Express', () => {
  const mock = useMock();
  /** The mock's app mounted in an integrator's own Express app. */
  let outer: express.Express;

  beforeAll(() => {
    outer = express();
    outer.use(mock.server.app);
  });
  afterEach(() => vi.restoreAllMocks());

  /** How many requests Express gave its prototypes while `send` ran. */
  async function requestsGivenPrototypes(send: () => Promise<unknown>): Promise<number> {
    const setPrototypeOf = vi.spyOn(Object, 'setPrototypeOf');
    await send();
    const count = setPrototypeOf.mock.calls.filter(([target]) => target instanceof IncomingMessage).length;
    setPrototypeOf.mockRestore();
    return count;
  }

  const exchanges: Array<[string, string, (agent: request.Agent | ReturnType<typeof request>) => request.Test]> = [
    ['a page', 'GET /v1/posts?limit=2', (agent) => agent.get('/v1/posts?limit=2').set('x-api-key', DEFAULT_API_KEY)],
    ['a created post', 'POST /v1/posts', (agent) => agent.post('/v1/posts').set('x-api-key', DEFAULT_API_KEY).send({ text: 'Hello', destinations: [{ connectionId: 'nope' }] })],
    ['a bad query', 'GET /v1/posts?limit=abc', (agent) => agent.get('/v1/posts?limit=abc').set('x-api-key', DEFAULT_API_KEY)],
    ['no key', 'GET /v1/connections', (agent) => agent.get('/v1/connections')],
    ['no such path', 'GET /v1/nothing', (agent) => agent.get('/v1/nothing').set('x-api-key', DEFAULT_API_KEY)],
    ['a path in capitals', 'GET /V1/posts', (agent) => agent.get('/V1/posts').set('x-api-key', DEFAULT_API_KEY)],
    ['a body that is not JSON', 'POST /v1/posts', (agent) => agent.post('/v1/posts').set('x-api-key', DEFAULT_API_KEY).set('content-type', 'application/json').send('{"text":')],
    // The control plane, mounted at /__control: Express's mount gives its steps the prefix as baseUrl, the rest as path.
    ['the clock', 'GET /__control/clock', (agent) => agent.get('/__control/clock')],
    ['a clock move refused', 'POST /__control/clock/advance', (agent) => agent.post('/__control/clock/advance').send({ by: 'P1Y' })],
    ['a trigger with a bad body', 'POST /__control/inbound/comments', (agent) => agent.post('/__control/inbound/comments').send({ text: 7 })],
    ['a control path no operation has', 'GET /__control/nothing', (agent) => agent.get('/__control/nothing?x=1')],
    ['a method the control path does not take', 'DELETE /__control/clock', (agent) => agent.delete('/__control/clock')],
    ['the control prefix in capitals', 'GET /__CONTROL/clock', (agent) => agent.get('/__CONTROL/clock')],
    ['the control prefix alone', 'GET /__control', (agent) => agent.get('/__control')],
    ['the control prefix and a slash', 'GET /__control/', (agent) => agent.get('/__control/')],
    ['a workspace key the server does not know', 'GET /__control/journal', (agent) => agent.get('/__control/journal?limit=1').set('x-api-key', 'sgw_test_nobody')],
  ];

  it.each(exchanges)('answers %s (%s) with the same status, headers and body either way', async (_name, label, send) => {
    const bare = await send(request(mock.server.app));
    const mounted = await send(request(outer));
    expect(mounted.status).toBe(bare.status);
    expect(mounted.text).toBe(bare.text);
    for (const name of ['content-type', 'content-length', 'date', 'x-ratelimit-limit', 'allow']) expect(mounted.headers[name], name).toBe(bare.headers[name]);
    expect(bare.headers.date).toBe(new Date(TEST_CLOCK).toUTCString());
    // The API's answers carry the rate-limit window, the control plane's do not.
    expect(bare.headers['x-ratelimit-limit'] !== undefined).toBe(/ \/v1\//i.test(label));
    expect(bare.headers['x-powered-by']).toBeUndefined();
    expect(bare.headers['content-type']).toMatch(/^application\/json/);
  });

  it('answers a 404 in the API’s envelope, with its headers, for a path under /v1 that no operation has', async () => {
    const res = await request(mock.server.app).get('/v1/nothing?x=1').set('x-api-key', DEFAULT_API_KEY);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
    expect(res.headers['x-ratelimit-remaining']).toBeDefined();
    const journal = await mock.control('get', '/__control/journal?limit=1');
    expect(journal.body.data[0]).toMatchObject({ method: 'GET', path: '/v1/nothing', query: 'x=1', status: 404 });
  });

  it('answers hostile strings in a control path, query and body alike directly and mounted, in the envelope, and still answers after', async () => {
    for (const hostile of HOSTILE_STRINGS) {
      const encoded = percentEncode(hostile);
      const sends = [
        (agent: ReturnType<typeof request>) => agent.get(`/__control/${encoded}`),
        (agent: ReturnType<typeof request>) => agent.get(`/__control/journal?limit=1&operationId=${encoded}`),
        (agent: ReturnType<typeof request>) => agent.get(`/__CONTROL/limits?${encoded}=${encoded}`),
        (agent: ReturnType<typeof request>) => agent.post('/__control/clock/advance').send({ by: hostile }),
      ];
      for (const send of sends) {
        const bare = await send(request(mock.server.app));
        const mounted = await send(request(outer));
        expect(mounted.status).toBe(bare.status);
        expect(mounted.text).toBe(bare.text);
        expect(bare.status === 200 || (bare.status >= 400 && bare.status < 500), `${bare.status} ${bare.text.slice(0, 200)}`).toBe(true);
        // A 100 KB string in the request target is past --max-header-size: Node's parser answers 431 before any step (docs/reliability.md).
        if (bare.status === 431) expect(encoded.length).toBeGreaterThan(16 * 1024);
        else if (bare.status !== 200) expect(typeof bare.body.error?.code).toBe('string');
      }
    }
    const health = await request(mock.server.app).get('/__control/health');
    expect(health.status).toBe(200);
    expect(health.body.failures.total).toBe(0);
  });

  it('never gives an API or control-plane request Express’s prototypes, and leaves every other route to Express', async () => {
    expect(await requestsGivenPrototypes(() => request(mock.server.app).get('/v1/connections').set('x-api-key', DEFAULT_API_KEY))).toBe(0);
    expect(await requestsGivenPrototypes(() => request(mock.server.app).post('/v1/posts').set('x-api-key', DEFAULT_API_KEY).send({}))).toBe(0);
    expect(await requestsGivenPrototypes(() => request(mock.server.app).get('/__control/clock'))).toBe(0);
    expect(await requestsGivenPrototypes(() => request(mock.server.app).post('/__control/clock/advance').send({ by: 'PT1S' }))).toBe(0);
    expect(await requestsGivenPrototypes(() => request(mock.server.app).get('/openapi.yaml'))).toBe(1);
    expect(await requestsGivenPrototypes(() => request(mock.server.app).get('/__controlx'))).toBe(1);
    // Mounted in another app, the request already has Express's prototypes: the mock's Express answers it.
    expect(await requestsGivenPrototypes(() => request(outer).get('/v1/connections').set('x-api-key', DEFAULT_API_KEY))).toBeGreaterThan(0);
  });

  it('answers a proxy’s /v1 on Node’s objects too, its own 502 included', async () => {
    const upstream = await listening({});
    const proxy = await proxyTo(upstream.url);
    try {
      let answer: request.Response | undefined;
      expect(await requestsGivenPrototypes(async () => (answer = await request(proxy.server.app).get('/v1/connections').set('x-api-key', DEFAULT_API_KEY)))).toBe(0);
      expect(answer?.status).toBe(200);
      await upstream.close();
      expect(await requestsGivenPrototypes(async () => (answer = await request(proxy.server.app).get('/v1/connections').set('x-api-key', DEFAULT_API_KEY)))).toBe(0);
      expect(answer?.status).toBe(502);
      expect(answer?.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(answer?.body.error).toMatchObject({ code: 'PLATFORM_ERROR', details: { reason: 'refused' } });
    } finally {
      await proxy.close();
    }
  });
});
