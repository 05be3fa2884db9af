import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OperationIndex } from '../../src/http/operations.js';
import { loadSpec } from '../../src/http/spec.js';
import { ContractComparer, FINDING_KINDS, type Finding } from '../../src/proxy/compare.js';
import type { RecordedExchange, RecordedRequest, RecordedResponse } from '../../src/proxy/recording.js';
import { bodyExamples, walkEveryOperation } from '../contract/every-operation.js';
import { useMock } from '../helpers/mock.js';

type Exchange = Pick<RecordedExchange, 'request' | 'response'>;
type Json = Record<string, unknown>;

const comparer = new ContractComparer(loadSpec('openapi.yaml').document);

/** A Fetch API answer as the proxy records it: headers lower-cased, a JSON body parsed, any other kept as text. */
async function recordResponse(res: Response): Promise<RecordedResponse> {
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const text = await res.text();
  if (text === '') return { status: res.status, headers };
  try {
    if (/json/.test(headers['content-type'] ?? '')) return { status: res.status, headers, json: JSON.parse(text) as unknown };
  } catch {
    // Recorded as text below.
  }
  return { status: res.status, headers, text };
}

function recordRequest(url: URL, init: RequestInit = {}): RecordedRequest {
  const headers: Record<string, string> = {};
  new Headers(init.headers).forEach((value, name) => {
    headers[name] = value;
  });
  const request: RecordedRequest = { method: (init.method ?? 'GET').toUpperCase(), path: url.pathname, query: url.search.replace(/^\?/, ''), headers };
  if (typeof init.body === 'string') {
    try {
      request.json = JSON.parse(init.body) as unknown;
    } catch {
      request.text = init.body;
    }
  }
  return request;
}

/** The findings of one kind of a compared exchange, as `kind field` lines, for exact comparisons. */
function summary(findings: Finding[]): string[] {
  return findings.map((finding) => `${finding.side} ${finding.kind} ${finding.field}`);
}

describe('the mock’s own answers, compared with openapi.yaml', () => {
  const mock = useMock({}, { listen: true });
  let receiver: Server;
  let apiKey: string;
  const exchanges: Exchange[] = [];

  /** fetch, with every /v1 exchange kept as the proxy would record it. */
  async function call(path: string, init: RequestInit = {}): Promise<Exchange> {
    const target = new URL(path, mock.url);
    const res = await fetch(target, init);
    const exchange = { request: recordRequest(target, init), response: await recordResponse(res) };
    exchanges.push(exchange);
    return exchange;
  }

  beforeAll(async () => {
    receiver = createServer((_req, res) => res.writeHead(204).end());
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const workspace = await mock.control('post', '/__control/workspaces').send({});
    apiKey = workspace.body.apiKey as string;
    const realFetch = globalThis.fetch;
    globalThis.fetch = (async (input: string | URL | Request, init?: RequestInit) => {
      const target = new URL(String(input));
      if (!target.pathname.startsWith('/v1/')) return realFetch(input, init);
      const res = await realFetch(input, init);
      exchanges.push({ request: recordRequest(target, init), response: await recordResponse(res.clone()) });
      return res;
    }) as typeof fetch;
    try {
      await walkEveryOperation({ apiUrl: mock.url, mockUrl: mock.url, apiKey, hookUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook` });
    } finally {
      globalThis.fetch = realFetch;
    }
  });

  afterAll(async () => {
    await new Promise((resolve) => receiver.close(resolve));
  });

  it('walks every operation, 2xx and errors alike', () => {
    expect(new Set(exchanges.map((exchange) => comparer.compare(exchange).operationId)).size).toBeGreaterThan(50);
    expect(exchanges.some((exchange) => (exchange.response?.status ?? 0) >= 400)).toBe(true);
  });

  it('finds nothing in any answer of the walk', () => {
    const found = exchanges.flatMap((exchange) => comparer.compare(exchange).findings.map((finding) => `${exchange.request.method} ${exchange.request.path} ${exchange.response?.status}: ${finding.message}`));
    expect(found).toEqual([]);
  });

  describe('when the mock refuses the request', () => {
    const key = () => ({ 'x-api-key': apiKey });
    const refusals: Array<[string, () => Promise<Exchange>, string]> = [
      ['a limit over the maximum', () => call('/v1/posts?limit=1000', { headers: key() }), 'request constraint query limit'],
      ['an unknown query parameter', () => call('/v1/posts?colour=blue', { headers: key() }), 'request undeclared-field query colour'],
      ['a body missing a required field', () => call('/v1/webhooks', { method: 'POST', headers: { ...key(), 'content-type': 'application/json' }, body: JSON.stringify({ events: ['post.published'] }) }), 'request missing-required-field body/name'],
      ['a body that is not JSON', () => call('/v1/webhooks', { method: 'POST', headers: { ...key(), 'content-type': 'application/json' }, body: '{"url":' }), 'request body-not-json body'],
      ['a Content-Type the operation does not take', () => call('/v1/webhooks', { method: 'POST', headers: { ...key(), 'content-type': 'text/plain' }, body: 'hello' }), 'request invalid-request header content-type'],
      ['no credentials', () => call('/v1/posts'), 'request invalid-request header x-api-key'],
      ['a number too large to be finite', () => call('/v1/posts?limit=1e309', { headers: key() }), 'request constraint query limit'],
    ];

    it.each(refusals)('reports %s as the request’s fault, and nothing in the answer', async (_name, send, expected) => {
      const exchange = await send();
      expect(exchange.response?.status).toBeGreaterThanOrEqual(400);
      expect(exchange.response?.status).toBeLessThan(500);
      expect(summary(comparer.compare(exchange).findings)).toEqual([expected]);
    });

    it('reports a path no operation has as unknown, and checks nothing else', async () => {
      const exchange = await call('/v1/nothing-here', { headers: key() });
      expect(exchange.response?.status).toBe(404);
      expect(comparer.compare(exchange)).toEqual({ operationId: null, findings: [expect.objectContaining({ kind: 'unknown-operation', side: 'request', field: 'path' })] });
    });
  });

  describe('other answers of the mock', () => {
    it('finds nothing in a HEAD, an idempotent replay, a 404 and a 429', async () => {
      const headers = { 'x-api-key': apiKey, 'content-type': 'application/json', 'idempotency-key': 'compare-test-1' };
      const accounts = (await call('/v1/accounts?limit=100', { headers: { 'x-api-key': apiKey } })).response?.json as { data: Array<{ id: string; platform: string; status: string }> };
      const instagram = accounts.data.find((account) => account.platform === 'instagram' && account.status === 'active');
      const body = JSON.stringify(bodyExamples('syncAccount')[0]?.value);
      const answers = [
        await call('/v1/posts', { method: 'HEAD', headers: { 'x-api-key': apiKey } }),
        await call(`/v1/accounts/${instagram?.id}/sync`, { method: 'POST', headers, body }),
        await call(`/v1/accounts/${instagram?.id}/sync`, { method: 'POST', headers, body }),
        await call('/v1/webhooks/0f8e7d6c-5b4a-4392-8a1b-2c3d4e5f6a7b', { headers: { 'authorization': `Bearer ${apiKey}` } }),
      ];
      expect(answers[2]?.response?.headers['idempotent-replayed']).toBe('true');
      expect(answers[3]?.response?.status).toBe(404);
      const drained = await mock.control('post', '/__control/limits').set('x-api-key', apiKey).send({ drain: ['requests'] });
      expect(drained.status).toBeLessThan(300);
      const limited = await call('/v1/posts', { headers: { 'x-api-key': apiKey } });
      expect(limited.response?.status).toBe(429);
      for (const exchange of [...answers, limited]) expect(comparer.compare(exchange).findings, JSON.stringify(exchange.response)).toEqual([]);
    });
  });
});

// ------------------------------------------------------------------ planted differences

const RATE = { 'content-type': 'application/json; charset=utf-8', 'x-ratelimit-limit': '600', 'x-ratelimit-remaining': '599', 'x-ratelimit-reset': '1772442060', date: 'Mon, 02 Mar 2026 09:00:00 GMT' };
const ID = '0f8e7d6c-5b4a-4392-8a1b-2c3d4e5f6a7b';
const webhook: Json = {
  id: ID,
  name: 'Publish status to CRM',
  url: 'https://app.example-client.com/hooks',
  enabled: true,
  events: ['post.published'],
  createdAt: '2026-03-02T09:00:00.000Z',
  updatedAt: '2026-03-02T09:00:00.000Z',
  hasSecret: true,
  consecutiveFailures: 0,
  disabledReason: null,
};

function getWebhook(json: unknown, status = 200, headers: Record<string, string> = RATE): Exchange {
  return { request: { method: 'GET', path: `/v1/webhooks/${ID}`, query: '', headers: { 'x-api-key': '[REDACTED]' } }, response: { status, headers, json } };
}

const without = (object: Json, name: string): Json => Object.fromEntries(Object.entries(object).filter(([key]) => key !== name));
const headersWithout = (name: string) => without(RATE, name) as Record<string, string>;

describe('a planted difference', () => {
  it('the baseline answer yields nothing', () => {
    expect(comparer.compare(getWebhook(webhook))).toEqual({ operationId: 'getWebhook', findings: [] });
  });

  const cases: Array<[string, Exchange, Partial<Finding>]> = [
    ['an extra field', getWebhook({ ...webhook, colour: 'blue' }), { kind: 'undeclared-field', field: 'body/colour', value: 'blue' }],
    ['an undeclared status', getWebhook(webhook, 418), { kind: 'undeclared-status', field: 'status', value: 418 }],
    ['an error code the operation does not declare', getWebhook({ error: { code: 'INVALID_CURSOR', message: 'Bad cursor.' } }, 400), { kind: 'undeclared-error-code', field: 'body/error/code', value: 'INVALID_CURSOR' }],
    ['a new value of a closed enumeration', getWebhook({ ...webhook, events: ['post.published', 'post.exploded'] }), { kind: 'undeclared-enum-value', field: 'body/events/1', value: 'post.exploded' }],
    ['a missing required field', getWebhook(without(webhook, 'enabled')), { kind: 'missing-required-field', field: 'body/enabled' }],
    ['a wrong format', getWebhook({ ...webhook, createdAt: 'yesterday' }), { kind: 'wrong-format', field: 'body/createdAt', value: 'yesterday' }],
    ['a wrong type', getWebhook({ ...webhook, consecutiveFailures: '0' }), { kind: 'wrong-type', field: 'body/consecutiveFailures', value: '0' }],
    ['a broken constraint', getWebhook({ ...webhook, consecutiveFailures: -1 }), { kind: 'constraint', field: 'body/consecutiveFailures', value: -1 }],
    ['a missing required header', getWebhook(webhook, 200, headersWithout('x-ratelimit-reset')), { kind: 'missing-required-header', field: 'header x-ratelimit-reset' }],
    ['a header of the API’s namespace the response does not declare', getWebhook(webhook, 200, { ...RATE, 'x-ratelimit-burst': '10' }), { kind: 'undeclared-header', field: 'header x-ratelimit-burst', value: '10', tolerated: true }],
    ['a declared header of the wrong type', getWebhook(webhook, 200, { ...RATE, 'x-ratelimit-limit': 'lots' }), { kind: 'wrong-type', field: 'header x-ratelimit-limit', value: 'lots' }],
    ['a JSON body that does not parse', { ...getWebhook(undefined), response: { status: 200, headers: RATE, text: '{"id":' } }, { kind: 'body-not-json', field: 'body', value: '{"id":' }],
    ['a body where none is declared', { request: { method: 'DELETE', path: `/v1/webhooks/${ID}`, query: '', headers: { 'x-api-key': 'k' } }, response: { status: 200, headers: RATE, json: { deleted: true } } }, { kind: 'constraint', field: 'header content-type' }],
  ];

  it.each(cases)('%s yields exactly its finding', (_name, exchange, expected) => {
    const { findings } = comparer.compare(exchange);
    expect(findings).toEqual([expect.objectContaining({ side: 'response', ...expected })]);
    expect(findings[0]?.message).toMatch(/\S/);
    // Only what the contract allows is tolerated: an extra field in a closed object breaks it.
    expect(findings[0]?.tolerated ?? false).toBe(expected.tolerated ?? false);
  });

  it('an extra field where the schema allows more is drift the contract tolerates', () => {
    const automation = { id: ID, accountId: ID, name: 'n', kind: 'comment_to_dm', keywords: [], excludeKeywords: [], message: 'm', enabled: true, createdAt: '2026-03-01T09:00:00.000Z', updatedAt: '2026-03-01T09:00:00.000Z' };
    const exchange = (json: unknown): Exchange => ({ request: { method: 'GET', path: `/v1/automations/${ID}`, query: '', headers: { 'x-api-key': 'k' } }, response: { status: 200, headers: RATE, json } });
    expect(comparer.compare(exchange(automation)).findings).toEqual([]);
    // An open enumeration's value outside x-known-values: clients must tolerate it, yet it is new.
    expect(comparer.compare(exchange({ ...automation, kind: 'auto_like' })).findings).toEqual([expect.objectContaining({ kind: 'undeclared-enum-value', field: 'body/kind', value: 'auto_like', tolerated: true })]);
  });

  it('a free-form map declares everything under it', () => {
    const error = (details: unknown): Exchange => getWebhook({ error: { code: 'NOT_FOUND', message: 'No webhook.', details } }, 404);
    expect(comparer.compare(error({ anything: { at: ['all'] } })).findings).toEqual([]);
  });

  it('a field declared by either branch of a oneOf is declared, and one declared by none is not', () => {
    const connect = (json: unknown): Exchange => ({ request: { method: 'POST', path: '/v1/connections/instagram/connect', query: '', headers: { 'x-api-key': 'k', 'content-type': 'application/json' }, json: { redirectUrl: 'https://app.example.com/cb' } }, response: { status: 200, headers: RATE, json } });
    const redirect = { type: 'oauth', url: 'https://instagram.localhost/oauth/authorize?state=abc', expiresAt: '2026-03-02T09:15:00Z' };
    const redirectFindings = comparer.compare(connect(redirect)).findings;
    expect(redirectFindings).toEqual([]);
    expect(summary(comparer.compare(connect({ ...redirect, expiresIn: 600 })).findings)).toEqual(['response undeclared-field body/expiresIn']);
  });

  it.each([
    ['retry-after', '30'],
    ['idempotent-replayed', 'true'],
  ])('a header the contract declares elsewhere (%s) is undeclared on a response that does not', (name, value) => {
    expect(comparer.compare(getWebhook(webhook, 200, { ...RATE, [name]: value })).findings).toEqual([expect.objectContaining({ kind: 'undeclared-header', field: `header ${name}`, tolerated: true })]);
  });

  it('ordinary HTTP headers and other servers’ x- headers are not the API’s', () => {
    const headers = { ...RATE, etag: 'W/"1"', vary: 'Accept', server: 'nginx', 'x-powered-by': 'Express', 'access-control-allow-origin': '*', 'x-request-id': 'abc', 'cf-ray': '1', connection: 'keep-alive', 'x-content-type-options': 'nosniff' };
    expect(comparer.compare(getWebhook(webhook, 200, headers)).findings).toEqual([]);
  });

  it('several differences in one answer are each reported once', () => {
    const { findings } = comparer.compare(getWebhook({ ...without(webhook, 'url'), colour: 'blue', createdAt: 'soon' }, 200, headersWithout('x-ratelimit-limit')));
    expect(summary(findings).sort()).toEqual(['response missing-required-header header x-ratelimit-limit', 'response missing-required-field body/url', 'response undeclared-field body/colour', 'response wrong-format body/createdAt'].sort());
  });

  it('a response-less exchange (the upstream failed) is judged on its request only', () => {
    expect(comparer.compare({ ...getWebhook(webhook), response: null })).toEqual({ operationId: 'getWebhook', findings: [] });
  });

  it('never throws, whatever an upstream or a hand-edited recording holds', () => {
    const index = new OperationIndex(loadSpec('openapi.yaml').document);
    const bodies: unknown[] = [null, 'text', 0, true, [], {}, [null, 1], { data: [null, 'x', { id: 1 }] }, { error: null }, { '': { '~/': [] } }];
    let compared = 0;
    for (const operation of index.operations) {
      const path = operation.path.replace(/\{[^}]+\}/g, '%E0%A4%A');
      for (const json of bodies) {
        for (const status of [200, 201, 400, 429, 502]) {
          const request = { method: operation.method, path, query: 'limit=x&limit=y&a[b]=1', headers: {}, json } as RecordedRequest;
          expect(() => comparer.compare({ request, response: { status, headers: { 'content-type': 'application/json', 'x-ratelimit-limit': '-1' }, json } })).not.toThrow();
          compared += 1;
        }
      }
    }
    expect(compared).toBeGreaterThan(2000);
  });

  it('names only kinds of the agreed list', () => {
    const kinds = cases.map(([, exchange]) => comparer.compare(exchange).findings[0]?.kind);
    for (const kind of kinds) expect(FINDING_KINDS).toContain(kind);
  });
});
