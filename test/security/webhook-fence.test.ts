import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveOptions, UsageError } from '../../src/cli/options.js';
import { HostFence } from '../../src/lib/host-fence.js';
import type { MockServerOptions } from '../../src/server.js';
import { expectStatus, startMock, type StartedMock, type TestMock } from '../helpers/mock.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

/*
 * Issue 28, item 6: a webhook cannot turn on the server. The attack: a tenant's webhook aimed at
 * the server's own /__control/reset wiped the default workspace when a delivery fired. The
 * server itself is now refused at delivery time, after the name is resolved; --webhook-allow and
 * --webhook-deny fence the rest, and the delivery log says what refused a delivery.
 */

interface Attempt {
  attempt: number;
  responseStatus: number | null;
  durationMs: number | null;
  error: string | null;
}
interface Delivery {
  status: string;
  event: string;
  attempts: Attempt[];
  nextAttemptAt: string | null;
}

const mocks: StartedMock[] = [];
let receiver: WebhookReceiver;
beforeEach(async () => {
  receiver = await WebhookReceiver.start();
});
afterEach(() => receiver.close());
afterAll(async () => {
  for (const mock of mocks) await mock.close();
});

/** A mock listening on a free loopback port, as `npx social-gateway-mock` and the vitest kit run it. */
async function listening(options: MockServerOptions = {}): Promise<{ mock: StartedMock; url: string; port: number }> {
  const mock = await startMock(options);
  mocks.push(mock);
  const url = await mock.server.listen(0);
  return { mock, url, port: Number(new URL(url).port) };
}

/** A workspace of the fixture world (its accounts can publish), its clock frozen. */
async function tenant(mock: TestMock): Promise<string> {
  const created = await mock.control('post', '/__control/workspaces').send({ clock: { start: '2026-03-02T10:00:00Z', frozen: true } });
  expectStatus(created, 201);
  return created.body.apiKey as string;
}

async function webhookTo(mock: TestMock, key: string, url: string): Promise<string> {
  const hook = await mock.call('post', '/v1/webhooks', key).send({ name: 'hook', url, events: ['post.published'] });
  expectStatus(hook, 201);
  return hook.body.id as string;
}

/** Publishes a post and advances the clock until it is published: its post.published delivery fires. */
async function publishAPost(mock: TestMock, key: string): Promise<void> {
  const connections = (await mock.call('get', '/v1/connections', key)).body.connections as Array<{ id: string; platform: string }>;
  const bluesky = connections.find((connection) => connection.platform === 'bluesky');
  const created = await mock.call('post', '/v1/posts', key).send({ text: 'Roasting day.', destinations: [{ connectionId: bluesky?.id }] });
  expectStatus(created, 201);
  expectStatus(await mock.control('post', '/__control/clock/advance', key).send({ by: 'PT10S' }), 200);
}

async function deliveries(mock: TestMock, key: string, hookId: string): Promise<Delivery[]> {
  const log = await mock.call('get', `/v1/webhooks/${hookId}/deliveries`, key);
  expectStatus(log, 200);
  return log.body.data as Delivery[];
}

/** The one attempt of a test delivery (`POST /v1/webhooks/{id}/test`). */
async function testAttempt(mock: TestMock, key: string, url: string): Promise<Attempt | undefined> {
  const hookId = await webhookTo(mock, key, url);
  const tested = await mock.call('post', `/v1/webhooks/${hookId}/test`, key);
  expectStatus(tested, 200);
  return (tested.body as Delivery).attempts[0];
}

describe('a webhook aimed at the server itself', () => {
  for (const host of ['127.0.0.1', 'localhost']) {
    it(`at http://${host}:<its port>/__control/reset: the delivery fires, is refused and logged, and the default workspace is not reset`, async () => {
      const { mock, port } = await listening();
      // Something the default workspace holds that a reset would wipe.
      const kept = await mock.call('post', '/v1/webhooks').send({ name: 'a reset would wipe this', url: receiver.url, events: ['account.connected'] });
      expectStatus(kept, 201);

      const key = await tenant(mock);
      const hookId = await webhookTo(mock, key, `http://${host}:${port}/__control/reset`);
      await publishAPost(mock, key);

      expectStatus(await mock.call('get', `/v1/webhooks/${kept.body.id}`), 200);
      const log = await deliveries(mock, key, hookId);
      expect(log.length).toBeGreaterThan(0);
      for (const delivery of log) {
        // Refused once, not retried: every retry would be refused the same way.
        expect(delivery).toMatchObject({ event: 'post.published', status: 'failed', nextAttemptAt: null });
        expect(delivery.attempts).toEqual([
          { attempt: 1, at: expect.any(String), responseStatus: null, durationMs: null, error: expect.stringContaining(`refused: ${host}:${port}`) },
        ]);
        expect(delivery.attempts[0]?.error).toMatch(/is this mock server itself.*\(not sent\)$/);
      }
      // Nothing reached the server: its journal of the default workspace has no reset, and no request without a key.
      const journal = await mock.control('get', '/__control/journal');
      expectStatus(journal, 200);
      expect(JSON.stringify(journal.body)).not.toContain('/__control/reset');
    });
  }

  it('is refused under every spelling of a local address, at every path, /v1 included', async () => {
    const { mock, port } = await listening();
    const key = await tenant(mock);
    for (const url of [
      `http://[::1]:${port}/__control/reset`,
      `http://0.0.0.0:${port}/__dashboard`,
      `http://127.1.2.3:${port}/__oauth/decide`,
      `http://2130706433:${port}/__control/reset`,
      `http://[::ffff:127.0.0.1]:${port}/__control/reset`,
      `http://user:secret@LOCALHOST.:${port}/v1/posts`,
      `http://app.localhost:${port}/`,
    ]) {
      const attempt = await testAttempt(mock, key, url);
      expect(attempt, url).toMatchObject({ responseStatus: null, durationMs: null, error: expect.stringMatching(/^refused: .* is this mock server itself/) });
      expect(attempt?.error, url).not.toContain('secret');
    }
  });

  it('is refused by a name --allowed-hosts gives the server, even when the name resolves elsewhere', () => {
    const fence = new HostFence({ ownNames: ['mock.ci.internal', '.mocks.example'] });
    fence.listeningOn(4010);
    expect(fence.refusal('mock.ci.internal', 4010, '10.1.2.3')?.by).toBe('self');
    expect(fence.refusal('eu.mocks.example', 4010, '10.1.2.4')?.by).toBe('self');
    // Another port of that host is another service.
    expect(fence.refusal('mock.ci.internal', 9000, '10.1.2.3')).toBeNull();
  });

  it('still lets receivers on other loopback ports through (the laptop case)', async () => {
    const { mock } = await listening();
    const key = await tenant(mock);
    for (const url of [receiver.url, receiver.url.replace('127.0.0.1', 'localhost')]) {
      const attempt = await testAttempt(mock, key, url);
      expect(attempt, url).toMatchObject({ responseStatus: 200, error: null });
    }
    expect(receiver.requests).toHaveLength(2);
  });
});

describe('--webhook-deny', () => {
  it('refuses a loopback receiver in a denied range, naming the flag and the range; nothing reaches it', async () => {
    const { mock } = await listening({ webhookDeny: ['10.0.0.0/8', '127.0.0.0/8'] });
    const key = await tenant(mock);
    const hookId = await webhookTo(mock, key, receiver.url);
    await publishAPost(mock, key);
    const log = await deliveries(mock, key, hookId);
    expect(log.length).toBeGreaterThan(0);
    for (const delivery of log) {
      expect(delivery).toMatchObject({ status: 'failed', nextAttemptAt: null });
      expect(delivery.attempts).toHaveLength(1);
      expect(delivery.attempts[0]?.error).toMatch(/^refused by --webhook-deny 127\.0\.0\.0\/8: 127\.0\.0\.1:\d+ \(not sent\)$/);
    }
    expect(receiver.requests).toEqual([]);
  });

  it('refuses a name that resolves into a denied range, and a denied name', async () => {
    const { mock } = await listening({ webhookDeny: ['::1/128', '127.0.0.1', 'hooks.example'] });
    const key = await tenant(mock);
    const attempt = await testAttempt(mock, key, receiver.url.replace('127.0.0.1', 'localhost'));
    expect(attempt?.error).toMatch(/^refused by --webhook-deny (127\.0\.0\.1|::1\/128): localhost:\d+ \((127\.0\.0\.1|::1)\) \(not sent\)$/);
    expect((await testAttempt(mock, key, 'http://hooks.example/in'))?.error).toMatch(/^refused by --webhook-deny hooks\.example: hooks\.example:80/);
    expect(receiver.requests).toEqual([]);
  });
});

describe('--webhook-allow', () => {
  it('lets only the listed hosts through: a listed name goes, the same receiver by an unlisted address is refused', async () => {
    const { mock } = await listening({ webhookAllow: ['localhost', 'hooks.internal'] });
    const key = await tenant(mock);
    expect(await testAttempt(mock, key, receiver.url.replace('127.0.0.1', 'localhost'))).toMatchObject({ responseStatus: 200, error: null });
    const refused = await testAttempt(mock, key, receiver.url);
    expect(refused?.error).toMatch(/^refused by --webhook-allow localhost,hooks\.internal: 127\.0\.0\.1:\d+ is not in it \(not sent\)$/);
    expect(receiver.requests).toHaveLength(1);
  });

  it('takes address ranges: 127.0.0.1/32 lets the loopback receiver through', async () => {
    const { mock } = await listening({ webhookAllow: ['hooks.internal', '127.0.0.1/32'] });
    const key = await tenant(mock);
    expect(await testAttempt(mock, key, receiver.url)).toMatchObject({ responseStatus: 200, error: null });
    expect(await testAttempt(mock, key, 'http://[::1]:9/hooks')).toMatchObject({ error: expect.stringMatching(/^refused by --webhook-allow/) });
    expect(receiver.requests).toHaveLength(1);
  });

  it('never opens the server itself', async () => {
    const { mock, port } = await listening({ webhookAllow: ['127.0.0.0/8'] });
    const key = await tenant(mock);
    expect((await testAttempt(mock, key, `http://127.0.0.1:${port}/__control/reset`))?.error).toMatch(/^refused: .* is this mock server itself/);
  });
});

describe('the flags on the command line', () => {
  const io = { env: {}, cwd: process.cwd() };

  it('read comma-separated names, addresses and IPv4 and IPv6 ranges', () => {
    const resolved = resolveOptions(['--webhook-deny', '10.0.0.0/8, 169.254.0.0/16,fd00::/8', '--webhook-allow', 'hooks.internal,.example.com,127.0.0.1/32,[::1]'], io);
    if (typeof resolved === 'string') throw new Error(resolved);
    expect(resolved.server.webhookDeny).toEqual(['10.0.0.0/8', '169.254.0.0/16', 'fd00::/8']);
    expect(resolved.server.webhookAllow).toEqual(['hooks.internal', '.example.com', '127.0.0.1/32', '[::1]']);
  });

  it.each([
    ['--webhook-deny', '10.0.0.0/33', /--webhook-deny: '10\.0\.0\.0\/33' has no prefix length from 0 to 32/],
    ['--webhook-allow', 'https://hooks.example/in', /--webhook-allow: an entry is a URL; give its host name alone \(hooks\.example\)/],
    ['--webhook-allow', 'hooks.example:8080', /has a port/],
    ['--webhook-deny', '*.example.com', /is a wildcard; write '\.example\.com'/],
    ['--webhook-deny', 'not a host', /is neither a host name nor an IP address or range/],
    ['--webhook-deny', ' , ', /--webhook-deny needs host names/],
  ])('refuse %s %s at start', (flag, value, message) => {
    expect(() => resolveOptions([flag, value], io)).toThrow(UsageError);
    expect(() => resolveOptions([flag, value], io)).toThrow(message);
  });

  it('and the server options refuse a bad entry too', async () => {
    await expect(startMock({ webhookDeny: ['10.0.0.0/40'] })).rejects.toThrow(/webhookDeny: '10\.0\.0\.0\/40'/);
  });
});
