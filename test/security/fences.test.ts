import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveOptions, UsageError } from '../../src/cli/options.js';
import { HostFence, HostList } from '../../src/lib/host-fence.js';
import { targetProblem, upstreamPath } from '../../src/proxy/forward.js';
import { expectStatus, startMock, type StartedMock } from '../helpers/mock.js';
import { rawExchange } from '../helpers/raw-http.js';
import { cliIo } from '../helpers/cli-io.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { plainServer, proxyTo, type Listening } from '../proxy/helpers.js';

/*
 * Issue 35, item 6: fences without holes. A deny list of loopback let `0.0.0.0`, `0` and `[::]`
 * through (they reach loopback all the same), and the proxy forwarded `/v1/../../admin` and
 * absolute-form targets verbatim, out of `--upstream`'s base path.
 */

describe('--webhook-deny and --webhook-allow read every spelling of an address', () => {
  const deny = new HostFence({ deny: ['127.0.0.0/8', '::1'] });
  /** What the sender passes the fence for a URL: its host, and the host itself when it is an address. */
  const refusalOf = (fence: HostFence, url: string) => {
    const { hostname, port } = new URL(url);
    const literal = hostname.replace(/^\[(.*)\]$/, '$1');
    return fence.refusal(hostname, Number(port), literal)?.by ?? null;
  };

  for (const url of ['http://0.0.0.0:9/', 'http://0:9/', 'http://[::]:9/', 'http://0.1.2.3:9/', 'http://[::ffff:127.0.0.1]:9/', 'http://[::ffff:7f00:1]:9/', 'http://2130706433:9/', 'http://0x7f.1:9/', 'http://0177.0.0.1:9/', 'http://127.1:9/']) {
    it(`denies ${url}, which reaches loopback, under 127.0.0.0/8,::1`, () => {
      expect(refusalOf(deny, url)).toBe('--webhook-deny');
    });
  }

  it('still lets other addresses through', () => {
    expect(refusalOf(deny, 'http://10.0.0.1:9/')).toBeNull();
    expect(refusalOf(deny, 'http://[2001:db8::1]:9/')).toBeNull();
  });

  it('reads entries in any numeric spelling, and mapped IPv6 ranges as IPv4', () => {
    const list = HostList.parse(['0x7f.1', '2130706434', '::ffff:10.0.0.0/104']);
    expect(typeof list).not.toBe('string');
    const hosts = list as HostList;
    expect(hosts.match('x', '127.0.0.1')).toBe('0x7f.1');
    expect(hosts.match('x', '127.0.0.2')).toBe('2130706434');
    expect(hosts.match('x', '10.9.8.7')).toBe('::ffff:10.0.0.0/104');
    expect(hosts.match('x', '::ffff:10.9.8.7')).toBe('::ffff:10.0.0.0/104');
    expect(hosts.match('x', '11.0.0.1')).toBeUndefined();
    expect(HostList.parse(['::ffff:0:0/90'])).toMatch(/spans more than the IPv4-mapped addresses/);
  });

  it('lets an allow list of 127.0.0.1 reach a receiver named by 0.0.0.0 (the same place), and no other', () => {
    const allow = new HostFence({ allow: ['127.0.0.1'] });
    expect(refusalOf(allow, 'http://0.0.0.0:9/')).toBeNull();
    expect(refusalOf(allow, 'http://10.0.0.1:9/')).toBe('--webhook-allow');
  });

  it('takes the numeric spellings on the command line, and still refuses what is none', () => {
    const resolved = resolveOptions(['--webhook-deny', '0x7f.0.0.1,::ffff:127.0.0.1'], cliIo().streams);
    expect(typeof resolved === 'object' && resolved.server.webhookDeny).toEqual(['0x7f.0.0.1', '::ffff:127.0.0.1']);
    expect(() => resolveOptions(['--webhook-deny', '127.0.0.1/40'], cliIo().streams)).toThrow(UsageError);
  });

  describe('end to end: a receiver on loopback, named by 0.0.0.0, 0 and [::]', () => {
    let receiver: WebhookReceiver;
    let mock: StartedMock;
    beforeEach(async () => {
      receiver = await WebhookReceiver.start();
      mock = await startMock({ fixtures: false, webhookDeny: ['127.0.0.0/8', '::1'] });
      await mock.server.listen(0);
    });
    afterEach(async () => {
      await receiver.close();
      await mock.close();
    });

    it('refuses every one of them and nothing reaches the receiver', async () => {
      const port = new URL(receiver.url).port;
      for (const host of ['0.0.0.0', '0', '[::]']) {
        const hook = await mock.call('post', '/v1/webhooks').send({ name: host, url: `http://${host}:${port}/in`, events: ['post.published'] });
        expectStatus(hook, 201);
        const tested = await mock.call('post', `/v1/webhooks/${hook.body.id}/test`);
        expectStatus(tested, 200);
        expect(tested.body.attempts[0].error, host).toMatch(/^refused by --webhook-deny (127\.0\.0\.0\/8|::1): /);
      }
      expect(receiver.requests).toEqual([]);
    });
  });
});

describe('the proxy forwards only origin-form targets under --upstream', () => {
  it('refuses dot segments, raw or percent-encoded in any case, and encoded slashes that hide them', () => {
    for (const target of ['/v1/../../admin', '/v1/./posts', '/v1/%2e%2e/admin', '/v1/%2E%2E/admin', '/v1/.%2e/admin', '/v1/%2e./admin', '/v1/..%2fadmin', '/v1/..%2F..%2Fadmin', '/v1/..\\admin', '/v1/..%5cadmin', '/v1/posts/..', '/v1/%2e?x=1']) {
      expect(targetProblem(target), target).toMatch(/dot segment/);
    }
  });

  it('refuses absolute-form, authority-form, asterisk and scheme-relative targets', () => {
    for (const target of ['http://evil.example/v1/posts', 'https://127.0.0.1:4010/__control/reset', 'evil.example:443', '*', '//evil.example/v1/posts']) {
      expect(targetProblem(target), target).toMatch(/origin-form/);
    }
  });

  it('keeps what a path may hold: dots inside names, encoded characters, queries with dots', () => {
    for (const target of ['/v1/posts', '/v1/media/photo.v2.jpg', '/v1/posts/...', '/v1/posts/a%20b', '/v1/posts?cursor=../..', '/v1/.well-known']) {
      expect(targetProblem(target), target).toBeUndefined();
    }
    expect(upstreamPath(new URL('https://api.example.com/base/'), '/v1/posts?limit=5')).toBe('/base/v1/posts?limit=5');
    expect(() => upstreamPath(new URL('https://api.example.com/base'), '/v1/../../admin')).toThrow(/dot segment/);
  });

  describe('end to end', () => {
    let upstream: Awaited<ReturnType<typeof plainServer>>;
    let proxy: Listening;
    const seen: string[] = [];
    beforeEach(async () => {
      upstream = await plainServer((req, res) => {
        seen.push(req.url ?? '');
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[],"nextCursor":null}');
      });
      proxy = await proxyTo(`${upstream.url}/base`);
    });
    afterEach(async () => {
      await proxy.close();
      await upstream.close();
      seen.length = 0;
    });

    it('answers 400 VALIDATION_ERROR in the envelope for each, sends none of them upstream, and still forwards a plain path under the base', async () => {
      const port = Number(new URL(proxy.url).port);
      for (const target of ['/v1/../../admin', '/v1/%2E%2e/%2e%2E/admin', '/v1/..%2f..%2fadmin', `http://127.0.0.1:${new URL(upstream.url).port}/v1/posts`]) {
        const exchange = await rawExchange(port, { chunks: [`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: sgw_real\r\nConnection: close\r\n\r\n`] });
        expect(exchange.status, target).toBe(400);
        expect(JSON.parse(exchange.body).error, target).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringMatching(/not sent upstream/) });
      }
      expect(seen).toEqual([]);
      const plain = await rawExchange(port, { chunks: ['GET /v1/posts?limit=5 HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: sgw_real\r\nConnection: close\r\n\r\n'] });
      expect(plain.status).toBe(200);
      expect(seen).toEqual(['/base/v1/posts?limit=5']);
    });
  });
});
