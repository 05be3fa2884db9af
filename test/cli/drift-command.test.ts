import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Response } from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { DRIFT_FORMAT, type DriftReport } from '../../src/cli/drift-command.js';
import { RECORDING_FORMAT, writeExchange, type RecordedExchange, type RecordedRequest, type RecordedResponse } from '../../src/proxy/recording.js';
import { REDACTED } from '../../src/redaction/redactor.js';
import { cliIo } from '../helpers/cli-io.js';
import { useMock } from '../helpers/mock.js';

type Json = Record<string, unknown>;

async function drift(args: string[]) {
  const { streams, out, err } = cliIo();
  const result = await main(['drift', ...args], streams);
  return { exitCode: result.exitCode, out: out.join('\n'), err: err.join('\n') };
}

/** A supertest answer as the proxy records it. */
function recorded(res: Response): RecordedResponse {
  const headers = Object.fromEntries(Object.entries(res.headers as Record<string, string | string[]>).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : value]));
  if (res.text === '' || res.text === undefined) return { status: res.status, headers };
  return /json/.test(headers['content-type'] ?? '') ? { status: res.status, headers, json: JSON.parse(res.text) as unknown } : { status: res.status, headers, text: res.text };
}

function exchange(seq: number, operationId: string | null, request: Omit<RecordedRequest, 'headers'> & { headers?: Record<string, string> }, response: RecordedResponse | null): RecordedExchange {
  return {
    format: RECORDING_FORMAT,
    seq,
    operationId,
    startedAt: '2026-03-02T09:00:00.000Z',
    durationMs: 3,
    request: { headers: { 'x-api-key': REDACTED }, ...request },
    response,
  };
}

function recording(exchanges: RecordedExchange[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'sgw-drift-'));
  for (const one of exchanges) writeExchange(dir, one);
  return dir;
}

const withHeader = (response: RecordedResponse, name: string, value: string): RecordedResponse => ({ ...response, headers: { ...response.headers, [name]: value } });
const withJson = (response: RecordedResponse, json: unknown): RecordedResponse => ({ ...response, json });

describe('social-gateway-mock drift', () => {
  const mock = useMock();
  /** Exchanges of the mock's own answers: the baseline a drifting upstream is planted on. */
  const own: RecordedExchange[] = [];
  let webhook: RecordedResponse;
  let webhooks: RecordedResponse;
  let posts: RecordedResponse;
  let webhookPath: string;

  beforeAll(async () => {
    const get = async (path: string) => mock.call('get', path);
    const add = (res: Response, operationId: string, method: string, path: string, query = '', json?: unknown) => {
      own.push(exchange(own.length + 1, operationId, { method, path, query, ...(json !== undefined && { json, headers: { 'x-api-key': REDACTED, 'content-type': 'application/json' } }) }, recorded(res)));
      return recorded(res);
    };
    const created = await mock.call('post', '/v1/webhooks').send({ name: 'CRM', url: 'https://hooks.example-client.com/gateway', events: ['post.published'] });
    add(created, 'createWebhook', 'POST', '/v1/webhooks', '', { name: 'CRM', url: 'https://hooks.example-client.com/gateway', events: ['post.published'] });
    webhookPath = `/v1/webhooks/${(created.body as Json).id as string}`;
    webhook = add(await get(webhookPath), 'getWebhook', 'GET', webhookPath);
    webhooks = add(await get('/v1/webhooks'), 'listWebhooks', 'GET', '/v1/webhooks');
    posts = add(await get('/v1/posts?limit=5'), 'listPosts', 'GET', '/v1/posts', 'limit=5');
    add(await get('/v1/accounts'), 'listAccounts', 'GET', '/v1/accounts');
    add(await get('/v1/webhooks/0f8e7d6c-5b4a-4392-8a1b-2c3d4e5f6a7b'), 'getWebhook', 'GET', '/v1/webhooks/0f8e7d6c-5b4a-4392-8a1b-2c3d4e5f6a7b');
    expect(own.map((one) => one.response?.status)).toEqual([201, 200, 200, 200, 200, 404]);
  });

  it('finds no drift in the mock’s own answers, and exits 0', async () => {
    const result = await drift([recording(own)]);
    expect(result.err).toBe('');
    expect(result.out).toContain('getWebhook: 2 exchanges (200 ×1, 404 ×1)');
    expect(result.out).not.toContain('not in the contract');
    expect(result.out.split('\n').at(-1)).toBe('No drift: every recorded answer matches the contract.');
    expect(result.exitCode).toBe(0);
  });

  describe('a recording of an upstream that drifts', () => {
    let dir: string;
    beforeAll(() => {
      const firstPost = (posts.json as { data: Json[] }).data[0] as Json;
      const page = webhooks.json as { data: Json[] };
      const exchanges = [
        ...own,
        // An extra field, twice: counted per exchange.
        exchange(7, 'getWebhook', { method: 'GET', path: webhookPath, query: '' }, withJson(webhook, { ...(webhook.json as Json), colour: 'blue' })),
        exchange(8, 'getWebhook', { method: 'GET', path: webhookPath, query: '' }, withJson(webhook, { ...(webhook.json as Json), colour: 'green' })),
        // An undeclared status.
        exchange(9, 'getWebhook', { method: 'GET', path: webhookPath, query: '' }, { ...webhook, status: 418, json: { error: { code: 'TEAPOT', message: 'I am a teapot.' } } }),
        // A new value of a closed enumeration, in an array item.
        exchange(10, 'listWebhooks', { method: 'GET', path: '/v1/webhooks', query: '' }, withJson(webhooks, { ...page, data: [{ ...page.data[0], events: ['post.published', 'post.exploded'] }] })),
        // A missing required field and a wrong format, in one list item.
        exchange(11, 'listPosts', { method: 'GET', path: '/v1/posts', query: 'limit=5' }, withJson(posts, { ...(posts.json as Json), data: [{ ...Object.fromEntries(Object.entries(firstPost).filter(([name]) => name !== 'status')), createdAt: 'yesterday' }] })),
        // An undeclared header of the API's namespace.
        exchange(12, 'listAccounts', { method: 'GET', path: '/v1/accounts', query: '' }, withHeader(own[4]?.response as RecordedResponse, 'x-ratelimit-burst', '10')),
        // Not drift: an answer that never came, and a request the client got wrong.
        { ...exchange(13, 'getWebhook', { method: 'GET', path: webhookPath, query: '' }, null), upstreamError: { code: 'UPSTREAM_TIMEOUT', message: 'the upstream did not answer within 5000 ms' } },
        exchange(14, 'listPosts', { method: 'GET', path: '/v1/posts', query: 'limit=1000' }, { ...(own[5]?.response as RecordedResponse), status: 400, json: { error: { code: 'VALIDATION_ERROR', message: 'limit must be <= 100', param: 'limit' } } }),
      ];
      dir = recording(exchanges);
    });

    it('names each planted difference with its count, and nothing else; exits 1', async () => {
      const result = await drift([dir]);
      expect(result.exitCode).toBe(1);
      const rows = result.out.split('\n').filter((line) => line.startsWith('    '));
      expect(rows.map((line) => line.trim().split(/\s{2,}/).slice(0, 3))).toEqual([
        ['undeclared-field', 'body/colour', '2 of 6'],
        ['undeclared-status', 'status', '1 of 6'],
        ['undeclared-header', 'header x-ratelimit-burst', '1 of 2'],
        ['wrong-format', 'body/data/*/createdAt', '1 of 3'],
        ['missing-required-field', 'body/data/*/status', '1 of 3'],
        ['constraint', 'query limit', '1 of 3'],
        ['undeclared-enum-value', 'body/data/*/events/*', '1 of 2'],
      ]);
      expect(result.out).toMatch(/undeclared-field +body\/colour +2 of 6 +e\.g\. "blue", "green"\n/);
      expect(result.out).toMatch(/undeclared-status +status +1 of 6 +e\.g\. 418\n/);
      expect(result.out).toMatch(/undeclared-enum-value +body\/data\/\*\/events\/\* +1 of 2 +e\.g\. "post\.exploded"/);
      expect(result.out).toContain("  requests that broke the contract (the client's, not drift):");
      expect(result.out).toContain('  no answer (not drift): UPSTREAM_TIMEOUT ×1: the upstream did not answer within 5000 ms');
      expect(result.out).toMatch(/undeclared-header +header x-ratelimit-burst +1 of 2 +e\.g\. "10" \(the contract allows it\)\n/);
      // The tolerated header is listed and counted, apart from what breaks the contract.
      expect(result.out.split('\n').at(-1)).toBe('Drift: 5 differences that break the contract in 3 of 5 operations (4 not in the contract, 1 required and missing); 1 more the contract allows; 1 request problem; 1 exchange without an answer.');
    });

    it('prints the same as one JSON document with --json', async () => {
      const result = await drift([dir, '--json']);
      expect(result.exitCode).toBe(1);
      const report = JSON.parse(result.out) as DriftReport;
      expect(report).toMatchObject({ format: DRIFT_FORMAT, recording: dir, contract: 'openapi.yaml', exchanges: 14, drift: true, strict: false });
      expect(report.totals).toEqual({ operations: 5, operationsWithDrift: 3, undeclared: 4, missing: 1, tolerated: 1, requestProblems: 1, noAnswer: 1 });
      const getWebhook = report.operations.find((operation) => operation.operationId === 'getWebhook');
      expect(getWebhook).toMatchObject({ exchanges: 6, statuses: { '200': 3, '404': 1, '418': 1 }, missing: [], requestProblems: [], noAnswer: [{ code: 'UPSTREAM_TIMEOUT', exchanges: 1 }] });
      expect(getWebhook?.undeclared).toEqual([
        { kind: 'undeclared-field', field: 'body/colour', exchanges: 2, examples: ['blue', 'green'], message: expect.stringContaining('body/colour'), tolerated: false },
        { kind: 'undeclared-status', field: 'status', exchanges: 1, examples: [418], message: 'status 418 is not declared for getWebhook', tolerated: false },
      ]);
      expect(report.operations.find((operation) => operation.operationId === 'listPosts')?.missing).toEqual([{ kind: 'missing-required-field', field: 'body/data/*/status', exchanges: 1, message: expect.any(String), tolerated: false }]);
    });
  });

  describe('a recording whose only drift is what the contract allows', () => {
    let dir: string;
    beforeAll(() => {
      dir = recording([own[4] as RecordedExchange, { ...(own[4] as RecordedExchange), seq: 2, response: withHeader(own[4]?.response as RecordedResponse, 'x-ratelimit-burst', '10') }]);
    });

    it('lists and counts it, and exits 0', async () => {
      const result = await drift([dir]);
      expect(result.out).toMatch(/undeclared-header +header x-ratelimit-burst +1 of 2 +e\.g\. "10" \(the contract allows it\)/);
      expect(result.out.split('\n').at(-1)).toBe('No drift that breaks the contract: 1 difference the contract allows (--strict fails on them).');
      expect(result.exitCode).toBe(0);
      const report = JSON.parse((await drift([dir, '--json'])).out) as DriftReport;
      expect(report).toMatchObject({ drift: false, strict: false, totals: { operationsWithDrift: 0, undeclared: 0, missing: 0, tolerated: 1 } });
    });

    it('exits 1 with --strict', async () => {
      const result = await drift([dir, '--strict']);
      expect(result.out.split('\n').at(-1)).toBe('No drift that breaks the contract: 1 difference the contract allows (failing under --strict).');
      expect(result.exitCode).toBe(1);
      expect((await drift([dir, '--strict', '--json'])).exitCode).toBe(1);
    });

    it('--strict changes nothing where there is no drift at all', async () => {
      expect((await drift([recording(own), '--strict'])).exitCode).toBe(0);
    });
  });

  it('reports a 2xx answer to a path the contract lacks as drift, and a refused one as the client’s', async () => {
    const unknown = (seq: number, status: number) => exchange(seq, null, { method: 'GET', path: '/v1/stories', query: '' }, { status, headers: { 'content-type': 'application/json' }, json: { data: [] } });
    const answered = await drift([recording([unknown(1, 200)]), '--json']);
    expect(answered.exitCode).toBe(1);
    expect((JSON.parse(answered.out) as DriftReport).operations).toEqual([expect.objectContaining({ operationId: null, request: 'GET /v1/stories', undeclared: [expect.objectContaining({ kind: 'unknown-operation' })] })]);
    const mixed = await drift([recording([unknown(1, 404), own[2] as RecordedExchange, { ...unknown(3, 404), request: { method: 'GET', path: '/v1/albums', query: '', headers: {} } }]), '--json']);
    expect((JSON.parse(mixed.out) as DriftReport).operations.map((operation) => operation.operationId ?? operation.request)).toEqual(['listWebhooks', 'GET /v1/albums', 'GET /v1/stories']);
    const refused = await drift([recording([unknown(1, 404)])]);
    expect(refused.exitCode).toBe(0);
    expect(refused.out).toContain('GET /v1/stories (no operation of the contract): 1 exchange (404 ×1)');
  });

  it('judges nothing a recording redacted', async () => {
    const path = '/v1/connections/oauth/instagram/accounts';
    const result = await drift([recording([exchange(1, 'listPendingInstagramAccounts', { method: 'GET', path, query: `tempToken=${REDACTED}`, headers: { authorization: `Bearer ${REDACTED}` } }, null)])]);
    expect(result.out).not.toContain('requests that broke');
    expect(result.exitCode).toBe(0);
  });

  it('still names a parameter the operation does not take, though its value was redacted', async () => {
    const result = await drift([recording([exchange(1, 'listAccounts', { method: 'GET', path: '/v1/accounts', query: `token=${REDACTED}` }, null)])]);
    expect(result.out).toContain('requests that broke the contract');
    expect(result.out).toMatch(/undeclared-field\s+query token/);
    expect(result.exitCode).toBe(0);
  });

  it('compares with another contract given by --contract', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'sgw-drift-contract-'));
    writeFileSync(join(cwd, 'tiny.yaml'), 'openapi: 3.0.3\ninfo: { title: t, version: "1" }\npaths:\n  /v1/webhooks:\n    get:\n      operationId: listHooks\n      responses:\n        "200": { description: ok }\n');
    const { streams, out } = cliIo({}, cwd);
    const result = await main(['drift', recording(own.slice(2, 3)), '--contract', 'tiny.yaml'], streams);
    expect(result.exitCode).toBe(1);
    expect(out.join('\n')).toContain('listHooks: 1 exchange (200 ×1)');
    expect(out.join('\n')).toMatch(/constraint +header content-type +1 of 1/);
  });

  describe('usage errors exit 2 with one line', () => {
    it.each([
      ['no folder', [], /^social-gateway-mock: drift needs the recording folder/],
      ['an unknown flag', ['dir', '--colour'], /^social-gateway-mock: unknown option '--colour'/],
      ['two folders', ['a', 'b'], /^social-gateway-mock: drift takes one folder/],
      ['a contract that is not there', ['dir', '--contract', 'missing.yaml'], /^social-gateway-mock: cannot read the contract missing\.yaml/],
    ])('%s', async (_name, args, message) => {
      const result = await drift(args);
      expect(result.exitCode).toBe(2);
      expect(result.err).toMatch(message);
      expect(result.out).toBe('');
    });

    it('a folder that is no recording', async () => {
      const empty = mkdtempSync(join(tmpdir(), 'sgw-drift-empty-'));
      const result = await drift([empty]);
      expect(result.exitCode).toBe(2);
      expect(result.err.split('\n')).toEqual([expect.stringMatching(/holds no recorded exchange/)]);
      writeFileSync(join(empty, '000001-getPost.json'), '{"format":"something else"}');
      expect((await drift([empty])).err).toMatch(/000001-getPost\.json: not an exchange/);
    });
  });

  it('prints its usage with --help', async () => {
    const result = await drift(['--help']);
    expect(result.exitCode).toBe(0);
    expect(result.out).toMatch(/^Usage: social-gateway-mock drift <DIR> \[--json\] \[--strict\] \[--contract <FILE>\]/);
    expect(result.out).toContain('Exit status: 0 when no difference breaks the contract (with --strict: when there is none at all), 1 when one');
  });
});
