import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Socket } from 'node:net';
import { endToEndHeaders, failureOf, forward, UpstreamAgents, UpstreamError, upstreamErrorOf } from '../../src/proxy/forward.js';
import { plainServer } from './helpers.js';

describe('endToEndHeaders', () => {
  it('drops hop-by-hop headers and those the Connection header names, keeping case, order and repeats', () => {
    const raw = ['Host', 'a', 'Connection', 'keep-alive, X-Hop', 'Keep-Alive', 'timeout=5', 'X-Hop', '1', 'Set-Cookie', 'a=1', 'Set-Cookie', 'b=2', 'Transfer-Encoding', 'chunked', 'TE', 'trailers', 'Upgrade', 'h2c', 'Proxy-Authorization', 'Basic x', 'X-Kept', 'yes'];
    expect(endToEndHeaders(raw)).toEqual(['Host', 'a', 'Set-Cookie', 'a=1', 'Set-Cookie', 'b=2', 'X-Kept', 'yes']);
    expect(endToEndHeaders(raw, ['host'])).toEqual(['Set-Cookie', 'a=1', 'Set-Cookie', 'b=2', 'X-Kept', 'yes']);
  });
});

describe('failureOf', () => {
  it.each([
    ['ECONNREFUSED', 'refused'],
    ['ECONNRESET', 'reset'],
    ['EPIPE', 'reset'],
    ['ENOTFOUND', 'dns'],
    ['EAI_AGAIN', 'dns'],
    ['ETIMEDOUT', 'timeout'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'tls'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'tls'],
    ['EPROTO', 'tls'],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'tls'],
    ['EHOSTUNREACH', 'network'],
  ])('%s is %s', (code, reason) => {
    expect(failureOf(Object.assign(new Error(code), { code }))).toBe(reason);
  });
});

describe('upstreamErrorOf', () => {
  it('tells someone who wrote https:// for a plain HTTP server what went wrong, in words', () => {
    const openssl = Object.assign(new Error('write EPROTO 40E8:error:0A00010B:SSL routines:ssl3_get_record:wrong version number:../deps/openssl/ssl/record/ssl3_record.c:350:\n'), { code: 'EPROTO' });
    expect(upstreamErrorOf(openssl)).toMatchObject({ reason: 'tls', message: 'the upstream did not answer in TLS: is it an http:// server? (--upstream says https://)' });
    expect(upstreamErrorOf(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }))).toMatchObject({ reason: 'refused', message: 'connect ECONNREFUSED 127.0.0.1:9' });
  });
});

describe('forward', () => {
  let upstream: Awaited<ReturnType<typeof plainServer>>;
  const seen: Array<{ url: string | undefined; headers: Record<string, string | string[] | undefined>; body: string }> = [];

  beforeAll(async () => {
    upstream = await plainServer((req, res, body) => {
      seen.push({ url: req.url, headers: req.headers, body });
      if (req.url?.includes('endless')) {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('x'.repeat(4096));
        return; // More would follow: the limit must stop the read.
      }
      res.writeHead(201, 'Made', [['X-Case', 'Kept'], ['Connection', 'close']].flat());
      res.end('done');
    });
  });
  afterAll(() => upstream.close());

  it("prefixes the upstream's path, sets Host to the upstream, and sends the body with its length", async () => {
    const answer = await forward(new URL(`${upstream.url}/base/`), { method: 'PATCH', pathAndQuery: '/v1/posts/p1?x=1', rawHeaders: ['Host', 'proxy.local', 'Connection', 'keep-alive', 'X-Caller', 'me', 'Transfer-Encoding', 'chunked'], body: Buffer.from('{"a":1}') }, { timeoutMs: 2000 });
    expect(answer).toMatchObject({ status: 201, statusMessage: 'Made', body: Buffer.from('done') });
    expect(answer.rawHeaders).toContain('X-Case');
    expect(answer.rawHeaders.map((name) => name.toLowerCase())).not.toContain('connection');
    const [request] = seen.slice(-1);
    expect(request?.url).toBe('/base/v1/posts/p1?x=1');
    expect(request?.headers).toMatchObject({ host: new URL(upstream.url).host, 'x-caller': 'me', 'content-length': '7' });
    expect(request?.headers['transfer-encoding']).toBeUndefined();
    expect(request?.body).toBe('{"a":1}');
  });

  it('stops reading an answer past the limit: too-large', async () => {
    const failed = forward(new URL(upstream.url), { method: 'GET', pathAndQuery: '/endless', rawHeaders: [], body: Buffer.alloc(0) }, { timeoutMs: 5000, bodyLimitBytes: 1024 });
    await expect(failed).rejects.toMatchObject({ name: 'UpstreamError', reason: 'too-large' });
  });

  it('answers reason tls, in words, when an https:// URL names this plain HTTP server', async () => {
    const failed = forward(new URL(upstream.url.replace('http:', 'https:')), { method: 'GET', pathAndQuery: '/v1/posts', rawHeaders: [], body: Buffer.alloc(0) }, { timeoutMs: 5000 });
    await expect(failed).rejects.toMatchObject({ name: 'UpstreamError', reason: 'tls', message: expect.stringContaining('is it an http:// server?') });
  });

  it('ends when the signal aborts (the caller went away), without waiting for the timeout', async () => {
    const abort = new AbortController();
    const pending = forward(new URL(upstream.url), { method: 'GET', pathAndQuery: '/endless', rawHeaders: [], body: Buffer.alloc(0) }, { timeoutMs: 60_000, signal: abort.signal });
    abort.abort();
    await expect(pending).rejects.toBeInstanceOf(UpstreamError);
  });
});

describe('forward over kept-alive connections', () => {
  it('reuses a connection, and retries once on a new one when the upstream had closed the reused one', async () => {
    const served = new WeakSet<Socket>();
    let requests = 0;
    const upstream = await plainServer((req, res) => {
      requests++;
      // A second request on a connection stands for one the upstream closed while it sat idle in the pool.
      if (served.has(req.socket)) return req.socket.destroy();
      served.add(req.socket);
      res.end('fresh');
    });
    const agents = new UpstreamAgents();
    try {
      const get = () => forward(new URL(upstream.url), { method: 'GET', pathAndQuery: '/v1/connections', rawHeaders: [], body: Buffer.alloc(0) }, { timeoutMs: 2000, agents });
      expect((await get()).body.toString()).toBe('fresh');
      expect((await get()).body.toString()).toBe('fresh');
      expect(requests).toBe(3);
    } finally {
      agents.destroy();
      await upstream.close();
    }
  });
});
