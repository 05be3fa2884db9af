import type { JobHandler, JobRecord } from '../../clock/scheduler.js';
import type { EventSubscriber } from '../../events/bus.js';
import type { DomainEvent } from '../../events/catalog.js';
import type { Workspace } from '../../workspaces/workspace.js';
import { LOG_RETENTION_MS, prune } from './delivery-log.js';
import { sendWebhookRequest, type SendOutcome } from './sender.js';
import { maskCredentials } from './url-credentials.js';
import { signWebhookBody } from './signature.js';
import { webhooksStore, type DeliveryRecord, type WebhookRecord } from './store.js';
import { getOwn, hasRecords } from '../../lib/records.js';

const MINUTE = 60_000;

/** Waits before the automatic retries, each counted from the attempt before it (DESIGN.md). */
export const RETRY_DELAYS_MS = [1 * MINUTE, 5 * MINUTE, 30 * MINUTE, 2 * 60 * MINUTE, 6 * 60 * MINUTE] as const;

/** Event deliveries in a row that use up every retry before the webhook is disabled (DESIGN.md). */
export const DISABLE_AFTER_FAILED_DELIVERIES = 10;

/** How long (virtual) the out-of-order fault holds a delivery when no later event comes to overtake it. */
export const OUT_OF_ORDER_HOLD_MS = 60_000;

/** Job kinds of this area: a retry, a first attempt the delay fault postponed, a held delivery let go. */
export const JOB_RETRY = 'webhook.retry';
export const JOB_DELAYED_SEND = 'webhook.delayed-send';
export const JOB_RELEASE_HELD = 'webhook.release-held';

/** `automatic`: the first attempt of an event and its retries; `manual`: the test endpoint and redeliver. */
export type AttemptMode = 'automatic' | 'manual';

/**
 * Attempts to one webhook go out one at a time, in the order they were started, so
 * a receiver sees events in order unless the out-of-order fault says otherwise.
 * The chains are runtime state (promises), so they live beside the workspace, not
 * in its data; a WeakMap lets a reset or dropped workspace take them along.
 */
const lanes = new WeakMap<Workspace, Map<string, Promise<void>>>();

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

export function findDelivery(workspace: Workspace, webhookId: string, deliveryId: string): DeliveryRecord | undefined {
  return getOwn(webhooksStore.get(workspace).deliveries, webhookId)?.find((delivery) => delivery.id === deliveryId);
}

/** The body every attempt of an event sends: the event as the bus emitted it. */
function eventBody(event: DomainEvent): string {
  return JSON.stringify({ id: event.id, event: event.event, createdAt: event.createdAt, workspaceId: event.workspaceId, data: event.data });
}

/** Logs a new delivery of `event` to `webhook`, pruning what the log no longer keeps. */
export function createDelivery(workspace: Workspace, webhook: WebhookRecord, event: DomainEvent, origin: DeliveryRecord['origin']): DeliveryRecord {
  const store = webhooksStore.get(workspace);
  const now = workspace.now();
  const delivery: DeliveryRecord = {
    id: workspace.newId(),
    seq: store.nextSeq++,
    webhookId: webhook.id,
    eventId: event.id,
    event: event.event,
    body: eventBody(event),
    status: 'pending',
    attempts: [],
    attemptsStarted: 0,
    retriesUsed: 0,
    origin,
    // An event's first attempt is due at once; a test delivery has no automatic attempt.
    nextAttemptAt: origin === 'event' ? iso(now) : null,
    createdAt: iso(now),
    createdAtMs: now,
    lastAttemptAt: null,
  };
  const log = (store.deliveries[webhook.id] ??= []);
  log.push(delivery);
  const dropped = prune(log, now, LOG_RETENTION_MS[workspace.data.plan]);
  if (dropped.some((old) => old.status === 'pending')) {
    const ids = new Set(dropped.map((old) => old.id));
    workspace.scheduler.cancel((job) => job.kind.startsWith('webhook.') && ids.has(String(job.data.deliveryId)));
    if (webhook.heldDeliveryId !== null && ids.has(webhook.heldDeliveryId)) webhook.heldDeliveryId = null;
  }
  return delivery;
}

/**
 * The event bus subscriber: every enabled webhook subscribed to the event gets a
 * delivery, and its first attempt starts at once (the delay and out-of-order faults
 * aside). Starting it here rather than as a job due "now" means it goes out
 * promptly even while the clock is frozen, without running anyone else's due work;
 * the scheduler tracks the request, so `POST /__control/clock/advance` (even by 0)
 * answers only once it has finished. `webhook.test` goes only to the webhook tested,
 * through the test endpoint.
 */
export const dispatchEvent: EventSubscriber<Workspace> = (workspace, event) => {
  if (event.event === 'webhook.test') return;
  const records = webhooksStore.get(workspace).webhooks;
  // Most workspaces have no webhook: every event the publishing emits asked for an empty list, sorted.
  if (!hasRecords(records)) return;
  const webhooks = Object.values(records)
    .filter((webhook) => webhook.enabled && webhook.events.includes(event.event))
    .sort((a, b) => a.seq - b.seq);
  for (const webhook of webhooks) {
    const delivery = createDelivery(workspace, webhook, event, 'event');
    const delayMs = webhook.faults?.delayMs ?? 0;
    if (delayMs > 0) {
      const dueAt = workspace.now() + delayMs;
      delivery.nextAttemptAt = iso(dueAt);
      workspace.scheduler.schedule(JOB_DELAYED_SEND, dueAt, { webhookId: webhook.id, deliveryId: delivery.id }, `webhook ${event.event} to ${maskCredentials(webhook.url)} (delayed by a fault)`);
    } else {
      sendFirstAttempt(workspace, webhook, delivery);
    }
  }
  if (webhooks.length > 0) workspace.changed();
};

/** The first attempt of an event delivery, or, under the out-of-order fault, its swap with the next one. */
function sendFirstAttempt(workspace: Workspace, webhook: WebhookRecord, delivery: DeliveryRecord): void {
  if (!webhook.faults?.outOfOrder) {
    void startAttempt(workspace, webhook.id, delivery.id, 'automatic');
    return;
  }
  const held = webhook.heldDeliveryId;
  if (held === null) {
    // Hold this one back until the next event overtakes it (or the hold ends).
    webhook.heldDeliveryId = delivery.id;
    const dueAt = workspace.now() + OUT_OF_ORDER_HOLD_MS;
    delivery.nextAttemptAt = iso(dueAt);
    workspace.scheduler.schedule(JOB_RELEASE_HELD, dueAt, { webhookId: webhook.id, deliveryId: delivery.id }, `webhook ${delivery.event} to ${maskCredentials(webhook.url)} (held back by a fault)`);
    return;
  }
  webhook.heldDeliveryId = null;
  cancelDeliveryJobs(workspace, held);
  void startAttempt(workspace, webhook.id, delivery.id, 'automatic');
  releaseDelivery(workspace, webhook, held);
}

/**
 * Real I/O is not in the data: a delivery whose attempt was on the wire when the
 * process stopped (or when a snapshot was taken) has no job to carry it on. After a
 * start from a --data file or a restore, each such delivery is attempted again, at
 * least once as the real service delivers.
 */
export function resumeDeliveries(workspace: Workspace): void {
  const store = webhooksStore.peek(workspace);
  if (!store) return;
  const carried = new Set(workspace.scheduler.pending().map((job) => job.data.deliveryId));
  for (const webhook of Object.values(store.webhooks).sort((a, b) => a.seq - b.seq)) {
    if (!webhook.enabled) continue;
    for (const delivery of store.deliveries[webhook.id] ?? []) {
      if (delivery.origin === 'event' && delivery.status === 'pending' && !carried.has(delivery.id)) void startAttempt(workspace, webhook.id, delivery.id, 'automatic');
    }
  }
}

/** Sends a held or delayed delivery's first attempt now. */
export function releaseDelivery(workspace: Workspace, webhook: WebhookRecord, deliveryId: string): void {
  const delivery = findDelivery(workspace, webhook.id, deliveryId);
  if (!delivery || delivery.status !== 'pending') return;
  delivery.nextAttemptAt = workspace.nowIso();
  void startAttempt(workspace, webhook.id, delivery.id, 'automatic');
}

function cancelDeliveryJobs(workspace: Workspace, deliveryId: string): void {
  workspace.scheduler.cancel((job) => job.kind.startsWith('webhook.') && job.data.deliveryId === deliveryId);
}

/** Drops every pending job of a webhook (deleted or disabled). */
export function cancelWebhookJobs(workspace: Workspace, webhookId: string): void {
  workspace.scheduler.cancel((job) => job.kind.startsWith('webhook.') && job.data.webhookId === webhookId);
}

/**
 * Queues one attempt on the webhook's lane and lets the scheduler track it. Resolves
 * when the attempt is recorded; never rejects.
 */
export function startAttempt(workspace: Workspace, webhookId: string, deliveryId: string, mode: AttemptMode): Promise<void> {
  let byWebhook = lanes.get(workspace);
  if (!byWebhook) {
    byWebhook = new Map();
    lanes.set(workspace, byWebhook);
  }
  const previous = byWebhook.get(webhookId) ?? Promise.resolve();
  // An attempt runs with nobody above it: its failure ends it alone, caught at the webhook boundary (decision 0041).
  const run = previous
    .then(() => {
      workspace.containment.trip('webhook');
      return runAttempt(workspace, webhookId, deliveryId, mode);
    })
    .catch((error: unknown) => void workspace.containment.caught('webhook', error));
  byWebhook.set(webhookId, run);
  workspace.scheduler.track(run);
  return run;
}

async function runAttempt(workspace: Workspace, webhookId: string, deliveryId: string, mode: AttemptMode): Promise<void> {
  // Attempts queued on the lane behind one on the wire outlive the workspace that queued them:
  // once it is deleted, evicted or replaced, none of them is sent.
  if (workspace.scheduler.isStopped) return;
  const webhook = getOwn(webhooksStore.get(workspace).webhooks, webhookId);
  const delivery = findDelivery(workspace, webhookId, deliveryId);
  if (!webhook || !delivery) return;
  if (mode === 'automatic') {
    // Succeeded meanwhile (a redeliver), or ended when the webhook was disabled.
    if (delivery.status !== 'pending') return;
    if (!webhook.enabled) {
      endDelivery(delivery);
      return;
    }
  }
  const attempt = ++delivery.attemptsStarted;
  const atMs = workspace.now();
  const at = iso(atMs);
  const headers: Record<string, string> = {
    'X-Gateway-Event': delivery.event,
    'X-Gateway-Event-Id': delivery.eventId,
    'X-Gateway-Delivery-Attempt': String(attempt),
    ...(webhook.secret !== null && { 'X-Gateway-Signature': signWebhookBody(delivery.body, webhook.secret) }),
  };
  const forced = takeForcedFailure(webhook, workspace.webhookTimeoutMs);
  const request = { url: webhook.url, body: delivery.body, headers, timeoutMs: workspace.webhookTimeoutMs, ...(workspace.webhookFence && { fence: workspace.webhookFence }) };
  let outcome: SendOutcome;
  if (forced !== null) {
    outcome = { ok: false, durationMs: 0, ...forced };
  } else {
    outcome = await sendWebhookRequest(request);
  }
  const sent = forced === null && !outcome.refused;
  delivery.attempts.push({ attempt, at, responseStatus: outcome.responseStatus, durationMs: sent ? outcome.durationMs : null, error: outcome.refused ? `${outcome.error ?? 'refused'} (not sent)` : outcome.error });
  delivery.lastAttemptAt = at;
  if (sent && webhook.faults?.duplicate) {
    // At-least-once delivery: the same request again. Its answer is logged but decides nothing.
    const again = await sendWebhookRequest(request);
    delivery.attempts.push({ attempt, at, responseStatus: again.responseStatus, durationMs: again.durationMs, error: again.error ? `duplicate (delivery fault): ${again.error}` : 'duplicate (delivery fault)' });
  }
  settle(workspace, webhook, delivery, outcome.ok ? 'succeeded' : outcome.refused ? 'refused' : 'failed', atMs, mode);
  workspace.changed();
}

/** How an attempt ended; `refused`: the fence kept it from being sent (src/lib/host-fence.ts). */
type AttemptResult = 'succeeded' | 'failed' | 'refused';

/** The attempt's consequences: the delivery's status, the next retry, the webhook's failure count. */
function settle(workspace: Workspace, webhook: WebhookRecord, delivery: DeliveryRecord, result: AttemptResult, atMs: number, mode: AttemptMode): void {
  // The webhook may have been deleted while the request was out.
  const current = webhooksStore.get(workspace).webhooks[webhook.id];
  if (result === 'succeeded') {
    workspace.webhookDelivered(delivery.event);
    delivery.status = 'succeeded';
    delivery.nextAttemptAt = null;
    cancelDeliveryJobs(workspace, delivery.id);
    if (current?.heldDeliveryId === delivery.id) current.heldDeliveryId = null;
    if (mode === 'automatic' && current) current.consecutiveFailures = 0;
    return;
  }
  if (mode === 'manual') {
    // A manual attempt changes nothing that is scheduled: a pending delivery stays pending.
    if (delivery.nextAttemptAt === null) delivery.status = 'failed';
    return;
  }
  if (!current?.enabled) {
    // Disabled or deleted while the request was out: the delivery ends, and counts for nothing.
    endDelivery(delivery);
    return;
  }
  // A refused target is refused again on every retry until the server restarts with other flags:
  // the delivery ends now, a failed delivery like one whose retries all failed.
  const delay = result === 'refused' ? undefined : RETRY_DELAYS_MS[delivery.retriesUsed];
  if (delivery.origin === 'event' && delay !== undefined) {
    delivery.retriesUsed++;
    const dueAt = atMs + delay;
    delivery.status = 'pending';
    delivery.nextAttemptAt = iso(dueAt);
    workspace.scheduler.schedule(
      JOB_RETRY,
      dueAt,
      { webhookId: webhook.id, deliveryId: delivery.id },
      `webhook ${delivery.event} to ${maskCredentials(webhook.url)}, attempt ${delivery.attemptsStarted + 1}`,
    );
    return;
  }
  endDelivery(delivery);
  if (delivery.origin !== 'event') return;
  current.consecutiveFailures++;
  if (current.consecutiveFailures >= DISABLE_AFTER_FAILED_DELIVERIES) {
    disableWebhook(workspace, current, 'too_many_failures');
  }
}

function endDelivery(delivery: DeliveryRecord): void {
  delivery.status = 'failed';
  delivery.nextAttemptAt = null;
}

/**
 * Stops a webhook: by the integrator (reason null) or by the mock after too many
 * failures. Pending deliveries end as failed (redeliver them once it works again).
 */
export function disableWebhook(workspace: Workspace, webhook: WebhookRecord, reason: string | null): void {
  webhook.enabled = false;
  webhook.disabledReason = reason;
  webhook.updatedAt = workspace.nowIso();
  webhook.heldDeliveryId = null;
  cancelWebhookJobs(workspace, webhook.id);
  for (const delivery of webhooksStore.get(workspace).deliveries[webhook.id] ?? []) {
    if (delivery.status === 'pending') endDelivery(delivery);
  }
}

/**
 * The failure a fault forces on this attempt, if any, counting it down: logged as
 * the real failure would be (a status, or no status and the time-out's or the
 * reset's error), marked as never sent.
 */
function takeForcedFailure(webhook: WebhookRecord, timeoutMs: number): { responseStatus: number | null; error: string } | null {
  const faults = webhook.faults;
  if (!faults) return null;
  const status = faults.failStatus;
  const error = faults.failError ?? null;
  if (status === null && error === null) return null;
  if (faults.failRemaining !== null) {
    faults.failRemaining--;
    if (faults.failRemaining <= 0) {
      faults.failStatus = null;
      faults.failError = null;
      faults.failRemaining = null;
    }
  }
  if (status !== null) return { responseStatus: status, error: `forced failure ${status} (delivery fault): not sent` };
  const what = error === 'timeout' ? `timeout: no answer within ${timeoutMs} ms` : 'connection reset';
  return { responseStatus: null, error: `${what} (delivery fault): not sent` };
}

function deliveryJob(handle: (workspace: Workspace, webhook: WebhookRecord, deliveryId: string) => void): JobHandler<Workspace> {
  return (workspace: Workspace, job: JobRecord) => {
    const webhook = webhooksStore.get(workspace).webhooks[String(job.data.webhookId)];
    if (webhook) handle(workspace, webhook, String(job.data.deliveryId));
  };
}

/**
 * The jobs of this area. None awaits its request: the scheduler tracks it, so a slow
 * receiver never holds up other work of a running clock, while an advance still
 * waits for it.
 */
export const webhookJobHandlers: ReadonlyArray<[string, JobHandler<Workspace>]> = [
  [JOB_RETRY, deliveryJob((workspace, webhook, deliveryId) => void startAttempt(workspace, webhook.id, deliveryId, 'automatic'))],
  [
    JOB_DELAYED_SEND,
    deliveryJob((workspace, webhook, deliveryId) => {
      const delivery = findDelivery(workspace, webhook.id, deliveryId);
      if (delivery?.status === 'pending') sendFirstAttempt(workspace, webhook, delivery);
    }),
  ],
  [
    JOB_RELEASE_HELD,
    deliveryJob((workspace, webhook, deliveryId) => {
      // An overtaking event or a successful redeliver already let it go.
      if (webhook.heldDeliveryId !== deliveryId) return;
      webhook.heldDeliveryId = null;
      releaseDelivery(workspace, webhook, deliveryId);
    }),
  ],
];
