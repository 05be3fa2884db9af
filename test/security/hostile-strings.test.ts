import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountsStore } from '../../src/api/accounts/store.js';
import { loadSpec } from '../../src/http/spec.js';
import { encodeComponent } from '../../src/lib/uri.js';
import { operationModels } from '../fuzz/operations.js';
import { HOSTILE_STRINGS } from '../fuzz/requests.js';
import { SchemaArbitraries } from '../fuzz/schema-arbitraries.js';
import { percentEncode } from '../fuzz/wire.js';
import { spawnMock, type MockProcess } from '../helpers/process.js';
import { SseClient } from '../helpers/sse-client.js';
import { expectApiError, expectStatus, useMock, type UsedMock } from '../helpers/mock.js';

/**
 * Hostile strings (issue 35): one request with a lone surrogate in a secret ended the process,
 * and every workspace on it. These are the requests that did, sent to the real command line
 * in its own process, then hostile strings in every place a request carries text.
 */
const KEY = 'sgw_test_default';
const LONE_HIGH = '\ud800abcdefgh';

async function post(url: string, path: string, body: unknown): Promise<{ status: number; body: { error?: { code: string } } }> {
  const res = await fetch(`${url}${path}`, { method: 'POST', headers: { 'x-api-key': KEY, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as { error?: { code: string } } };
}

describe('the requests that ended the process (issue 35)', () => {
  let mock: MockProcess;
  beforeAll(async () => {
    mock = await spawnMock(['--clock-frozen']);
  }, 60_000);
  afterAll(async () => {
    if (mock.child.exitCode === null) await mock.kill('SIGTERM');
  });

  it('answers each in the envelope, and the server is still up with nothing to contain', async () => {
    const stream = await SseClient.open(`${mock.url}/__control/events?requests=true`, { 'x-api-key': KEY });
    try {
      const answers = [
        await post(mock.url, '/v1/webhooks', { name: 'CRM', url: 'https://hooks.example/x', events: ['post.published'], secret: LONE_HIGH }),
        await post(mock.url, '/v1/connections/bluesky/connect', { identifier: 'team.bsky.social', appPassword: LONE_HIGH }),
        await post(mock.url, '/v1/connections/bluesky/connect', { identifier: 'team.bsky.social', password: LONE_HIGH }),
        // A valid one, while a stream that watches requests is open: the live detail scrubs its secret too.
        await post(mock.url, '/v1/webhooks', { name: 'CRM', url: 'https://hooks.example/x', events: ['post.published'], secret: `whsec_0123456789abcdef\udfff` }),
      ];
      for (const answer of answers) expect(answer.status).toBeLessThan(500);
      expect(answers.slice(0, 3).map((answer) => answer.body.error?.code)).toEqual(['VALIDATION_ERROR', 'VALIDATION_ERROR', 'VALIDATION_ERROR']);
      expect(answers[3]?.status).toBe(201);
      await stream.waitFor(4);
      expect(JSON.stringify(stream.events())).not.toContain('0123456789abcdef');
    } finally {
      stream.close();
    }
    const health = await fetch(`${mock.url}/__control/health`);
    expect(health.status).toBe(200);
    expect(((await health.json()) as { failures: { total: number } }).failures.total).toBe(0);
    expect(mock.child.exitCode).toBeNull();
  });

  it('walks every operation of both contracts with hostile strings in its path, query and every body field, and is still up', async () => {
    const answered: number[] = [];
    for (const contract of ['api', 'control'] as const) {
      const document = loadSpec(contract === 'api' ? 'openapi.yaml' : 'control.yaml').document;
      const schemas = new SchemaArbitraries({ document });
      for (const op of operationModels(document, contract)) {
        // A lone surrogate, control characters, and 100 KB of right-to-left text ending in a lone surrogate.
        for (const text of [HOSTILE_STRINGS[0], HOSTILE_STRINGS[3], HOSTILE_STRINGS[8]] as string[]) {
          const path = op.path.replace(/\{\w+\}/g, () => percentEncode(text.slice(0, 200)));
          const query = op.parameters.filter((p) => p.in === 'query').map((p) => `${p.name}=${percentEncode(text.slice(0, 300))}`);
          const properties = op.body ? Object.keys(schemas.resolve(op.body.schema).properties ?? {}) : [];
          const body = op.body ? JSON.stringify(Object.fromEntries([...properties, text.slice(0, 50)].map((name) => [name, text]))) : undefined;
          const res = await fetch(`${mock.url}${path}${query.length > 0 ? `?${query.join('&')}` : ''}`, {
            method: op.method,
            headers: { 'x-api-key': KEY, ...(body !== undefined && { 'Content-Type': 'application/json' }) },
            ...(body !== undefined && { body }),
          });
          answered.push(res.status);
          if (!res.headers.get('content-type')?.startsWith('text/event-stream')) await res.text();
          else await res.body?.cancel();
          expect(res.status, `${op.operationId} with ${JSON.stringify(text.slice(0, 20))}`).toBeLessThan(500);
        }
      }
    }
    expect(answered.length).toBeGreaterThan(250);
    const health = await fetch(`${mock.url}/__control/health`);
    expect(((await health.json()) as { failures: { total: number } }).failures.total).toBe(0);
    expect(mock.child.exitCode).toBeNull();
  }, 120_000);
});

describe('hostile strings in every place a request carries text', () => {
  const mock = useMock({ fixtures: false }, { listen: true });

  it('journals the error answer to each as a webhook secret', async () => {
    for (const secret of HOSTILE_STRINGS) {
      const res = await mock.call('post', '/v1/webhooks').send({ name: 'CRM', url: 'https://hooks.example/x', events: ['post.published'], secret: secret.slice(0, 12) });
      expect(res.status).toBeLessThan(500);
    }
    const journal = await mock.control('get', '/__control/journal?limit=100');
    expectStatus(journal, 200);
    const entries = (journal.body as { data: Array<{ operationId: string | null; status: number }> }).data.filter((entry) => entry.operationId === 'createWebhook');
    // Each request has its entry: the recording that threw before it was written no longer does.
    expect(entries).toHaveLength(HOSTILE_STRINGS.length);
    const health = await mock.control('get', '/__control/health');
    expect(health.body.failures.total).toBe(0);
  });

  it.each(HOSTILE_STRINGS.map((text, i) => [i, text] as const))('answers hostile string %i in a body field, a query parameter and a path segment in the envelope', async (_i, text) => {
    for (const res of [
      await mock.call('post', '/v1/posts').send({ text, destinations: [{ connectionId: text }] }),
      await mock.call('get', `/v1/posts?status=${percentEncode(text).slice(0, 6000)}&token=${percentEncode(text).slice(0, 6000)}`),
      await mock.call('get', `/v1/posts/${percentEncode(text).slice(0, 6000)}`),
      await mock.control('post', '/__control/rules').send({ id: text.slice(0, 200), match: { path: text.slice(0, 200) }, then: { latencyMs: 0 } }),
      await mock.control('post', '/__control/workspaces').send({ name: text, scenario: text }),
    ]) {
      expect(res.status, res.text.slice(0, 300)).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(res.body.error.code).toEqual(expect.any(String));
    }
  });

  it('answers a posts page filtered on a hostile account or network: an empty page where the filter is taken, the envelope where it is refused, and the failures stay at 0', async () => {
    for (const text of HOSTILE_STRINGS) {
      const value = percentEncode(text).slice(0, 6000);
      for (const res of [await mock.call('get', `/v1/posts?connectionId=${value}&include=total,facets`), await mock.call('get', `/v1/posts?platform=${value}&connectionId=${value}`)]) {
        expect(res.status, res.text.slice(0, 300)).toBeLessThan(500);
        if (res.status === 200) expect(res.body).toMatchObject({ data: [], nextCursor: null, hasMore: false });
        else expect(res.body.error.code).toEqual(expect.any(String));
      }
    }
    const health = await mock.control('get', '/__control/health');
    expect(health.body.failures.total).toBe(0);
  });

  it('answers each hostile query twice alike, the second parsed and hidden from memory, with its token hidden in both journal entries', async () => {
    for (const text of HOSTILE_STRINGS) {
      // Up to 3,000 encoded characters, within the request target's limit: most are short enough to be remembered, the 100 KB ones are not.
      const path = `/v1/posts?limit=2&token=${percentEncode(text).slice(0, 3000)}`;
      const first = await mock.call('get', path);
      const second = await mock.call('get', path);
      expect(first.status).toBeGreaterThanOrEqual(400);
      expect(first.status).toBeLessThan(500);
      expect(second.status).toBe(first.status);
      expect(second.text).toBe(first.text);
    }
    const journal = await mock.control('get', `/__control/journal?limit=${HOSTILE_STRINGS.length * 2}`);
    expectStatus(journal, 200);
    const queries = (journal.body as { data: Array<{ query: string }> }).data.map((entry) => entry.query);
    expect(queries).toHaveLength(HOSTILE_STRINGS.length * 2);
    for (const query of queries) expect(query).toBe('limit=2&token=[REDACTED]');
    expect((await mock.control('get', '/__control/health')).body.failures.total).toBe(0);
  });

  it('refuses control characters in a secret-named header as the HTTP parser does, in the envelope, and goes on', async () => {
    const port = Number(new URL(mock.url).port);
    for (const value of ['sgw\u0000test', 'a\u0001b\u001bc', `${'x'.repeat(20_000)}`]) {
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => socket.end(Buffer.from(`GET /v1/posts HTTP/1.1\r\nHost: localhost\r\nx-api-key: ${value}\r\nConnection: close\r\n\r\n`, 'latin1')));
        let text = '';
        socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
      });
      expect(answer).toMatch(/^HTTP\/1\.1 4\d\d /);
      expect(answer).toContain('"error"');
    }
    expectApiError(await mock.call('get', '/v1/posts', 'sgw_test_\u00ff\u00fe'), 401, 'UNAUTHORIZED');
    expectStatus(await mock.call('get', '/v1/posts'), 200);
  });
});

describe('hostile strings in the posts a workspace keeps', () => {
  const mock = useMock();

  it('reads a post with each hostile string as its text back exactly, from a built view, a remembered one and its remembered bytes, before and after it publishes', async () => {
    const connections = (await mock.call('get', '/v1/connections')).body.connections as Array<{ id: string; platform: string; status: string }>;
    // The network that takes the longest text and no media.
    const connectionId = connections.find((c) => c.platform === 'facebook' && c.status === 'active')?.id;
    expect(connectionId).toEqual(expect.any(String));
    let created = 0;
    for (const text of HOSTILE_STRINGS) {
      const made = await mock.call('post', '/v1/posts').send({ text, destinations: [{ connectionId }] });
      if (made.status !== 201) {
        // Past the network's text limit: refused in the envelope, and nothing is stored.
        expectApiError(made, 400, 'VALIDATION_ERROR');
        continue;
      }
      created++;
      const id = (made.body as { post: { id: string } }).post.id;
      // Three reads of each: the view built, then remembered (its text), then its bytes; every one the same answer.
      for (const clockMoved of [false, true]) {
        if (clockMoved) expectStatus(await mock.control('post', '/__control/clock/advance').send({ by: 'PT1H' }), 200);
        const pages = [];
        const singles = [];
        for (let read = 0; read < 3; read++) {
          pages.push((await mock.call('get', '/v1/posts?limit=1')).text);
          singles.push((await mock.call('get', `/v1/posts/${id}`)).text);
        }
        expect(new Set(pages).size, 'the page, read three times').toBe(1);
        expect(new Set(singles).size, 'the post, read three times').toBe(1);
        const page = JSON.parse(pages[0] as string) as { data: Array<{ id: string; text: string; status: string }> };
        expect(page.data[0]?.id).toBe(id);
        expect(page.data[0]?.text).toBe(text);
        expect((JSON.parse(singles[0] as string) as { post: { text: string; status: string } }).post).toMatchObject({ text, status: clockMoved ? 'published' : 'queued' });
      }
    }
    expect(created).toBeGreaterThanOrEqual(HOSTILE_STRINGS.length - 2);
    expectStatus(await mock.control('get', '/__control/journal?limit=100'), 200);
    expect((await mock.control('get', '/__control/health')).body.failures.total).toBe(0);
  });
});

/** The data of every kept `event` of the default workspace, as `GET /__control/events?replay=true` sends them. */
async function replayedData<T>(mock: UsedMock, event: string): Promise<T[]> {
  const kept = mock.server.registry.defaultWorkspace.events.recent().length;
  const stream = await SseClient.open(`${mock.url}/__control/events?replay=true`, { 'x-api-key': KEY });
  try {
    // The connection's comment line, then every kept event.
    await stream.waitFor(kept + 1);
    return stream
      .events()
      .filter((message) => message.event === event)
      .map((message) => (JSON.parse(message.data ?? '{}') as { data: T }).data);
  } finally {
    stream.close();
  }
}

describe('hostile strings through the control plane\'s event report and the replay', () => {
  const mock = useMock({}, { listen: true });

  it('reports each inbound comment\'s event with its text exactly, and replays the same events', async () => {
    const accepted: string[] = [];
    for (const text of HOSTILE_STRINGS) {
      const res = await mock.control('post', '/__control/inbound/comments').send({ text });
      if (res.status !== 201) {
        // The 100 KB ones: past the contract's 25,000 characters, or the network's comment limit; refused in the envelope.
        expect(res.status, res.text.slice(0, 300)).toBe(400);
        expect(['VALIDATION_ERROR', 'TEXT_TOO_LONG']).toContain(res.body.error.code);
        continue;
      }
      accepted.push(text);
      // The report is the events the call emitted, as the bus emitted them: this comment's alone.
      const events = (res.body as { events: Array<{ event: string; data: { comment: { text: string } } }> }).events;
      expect(events.map((event) => event.event)).toEqual(['comment.received']);
      expect(events[0]?.data.comment.text).toBe(text);
    }
    expect(accepted.length).toBeGreaterThanOrEqual(HOSTILE_STRINGS.length - 2);

    const replayed = await replayedData<{ comment: { text: string } }>(mock, 'comment.received');
    expect(replayed.map((data) => data.comment.text)).toEqual(accepted);
    expect((await mock.control('get', '/__control/health')).body.failures.total).toBe(0);
  });
});

describe('hostile strings in what a published destination keeps', () => {
  const mock = useMock({}, { listen: true });

  it("publishes to accounts whose handle and network id are each hostile string: the network's ids and URLs keep them exactly, the events replay them, and nothing fails", async () => {
    const accounts = accountsStore.get(mock.server.registry.defaultWorkspace).accounts;
    const connections = (await mock.call('get', '/v1/connections')).body.connections as Array<{ id: string; platform: string; status: string }>;
    const active = (platform: string) => connections.find((c) => c.platform === platform && c.status === 'active')?.id as string;
    const [twitter, bluesky] = [active('twitter'), active('bluesky')];
    const published: Array<{ text: string; destinations: Array<{ externalPostId: string; externalUrl: string }> }> = [];
    for (const text of HOSTILE_STRINGS) {
      // As a state file loaded with PUT /__control/state could hold them.
      Object.assign(accounts[twitter] as object, { handle: text });
      Object.assign(accounts[bluesky] as object, { handle: text, platformUserId: `did:plc:${text}` });
      const made = await mock.call('post', '/v1/posts').send({ text: 'Fresh roast', destinations: [{ connectionId: twitter }, { connectionId: bluesky }] });
      expectStatus(made, 201);
      expectStatus(await mock.control('post', '/__control/clock/advance').send({ by: 'PT1M' }), 200);
      const post = (await mock.call('get', `/v1/posts/${(made.body as { post: { id: string } }).post.id}`)).body.post as (typeof published)[number] & { status: string };
      expect(post.status).toBe('published');
      const [out, atUri] = post.destinations;
      expect(out?.externalUrl).toContain(`/${encodeComponent(text)}/status/${out?.externalPostId}`);
      expect(atUri?.externalPostId.startsWith(`at://did:plc:${text}/app.bsky.feed.post/`)).toBe(true);
      published.push({ text, destinations: post.destinations });
    }

    // The post's event carries the destinations as their own events did, and the replay sends them as kept.
    const settled = (await replayedData<{ post: (typeof published)[number] }>(mock, 'post.published')).slice(-published.length);
    const refs = (post: (typeof published)[number]) => post.destinations.map((d) => [d.externalPostId, d.externalUrl]);
    expect(settled.map((data) => refs(data.post))).toEqual(published.map(refs));
    expectStatus(await mock.control('get', '/__control/journal?limit=100'), 200);
    expect((await mock.control('get', '/__control/health')).body.failures.total).toBe(0);
  });
});

describe('hostile strings in the connections list', () => {
  const mock = useMock({}, { listen: true });

  it('lists an account whose name and handle are each hostile string exactly, read again from the memo alike, and anew once they change', async () => {
    const accounts = accountsStore.get(mock.server.registry.defaultWorkspace).accounts;
    const list = async () => {
      const answer = await mock.call('get', '/v1/connections');
      expectStatus(answer, 200);
      return { text: answer.text, connections: answer.body.connections as Array<{ id: string; displayName: string; handle: string }> };
    };
    const { connections } = await list();
    const id = connections[0]?.id as string;
    for (const text of HOSTILE_STRINGS) {
      // As a state file loaded with PUT /__control/state could hold them; one field at a time, so each must renew the view.
      for (const field of ['handle', 'displayName'] as const) {
        Object.assign(accounts[id] as object, { [field]: text });
        const first = await list();
        expect(first.connections.find((c) => c.id === id)?.[field], field).toBe(text);
        // The second read answers the remembered view's bytes: the same text, byte for byte.
        expect((await list()).text).toBe(first.text);
      }
    }
    expect((await mock.control('get', '/__control/health')).body.failures.total).toBe(0);
  });
});
