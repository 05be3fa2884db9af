import { describe, expect, it } from 'vitest';
import { signWebhookBody } from '../../src/api/webhooks/signature.js';
import { attemptOutcome, deliveryHeaders, hasPending, prettyBody, signatureHeader, timelineOf, webhooksOf, webhookState, type WorkspaceSnapshot } from '../../src/dashboard/ui/webhooks.js';
import { expectStatus, useMock } from '../helpers/mock.js';

/* The Webhooks view's pure logic (src/dashboard/ui/webhooks.ts), against a real workspace's snapshot and the API's own answers. */

describe('webhooksOf', () => {
  const mock = useMock();

  it('reads the snapshot into the webhooks and delivery logs the API lists, newest first', async () => {
    const created = await mock.control('post', '/__control/workspaces').send({});
    const { apiKey } = created.body as { apiKey: string };
    // Two webhooks on URLs nobody answers: each delivery fails at once and waits for its retry.
    const first = await mock.call('post', '/v1/webhooks', apiKey).send({ name: 'first', url: 'http://127.0.0.1:9/hook', events: ['account.connected'] });
    const second = await mock.call('post', '/v1/webhooks', apiKey).send({ name: 'second', url: 'http://127.0.0.1:9/other', events: ['post.published'] });
    expectStatus(second, 201);
    const firstId = (first.body as { id: string }).id;
    const connections = await mock.call('get', '/v1/connections', apiKey);
    const accountId = (connections.body as { connections: Array<{ id: string }> }).connections[0]?.id ?? '';
    for (let i = 0; i < 2; i++) expectStatus(await mock.control('post', '/__control/events', apiKey).send({ event: 'account.connected', objectId: accountId }), 201);

    const snapshot = (await mock.control('get', '/__control/state', apiKey)).body as WorkspaceSnapshot;
    const webhooks = webhooksOf(snapshot);
    expect(webhooks.map(({ webhook }) => webhook.name)).toEqual(['second', 'first']);
    const listed = (await mock.call('get', `/v1/webhooks/${firstId}/deliveries`, apiKey)).body as { data: Array<Record<string, unknown>> };
    const shown = webhooks[1]?.deliveries ?? [];
    expect(shown.map((delivery) => delivery.id)).toEqual(listed.data.map((delivery) => delivery.id));
    for (const [index, delivery] of shown.entries()) {
      const { status, attempts, nextAttemptAt, event, eventId } = delivery;
      expect({ status, attempts, nextAttemptAt, event, eventId }).toEqual({ status: listed.data[index]?.status, attempts: listed.data[index]?.attempts, nextAttemptAt: listed.data[index]?.nextAttemptAt, event: listed.data[index]?.event, eventId: listed.data[index]?.eventId });
    }
    expect(hasPending(webhooks)).toBe(true);
  });

  it('has none for a workspace that never made a webhook', () => {
    expect(webhooksOf({ workspace: { stores: {} } } as unknown as WorkspaceSnapshot)).toEqual([]);
  });
});

describe('webhookState', () => {
  it.each([
    { enabled: true, disabledReason: null, consecutiveFailures: 0, expected: 'enabled' },
    { enabled: true, disabledReason: null, consecutiveFailures: 2, expected: 'enabled, 2 failed in a row' },
    { enabled: false, disabledReason: 'too_many_failures', consecutiveFailures: 10, expected: 'disabled (too_many_failures), 10 failed in a row' },
    { enabled: false, disabledReason: null, consecutiveFailures: 0, expected: 'disabled' },
  ])('$expected', ({ expected, ...webhook }) => {
    expect(webhookState(webhook)).toBe(expected);
  });
});

describe('attemptOutcome', () => {
  it.each([
    { responseStatus: 200, error: null, expected: '200' },
    { responseStatus: 503, error: null, expected: '503' },
    { responseStatus: 500, error: 'forced failure', expected: '500 (forced failure)' },
    { responseStatus: null, error: 'timeout', expected: 'timeout' },
    { responseStatus: null, error: null, expected: 'no answer' },
  ])('$responseStatus / $error → $expected', ({ expected, ...attempt }) => {
    expect(attemptOutcome(attempt)).toBe(expected);
  });
});

describe('timelineOf', () => {
  it('lists the attempts oldest first, then the retry due', () => {
    expect(
      timelineOf({
        attempts: [
          { attempt: 1, at: '2026-03-02T09:00:00.000Z', responseStatus: 503, durationMs: 4, error: null },
          { attempt: 2, at: '2026-03-02T09:01:00.000Z', responseStatus: 500, durationMs: null, error: 'forced failure' },
        ],
        nextAttemptAt: '2026-03-02T09:06:00.000Z',
      }),
    ).toEqual([
      { attempt: '#1', at: '2026-03-02T09:00:00.000Z', outcome: '503', ok: false, duration: '4 ms' },
      { attempt: '#2', at: '2026-03-02T09:01:00.000Z', outcome: '500 (forced failure)', ok: false, duration: 'not sent' },
      { attempt: 'next', at: '2026-03-02T09:06:00.000Z', outcome: 'retry due', ok: null, duration: '—' },
    ]);
  });

  it('ends at the last attempt when no retry is due', () => {
    expect(timelineOf({ attempts: [{ attempt: 1, at: '2026-03-02T09:00:00.000Z', responseStatus: 204, durationMs: 0, error: null }], nextAttemptAt: null })).toEqual([{ attempt: '#1', at: '2026-03-02T09:00:00.000Z', outcome: '204', ok: true, duration: '0 ms' }]);
  });
});

describe('deliveryHeaders and signatureHeader', () => {
  it('sign as the dispatcher signs, and leave the signature out when there is no secret', async () => {
    const body = '{"id":"evt_1","event":"webhook.test"}';
    const key = await crypto.subtle.importKey('raw', new TextEncoder().encode('whsec_0123456789abcdef'), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    const signature = signatureHeader(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(body)));
    expect(signature).toBe(signWebhookBody(body, 'whsec_0123456789abcdef'));
    const delivery = { event: 'webhook.test', eventId: 'evt_1' };
    expect(deliveryHeaders(delivery, 2, signature)).toEqual([
      ['X-Gateway-Event', 'webhook.test'],
      ['X-Gateway-Event-Id', 'evt_1'],
      ['X-Gateway-Delivery-Attempt', '2'],
      ['X-Gateway-Signature', signature],
    ]);
    expect(deliveryHeaders(delivery, 1, null).map(([name]) => name)).not.toContain('X-Gateway-Signature');
  });
});

describe('prettyBody', () => {
  it.each([
    { body: '{"a":1}', expected: '{\n  "a": 1\n}' },
    { body: 'not json', expected: 'not json' },
  ])('$body', ({ body, expected }) => {
    expect(prettyBody(body)).toBe(expected);
  });
});
