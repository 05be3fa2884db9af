import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../../src/index.js';
import { expectStatus, useMock } from '../helpers/mock.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

/**
 * Across capabilities, as an integrator meets them: a post published through the
 * API reaches the integrator's webhook endpoint, signed, over real HTTP.
 */
const mock = useMock();
let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await WebhookReceiver.start();
});
afterAll(() => receiver.close());

describe('a post published through the API', () => {
  it('delivers post.platform.published and post.published to the webhook, signed', async () => {
    const { body: world } = await mock.control('post', '/__control/workspaces').send({ clock: { start: '2026-03-02T10:00:00Z', frozen: true } });
    const key = world.apiKey as string;
    const secret = 'whsec_0123456789abcdef';
    const hook = await mock.call('post', '/v1/webhooks', key).send({ name: 'ci', url: receiver.url, events: ['post.published', 'post.platform.published'], secret });
    expectStatus(hook, 201);
    const bluesky = ((await mock.call('get', '/v1/connections', key)).body.connections as Array<{ id: string; platform: string }>).find((c) => c.platform === 'bluesky');

    const created = await mock.call('post', '/v1/posts', key).send({ text: 'Roasting day.', destinations: [{ connectionId: bluesky?.id }] });
    expectStatus(created, 201);
    await mock.control('post', '/__control/clock/advance', key).send({ by: 'PT10S' });

    const received = receiver.requests.filter((r) => r.json.data && JSON.stringify(r.json.data).includes(created.body.post.id));
    expect(received.map((r) => r.json.event)).toEqual(['post.platform.published', 'post.published']);
    for (const request of received) {
      expect(verifyWebhookSignature(request.body, String(request.headers['x-gateway-signature']), secret)).toBe(true);
      expect(verifyWebhookSignature(request.body, String(request.headers['x-gateway-signature']), 'whsec_wrong_secret_00')).toBe(false);
      expect(request.headers['x-gateway-event-id']).toBe(request.json.id);
      expect(request.headers['x-gateway-delivery-attempt']).toBe('1');
    }
    const published = received[1]?.json.data as { post: { id: string; status: string; destinations: Array<{ status: string; externalUrl: string }> } };
    expect(published.post).toMatchObject({ id: created.body.post.id, status: 'published', destinations: [{ status: 'published', externalUrl: expect.stringMatching(/^https:\/\//) }] });
    const log = await mock.call('get', `/v1/webhooks/${hook.body.id}/deliveries?include=facets`, key);
    // The fixture world's own in-flight posts published meanwhile too: the log agrees with what arrived.
    expect(log.body.facets).toEqual({ pending: 0, succeeded: receiver.requests.length, failed: 0 });
  });
});
