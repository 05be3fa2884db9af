import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectApiError, expectStatus, startMock, useMock } from '../helpers/mock.js';
import { SseClient } from '../helpers/sse-client.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { newWorld } from '../helpers/world.js';

const mock = useMock({ fixtures: false }, { listen: true });
let receiver: WebhookReceiver;
const clients: SseClient[] = [];
beforeEach(async () => {
  receiver = await WebhookReceiver.start();
});
afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await receiver.close();
});

async function open(key: string, query = ''): Promise<SseClient> {
  const client = await SseClient.open(`${mock.url}/__control/events${query}`, { 'x-api-key': key });
  clients.push(client);
  await client.waitFor(1);
  return client;
}

describe('GET /__control/events', () => {
  it('streams every event of the workspace, the same as the webhook bodies', async () => {
    const world = await newWorld(mock);
    const hook = await world.call('post', '/v1/webhooks').send({ name: 'all', url: receiver.url, events: ['post.published', 'account.expired'] });
    expectStatus(hook, 201);
    const client = await open(world.key);
    expect(client.response.statusCode).toBe(200);
    expect(client.response.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(client.messages[0]).toEqual({ comment: `connected to ${world.workspace.id}` });

    const published = world.emit('post.published');
    const expired = world.emit('account.expired');
    // Not subscribed by any webhook, still streamed.
    const comment = world.emit('comment.received');
    const test = await world.call('post', `/v1/webhooks/${hook.body.id}/test`);
    await world.advance(0);
    await client.waitFor(5);

    expect(client.events().map((message) => [message.id, message.event])).toEqual([
      [published.id, 'post.published'],
      [expired.id, 'account.expired'],
      [comment.id, 'comment.received'],
      [test.body.eventId, 'webhook.test'],
    ]);
    // Each data line is byte for byte the body a webhook receives.
    expect(receiver.requests.map((request) => request.body)).toEqual([0, 1, 3].map((i) => client.events()[i]?.data));
  });

  it('shows only its own workspace', async () => {
    const mine = await newWorld(mock);
    const theirs = await newWorld(mock);
    const client = await open(mine.key);
    theirs.emit('post.published');
    const own = mine.emit('post.failed');
    await client.waitFor(2);
    expect(client.events().map((message) => message.id)).toEqual([own.id]);
  });

  it('replays the kept events first with replay=true', async () => {
    const world = await newWorld(mock);
    const earlier = [world.emit('post.scheduled'), world.emit('post.cancelled')];
    const client = await open(world.key, '?replay=true');
    const later = world.emit('post.deleted');
    await client.waitFor(4);
    expect(client.events().map((message) => message.id)).toEqual([...earlier, later].map((event) => event.id));
  });

  describe('with requests=true', () => {
    it('also streams request.recorded, the journal entry of each request, in order with the events', async () => {
      const world = await newWorld(mock);
      const plain = await open(world.key);
      const client = await open(world.key, '?requests=true');
      expectStatus(await world.call('get', '/v1/webhooks'), 200);
      const emitted = world.emit('post.published');
      await client.waitFor(3);
      const [recorded, published] = client.events();
      expect(recorded).toMatchObject({ id: expect.stringMatching(/^journal_\d+$/), event: 'request.recorded' });
      const journal = (await world.control('get', '/__control/journal')).body as { data: unknown[] };
      expect(JSON.parse(recorded?.data ?? '')).toEqual({ id: recorded?.id, event: 'request.recorded', createdAt: expect.any(String), workspaceId: world.workspace.id, data: { entry: journal.data.at(-1), detail: expect.any(Object) } });
      expect(published?.id).toBe(emitted.id);
      // A stream that did not ask sees the webhook events alone, as before.
      await plain.waitFor(2);
      expect(plain.events().map((message) => message.event)).toEqual(['post.published']);
    });

    it('sends the headers and bodies of an API request answered while it is open, keys masked, and the journal keeps none', async () => {
      const world = await newWorld(mock);
      const client = await open(world.key, '?requests=true');
      const refused = await world.call('post', '/v1/posts').send({ text: 'hello', accountIds: [] });
      expect(refused.status).toBe(400);
      await client.waitFor(2);
      const { data } = JSON.parse(client.events()[0]?.data ?? '') as { data: { entry: { seq: number }; detail: Record<string, unknown> } };
      expect(data.detail).toMatchObject({
        requestHeaders: expect.objectContaining({ 'x-api-key': `••••${world.key.slice(-4)}`, 'content-type': 'application/json' }),
        requestBodyTruncated: false,
        responseHeaders: expect.objectContaining({ 'content-type': expect.stringMatching(/^application\/json/) }),
        responseBody: JSON.stringify(refused.body),
        responseBodyTruncated: false,
      });
      // As the mock read it: the contract's defaults are filled in by then.
      expect(JSON.parse(data.detail['requestBody'] as string)).toMatchObject({ text: 'hello', accountIds: [] });
      const journal = (await world.control('get', '/__control/journal')).body as { data: Array<Record<string, unknown>> };
      expect(Object.keys(journal.data.at(-1) ?? {})).not.toContain('detail');
    });

    it('cuts a body past 16 KB and says so', async () => {
      const world = await newWorld(mock);
      const client = await open(world.key, '?requests=true');
      await world.call('post', '/v1/posts').send({ text: 'x'.repeat(20_000), accountIds: [] });
      await client.waitFor(2);
      const { data } = JSON.parse(client.events()[0]?.data ?? '') as { data: { detail: { requestBody: string; requestBodyTruncated: boolean } } };
      expect(data.detail.requestBodyTruncated).toBe(true);
      expect(Buffer.byteLength(data.detail.requestBody)).toBe(16 * 1024);
    });

    it('sends no detail to a stream that did not ask for requests', async () => {
      const world = await newWorld(mock);
      const plain = await open(world.key);
      const watcher = await open(world.key, '?requests=true');
      watcher.close();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expectStatus(await world.call('get', '/v1/webhooks'), 200);
      world.emit('post.published');
      await plain.waitFor(2);
      expect(plain.events().map((message) => message.event)).toEqual(['post.published']);
    });

    it('leaves request.recorded out of a replay', async () => {
      const world = await newWorld(mock);
      expectStatus(await world.call('get', '/v1/webhooks'), 200);
      const event = world.emit('post.scheduled');
      const client = await open(world.key, '?replay=true&requests=true');
      await client.waitFor(2);
      expect(client.events().map((message) => message.id)).toEqual([event.id]);
    });
  });

  it('answers 400 for a replay that is not a boolean', async () => {
    expectApiError(await mock.control('get', '/__control/events?replay=maybe'), 400, 'VALIDATION_ERROR', 'replay');
  });

  it('answers 401 for an unknown key', async () => {
    expectApiError(await mock.control('get', '/__control/events', 'sgw_test_nobody'), 401, 'UNAUTHORIZED');
  });

  it('ends open streams when the server closes', async () => {
    const other = await startMock({ fixtures: false });
    const url = await other.server.listen(0);
    const client = await SseClient.open(`${url}/__control/events`);
    clients.push(client);
    await client.waitFor(1);
    await other.close();
    await client.ended();
  });
});
