import { describe, expect, it } from 'vitest';
import { bucketSizeFor, countByStatus, histogram, logWindow, MAX_DELIVERIES_PER_WEBHOOK, prune } from '../../src/api/webhooks/delivery-log.js';
import { RETRY_DELAYS_MS } from '../../src/api/webhooks/dispatcher.js';
import { signWebhookBody, verifyWebhookSignature } from '../../src/api/webhooks/signature.js';
import { sendWebhookRequest } from '../../src/api/webhooks/sender.js';
import type { DeliveryRecord, DeliveryStatus } from '../../src/api/webhooks/store.js';
import { resolveOptions } from '../../src/cli/main.js';
import { toApiError } from '../../src/http/error-mapping.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

function delivery(createdAtMs: number, status: DeliveryStatus = 'succeeded'): DeliveryRecord {
  return {
    id: `d${createdAtMs}`,
    seq: createdAtMs,
    webhookId: 'w',
    eventId: 'evt_0',
    event: 'post.published',
    body: '{}',
    status,
    attempts: [],
    attemptsStarted: 0,
    retriesUsed: 0,
    origin: 'event',
    nextAttemptAt: null,
    createdAt: new Date(createdAtMs).toISOString(),
    createdAtMs,
    lastAttemptAt: null,
  };
}

describe('verifyWebhookSignature', () => {
  const body = '{"id":"evt_1","event":"webhook.test"}';
  const secret = 'whsec_0123456789abcdef';
  const good = signWebhookBody(body, secret);

  it('signs as sha256=<hex HMAC-SHA256(secret, body)>', () => {
    // Computed independently: printf '%s' "$body" | openssl dgst -sha256 -hmac "$secret"
    expect(good).toBe('sha256=864b6f03fb6383dd97dec12104878a52c6abaeac72adc926976996edeb983520');
    expect(signWebhookBody(Buffer.from(body), secret)).toBe(good);
  });

  it.each([
    ['the right signature', body, good, secret, true],
    ['the body as bytes', Buffer.from(body), good, secret, true],
    ['upper-case hex', body, `sha256=${good.slice(7).toUpperCase()}`, secret, true],
    ['another secret', body, good, 'whsec_another_secret', false],
    ['a changed body', `${body} `, good, secret, false],
    ['a truncated signature', body, good.slice(0, -1), secret, false],
    ['another scheme', body, good.replace('sha256=', 'sha1='), secret, false],
    ['no scheme', body, good.slice(7), secret, false],
    ['no header', body, undefined, secret, false],
    ['an empty header', body, '', secret, false],
  ])('with %s answers %s', (_case, raw, header, key, expected) => {
    expect(verifyWebhookSignature(raw, header, key)).toBe(expected);
  });
});

describe('the retry schedule', () => {
  it('waits 1 min, 5 min, 30 min, 2 h and 6 h', () => {
    expect(RETRY_DELAYS_MS).toEqual([MINUTE, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 6 * HOUR]);
  });
});

describe('logWindow', () => {
  const now = 100 * DAY;
  it.each([
    ['nothing: the last 7 days', {}, 30 * DAY, { sinceMs: now - 7 * DAY, untilMs: now + 1 }],
    ['until alone: the 7 days before it', { untilMs: now - DAY }, 30 * DAY, { sinceMs: now - 8 * DAY, untilMs: now - DAY }],
    ['a since inside the retention', { sinceMs: now - 20 * DAY }, 30 * DAY, { sinceMs: now - 20 * DAY, untilMs: now + 1 }],
    ['a since older than the retention', { sinceMs: 0 }, 30 * DAY, { sinceMs: now - 30 * DAY, untilMs: now + 1 }],
    ['a default older than the retention', {}, 3 * DAY, { sinceMs: now - 3 * DAY, untilMs: now + 1 }],
    ['an until in the future', { sinceMs: now - HOUR, untilMs: now + DAY }, 30 * DAY, { sinceMs: now - HOUR, untilMs: now + 1 }],
  ])('%s', (_case, request, retention, expected) => {
    expect(logWindow(request, now, retention)).toEqual(expected);
  });
});

describe('bucketSizeFor', () => {
  it.each([
    [10 * MINUTE, MINUTE],
    [HOUR, MINUTE],
    [HOUR + 1, 5 * MINUTE],
    [6 * HOUR, 5 * MINUTE],
    [DAY, HOUR],
    [2 * DAY, HOUR],
    [7 * DAY, 6 * HOUR],
    [14 * DAY, 6 * HOUR],
    [30 * DAY, DAY],
  ])('a span of %i ms gets buckets of %i ms', (span, size) => {
    expect(bucketSizeFor(span)).toBe(size);
  });
});

describe('histogram', () => {
  it('counts per status in aligned buckets, empty ones included', () => {
    const log = [delivery(10 * MINUTE + 5), delivery(10 * MINUTE + 7, 'failed'), delivery(40 * MINUTE, 'pending')];
    const buckets = histogram(log, { sinceMs: 5 * MINUTE + 30_000, untilMs: 45 * MINUTE });
    expect(buckets).toHaveLength(40);
    expect(buckets[0]?.start).toBe(new Date(5 * MINUTE).toISOString());
    expect(buckets.filter((bucket) => bucket.pending + bucket.succeeded + bucket.failed > 0)).toEqual([
      { start: new Date(10 * MINUTE).toISOString(), end: new Date(11 * MINUTE).toISOString(), pending: 0, succeeded: 1, failed: 1 },
      { start: new Date(40 * MINUTE).toISOString(), end: new Date(41 * MINUTE).toISOString(), pending: 1, succeeded: 0, failed: 0 },
    ]);
  });

  it('is empty for an empty window', () => {
    expect(histogram([delivery(0)], { sinceMs: 10, untilMs: 10 })).toEqual([]);
  });

  it('never has more than about 60 buckets within a 30-day retention', () => {
    for (let span = MINUTE; span <= 30 * DAY; span *= 2) {
      expect(histogram([], { sinceMs: 1234, untilMs: 1234 + span }).length).toBeLessThanOrEqual(75);
    }
  });
});

describe('countByStatus', () => {
  it('counts every status, zeros included', () => {
    expect(countByStatus([delivery(1), delivery(2), delivery(3, 'failed')])).toEqual({ pending: 0, succeeded: 2, failed: 1 });
  });
});

describe('prune', () => {
  it('drops what is older than the retention, oldest first', () => {
    const log = [delivery(DAY), delivery(3 * DAY), delivery(5 * DAY)];
    const dropped = prune(log, 6 * DAY, 3 * DAY);
    expect(dropped.map((d) => d.createdAtMs)).toEqual([DAY]);
    expect(log.map((d) => d.createdAtMs)).toEqual([3 * DAY, 5 * DAY]);
  });

  it('keeps at most the newest MAX_DELIVERIES_PER_WEBHOOK', () => {
    const log = Array.from({ length: MAX_DELIVERIES_PER_WEBHOOK + 5 }, (_, i) => delivery(i));
    expect(prune(log, 10_000, DAY)).toHaveLength(5);
    expect(log).toHaveLength(1000);
    expect(log[0]?.createdAtMs).toBe(5);
  });
});

describe('enum validation errors', () => {
  const enumError = (path: string) => ({
    status: 400,
    errors: [{ path, message: 'must be equal to one of the allowed values: pending, succeeded, failed', errorCode: 'enum.openapi.validation' }],
  });

  it.each([
    ['/query/status', { query: { status: 'done' } }, "status must be equal to one of the allowed values: pending, succeeded, failed; got 'done'"],
    ['/body/events/1', { body: { events: ['a', 'b'] } }, "events[1] must be equal to one of the allowed values: pending, succeeded, failed; got 'b'"],
    ['/body/destinations[0]/kind', { body: { destinations: [{ kind: 7 }] } }, 'destinations[0].kind must be equal to one of the allowed values: pending, succeeded, failed; got 7'],
    ['/body/missing', { body: {} }, 'missing must be equal to one of the allowed values: pending, succeeded, failed'],
    ['/query/status', undefined, 'status must be equal to one of the allowed values: pending, succeeded, failed'],
  ])('%s names the value sent', (path, input, message) => {
    expect(toApiError(enumError(path), input).message).toBe(message);
  });
});

describe('--webhook-timeout', () => {
  it('sets the server option, from 1 ms up to an hour', () => {
    const resolved = resolveOptions(['--webhook-timeout', '30000'], { env: {}, cwd: '/nonexistent' });
    expect(resolved !== 'help' && resolved !== 'version' && resolved.server.webhookTimeoutMs).toBe(30_000);
    for (const bad of ['0', '-5', '1.5', '3600001', 'soon']) {
      expect(() => resolveOptions(['--webhook-timeout', bad], { env: {}, cwd: '/nonexistent' })).toThrow(/--webhook-timeout/);
    }
  });
});

describe('sendWebhookRequest', () => {
  it.each(['file:///etc/passwd', 'ftp://127.0.0.1/x', 'javascript:alert(1)', 'not a url'])('sends nothing to %s and reports a failed attempt', async (url) => {
    const outcome = await sendWebhookRequest({ url, body: '{}', headers: {}, timeoutMs: 1000 });
    expect(outcome).toMatchObject({ ok: false, responseStatus: null });
    expect(outcome.error).toMatch(/url/);
  });
});
