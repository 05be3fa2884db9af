import { get } from 'node:http';
import { connect } from 'node:net';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { connectionBudget, readOpenFileLimit } from '../../src/lib/descriptor-limit.js';
import { DEFAULT_HTTP_LIMITS } from '../../src/http/transport.js';
import { EVICTION_FLOOR_MS } from '../../src/workspaces/registry.js';
import { expectApiError, expectStatus, startMock, TEST_CLOCK, useMock, type StartedMock } from '../helpers/mock.js';
import { SseClient } from '../helpers/sse-client.js';

/**
 * What one tenant of a shared server can take from the others (issue 35, decision 0045): their
 * workspaces (eviction), what a revoked key still reads (event streams), and the server's
 * connections (streams without a cap).
 */
const TOKEN = 'owner-token-0123456789abcdef';

interface Tenant {
  workspaceId: string;
  apiKey: string;
}

const clients: SseClient[] = [];
afterEach(() => {
  for (const client of clients.splice(0)) client.close();
});

async function stream(url: string, key: string, query = ''): Promise<SseClient> {
  const client = await SseClient.open(`${url}/__control/events${query}`, { 'x-api-key': key });
  clients.push(client);
  expect(client.response.statusCode).toBe(200);
  await client.waitFor(1);
  return client;
}

/** A stream the server refused: its status and its JSON envelope. */
function refusedStream(url: string, key: string): Promise<{ status: number; body: { error: { code: string; message: string; details?: Record<string, unknown> } } }> {
  return new Promise((resolve, reject) => {
    const req = get(`${url}/__control/events`, { headers: { 'x-api-key': key, Accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode === 200) {
        res.destroy();
        reject(new Error('the stream was opened'));
        return;
      }
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as never }));
    });
    req.on('error', reject);
  });
}

describe('eviction on a shared server (--on-max-workspaces evict)', () => {
  let wallMs = Date.parse(TEST_CLOCK);
  let mock: StartedMock;
  afterEach(() => mock.close());

  const anonymousCreate = () => request(mock.server.app).post('/__control/workspaces').send({ fixtures: false });

  it('never evicts a workspace used recently: a stranger is refused 503 until it has been idle the floor', async () => {
    mock = await startMock({ fixtures: false, controlToken: TOKEN, maxWorkspaces: 3, onMaxWorkspaces: 'evict', realTime: () => wallMs });
    const victim = (await anonymousCreate()).body as Tenant;
    wallMs += 200;
    expectStatus(await mock.call('get', '/v1/connections', victim.apiKey), 200);
    wallMs += 200;
    // The stranger fills the server, then asks for more: the victim, idle 0.2 s, stays.
    expectStatus(await anonymousCreate(), 201);
    const refused = await anonymousCreate();
    expectApiError(refused, 503, 'WORKSPACE_LIMIT_REACHED');
    expect(refused.body.error.message).toContain(`idle ${EVICTION_FLOOR_MS} ms`);
    expectStatus(await mock.call('get', '/v1/connections', victim.apiKey), 200);

    // Idle past the floor, it is what eviction is for.
    wallMs += EVICTION_FLOOR_MS;
    expectStatus(await anonymousCreate(), 201);
    expectApiError(await mock.call('get', '/v1/connections', victim.apiKey), 401, 'UNAUTHORIZED');
  });

  it('takes --workspace-ttl as the floor when it is shorter', async () => {
    mock = await startMock({ fixtures: false, controlToken: TOKEN, maxWorkspaces: 2, onMaxWorkspaces: 'evict', workspaceTtlMs: 60_000, realTime: () => wallMs });
    expect(mock.server.registry.evictionFloorMs).toBe(60_000);
    const first = (await anonymousCreate()).body as Tenant;
    wallMs += 30_000;
    expectApiError(await anonymousCreate(), 503, 'WORKSPACE_LIMIT_REACHED');
    wallMs += 30_001;
    expectStatus(await anonymousCreate(), 201);
    expectApiError(await mock.call('get', '/v1/connections', first.apiKey), 401, 'UNAUTHORIZED');
  });
});

describe('revoking a key ends the event streams opened with it', () => {
  const mock = useMock({ fixtures: false }, { listen: true });

  it('closes the revoked key\'s stream at once, request bodies and all, and leaves the others open', async () => {
    const minted = await mock.control('post', '/__control/keys').send({});
    expectStatus(minted, 201);
    const key = minted.body.apiKey as string;
    const revoked = await stream(mock.url, key, '?requests=true');
    const kept = await stream(mock.url, 'sgw_test_default', '?requests=true');

    expectStatus(await mock.control('delete', `/__control/keys/${key}`), 200);
    await revoked.ended();
    expect(mock.server.registry.byApiKey(key)).toBeUndefined();

    // A request after the revocation reaches the key holder's stream only.
    const before = revoked.messages.length;
    expectStatus(await mock.call('post', '/v1/webhooks').send({ name: 'after', url: 'https://hooks.example/after', events: ['post.published'], secret: 'whsec_after_the_revocation' }), 201);
    await kept.waitFor(2);
    expect(kept.events().map((message) => message.event)).toContain('request.recorded');
    expect(revoked.messages).toHaveLength(before);
  });

  it('keeps the streams of the keys a restore leaves the workspace', async () => {
    const minted = await mock.control('post', '/__control/keys').send({});
    const key = minted.body.apiKey as string;
    const open = await stream(mock.url, key);
    const state = await mock.control('get', '/__control/state');
    expectStatus(await mock.control('put', '/__control/state').send(state.body), 200);
    expectStatus(await mock.control('get', '/__control/clock', key), 200);
    expect(open.response.readableEnded).toBe(false);
    expect(mock.server.registry.defaultWorkspace.data.apiKeys).toContain(key);
  });
});

describe('event streams are capped per workspace and per server', () => {
  it('refuses the 33rd stream of one key with 429 EVENT_STREAM_LIMIT_REACHED naming the cap; another workspace still opens one', async () => {
    const mock = await startMock({ fixtures: false });
    const url = await mock.server.listen(0);
    try {
      const other = (await mock.control('post', '/__control/workspaces').send({ fixtures: false })).body as Tenant;
      const cap = DEFAULT_HTTP_LIMITS.maxEventStreamsPerWorkspace;
      for (let i = 0; i < cap; i++) await stream(url, 'sgw_test_default');
      const refused = await refusedStream(url, 'sgw_test_default');
      expect(refused.status).toBe(429);
      expect(refused.body.error).toMatchObject({ code: 'EVENT_STREAM_LIMIT_REACHED', details: { scope: 'workspace', limit: cap, open: cap } });
      expect(refused.body.error.message).toContain(`(${cap})`);
      await stream(url, other.apiKey);
      // One closed makes room again.
      const first = clients.shift();
      first?.close();
      await expect.poll(async () => (await mock.control('get', '/__control/workspaces')).body.data[0].eventStreams as number).toBe(cap - 1);
      await stream(url, 'sgw_test_default');
    } finally {
      for (const client of clients.splice(0)) client.close();
      await mock.close();
    }
  });

  it('refuses past the server cap whichever workspace asks, naming the server', async () => {
    const mock = await startMock({ fixtures: false, httpLimits: { maxEventStreams: 3, maxEventStreamsPerWorkspace: 2 } });
    const url = await mock.server.listen(0);
    try {
      const other = (await mock.control('post', '/__control/workspaces').send({ fixtures: false })).body as Tenant;
      await stream(url, 'sgw_test_default');
      await stream(url, 'sgw_test_default');
      expect((await refusedStream(url, 'sgw_test_default')).body.error.details).toEqual({ scope: 'workspace', limit: 2, open: 2 });
      await stream(url, other.apiKey);
      const refused = await refusedStream(url, other.apiKey);
      expect(refused.status).toBe(429);
      expect(refused.body.error).toMatchObject({ code: 'EVENT_STREAM_LIMIT_REACHED', details: { scope: 'server', limit: 3, open: 3 } });
      // Writes of every tenant still answer.
      expectStatus(await mock.call('post', '/v1/webhooks', other.apiKey).send({ name: 'w', url: 'https://hooks.example/w', events: ['post.published'] }), 201);
    } finally {
      for (const client of clients.splice(0)) client.close();
      await mock.close();
    }
  });
});

/** GET /__control/health on a connection of its own: what came back before the server closed it. */
function rawHealth(url: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(Number(new URL(url).port), '127.0.0.1', () => socket.write('GET /__control/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'));
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(answer));
  });
}

describe('server.maxConnections', () => {
  it('is derived from the limit of open files, leaving a quarter for files, webhooks and the upstream', () => {
    expect(readOpenFileLimit('Limit                     Soft Limit           Hard Limit           Units\nMax open files            1024                 4096                 files\n')).toBe(1024);
    expect(readOpenFileLimit('Max open files            unlimited            unlimited            files\n')).toBe(1_048_576);
    expect(readOpenFileLimit('nothing here')).toBeUndefined();
    expect(connectionBudget(1024)).toEqual({ maxConnections: 768, maxEventStreams: 384 });
    const own = readOpenFileLimit();
    if (own !== undefined) expect(DEFAULT_HTTP_LIMITS.maxConnections).toBe(connectionBudget(own).maxConnections);
  });

  it('closes a connection past it at once, leaving those held answering', async () => {
    const mock = await startMock({ fixtures: false, httpLimits: { maxConnections: 2 } });
    const url = await mock.server.listen(0);
    try {
      await stream(url, 'sgw_test_default');
      await stream(url, 'sgw_test_default');
      // A third connection is closed without a byte of answer.
      expect(await rawHealth(url)).toBe('');
      clients.shift()?.close();
      await expect.poll(() => rawHealth(url)).toMatch(/^HTTP\/1\.1 200 /);
    } finally {
      for (const client of clients.splice(0)) client.close();
      await mock.close();
    }
  });
});
