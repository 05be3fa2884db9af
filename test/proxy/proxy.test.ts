import { readdirSync } from 'node:fs';
import { get, type IncomingHttpHeaders } from 'node:http';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CoverageTracker, coverageMarkdown } from '../../src/coverage/coverage.js';
import { loadSpec } from '../../src/http/spec.js';
import { VIOLATIONS_HEADER } from '../../src/proxy/proxy-router.js';
import { readRecording } from '../../src/proxy/recording.js';
import { DEFAULT_API_KEY } from '../../src/server.js';
import { listening, plainServer, proxyTo, refusedUrl, temporaryDir, type Listening } from './helpers.js';

/** Headers that belong to one connection, and the rate-limit count each call moves on. */
const PER_CONNECTION = new Set(['connection', 'keep-alive', 'transfer-encoding', 'x-ratelimit-remaining']);

function endToEnd(headers: Headers): Record<string, string> {
  return Object.fromEntries([...headers].filter(([name]) => !PER_CONNECTION.has(name)));
}

interface JournalEntry {
  method: string;
  path: string;
  operationId: string | null;
  status: number;
  errorCode: string | null;
  violations?: Array<{ side: string; kind: string; field: string; message: string; tolerated?: boolean }>;
}

async function journalOf(proxy: Listening): Promise<JournalEntry[]> {
  const res = await fetch(`${proxy.url}/__control/journal`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: JournalEntry[] }).data;
}

describe('proxy in front of a second mock instance', () => {
  let upstream: Listening;
  let proxy: Listening;
  const recording = temporaryDir();

  beforeAll(async () => {
    upstream = await listening({ strictResponses: true });
    proxy = await proxyTo(upstream.url, { recordDir: recording });
  });
  afterAll(async () => {
    await proxy.close();
    await upstream.close();
    expect(upstream.server.violations).toEqual([]);
  });

  it('answers what the upstream answers: status, headers and body byte for byte, with no findings', async () => {
    const init = { headers: { 'x-api-key': DEFAULT_API_KEY } };
    const direct = await fetch(`${upstream.url}/v1/connections`, init);
    const proxied = await fetch(`${proxy.url}/v1/connections`, init);
    expect(proxied.status).toBe(direct.status);
    expect(endToEnd(proxied.headers)).toEqual(endToEnd(direct.headers));
    expect(Number(proxied.headers.get('x-ratelimit-remaining'))).toBe(Number(direct.headers.get('x-ratelimit-remaining')) - 1);
    expect(Buffer.from(await proxied.arrayBuffer()).equals(Buffer.from(await direct.arrayBuffer()))).toBe(true);
    expect(proxied.headers.has(VIOLATIONS_HEADER)).toBe(false);
  });

  it("forwards the caller's body and headers, so the upstream's state changes and its errors come back as they are", async () => {
    const connections = (await (await fetch(`${upstream.url}/v1/connections`, { headers: { 'x-api-key': DEFAULT_API_KEY } })).json()) as { connections: Array<{ id: string; platform: string }> };
    const account = connections.connections.find((connection) => connection.platform === 'bluesky') as { id: string };
    const body = JSON.stringify({ text: 'Through the proxy', destinations: [{ connectionId: account.id }] });
    const created = await fetch(`${proxy.url}/v1/posts`, { method: 'POST', headers: { 'x-api-key': DEFAULT_API_KEY, 'content-type': 'application/json' }, body });
    expect(created.status).toBe(201);
    const { post } = (await created.json()) as { post: { id: string } };
    const read = await fetch(`${upstream.url}/v1/posts/${post.id}`, { headers: { 'x-api-key': DEFAULT_API_KEY } });
    expect(read.status).toBe(200);

    const refused = await fetch(`${proxy.url}/v1/posts`, { method: 'POST', headers: { 'x-api-key': 'sgw_not_a_key_of_it', 'content-type': 'application/json' }, body });
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('UNAUTHORIZED');
  });

  it('journals each exchange with its operation, status, error code and (no) findings', async () => {
    const entries = await journalOf(proxy);
    expect(entries.map(({ method, path, operationId, status, errorCode, violations }) => ({ method, path, operationId, status, errorCode, violations }))).toEqual([
      { method: 'GET', path: '/v1/connections', operationId: 'listConnections', status: 200, errorCode: null, violations: [] },
      { method: 'POST', path: '/v1/posts', operationId: 'createPost', status: 201, errorCode: null, violations: [] },
      { method: 'POST', path: '/v1/posts', operationId: 'createPost', status: 401, errorCode: 'UNAUTHORIZED', violations: [] },
    ]);
  });

  it('records each exchange as one file, JSON bodies as json', () => {
    expect(readdirSync(recording).sort()).toEqual(['000001-listConnections.json', '000002-createPost.json', '000003-createPost.json']);
    const [list, create] = readRecording(recording);
    expect(list?.response?.status).toBe(200);
    expect(list?.response?.json).toMatchObject({ connections: expect.any(Array) });
    expect(create?.request.json).toMatchObject({ text: 'Through the proxy' });
    expect(create?.request.headers['x-api-key']).toBe('[REDACTED]');
  });

  it('forwards a path the contract lacks too, and reports it as no operation', async () => {
    const res = await fetch(`${proxy.url}/v1/not-in-the-contract?x=1`, { headers: { 'x-api-key': DEFAULT_API_KEY } });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
    expect(res.headers.get(VIOLATIONS_HEADER)).toMatch(/^1; request unknown-operation /);
    const [entry] = (await journalOf(proxy)).slice(-1);
    expect(entry).toMatchObject({ path: '/v1/not-in-the-contract', operationId: null, status: 404, errorCode: 'NOT_FOUND' });
    expect(entry?.violations?.map((finding) => finding.kind)).toEqual(['unknown-operation']);
    expect(readdirSync(recording)).toContain('000004-unmatched.json');
  });

  it('leaves the mock\'s own pages and control plane alone (not forwarded)', async () => {
    const health = await fetch(`${proxy.url}/__control/health`);
    expect(health.status).toBe(200);
    const before = (await journalOf(upstream)).length;
    await fetch(`${proxy.url}/openapi.yaml`);
    expect((await journalOf(upstream)).length).toBe(before);
  });
});

/** A real answer of listConnections, and what the drifting upstream plants in it per `x-drift`. */
const DRIFTS: Record<string, (answer: { connections: Array<Record<string, unknown>> }) => { status?: number; body: unknown }> = {
  none: (answer) => ({ body: answer }),
  'extra-field': (answer) => ({ body: { connections: answer.connections.map((c, i) => (i === 0 ? { ...c, loyaltyTier: 'gold' } : c)) } }),
  'undeclared-status': () => ({ status: 409, body: { error: { code: 'CONFLICT', message: 'Busy.' } } }),
  'new-enum-value': (answer) => ({ body: { connections: answer.connections.map((c, i) => (i === 0 ? { ...c, authHealth: 'degraded' } : c)) } }),
  'open-enum-value': (answer) => ({ body: { connections: answer.connections.map((c, i) => (i === 0 ? { ...c, platform: 'mastodon' } : c)) } }),
  'missing-required-field': (answer) => ({ body: { connections: answer.connections.map((c, i) => (i === 0 ? Object.fromEntries(Object.entries(c).filter(([name]) => name !== 'platform')) : c)) } }),
};

describe('proxy in front of an upstream that drifts', () => {
  let upstream: Listening;
  let drifting: Awaited<ReturnType<typeof plainServer>>;
  let proxy: Listening;
  let strict: Listening;
  let answer: { connections: Array<Record<string, unknown>> };
  const recording = temporaryDir();

  beforeAll(async () => {
    upstream = await listening({});
    const real = await fetch(`${upstream.url}/v1/connections`, { headers: { 'x-api-key': DEFAULT_API_KEY } });
    answer = (await real.json()) as typeof answer;
    const rateHeaders = Object.fromEntries([...real.headers].filter(([name]) => name.startsWith('x-ratelimit-')));
    drifting = await plainServer((req, res) => {
      const drift = String(req.headers['x-drift'] ?? 'none');
      if (drift === 'slow') return; // Never answers: the proxy's timeout must end it.
      if (drift === 'drop') return req.socket.destroy();
      const planted = DRIFTS[drift]?.(structuredClone(answer)) ?? { status: 500, body: { error: { code: 'INTERNAL', message: drift } } };
      res.writeHead(planted.status ?? 200, { 'content-type': 'application/json', ...rateHeaders });
      res.end(JSON.stringify(planted.body));
    });
    proxy = await proxyTo(drifting.url, { recordDir: recording, upstreamTimeoutMs: 200 });
    strict = await proxyTo(drifting.url, { strict: true, upstreamTimeoutMs: 200 });
  });
  afterAll(async () => {
    await Promise.all([proxy.close(), strict.close(), upstream.close()]);
    await drifting.close();
  });

  const call = (target: () => Listening, drift: string) => fetch(`${target().url}/v1/connections`, { headers: { 'x-api-key': 'sgw_live_real_key_1', 'x-drift': drift } });

  it.each([
    ['none', 200, []],
    ['extra-field', 200, [{ side: 'response', kind: 'undeclared-field', field: 'body/connections/0/loyaltyTier' }]],
    ['undeclared-status', 409, [{ side: 'response', kind: 'undeclared-status', field: 'status' }]],
    ['new-enum-value', 200, [{ side: 'response', kind: 'undeclared-enum-value', field: 'body/connections/0/authHealth' }]],
    ['missing-required-field', 200, [{ side: 'response', kind: 'missing-required-field', field: 'body/connections/0/platform' }]],
  ])('%s: passes the answer on and names each finding in the header and the journal', async (drift, status, expected) => {
    const res = await call(() => proxy, drift);
    expect(res.status).toBe(status);
    const planted = DRIFTS[drift]?.(structuredClone(answer));
    expect(await res.text()).toBe(JSON.stringify(planted?.body));
    const header = res.headers.get(VIOLATIONS_HEADER);
    const [entry] = (await journalOf(proxy)).slice(-1);
    expect(entry?.violations?.map(({ side, kind, field }) => ({ side, kind, field }))).toEqual(expected);
    expect(entry?.violations?.every((finding) => finding.tolerated === undefined)).toBe(true);
    if (expected.length === 0) expect(header).toBeNull();
    else expect(header).toBe(`${expected.length}; ${expected.map((finding) => `${finding.side} ${finding.kind} ${finding.field}`).join('; ')}`);
  });

  it('journals a value of an open enumeration as tolerated drift, not a violation: no header, and strict mode passes it', async () => {
    const res = await call(() => proxy, 'open-enum-value');
    expect(res.status).toBe(200);
    expect(res.headers.get(VIOLATIONS_HEADER)).toBeNull();
    const [entry] = (await journalOf(proxy)).slice(-1);
    expect(entry?.violations).toEqual([expect.objectContaining({ side: 'response', kind: 'undeclared-enum-value', field: 'body/connections/0/platform', tolerated: true })]);
    expect((await call(() => strict, 'open-enum-value')).status).toBe(200);
  });

  it('strict mode answers a broken response with 502 CONTRACT_VIOLATION naming the fields, and passes a good one', async () => {
    const broken = await call(() => strict, 'missing-required-field');
    expect(broken.status).toBe(502);
    const body = (await broken.json()) as { error: { code: string; message: string; details: { violations: Array<{ field: string; kind: string }>; upstreamStatus: number } } };
    expect(body.error.code).toBe('CONTRACT_VIOLATION');
    expect(body.error.message).toContain('body/connections/0/platform');
    expect(body.error.details.upstreamStatus).toBe(200);
    expect(body.error.details.violations).toEqual([expect.objectContaining({ kind: 'missing-required-field', field: 'body/connections/0/platform' })]);
    expect(broken.headers.get(VIOLATIONS_HEADER)).toContain('missing-required-field');

    const status = await call(() => strict, 'undeclared-status');
    expect(status.status).toBe(502);
    const good = await call(() => strict, 'none');
    expect(good.status).toBe(200);
  });

  it.each([
    ['slow', 'timeout'],
    ['drop', 'reset'],
  ])('an upstream that is %s answers a bounded 502 PLATFORM_ERROR (reason %s)', async (drift, reason) => {
    const started = Date.now();
    const res = await call(() => proxy, drift);
    expect(res.status).toBe(502);
    const body = (await res.json()) as { error: { code: string; details: { reason: string; upstream: string } } };
    expect(body.error).toMatchObject({ code: 'PLATFORM_ERROR', details: { reason, upstream: drifting.url } });
    // The timeout is 200 ms: well under the 30 s default, and nothing left hanging.
    expect(Date.now() - started).toBeLessThan(5000);
    const [entry] = (await journalOf(proxy)).slice(-1);
    expect(entry).toMatchObject({ status: 502, errorCode: 'PLATFORM_ERROR', operationId: 'listConnections' });
  });

  it('an upstream that refuses the connection answers 502 PLATFORM_ERROR (reason refused)', async () => {
    const refusing = await proxyTo(await refusedUrl(), { upstreamTimeoutMs: 2000 });
    try {
      const res = await fetch(`${refusing.url}/v1/connections`, { headers: { 'x-api-key': DEFAULT_API_KEY } });
      expect(res.status).toBe(502);
      expect(((await res.json()) as { error: { details: { reason: string } } }).error.details.reason).toBe('refused');
      // The proxy's own 502 is not the service's answer: marked injected, and no status of listConnections in coverage.
      const [entry] = refusing.server.registry.defaultWorkspace.journal.entries();
      expect(entry).toMatchObject({ status: 502, errorCode: 'PLATFORM_ERROR', injected: true });
      const row = refusing.server.coverage.report().byOperation.find((operation) => operation.operationId === 'listConnections');
      expect(row).toMatchObject({ calls: 1, injected: 1, statuses: [], errorCodes: [] });
    } finally {
      await refusing.close();
    }
  });

  it('records the failed exchanges with no response and why', () => {
    const exchanges = readRecording(recording);
    const failed = exchanges.filter((exchange) => exchange.response === null);
    expect(failed.map((exchange) => exchange.upstreamError?.code)).toEqual(['PLATFORM_ERROR', 'PLATFORM_ERROR']);
    expect(failed.map((exchange) => exchange.request.headers['x-drift'])).toEqual(['slow', 'drop']);
    expect(exchanges.find((exchange) => exchange.request.headers['x-drift'] === 'extra-field')?.response?.json).toMatchObject({ connections: expect.any(Array) });
  });

  it('summarises findings per operation and kind in the coverage report, JSON and Markdown', async () => {
    const served = await fetch(`${proxy.url}/__control/coverage`);
    expect(served.status).toBe(200);
    expect(((await served.json()) as { contractFindings: { withViolations: number } }).contractFindings.withViolations).toBe(4);
    const summary = proxy.server.coverage.report().contractFindings;
    expect(summary).toMatchObject({ exchanges: 8, withViolations: 4 });
    expect(summary?.byOperation).toEqual([
      { operationId: 'listConnections', side: 'response', kind: 'missing-required-field', tolerated: false, count: 1, fields: ['body/connections/*/platform'] },
      { operationId: 'listConnections', side: 'response', kind: 'undeclared-enum-value', tolerated: false, count: 1, fields: ['body/connections/*/authHealth'] },
      { operationId: 'listConnections', side: 'response', kind: 'undeclared-enum-value', tolerated: true, count: 1, fields: ['body/connections/*/platform'] },
      { operationId: 'listConnections', side: 'response', kind: 'undeclared-field', tolerated: false, count: 1, fields: ['body/connections/*/loyaltyTier'] },
      { operationId: 'listConnections', side: 'response', kind: 'undeclared-status', tolerated: false, count: 1, fields: ['status'] },
    ]);
    const markdown = coverageMarkdown(proxy.server.coverage.report());
    expect(markdown).toContain('## Contract violations (proxy)');
    expect(markdown).toContain('4 of 8 exchanges with the upstream broke openapi.yaml.');
    expect(markdown).toContain('| `listConnections` | response | undeclared-enum-value (tolerated) | 1 | `body/connections/*/platform` |');
    expect(markdown).toContain('| `listConnections` | response | undeclared-status | 1 | `status` |');
  });

  it('counts a kind of finding once per exchange, however many list items showed it', () => {
    const coverage = new CoverageTracker(loadSpec('openapi.yaml').document);
    const extra = (index: number) => ({ side: 'response' as const, kind: 'undeclared-field', field: `body/connections/${index}/loyaltyTier` });
    coverage.recordContractFindings('listConnections', [extra(0), extra(1), extra(2)]);
    coverage.recordContractFindings('listConnections', [extra(0)]);
    expect(coverage.report().contractFindings).toMatchObject({ exchanges: 2, withViolations: 2, byOperation: [{ operationId: 'listConnections', kind: 'undeclared-field', count: 2, fields: ['body/connections/*/loyaltyTier'] }] });
  });

  it('counts an exchange whose findings the contract all allows apart: listed, never a violation', () => {
    const coverage = new CoverageTracker(loadSpec('openapi.yaml').document);
    const newPlatform = { side: 'response' as const, kind: 'undeclared-enum-value', field: 'body/connections/0/platform', tolerated: true };
    coverage.recordContractFindings('listConnections', [newPlatform]);
    coverage.recordContractFindings('listConnections', [newPlatform, { side: 'response', kind: 'undeclared-status', field: 'status' }]);
    coverage.recordContractFindings('listConnections', []);
    expect(coverage.report().contractFindings).toMatchObject({ exchanges: 3, withViolations: 1, toleratedOnly: 1 });
    expect(coverageMarkdown(coverage.report())).toContain('1 of 3 exchanges with the upstream broke openapi.yaml. 1 more showed only what the contract allows (the rows marked tolerated): drift to pick up, not a violation.');
  });
});

describe('proxy bodies', () => {
  let proxy: Listening;
  let upstream: Awaited<ReturnType<typeof plainServer>>;
  const seen: string[] = [];
  const answer = JSON.stringify({ connections: [] });
  const recording = temporaryDir();

  beforeAll(async () => {
    upstream = await plainServer((req, res, body) => {
      seen.push(body);
      // Compressed as a real service compresses: the caller gets these bytes, the comparer reads the JSON inside.
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'x-ratelimit-limit': '600', 'x-ratelimit-remaining': '599', 'x-ratelimit-reset': '1772442060' });
      res.end(gzipSync(answer));
    });
    // Holds at most 1 KiB of a request, and the mock's own body limit is smaller still: the upstream decides what it takes.
    proxy = await proxyTo(upstream.url, { recordDir: recording, maxBodyBytes: 1024 }, { bodyLimit: '100b' });
  });
  afterAll(async () => {
    await proxy.close();
    await upstream.close();
  });

  it('passes a compressed answer on compressed, and compares what it holds', async () => {
    const res = await rawGet(`${proxy.url}/v1/connections`);
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.body.equals(gzipSync(answer))).toBe(true);
    expect(gunzipSync(res.body).toString('utf8')).toBe(answer);
    expect(res.headers[VIOLATIONS_HEADER.toLowerCase()]).toBeUndefined();
    // Recorded decoded, so its headers no longer say gzip: a replay answers the JSON as it is.
    const [recorded] = readRecording(recording);
    expect(recorded?.response?.json).toEqual({ connections: [] });
    expect(recorded?.response?.headers['content-encoding']).toBeUndefined();
    expect(recorded?.response?.headers['content-type']).toBe('application/json');
  });

  it('sends the body as the caller wrote it, past the mock\'s --body-limit, and refuses one past what it holds with 413 in the envelope, unsent', async () => {
    const written = `{ "text" :"spaced  as sent, ${'and long '.repeat(20)}",\n "destinations": [] }`;
    const sent = await fetch(`${proxy.url}/v1/posts`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': DEFAULT_API_KEY }, body: written });
    await sent.arrayBuffer();
    expect(sent.status).toBe(200);
    expect(seen.at(-1)).toBe(written);
    const count = seen.length;
    const large = await fetch(`${proxy.url}/v1/posts`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': DEFAULT_API_KEY }, body: JSON.stringify({ text: 'x'.repeat(2048) }) });
    expect(large.status).toBe(413);
    expect(((await large.json()) as { error: { code: string } }).error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(seen.length).toBe(count);
  });
});

/** A GET whose body is read as bytes, undecoded (fetch would gunzip it). */
function rawGet(url: string): Promise<{ headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { 'x-api-key': DEFAULT_API_KEY, 'accept-encoding': 'gzip' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
}

/** An upstream that takes a request and never answers: `arrived` once it has one, `released` once that connection is closed. */
async function silentUpstream(): Promise<Awaited<ReturnType<typeof plainServer>> & { arrived: Promise<void>; released: Promise<void> }> {
  let arrive!: () => void;
  let release!: () => void;
  const arrived = new Promise<void>((resolve) => (arrive = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  const server = await plainServer((req) => {
    req.socket.once('close', () => release());
    arrive();
  });
  return { ...server, arrived, released };
}

describe('proxy shutdown', () => {
  it('ends a request still waiting on the upstream when the proxy closes, and lets go of the upstream connection', async () => {
    const upstream = await silentUpstream();
    const proxy = await proxyTo(upstream.url, { upstreamTimeoutMs: 60_000 }, { httpLimits: { shutdownGraceMs: 50 } });
    try {
      const pending = fetch(`${proxy.url}/v1/connections`, { headers: { 'x-api-key': DEFAULT_API_KEY } }).then(
        (res) => res.status,
        () => 'no answer',
      );
      await upstream.arrived;
      await proxy.close();
      await upstream.released;
      expect(await pending).toBe('no answer');
    } finally {
      await upstream.close();
    }
  });
});

describe('a caller that goes away', () => {
  it('ends the upstream request at once, and is neither recorded as an upstream failure nor answered', async () => {
    const upstream = await silentUpstream();
    const recording = temporaryDir();
    const proxy = await proxyTo(upstream.url, { upstreamTimeoutMs: 60_000, recordDir: recording });
    try {
      const caller = get(`${proxy.url}/v1/connections`, { headers: { 'x-api-key': DEFAULT_API_KEY } });
      caller.on('error', () => undefined);
      await upstream.arrived;
      caller.destroy();
      await upstream.released;
      await expect.poll(async () => (await journalOf(proxy)).map((entry) => entry.status)).toEqual([0]);
      expect(readdirSync(recording)).toEqual([]);
    } finally {
      await proxy.close();
      await upstream.close();
    }
  });
});

describe('a recording of concurrent exchanges', () => {
  it('numbers them in the order they arrived, not the order they ended', async () => {
    let releaseFirst!: () => void;
    const second = new Promise<void>((resolve) => (releaseFirst = resolve));
    let firstArrived!: () => void;
    const first = new Promise<void>((resolve) => (firstArrived = resolve));
    const upstream = await plainServer((req, res) => {
      const answer = () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ path: req.url }));
      };
      if (req.url === '/v1/connections') {
        firstArrived();
        // Held until the second request has been answered.
        void second.then(answer);
      } else {
        answer();
        releaseFirst();
      }
    });
    const recording = temporaryDir();
    const proxy = await proxyTo(upstream.url, { recordDir: recording });
    try {
      const slow = fetch(`${proxy.url}/v1/connections`, { headers: { 'x-api-key': DEFAULT_API_KEY } });
      await first;
      await (await fetch(`${proxy.url}/v1/posts`, { headers: { 'x-api-key': DEFAULT_API_KEY } })).arrayBuffer();
      await (await slow).arrayBuffer();
      expect(readRecording(recording).map((exchange) => `${exchange.seq} ${exchange.request.path}`)).toEqual(['1 /v1/connections', '2 /v1/posts']);
    } finally {
      await proxy.close();
      await upstream.close();
    }
  });
});
