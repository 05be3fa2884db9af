/*
 * The webhooks store's records (src/api/webhooks/store.ts), alone in a file that imports nothing:
 * the dashboard's browser program reads them too, from a workspace snapshot, and tsc emits every
 * file its program reaches. A record's event names are the catalog's in the server
 * (`WebhookRecord<EventName>`), any string in the browser.
 */

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

/** Failures without a status a fault can force: no answer in time, or the connection reset. */
export type ForcedError = 'timeout' | 'reset';

/**
 * Delivery faults a test or a scenario switched on for one webhook. They change
 * how the mock sends, never what the API answers about the webhook.
 */
export interface WebhookFaults {
  /** Every attempt that reaches the receiver is sent a second time, unchanged (same event id and attempt number). */
  duplicate: boolean;
  /** Each new event is held back and sent after the next one (or after a hold of virtual time). */
  outOfOrder: boolean;
  /** Virtual milliseconds each new event waits before its first attempt. */
  delayMs: number;
  /** Attempts fail with this status without reaching the receiver; null sends normally. */
  failStatus: number | null;
  /** Attempts fail as a time-out or a reset connection without reaching the receiver; absent or null: none. */
  failError?: ForcedError | null;
  /** How many more attempts fail with `failStatus` or `failError`; null means every attempt until the faults change. */
  failRemaining: number | null;
}

/** A registered webhook. */
export interface WebhookRecord<Event extends string = string> {
  id: string;
  /** Creation order, for a stable newest-first list when several share one instant. */
  seq: number;
  name: string;
  url: string;
  events: Event[];
  enabled: boolean;
  /** Signs every request; never returned by the API (`hasSecret`). */
  secret: string | null;
  createdAt: string;
  updatedAt: string;
  /** Event deliveries in a row whose every attempt failed; at 10 the webhook is disabled. */
  consecutiveFailures: number;
  /** Why the mock disabled the webhook (`too_many_failures`); null when enabled or disabled by the integrator. */
  disabledReason: string | null;
  /** Faults switched on by a test or a scenario; null when it delivers normally. */
  faults: WebhookFaults | null;
  /** The delivery the out-of-order fault holds back until the next one is sent; null when none. */
  heldDeliveryId: string | null;
}

/** One request sent for a delivery. */
export interface DeliveryAttemptRecord {
  /** The `X-Gateway-Delivery-Attempt` header of the request. */
  attempt: number;
  at: string;
  /** Null when no answer arrived (time-out, refused connection); a forced failure records its status. */
  responseStatus: number | null;
  /** Real milliseconds the request took; null when it was never sent. */
  durationMs: number | null;
  error: string | null;
}

/** One event sent to one webhook, with all its attempts (docs/decisions/0001). */
export interface DeliveryRecord<Event extends string = string> {
  id: string;
  /** Creation order within the webhook: the tie-breaker of the newest-first log. */
  seq: number;
  webhookId: string;
  eventId: string;
  event: Event;
  /** The exact body of every attempt, so retries are byte-identical and the signature covers these bytes. */
  body: string;
  /** `pending` while an attempt is due, else the outcome of the last attempt. */
  status: DeliveryStatus;
  attempts: DeliveryAttemptRecord[];
  /** Attempt numbers handed out so far; an attempt takes its number when it starts. */
  attemptsStarted: number;
  /** Automatic retries already used of the retry schedule. */
  retriesUsed: number;
  /** `event`: fanned out from the event bus (retried, counts toward disabling); `test`: from the test endpoint. */
  origin: 'event' | 'test';
  nextAttemptAt: string | null;
  createdAt: string;
  /** `createdAt` in virtual ms: the log's time filters, retention and histogram read it. */
  createdAtMs: number;
  lastAttemptAt: string | null;
}
