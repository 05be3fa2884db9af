import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { webhooksStore } from '../../src/api/webhooks/store.js';
import { setDeliveryFaults } from '../../src/api/webhooks/service.js';
import { verifyWebhookSignature } from '../../src/index.js';
import { expectApiError, expectStatus, startMock, TEST_CLOCK, useMock } from '../helpers/mock.js';
import { payloadProblems } from '../helpers/webhook-contract.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { newWorld, type World } from '../helpers/world.js';

const T0 = Date.parse(TEST_CLOCK);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const at = (ms: number) => new Date(T0 + ms).toISOString();
const SECRET = 'whsec_0123456789abcdef';
/** When each of the six attempts goes out, counted from the first: +1 min, +5, +30, +2 h, +6 h after the one before. */
const ATTEMPT_OFFSETS = [0, 1, 6, 36, 156, 516].map((minutes) => minutes * MINUTE);

const mock = useMock({ fixtures: false });
let receiver: WebhookReceiver;
beforeEach(async () => {
  receiver = await WebhookReceiver.start();
});
afterEach(() => receiver.close());

interface Delivery {
  id: string;
  eventId: string;
  event: string;
  status: string;
  attempts: Array<{ attempt: number; at: string; responseStatus: number | null; durationMs: number | null; error: string | null }>;
  nextAttemptAt: string | null;
}

async function createHook(world: World, body: Record<string, unknown> = {}) {
  const res = await world.call('post', '/v1/webhooks').send({ name: 'CRM', url: receiver.url, events: ['post.published'], secret: SECRET, ...body });
  expectStatus(res, 201);
  return res.body as { id: string };
}

async function deliveries(world: World, hookId: string, query = ''): Promise<Delivery[]> {
  const res = await world.call('get', `/v1/webhooks/${hookId}/deliveries${query}`);
  expectStatus(res, 200);
  return res.body.data as Delivery[];
}

async function hook(world: World, id: string) {
  return (await world.call('get', `/v1/webhooks/${id}`)).body as { enabled: boolean; consecutiveFailures: number; disabledReason: string | null };
}

async function pendingJobs(world: World): Promise<number> {
  return (await world.control('get', '/__control/clock')).body.pendingJobs as number;
}

function header(index: number, name: string): string | undefined {
  const value = receiver.requests[index]?.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

describe('delivering an event', () => {
  it('POSTs the event to the webhook with its headers and a signature that verifies', async () => {
    const world = await newWorld(mock);
    await createHook(world);
    const event = world.emit('post.published');
    await world.advance(0);
    expect(receiver.requests).toHaveLength(1);
    const request = receiver.requests[0];
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/hooks');
    expect(request?.headers).toMatchObject({
      'content-type': 'application/json',
      'x-gateway-event': 'post.published',
      'x-gateway-event-id': event.id,
      'x-gateway-delivery-attempt': '1',
      'x-gateway-signature': expect.stringMatching(/^sha256=[0-9a-f]{64}$/),
    });
    expect(request?.json).toEqual({ id: event.id, event: 'post.published', createdAt: TEST_CLOCK, workspaceId: world.workspace.id, data: event.data });
    expect(payloadProblems(request?.json)).toEqual([]);
    expect(verifyWebhookSignature(request?.body ?? '', header(0, 'x-gateway-signature'), SECRET)).toBe(true);
    expect(verifyWebhookSignature(request?.body ?? '', header(0, 'x-gateway-signature'), 'whsec_another_secret_00')).toBe(false);
    expect(verifyWebhookSignature(`${request?.body ?? ''} `, header(0, 'x-gateway-signature'), SECRET)).toBe(false);
  });

  it('sends no signature without a secret', async () => {
    const world = await newWorld(mock);
    await createHook(world, { secret: undefined });
    world.emit('post.published');
    await world.advance(0);
    expect(receiver.requests[0]?.headers).not.toHaveProperty('x-gateway-signature');
  });

  it('goes to every enabled webhook subscribed to the event, and to no other', async () => {
    const world = await newWorld(mock);
    await createHook(world, { name: 'a' });
    await createHook(world, { name: 'b', events: ['post.failed', 'post.published'] });
    await createHook(world, { name: 'other event', events: ['post.failed'] });
    await createHook(world, { name: 'disabled', enabled: false });
    await createHook(world, { name: 'test only', events: ['webhook.test'] });
    world.emit('post.published');
    world.emit('account.connected');
    // webhook.test on the bus is the test endpoint's business: nobody gets it from there.
    world.emit('webhook.test', { webhookId: 'none', message: 'hi' });
    await world.advance(0);
    expect(receiver.events()).toEqual(['post.published', 'post.published']);
  });

  it('keeps the order of events for one webhook', async () => {
    const world = await newWorld(mock);
    await createHook(world, { events: ['post.published', 'post.failed', 'post.scheduled'] });
    for (const event of ['post.scheduled', 'post.published', 'post.failed', 'post.published'] as const) world.emit(event);
    await world.advance(0);
    expect(receiver.events()).toEqual(['post.scheduled', 'post.published', 'post.failed', 'post.published']);
  });

  describe('when the clock is frozen', () => {
    it('sends at once, without an advance', async () => {
      const world = await newWorld(mock);
      await createHook(world);
      world.emit('post.published');
      await receiver.waitFor(1);
      expect((await world.control('get', '/__control/clock')).body).toMatchObject({ frozen: true, now: TEST_CLOCK });
    });
  });

  describe('when the clock runs', () => {
    it('sends at once, and the retry on its own when it falls due', async () => {
      const world = await newWorld(mock);
      await createHook(world);
      receiver.answer(500);
      await world.control('post', '/__control/clock/resume');
      world.emit('post.published');
      await receiver.waitFor(1);
      // Jump to just before the retry; the running clock's timer sends it without an advance.
      await world.control('post', '/__control/clock/set').send({ to: new Date(world.now() + MINUTE - 50).toISOString() });
      await receiver.waitFor(2);
      expect(header(1, 'x-gateway-delivery-attempt')).toBe('2');
      await world.control('post', '/__control/clock/freeze');
    });
  });
});

describe('retries', () => {
  it('sends the same event again at +1 min and +5 min, the attempt header counting up, until a 2xx', async () => {
    const world = await newWorld(mock);
    const { id } = await createHook(world);
    receiver.answer(500, 502);
    const event = world.emit('post.published');
    await world.advance(0);
    expect(receiver.requests).toHaveLength(1);
    let [delivery] = await deliveries(world, id);
    expect(delivery).toMatchObject({ status: 'pending', nextAttemptAt: at(MINUTE), attempts: [{ attempt: 1, at: TEST_CLOCK, responseStatus: 500, error: null }] });

    await world.advance(MINUTE - 1);
    expect(receiver.requests).toHaveLength(1);
    const moved = await world.advance(1);
    expect(moved.body.ran).toEqual([expect.objectContaining({ kind: 'webhook.retry', dueAt: at(MINUTE), ok: true })]);
    expect(receiver.requests).toHaveLength(2);

    await world.advance(5 * MINUTE);
    expect(receiver.requests).toHaveLength(3);
    expect(receiver.requests.map((request) => request.headers['x-gateway-event-id'])).toEqual([event.id, event.id, event.id]);
    expect(receiver.requests.map((request) => request.headers['x-gateway-delivery-attempt'])).toEqual(['1', '2', '3']);
    // Byte for byte the same body, so the same signature.
    expect(new Set(receiver.requests.map((request) => request.body)).size).toBe(1);
    expect(new Set(receiver.requests.map((request) => request.headers['x-gateway-signature'])).size).toBe(1);

    [delivery] = await deliveries(world, id);
    expect(delivery).toMatchObject({ status: 'succeeded', nextAttemptAt: null, lastAttemptAt: at(6 * MINUTE) });
    expect(delivery?.attempts.map((attempt) => [attempt.attempt, attempt.at, attempt.responseStatus])).toEqual([
      [1, at(0), 500],
      [2, at(MINUTE), 502],
      [3, at(6 * MINUTE), 200],
    ]);
    expect(await pendingJobs(world)).toBe(0);
    expect((await hook(world, id)).consecutiveFailures).toBe(0);
  });

  it('gives up after the fifth retry, 8 h 36 min after the first attempt, and counts one failed delivery', async () => {
    const world = await newWorld(mock);
    const { id } = await createHook(world);
    receiver.answerAlways(503);
    world.emit('post.published');
    await world.advance(9 * HOUR);
    const [delivery] = await deliveries(world, id);
    expect(delivery?.attempts.map((attempt) => attempt.at)).toEqual(ATTEMPT_OFFSETS.map(at));
    expect(delivery).toMatchObject({ status: 'failed', nextAttemptAt: null });
    expect(receiver.requests.map((request) => request.headers['x-gateway-delivery-attempt'])).toEqual(['1', '2', '3', '4', '5', '6']);
    expect(await hook(world, id)).toMatchObject({ enabled: true, consecutiveFailures: 1 });
    expect(await pendingJobs(world)).toBe(0);
  });

  it('counts a time-out as a failure: a slow receiver is given up on after the time-out', async () => {
    // The time-out is real time; 300 ms instead of 10 s keeps the test short.
    const quick = await startMock({ fixtures: false, webhookTimeoutMs: 300 });
    try {
      const world = await newWorld(quick);
      const { id } = await createHook(world);
      receiver.answerAlways('hang');
      world.emit('post.published');
      await world.advance(0);
      expect(receiver.requests).toHaveLength(1);
      const [delivery] = await deliveries(world, id);
      expect(delivery).toMatchObject({ status: 'pending', nextAttemptAt: at(MINUTE) });
      expect(delivery?.attempts).toEqual([{ attempt: 1, at: TEST_CLOCK, responseStatus: null, durationMs: expect.any(Number), error: 'timeout: no answer within 300 ms' }]);
      expect(delivery?.attempts[0]?.durationMs).toBeGreaterThanOrEqual(295);
      await world.advance(MINUTE);
      expect(receiver.requests).toHaveLength(2);
      expect((await deliveries(world, id))[0]?.attempts.map((attempt) => attempt.error)).toEqual(['timeout: no answer within 300 ms', 'timeout: no answer within 300 ms']);
    } finally {
      await quick.close();
    }
  });

  it('counts a refused connection and a redirect as failures', async () => {
    const world = await newWorld(mock);
    const closed = await WebhookReceiver.start();
    await closed.close();
    const refused = await createHook(world, { url: closed.url });
    const moved = await createHook(world);
    receiver.answer(301);
    world.emit('post.published');
    await world.advance(0);
    expect((await deliveries(world, refused.id))[0]?.attempts[0]).toMatchObject({ responseStatus: null, error: 'connection refused' });
    expect((await deliveries(world, moved.id))[0]?.attempts[0]).toMatchObject({ responseStatus: 301, error: expect.stringContaining('not followed') });
    expect((await deliveries(world, moved.id))[0]?.status).toBe('pending');
  });
});

describe('disabling after 10 failed deliveries in a row', () => {
  it('disables the webhook at the tenth, ends its pending deliveries, and PATCH enabled re-enables it', async () => {
    const world = await newWorld(mock);
    const { id } = await createHook(world);
    receiver.answerAlways(500);
    for (let i = 0; i < 9; i++) world.emit('post.published');
    await world.advance(HOUR);
    world.emit('post.published');
    world.emit('post.published');
    await world.advance(8 * HOUR);
    // The first nine used up their retries at +8 h 36 min; the last two are still retrying.
    expect(await hook(world, id)).toMatchObject({ enabled: true, consecutiveFailures: 9, disabledReason: null });
    expect(receiver.requests).toHaveLength(9 * 6 + 2 * 5);

    await world.advance(HOUR);
    expect(await hook(world, id)).toMatchObject({ enabled: false, consecutiveFailures: 10, disabledReason: 'too_many_failures' });
    // The eleventh had one attempt left: it is not sent, and ends failed.
    expect(receiver.requests).toHaveLength(9 * 6 + 6 + 5);
    const [eleventh] = await deliveries(world, id);
    expect(eleventh).toMatchObject({ status: 'failed', nextAttemptAt: null });
    expect(eleventh?.attempts).toHaveLength(5);
    expect(await pendingJobs(world)).toBe(0);

    world.emit('post.published');
    await world.advance(0);
    expect(receiver.requests).toHaveLength(65);
    expect(await deliveries(world, id, '?include=facets')).toHaveLength(11);

    receiver.answerAlways(200);
    const enabled = await world.call('patch', `/v1/webhooks/${id}`).send({ enabled: true });
    expect(enabled.body).toMatchObject({ enabled: true, consecutiveFailures: 0, disabledReason: null });
    world.emit('post.published');
    await world.advance(0);
    expect(receiver.requests).toHaveLength(66);
  });

  it('starts counting again after a success', async () => {
    const world = await newWorld(mock);
    const { id } = await createHook(world);
    setDeliveryFaults(world.workspace, id, { failStatus: 500 });
    world.emit('post.published');
    world.emit('post.published');
    await world.advance(9 * HOUR);
    expect((await hook(world, id)).consecutiveFailures).toBe(2);
    setDeliveryFaults(world.workspace, id, {});
    world.emit('post.published');
    await world.advance(0);
    expect((await hook(world, id)).consecutiveFailures).toBe(0);
  });
});

describe('POST /v1/webhooks/{id}/test', () => {
  it('sends webhook.test to this webhook only, whatever its events, and answers the delivery', async () => {
    const world = await newWorld(mock);
    const { id } = await createHook(world, { events: ['post.failed'] });
    await createHook(world, { name: 'other', events: ['webhook.test'] });
    const res = await world.call('post', `/v1/webhooks/${id}/test`);
    expectStatus(res, 200);
    expect(res.body).toEqual({
      id: expect.any(String),
      webhookId: id,
      eventId: expect.stringMatching(/^evt_/),
      event: 'webhook.test',
      status: 'succeeded',
      attempts: [{ attempt: 1, at: TEST_CLOCK, responseStatus: 200, durationMs: expect.any(Number), error: null }],
      nextAttemptAt: null,
      createdAt: TEST_CLOCK,
      lastAttemptAt: TEST_CLOCK,
    });
    expect(receiver.requests).toHaveLength(1);
    expect(receiver.requests[0]?.json).toMatchObject({ id: res.body.eventId, event: 'webhook.test', data: { webhookId: id, message: expect.any(String) } });
    expect(payloadProblems(receiver.requests[0]?.json)).toEqual([]);
    expect(verifyWebhookSignature(receiver.requests[0]?.body ?? '', header(0, 'x-gateway-signature'), SECRET)).toBe(true);
  });

  it('tries once: a failure is not retried and does not count toward disabling', async () => {
    const world = await newWorld(mock);
    const { id } = await createHook(world);
    receiver.answer(500);
    const res = await world.call('post', `/v1/webhooks/${id}/test`);
    expect(res.body).toMatchObject({ status: 'failed', nextAttemptAt: null, attempts: [{ responseStatus: 500 }] });
    expect(await pendingJobs(world)).toBe(0);
    expect((await hook(world, id)).consecutiveFailures).toBe(0);
  });

  it('sends to a disabled webhook too', async () => {
    const world = await newWorld(mock);
    const { id } = await createHook(world, { enabled: false });
    expect((await world.call('post', `/v1/webhooks/${id}/test`)).body.status).toBe('succeeded');
    expect(receiver.events()).toEqual(['webhook.test']);
  });

  it('answers 404 for an unknown webhook', async () => {
    expectApiError(await mock.call('post', '/v1/webhooks/8c1f4a52-0000-4000-8000-000000000000/test'), 404, 'NOT_FOUND');
  });
});

describe('POST /v1/webhooks/{id}/deliveries/{deliveryId}/redeliver', () => {
  it('sends the same event and body again as the next attempt, and answers the record', async () => {
    const world = await newWorld(mock);
    const { id } = await createHook(world);
    const event = world.emit('post.published');
    await world.advance(0);
    const [delivery] = await deliveries(world, id);
    await world.advance(HOUR);
    const res = await world.call('post', `/v1/webhooks/${id}/deliveries/${delivery?.id}/redeliver`);
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ id: delivery?.id, eventId: event.id, status: 'succeeded', lastAttemptAt: at(HOUR) });
    expect(res.body.attempts.map((attempt: { attempt: number; at: string }) => [attempt.attempt, attempt.at])).toEqual([
      [1, at(0)],
      [2, at(HOUR)],
    ]);
    expect(receiver.requests[1]?.body).toBe(receiver.requests[0]?.body);
    expect(header(1, 'x-gateway-event-id')).toBe(event.id);
    expect(header(1, 'x-gateway-delivery-attempt')).toBe('2');
    expect(verifyWebhookSignature(receiver.requests[1]?.body ?? '', header(1, 'x-gateway-signature'), SECRET)).toBe(true);
  });

  it('settles a pending delivery when it succeeds, cancelling the retry', async () => {
    const world = await newWorld(mock);
    const { id } = await createHook(world);
    receiver.answer(500);
    world.emit('post.published');
    await world.advance(0);
    const [delivery] = await deliveries(world, id);
    expect(await pendingJobs(world)).toBe(1);
    const res = await world.call('post', `/v1/webhooks/${id}/deliveries/${delivery?.id}/redeliver`);
    expect(res.body).toMatchObject({ status: 'succeeded', nextAttemptAt: null });
    expect(await pendingJobs(world)).toBe(0);
    await world.advance(HOUR);
    expect(receiver.requests).toHaveLength(2);
  });

  it('works on a disabled webhook and changes neither enabled nor the failure count', async () => {
    const world = await newWorld(mock);
    const { id } = await createHook(world);
    world.emit('post.published');
    await world.advance(0);
    const [delivery] = await deliveries(world, id);
    await world.call('patch', `/v1/webhooks/${id}`).send({ enabled: false });
    receiver.answer(500);
    const res = await world.call('post', `/v1/webhooks/${id}/deliveries/${delivery?.id}/redeliver`);
    expect(res.body).toMatchObject({ status: 'failed', nextAttemptAt: null });
    expect(await hook(world, id)).toMatchObject({ enabled: false, consecutiveFailures: 0 });
    expect(await pendingJobs(world)).toBe(0);
  });

  it('answers 404 for a delivery of another webhook, and for an unknown one', async () => {
    const world = await newWorld(mock);
    const first = await createHook(world);
    const second = await createHook(world, { events: ['post.failed'] });
    world.emit('post.published');
    await world.advance(0);
    const [delivery] = await deliveries(world, first.id);
    expectApiError(await world.call('post', `/v1/webhooks/${second.id}/deliveries/${delivery?.id}/redeliver`), 404, 'NOT_FOUND');
    expectApiError(await world.call('post', `/v1/webhooks/${first.id}/deliveries/no-such-delivery/redeliver`), 404, 'NOT_FOUND');
  });
});

describe('shutting down', () => {
  it('waits for an attempt on the wire to be answered, so its outcome is recorded before close() resolves', async () => {
    const own = await startMock({ fixtures: false });
    const world = await newWorld(own);
    const { id } = await createHook(world);
    // A receiver that takes a moment, as real ones do; the request is out before close() is called.
    receiver.answer({ status: 200, afterMs: 150 });
    world.emit('post.published');
    await receiver.waitFor(1);
    await own.close();
    const [delivery] = webhooksStore.get(world.workspace).deliveries[id] ?? [];
    expect(delivery).toMatchObject({ status: 'succeeded', attempts: [{ attempt: 1, responseStatus: 200, error: null }] });
  });

  it('waits no longer than the shutdown grace for a receiver that never answers', async () => {
    // The attempt itself would only end at the receiver time-out, a minute away.
    const own = await startMock({ fixtures: false, webhookTimeoutMs: 60_000, httpLimits: { shutdownGraceMs: 200 } });
    const world = await newWorld(own);
    const { id } = await createHook(world);
    receiver.answerAlways('hang');
    world.emit('post.published');
    await receiver.waitFor(1);
    await own.close();
    // Still on the wire when close() resolved: the grace ended the wait, not the attempt.
    const [delivery] = webhooksStore.get(world.workspace).deliveries[id] ?? [];
    expect(delivery).toMatchObject({ status: 'pending', attempts: [] });
  });
});
