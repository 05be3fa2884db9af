import type { Response } from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectApiError, expectStatus, type TestMock, useMock } from '../helpers/mock.js';
import { EVENT_NAMES } from '../../src/events/catalog.js';
import { SseClient } from '../helpers/sse-client.js';
import { payloadProblems } from '../helpers/webhook-contract.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

const MINUTE = 60_000;

const mock = useMock();
let receiver: WebhookReceiver;
beforeEach(async () => {
  receiver = await WebhookReceiver.start();
});
afterEach(() => receiver.close());

interface Connection {
  id: string;
  platform: string;
  status: string;
}

interface Destination {
  id: string;
  connectionId: string;
  status: string;
  errorCode: string | null;
  errorMessage: string | null;
  externalUrl: string | null;
}

interface Delivery {
  event: string;
  eventId: string;
  status: string;
  attempts: Array<{ attempt: number; responseStatus: number | null; error: string | null; durationMs: number | null }>;
}

/** A fixture world of its own (clock frozen at the test start), seen as a client sees it. */
interface World {
  key: string;
  call(method: 'get' | 'post' | 'delete' | 'patch', path: string): ReturnType<TestMock['call']>;
  control(method: 'get' | 'post' | 'put', path: string): ReturnType<TestMock['control']>;
  /** Two active accounts. */
  active: Connection[];
  advance(ms: number): Promise<void>;
  hook(events: string[]): Promise<string>;
  deliveries(webhookId: string): Promise<Delivery[]>;
  journal(operationId: string): Promise<Array<{ method: string; path: string; operationId: string; status: number; at: string }>>;
  state(): Promise<unknown>;
  dayCount(accountId: string): Promise<number>;
}

/**
 * An empty world of its own (nothing of a fixture world fires while the clock moves)
 * with two accounts connected through the API.
 */
async function newWorld(): Promise<World> {
  const created = await mock.control('post', '/__control/workspaces').send({ fixtures: false });
  expectStatus(created, 201);
  const key = created.body.apiKey as string;
  const call: World['call'] = (method, path) => mock.call(method, path, key);
  const control: World['control'] = (method, path) => mock.control(method, path, key);
  const active: Connection[] = [];
  for (const identifier of ['studio-north.bsky.social', 'studio-south.bsky.social']) {
    const res = await call('post', '/v1/connections/bluesky/connect').send({ identifier, appPassword: 'abcd-efgh-ijkl-mnop' });
    expectStatus(res, 200);
    active.push(res.body.connection as Connection);
  }
  return {
    key,
    call,
    control,
    active,
    async advance(ms) {
      expectStatus(await control('post', '/__control/clock/advance').send({ ms }), 200);
    },
    async hook(events) {
      const res = await call('post', '/v1/webhooks').send({ name: 'CRM', url: receiver.url, events });
      expectStatus(res, 201);
      return res.body.id as string;
    },
    async deliveries(webhookId) {
      const res = await call('get', `/v1/webhooks/${webhookId}/deliveries`);
      expectStatus(res, 200);
      return (res.body.data as Delivery[]).reverse();
    },
    async journal(operationId) {
      const res = await control('get', `/__control/journal?operationId=${operationId}`);
      expectStatus(res, 200);
      return res.body.data;
    },
    async state() {
      const res = await control('get', '/__control/state');
      expectStatus(res, 200);
      return res.body;
    },
    async dayCount(accountId) {
      const res = await control('get', '/__control/limits');
      return (res.body.velocity as Array<{ accountId: string; day: { count: number } }>).find((row) => row.accountId === accountId)?.day.count ?? -1;
    },
  };
}

/** A post to these accounts, published now (queued) or at `scheduledFor` (UTC). */
async function createPost(world: World, accounts: Connection[], scheduledFor?: string): Promise<{ id: string; status: string }> {
  const res = await world.call('post', '/v1/posts').send({
    text: 'Fresh beans today.',
    destinations: accounts.map((account) => ({ connectionId: account.id })),
    ...(scheduledFor !== undefined && { scheduledFor, timezone: 'UTC' }),
  });
  expectStatus(res, 201);
  return res.body.post;
}

async function postOf(world: World, id: string): Promise<{ status: string; destinations: Destination[] }> {
  const res = await world.call('get', `/v1/posts/${id}`);
  expectStatus(res, 200);
  return res.body.post;
}

/** Refused in the envelope, and the workspace's state is what it was. */
async function expectRefusal(world: World, request: () => Promise<Response>, status: number, code: string, param?: string): Promise<void> {
  const before = await world.state();
  expectApiError(await request(), status, code, param);
  expect(await world.state()).toEqual(before);
}

const POST_EVENTS = ['post.published', 'post.failed', 'post.partial', 'post.platform.published', 'post.platform.failed'];

describe('POST /__control/posts/{id}/outcome', () => {
  describe('when every destination of a queued post is decided failed', () => {
    it('fails them as decided when the post fires, with the events of a real failure and no velocity counted', async () => {
      const world = await newWorld();
      const [a, b] = world.active as [Connection, Connection];
      await world.hook(POST_EVENTS);
      const post = await createPost(world, [a, b]);
      expect(post.status).toBe('queued');
      const countBefore = await world.dayCount(a.id);

      const res = await world.control('post', `/__control/posts/${post.id}/outcome`).send({ result: 'failed', errorCode: 'PLATFORM_ERROR', message: 'The network answered 503.' });
      expectStatus(res, 200);
      const decided = { result: 'failed', errorCode: 'PLATFORM_ERROR', message: 'The network answered 503.' };
      expect(res.body).toEqual({
        postId: post.id,
        status: 'queued',
        destinations: [
          { destinationId: expect.any(String), accountId: a.id, platform: a.platform, outcome: decided },
          { destinationId: expect.any(String), accountId: b.id, platform: b.platform, outcome: decided },
        ],
      });
      // Nothing happens before the post fires.
      expect((await postOf(world, post.id)).status).toBe('queued');

      await world.advance(2_000 + 2 * 3_000);
      const after = await postOf(world, post.id);
      expect(after.status).toBe('failed');
      for (const destination of after.destinations) {
        expect(destination).toMatchObject({ status: 'failed', errorCode: 'PLATFORM_ERROR', errorMessage: 'The network answered 503.', externalUrl: null });
      }
      expect(receiver.events()).toEqual(['post.platform.failed', 'post.platform.failed', 'post.failed']);
      expect(await world.dayCount(a.id)).toBe(countBefore);
      expect(await world.journal('setPostOutcome')).toEqual([
        expect.objectContaining({ method: 'POST', path: `/__control/posts/${post.id}/outcome`, operationId: 'setPostOutcome', status: 200, errorCode: null }),
      ]);
    });

    it('names the code in a default message when none is given', async () => {
      const world = await newWorld();
      const [a] = world.active as [Connection];
      const post = await createPost(world, [a]);
      expectStatus(await world.control('post', `/__control/posts/${post.id}/outcome`).send({ result: 'failed', errorCode: 'ACCOUNT_RECONNECT_REQUIRED' }), 200);
      await world.advance(5_000);
      const [destination] = (await postOf(world, post.id)).destinations;
      expect(destination?.errorCode).toBe('ACCOUNT_RECONNECT_REQUIRED');
      expect(destination?.errorMessage).toMatch(/ACCOUNT_RECONNECT_REQUIRED/);
    });
  });

  describe('when one account of a scheduled post is decided failed and the rest published', () => {
    it('ends as post.partial at the fire time, counting only the published destination', async () => {
      const world = await newWorld();
      const [a, b] = world.active as [Connection, Connection];
      await world.hook(POST_EVENTS);
      const post = await createPost(world, [a, b], '2026-03-02T10:00:00');
      expect(post.status).toBe('scheduled');
      const [countA, countB] = [await world.dayCount(a.id), await world.dayCount(b.id)];

      expectStatus(await world.control('post', `/__control/posts/${post.id}/outcome`).send({ result: 'published' }), 200);
      const res = await world.control('post', `/__control/posts/${post.id}/outcome`).send({ result: 'failed', errorCode: 'VELOCITY_LIMITED', accountId: b.id });
      expectStatus(res, 200);
      expect(res.body.destinations.map((d: { outcome: { result: string } }) => d.outcome.result)).toEqual(['published', 'failed']);

      await world.advance(MINUTE);
      expect((await postOf(world, post.id)).status).toBe('scheduled');
      await world.advance(60 * MINUTE);
      const after = await postOf(world, post.id);
      expect(after.status).toBe('published');
      expect(after.destinations.map((d) => [d.connectionId, d.status, d.errorCode])).toEqual([
        [a.id, 'published', null],
        [b.id, 'failed', 'VELOCITY_LIMITED'],
      ]);
      expect(after.destinations[0]?.externalUrl).toMatch(/^https:\/\//);
      expect(receiver.events()).toEqual(['post.platform.published', 'post.platform.failed', 'post.partial']);
      expect(await world.dayCount(a.id)).toBe(countA + 1);
      expect(await world.dayCount(b.id)).toBe(countB);
      expect(await world.journal('setPostOutcome')).toHaveLength(2);
    });
  });

  describe('when a destination the network would refuse is decided published', () => {
    it('publishes it: the decision stands in for the network', async () => {
      const world = await newWorld();
      const [a] = world.active as [Connection];
      await world.hook(POST_EVENTS);
      const post = await createPost(world, [a]);
      expectStatus(await world.control('post', `/__control/accounts/${a.id}/status`).send({ status: 'error' }), 200);
      expectStatus(await world.control('post', `/__control/posts/${post.id}/outcome`).send({ result: 'published' }), 200);
      await world.advance(5_000);
      expect((await postOf(world, post.id)).destinations[0]).toMatchObject({ status: 'published', errorCode: null });
      expect(receiver.events()).toEqual(['post.platform.published', 'post.published']);
    });
  });

  describe('when the workspace is restored from a snapshot taken after the decision', () => {
    it('still ends as decided: the decision is part of the world', async () => {
      const world = await newWorld();
      const [a] = world.active as [Connection];
      const post = await createPost(world, [a]);
      expectStatus(await world.control('post', `/__control/posts/${post.id}/outcome`).send({ result: 'failed', errorCode: 'PLATFORM_ERROR' }), 200);
      const snapshot = await world.state();
      expectStatus(await world.control('post', '/__control/reset'), 200);
      expectStatus(await world.control('put', '/__control/state').send(snapshot as object), 200);
      await world.advance(5_000);
      expect((await postOf(world, post.id)).destinations[0]).toMatchObject({ status: 'failed', errorCode: 'PLATFORM_ERROR' });
    });
  });

  describe('refusals', () => {
    it('answers 404 for an unknown post', async () => {
      const world = await newWorld();
      await expectRefusal(world, () => world.control('post', '/__control/posts/no-such-post/outcome').send({ result: 'published' }), 404, 'NOT_FOUND');
    });

    it.each(['published', 'cancelled', 'failed'])('answers 409 CONFLICT for a %s post', async (status) => {
      const world = await newWorld();
      const [a] = world.active as [Connection];
      let post: { id: string };
      if (status === 'cancelled') {
        post = await createPost(world, [a], '2026-03-03T10:00:00');
        expectStatus(await world.call('post', `/v1/posts/${post.id}/cancel`), 200);
      } else {
        post = await createPost(world, [a]);
        if (status === 'failed') expectStatus(await world.control('post', `/__control/posts/${post.id}/outcome`).send({ result: 'failed', errorCode: 'PLATFORM_ERROR' }), 200);
        await world.advance(5_000);
      }
      expect((await postOf(world, post.id)).status).toBe(status);
      await expectRefusal(world, () => world.control('post', `/__control/posts/${post.id}/outcome`).send({ result: 'published' }), 409, 'CONFLICT');
    });

    it('names the code a mistyped errorCode most likely meant', async () => {
      const world = await newWorld();
      const post = await createPost(world, [world.active[0] as Connection]);
      const res = await world.control('post', `/__control/posts/${post.id}/outcome`).send({ result: 'failed', errorCode: 'PLATFORM_EROR' });
      expectApiError(res, 400, 'VALIDATION_ERROR', 'errorCode');
      expect(res.body.error.message).toMatch(/; got 'PLATFORM_EROR'; did you mean PLATFORM_ERROR\?$/);
    });

    it.each([
      [{ result: 'failed' }, 'errorCode'],
      [{ result: 'failed', errorCode: 'NOT_A_CODE' }, 'errorCode'],
      [{ result: 'failed', errorCode: 'lowercase' }, 'errorCode'],
      [{ result: 'published', errorCode: 'PLATFORM_ERROR' }, 'errorCode'],
      [{ result: 'published', message: 'why' }, 'message'],
      [{ result: 'maybe' }, 'result'],
      [{ result: 'published', accountId: 'not-an-account-of-the-post' }, 'accountId'],
      [{ result: 'published', extra: true }, 'extra'],
    ])('answers 400 VALIDATION_ERROR for %j, changing nothing', async (body, param) => {
      const world = await newWorld();
      const [a] = world.active as [Connection];
      const post = await createPost(world, [a]);
      await expectRefusal(world, () => world.control('post', `/__control/posts/${post.id}/outcome`).send(body), 400, 'VALIDATION_ERROR', param);
      expect(await world.journal('setPostOutcome')).toEqual([]);
      // The network decides, as if nothing had been asked.
      await world.advance(5_000);
      expect((await postOf(world, post.id)).status).toBe('published');
    });
  });
});

describe('POST /__control/webhooks/{id}/failures', () => {
  async function failures(world: World, webhookId: string, body: Record<string, unknown>): Promise<Response> {
    return world.control('post', `/__control/webhooks/${webhookId}/failures`).send(body);
  }

  describe('with a status', () => {
    it('fails the next attempts with it, retried on the virtual clock, then delivers', async () => {
      const world = await newWorld();
      const hook = await world.hook(['post.published']);
      const res = await failures(world, hook, { count: 2, status: 500 });
      expectStatus(res, 200);
      expect(res.body).toEqual({ webhookId: hook, faults: { duplicate: false, outOfOrder: false, delayMs: 0, failStatus: 500, failError: null, failCount: 2 } });

      const post = await createPost(world, [world.active[0] as Connection]);
      await world.advance(5_000);
      let [delivery] = await world.deliveries(hook);
      expect(delivery).toMatchObject({ event: 'post.published', status: 'pending', attempts: [{ attempt: 1, responseStatus: 500, durationMs: null }] });
      expect(receiver.requests).toHaveLength(0);
      await world.advance(MINUTE);
      await world.advance(5 * MINUTE);
      [delivery] = await world.deliveries(hook);
      expect(delivery?.status).toBe('succeeded');
      expect(delivery?.attempts.map((attempt) => attempt.responseStatus)).toEqual([500, 500, 200]);
      expect(receiver.requests).toHaveLength(1);
      expect((receiver.requests[0]?.json.data.post as { id: string }).id).toBe(post.id);
      expect(await world.journal('failWebhookDeliveries')).toEqual([
        expect.objectContaining({ method: 'POST', path: `/__control/webhooks/${hook}/failures`, status: 200 }),
      ]);
    });
  });

  describe.each([
    ['timeout', /^timeout: no answer within \d+ ms/],
    ['reset', /^connection reset/],
  ])('with %s', (way, error) => {
    it('logs the attempt as that failure, without a status, and retries it', async () => {
      const world = await newWorld();
      const hook = await world.hook(['post.published']);
      const res = await failures(world, hook, { count: 1, [way]: true });
      expectStatus(res, 200);
      expect(res.body.faults).toMatchObject({ failStatus: null, failError: way, failCount: 1 });
      await createPost(world, [world.active[0] as Connection]);
      await world.advance(5_000);
      let [delivery] = await world.deliveries(hook);
      expect(delivery?.status).toBe('pending');
      expect(delivery?.attempts[0]?.responseStatus).toBeNull();
      expect(delivery?.attempts[0]?.error).toMatch(error);
      await world.advance(MINUTE);
      [delivery] = await world.deliveries(hook);
      expect(delivery?.status).toBe('succeeded');
      expect(receiver.requests).toHaveLength(1);
      // Used up: the faults are back to none.
      expect((await failures(world, hook, { count: 1, status: 503 })).body.faults.failError).toBeNull();
    });
  });

  it('keeps the other delivery faults and replaces the forced failures of /faults', async () => {
    const world = await newWorld();
    const hook = await world.hook(['post.published']);
    expectStatus(await world.control('post', `/__control/webhooks/${hook}/faults`).send({ duplicate: true, failStatus: 503 }), 200);
    const res = await failures(world, hook, { count: 3, reset: true });
    expect(res.body.faults).toEqual({ duplicate: true, outOfOrder: false, delayMs: 0, failStatus: null, failError: 'reset', failCount: 3 });
    // /faults still replaces the whole set, forced failures included.
    expect((await world.control('post', `/__control/webhooks/${hook}/faults`).send({})).body.faults).toMatchObject({ failError: null, failCount: null });
  });

  describe('refusals', () => {
    it.each([
      [{ count: 1 }, 'status'],
      [{ count: 1, status: 500, timeout: true }, 'timeout'],
      [{ count: 1, timeout: true, reset: true }, 'reset'],
      [{ status: 500 }, 'count'],
      [{ count: 0, status: 500 }, 'count'],
      [{ count: 1, status: 302 }, 'status'],
      [{ count: 1, timeout: false }, 'timeout'],
    ])('answers 400 VALIDATION_ERROR for %j, changing nothing', async (body, param) => {
      const world = await newWorld();
      const hook = await world.hook(['post.published']);
      await expectRefusal(world, () => failures(world, hook, body), 400, 'VALIDATION_ERROR', param);
      expect(await world.journal('failWebhookDeliveries')).toEqual([]);
    });

    it('answers 404 for a webhook of another workspace', async () => {
      const mine = await newWorld();
      const theirs = await newWorld();
      const hook = await theirs.hook(['post.published']);
      await expectRefusal(mine, () => failures(mine, hook, { count: 1, status: 500 }), 404, 'NOT_FOUND');
    });
  });
});

describe('POST /__control/events', () => {
  async function emit(world: World, body: Record<string, unknown>): Promise<Response> {
    return world.control('post', '/__control/events').send(body);
  }

  it('emits post.published for an existing post, overrides merged, to webhooks and the event stream', async () => {
    const world = await newWorld();
    const hook = await world.hook(['post.published']);
    const other = await world.hook(['post.failed']);
    const url = await mock.server.listen(0);
    const stream = await SseClient.open(`${url}/__control/events`, { 'x-api-key': world.key });
    try {
      await stream.waitFor(1);
      const [a] = world.active as [Connection];
      const created = await createPost(world, [a]);
      const post = await world.call('get', `/v1/posts/${created.id}`);
      const res = await emit(world, { event: 'post.published', objectId: created.id, overrides: { post: { text: 'Edited on the network', destinations: [] } } });
      expectStatus(res, 201);
      const { event, deliveries, automations } = res.body;
      expect(event).toMatchObject({ event: 'post.published', workspaceId: expect.any(String), data: { post: { ...post.body.post, text: 'Edited on the network', destinations: [] } } });
      expect(deliveries).toEqual([{ webhookId: hook, deliveryId: expect.any(String) }]);
      expect(automations).toEqual([]);
      await world.advance(0);
      expect(receiver.requests).toHaveLength(1);
      expect(receiver.requests[0]?.json).toEqual(event);
      expect((await world.deliveries(hook))[0]).toMatchObject({ eventId: event.id, status: 'succeeded' });
      expect(await world.deliveries(other)).toEqual([]);
      await stream.waitFor(2);
      expect(stream.events().map((message) => JSON.parse(message.data ?? '{}'))).toContainEqual(event);
      // The post itself is as it was.
      expect((await world.call('get', `/v1/posts/${created.id}`)).body).toEqual(post.body);
      expect(await world.journal('emitEvent')).toEqual([expect.objectContaining({ method: 'POST', path: '/__control/events', status: 201 })]);
    } finally {
      stream.close();
    }
  });

  it('builds post.platform.failed from a destination, and account.expired from an account whose state stays', async () => {
    const world = await newWorld();
    const [a] = world.active as [Connection];
    const created = await createPost(world, [a]);
    const { destinations } = await postOf(world, created.id);
    const destination = destinations[0] as Destination;
    const failed = await emit(world, { event: 'post.platform.failed', objectId: destination.id, overrides: { destination: { status: 'failed', errorCode: 'PLATFORM_ERROR' } } });
    expectStatus(failed, 201);
    expect(failed.body.event.data).toEqual({ postId: created.id, destination: { ...destination, status: 'failed', errorCode: 'PLATFORM_ERROR' } });

    const expired = await emit(world, { event: 'account.expired', objectId: a.id });
    expectStatus(expired, 201);
    expect(expired.body.event.data.account).toMatchObject({ id: a.id, status: 'active' });
    expect((await world.call('get', `/v1/accounts/${a.id}`)).body.status).toBe('active');
  });

  it('runs the automations a comment.received sets off, like any emitted one', async () => {
    const world = await newWorld();
    const [a] = world.active as [Connection];
    const post = await createPost(world, [a]);
    await world.advance(5_000);
    const destination = (await postOf(world, post.id)).destinations[0] as Destination;
    const inbound = await world.control('post', '/__control/inbound/comments').send({ destinationId: destination.id, text: 'What is the price?' });
    expectStatus(inbound, 201);
    expect(inbound.body.automations).toEqual([]);
    const comment = inbound.body.comment as { id: string };
    const automation = await world.call('post', '/v1/automations').send({ accountId: a.id, name: 'Price answers', kind: 'comment_to_dm', keywords: ['price'], message: 'Our prices are on the site.' });
    expectStatus(automation, 201);

    const res = await emit(world, { event: 'comment.received', objectId: comment.id });
    expectStatus(res, 201);
    expect(res.body.event.data).toEqual({ destinationId: destination.id, comment: inbound.body.comment });
    expect(res.body.automations).toEqual([expect.objectContaining({ automationId: automation.body.id, kind: 'comment_to_dm', outcome: 'triggered' })]);
  });

  it('sends webhook.test to the webhook named only, whatever its events', async () => {
    const world = await newWorld();
    const hook = await world.hook(['post.failed']);
    const res = await emit(world, { event: 'webhook.test', objectId: hook, overrides: { message: 'Hello from the test' } });
    expectStatus(res, 201);
    expect(res.body.event.data).toEqual({ webhookId: hook, message: 'Hello from the test' });
    expect(res.body.deliveries).toEqual([{ webhookId: hook, deliveryId: expect.any(String) }]);
    expect(receiver.requests.map((request) => request.json.event)).toEqual(['webhook.test']);
  });

  describe('for every event, in a fixture world', () => {
    /** An object of each kind the fixture world holds, found as a client would (the snapshot for what no list shows). */
    async function objectsOf(key: string): Promise<Record<string, string>> {
      const get = async (path: string) => (await mock.call('get', path, key)).body;
      const state = (await mock.control('get', '/__control/state', key)).body.workspace.stores as Record<string, Record<string, Record<string, unknown>>>;
      const first = (records: Record<string, unknown> | undefined) => Object.keys(records ?? {})[0] as string;
      const post = (await get('/v1/posts?limit=1')).data[0];
      const hook = await mock.call('post', '/v1/webhooks', key).send({ name: 'CRM', url: receiver.url, events: ['post.published'] });
      return {
        post: post.id,
        destination: post.destinations[0].id,
        account: (await get('/v1/accounts?limit=1')).data[0].id,
        comment: first(state.comments?.comments),
        message: first(state.inbox?.messages),
        conversation: first(state.inbox?.conversations),
        review: first(state.reviews?.reviews),
        automation: (await get('/v1/automations?limit=1')).data[0].id,
        webhook: hook.body.id,
      };
    }

    const kindOf = (event: string) =>
      event.startsWith('post.platform.') ? 'destination'
      : event === 'conversation.started' ? 'conversation'
      : event === 'review.new' ? 'review'
      : event === 'webhook.test' ? 'webhook'
      : event.slice(0, event.indexOf('.'));

    it('emits each of the 22 with a payload the contract accepts, built from the object', async () => {
      const created = await mock.control('post', '/__control/workspaces').send({});
      const key = created.body.apiKey as string;
      const objects = await objectsOf(key);
      for (const [kind, id] of Object.entries(objects)) expect(id, kind).toEqual(expect.any(String));
      expect(EVENT_NAMES).toHaveLength(22);
      for (const event of EVENT_NAMES) {
        const objectId = objects[kindOf(event)] as string;
        const res = await mock.control('post', '/__control/events', key).send({ event, objectId });
        expectStatus(res, 201);
        expect(res.body.event.event).toBe(event);
        expect(payloadProblems(res.body.event), event).toEqual([]);
        expect(JSON.stringify(res.body.event.data), event).toContain(objectId);
      }
      const journal = (await mock.control('get', '/__control/journal?operationId=emitEvent&limit=100', key)).body.data;
      expect(journal).toHaveLength(22);
    });
  });

  describe('refusals', () => {
    it('answers 400 naming objectId for an object of another kind', async () => {
      const world = await newWorld();
      const [a] = world.active as [Connection];
      const post = await createPost(world, [a]);
      await expectRefusal(world, () => emit(world, { event: 'post.platform.failed', objectId: post.id }), 400, 'VALIDATION_ERROR', 'objectId');
      await expectRefusal(world, () => emit(world, { event: 'comment.received', objectId: a.id }), 400, 'VALIDATION_ERROR', 'objectId');
    });

    it('answers 404 naming objectId for an unknown object', async () => {
      const world = await newWorld();
      await expectRefusal(world, () => emit(world, { event: 'review.new', objectId: 'no-such-review' }), 404, 'NOT_FOUND', 'objectId');
    });

    it.each([
      [{ event: 'post.exploded', objectId: 'x' }, 'event'],
      [{ event: 'post.published' }, 'objectId'],
      [{ event: 'post.published', objectId: 'x', overrides: [] }, 'overrides'],
    ])('answers 400 VALIDATION_ERROR for %j', async (body, param) => {
      const world = await newWorld();
      await expectRefusal(world, () => emit(world, body), 400, 'VALIDATION_ERROR', param);
      expect(await world.journal('emitEvent')).toEqual([]);
    });
  });
});
