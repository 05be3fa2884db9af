import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setDeliveryFaults } from '../../src/api/webhooks/service.js';
import { expectApiError, expectStatus, TEST_CLOCK, useMock } from '../helpers/mock.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { newWorld, type World } from '../helpers/world.js';

const T0 = Date.parse(TEST_CLOCK);
const MINUTE = 60_000;
const at = (ms: number) => new Date(T0 + ms).toISOString();

const mock = useMock({ fixtures: false });
let receiver: WebhookReceiver;
beforeEach(async () => {
  receiver = await WebhookReceiver.start();
});
afterEach(() => receiver.close());

async function hookWith(world: World, faults: Record<string, unknown>) {
  const created = await world.call('post', '/v1/webhooks').send({ name: 'CRM', url: receiver.url, events: ['post.published', 'post.failed', 'post.scheduled'] });
  expectStatus(created, 201);
  const res = await world.control('post', `/__control/webhooks/${created.body.id}/faults`).send(faults);
  expectStatus(res, 200);
  return { id: created.body.id as string, faults: res.body };
}

async function deliveries(world: World, id: string) {
  return (await world.call('get', `/v1/webhooks/${id}/deliveries`)).body.data as Array<{ event: string; status: string; attempts: Array<{ attempt: number; responseStatus: number | null; error: string | null }> }>;
}

describe('POST /__control/webhooks/{id}/faults', () => {
  it('answers the faults now in force, and {} switches them off', async () => {
    const world = await newWorld(mock);
    const { id, faults } = await hookWith(world, { duplicate: true, failStatus: 503, failCount: 2 });
    expect(faults).toEqual({ webhookId: id, faults: { duplicate: true, outOfOrder: false, delayMs: 0, failStatus: 503, failError: null, failCount: 2 } });
    const cleared = await world.control('post', `/__control/webhooks/${id}/faults`).send({});
    expect(cleared.body.faults).toEqual({ duplicate: false, outOfOrder: false, delayMs: 0, failStatus: null, failError: null, failCount: null });
  });

  it.each([
    [{ failCount: 2 }, 'failCount'],
    [{ failStatus: 200 }, 'failStatus'],
    [{ failStatus: 600 }, 'failStatus'],
    [{ delayMs: -1 }, 'delayMs'],
    [{ duplicate: 'yes' }, 'duplicate'],
    [{ reorder: true }, 'reorder'],
  ])('answers 400 VALIDATION_ERROR for %j', async (body, param) => {
    const world = await newWorld(mock);
    const { id } = await hookWith(world, {});
    expectApiError(await world.control('post', `/__control/webhooks/${id}/faults`).send(body), 400, 'VALIDATION_ERROR', param);
  });

  it('answers 404 for a webhook of another workspace', async () => {
    const mine = await newWorld(mock);
    const theirs = await newWorld(mock);
    const { id } = await hookWith(theirs, {});
    expectApiError(await mine.control('post', `/__control/webhooks/${id}/faults`).send({ duplicate: true }), 404, 'NOT_FOUND');
  });
});

describe('delivery faults', () => {
  describe('duplicate', () => {
    it('sends each request twice, same event id and attempt number', async () => {
      const world = await newWorld(mock);
      const { id } = await hookWith(world, { duplicate: true });
      const event = world.emit('post.published');
      await world.advance(0);
      expect(receiver.requests.map((request) => [request.headers['x-gateway-event-id'], request.headers['x-gateway-delivery-attempt']])).toEqual([
        [event.id, '1'],
        [event.id, '1'],
      ]);
      expect(receiver.requests[1]?.body).toBe(receiver.requests[0]?.body);
      const [delivery] = await deliveries(world, id);
      expect(delivery).toMatchObject({ status: 'succeeded', attempts: [{ attempt: 1, error: null }, { attempt: 1, error: 'duplicate (delivery fault)' }] });
    });
  });

  describe('outOfOrder', () => {
    it('sends each event after the next one', async () => {
      const world = await newWorld(mock);
      await hookWith(world, { outOfOrder: true });
      world.emit('post.scheduled');
      world.emit('post.published');
      world.emit('post.failed');
      await world.advance(0);
      expect(receiver.events()).toEqual(['post.published', 'post.scheduled']);
      // The third waits for a fourth, or for the hold to end.
      await world.advance(MINUTE - 1);
      expect(receiver.events()).toHaveLength(2);
      await world.advance(1);
      expect(receiver.events()).toEqual(['post.published', 'post.scheduled', 'post.failed']);
    });

    it('lets a held event go as soon as the fault is switched off', async () => {
      const world = await newWorld(mock);
      const { id } = await hookWith(world, { outOfOrder: true });
      world.emit('post.published');
      await world.advance(0);
      expect(receiver.requests).toHaveLength(0);
      expect((await deliveries(world, id))[0]).toMatchObject({ status: 'pending', attempts: [] });
      setDeliveryFaults(world.workspace, id, {});
      await world.advance(0);
      expect(receiver.events()).toEqual(['post.published']);
      expect((await world.control('get', '/__control/clock')).body.pendingJobs).toBe(0);
    });
  });

  describe('delayMs', () => {
    it('holds each first attempt back by that much virtual time', async () => {
      const world = await newWorld(mock);
      const { id } = await hookWith(world, { delayMs: 30_000 });
      world.emit('post.published');
      await world.advance(29_999);
      expect(receiver.requests).toHaveLength(0);
      expect((await deliveries(world, id))[0]).toMatchObject({ status: 'pending', nextAttemptAt: at(30_000) });
      await world.advance(1);
      expect(receiver.requests).toHaveLength(1);
      expect((await deliveries(world, id))[0]).toMatchObject({ status: 'succeeded', attempts: [{ attempt: 1 }] });
    });
  });

  describe('failStatus', () => {
    it('fails the next attempts with that status without sending them; then retries reach the receiver', async () => {
      const world = await newWorld(mock);
      const { id } = await hookWith(world, { failStatus: 503, failCount: 2 });
      const event = world.emit('post.published');
      await world.advance(MINUTE);
      expect(receiver.requests).toHaveLength(0);
      await world.advance(5 * MINUTE);
      expect(receiver.requests.map((request) => [request.headers['x-gateway-event-id'], request.headers['x-gateway-delivery-attempt']])).toEqual([[event.id, '3']]);
      const [delivery] = await deliveries(world, id);
      expect(delivery?.attempts.map((attempt) => attempt.responseStatus)).toEqual([503, 503, 200]);
      expect(delivery?.status).toBe('succeeded');
      const faults = await world.control('post', `/__control/webhooks/${id}/faults`).send({ duplicate: false });
      expect(faults.body.faults.failStatus).toBeNull();
    });

    it('fails every attempt while no failCount is given', async () => {
      const world = await newWorld(mock);
      const { id } = await hookWith(world, { failStatus: 500 });
      world.emit('post.published');
      await world.advance(9 * 60 * MINUTE);
      expect(receiver.requests).toHaveLength(0);
      expect((await deliveries(world, id))[0]).toMatchObject({ status: 'failed' });
      expect((await world.call('get', `/v1/webhooks/${id}`)).body.consecutiveFailures).toBe(1);
    });
  });
});
