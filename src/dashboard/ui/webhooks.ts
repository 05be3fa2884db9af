/*
 * The Webhooks view's pure logic: the webhooks and delivery logs of a workspace snapshot
 * (`GET /__control/state`, the webhooks store of src/api/webhooks/store.ts) turned into the
 * view's rows, and the headers a delivery's attempts carried (src/api/webhooks/dispatcher.ts).
 * No DOM here, so a unit test loads it as it is.
 */
import type { DeliveryAttemptRecord, DeliveryRecord, WebhookRecord } from '../../api/webhooks/records.js';
import type { ControlWorkspaceSnapshot } from '../../generated/named-types.js';

export type WorkspaceSnapshot = ControlWorkspaceSnapshot;

/** The webhooks store's records, as the snapshot carries them (src/api/webhooks/records.ts, which imports nothing). */
export type { DeliveryAttemptRecord, DeliveryRecord, WebhookRecord } from '../../api/webhooks/records.js';

interface WebhooksStore {
  webhooks: Record<string, WebhookRecord>;
  deliveries: Record<string, DeliveryRecord[]>;
}

/** A webhook of the view with its delivery log, newest delivery first (as the API lists it). */
export interface WebhookWithDeliveries {
  webhook: WebhookRecord;
  /** Its state in words: `enabled`, `disabled (too_many_failures)`, and the failures in a row. */
  state: string;
  deliveries: DeliveryRecord[];
}

/** The webhooks of a snapshot, newest first, each with its deliveries newest first. A workspace that never made one has none. */
export function webhooksOf(snapshot: WorkspaceSnapshot): WebhookWithDeliveries[] {
  const store = snapshot.workspace.stores['webhooks'] as WebhooksStore | undefined;
  if (!store) return [];
  return Object.values(store.webhooks)
    .sort((a, b) => b.seq - a.seq)
    .map((webhook) => ({
      webhook,
      state: webhookState(webhook),
      deliveries: [...(store.deliveries[webhook.id] ?? [])].sort((a, b) => b.seq - a.seq),
    }));
}

export function webhookState(webhook: Pick<WebhookRecord, 'enabled' | 'disabledReason' | 'consecutiveFailures'>): string {
  const enabled = webhook.enabled ? 'enabled' : `disabled${webhook.disabledReason ? ` (${webhook.disabledReason})` : ''}`;
  return webhook.consecutiveFailures > 0 ? `${enabled}, ${webhook.consecutiveFailures} failed in a row` : enabled;
}

/** One row of a delivery's timeline: an attempt, or the retry still due. */
export interface TimelineRow {
  /** `#2`, or `next` for the retry due. */
  attempt: string;
  at: string;
  /** `200`, `503`, `timeout` (no answer), `due` for the next retry. */
  outcome: string;
  ok: boolean | null;
  duration: string;
}

/** A delivery's attempts, oldest first, then its next retry when one is due. */
export function timelineOf(delivery: Pick<DeliveryRecord, 'attempts' | 'nextAttemptAt'>): TimelineRow[] {
  const rows: TimelineRow[] = delivery.attempts.map((attempt) => ({
    attempt: `#${attempt.attempt}`,
    at: attempt.at,
    outcome: attemptOutcome(attempt),
    ok: attempt.error === null && attempt.responseStatus !== null && attempt.responseStatus >= 200 && attempt.responseStatus < 300,
    duration: attempt.durationMs === null ? 'not sent' : `${attempt.durationMs} ms`,
  }));
  if (delivery.nextAttemptAt !== null) rows.push({ attempt: 'next', at: delivery.nextAttemptAt, outcome: 'retry due', ok: null, duration: '—' });
  return rows;
}

/** `503`, `503 (forced failure)`, `timeout`: the status, with the error when there is one. */
export function attemptOutcome(attempt: Pick<DeliveryAttemptRecord, 'responseStatus' | 'error'>): string {
  if (attempt.responseStatus === null) return attempt.error ?? 'no answer';
  return attempt.error === null ? String(attempt.responseStatus) : `${attempt.responseStatus} (${attempt.error})`;
}

/**
 * The headers of the delivery's `attempt`-th request, as the dispatcher sends them; the
 * signature is given (`sha256=<hex>`, computed over the body with the webhook's secret),
 * null when the webhook has no secret and its requests go unsigned.
 */
export function deliveryHeaders(delivery: Pick<DeliveryRecord, 'event' | 'eventId'>, attempt: number, signature: string | null): Array<[string, string]> {
  return [
    ['X-Gateway-Event', delivery.event],
    ['X-Gateway-Event-Id', delivery.eventId],
    ['X-Gateway-Delivery-Attempt', String(attempt)],
    ...(signature === null ? [] : [['X-Gateway-Signature', signature] as [string, string]]),
  ];
}

/** `sha256=` and the hex of an HMAC-SHA256 digest: the `X-Gateway-Signature` form (src/api/webhooks/signature.ts). */
export function signatureHeader(digest: ArrayBuffer): string {
  return 'sha256=' + Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** The body pretty-printed when it is JSON, else as it is. */
export function prettyBody(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

/** Whether an automatic attempt is still due on any delivery: the view reads again while one is. */
export function hasPending(webhooks: readonly WebhookWithDeliveries[]): boolean {
  return webhooks.some(({ deliveries }) => deliveries.some((delivery) => delivery.status === 'pending'));
}
