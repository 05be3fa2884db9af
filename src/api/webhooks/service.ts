import type { components } from '../../generated/openapi.js';
import type { components as controlComponents } from '../../generated/control.js';
import type { EventName } from '../../events/catalog.js';
import { notFound, validationError } from '../../lib/errors.js';
import type { Workspace } from '../../workspaces/workspace.js';
import { LOG_RETENTION_MS, logWindow, type LogWindow } from './delivery-log.js';
import { cancelWebhookJobs, createDelivery, disableWebhook, findDelivery, releaseDelivery, startAttempt } from './dispatcher.js';
import { webhooksStore, type DeliveryRecord, type WebhookFaults, type WebhookRecord } from './store.js';
import { getOwn } from '../../lib/records.js';
import { maskCredentials } from './url-credentials.js';

/** The contract's Webhook: the secret itself never leaves the mock, nor a password in the URL. */
export function webhookView(webhook: WebhookRecord): components['schemas']['Webhook'] {
  return {
    id: webhook.id,
    name: webhook.name,
    url: maskCredentials(webhook.url),
    enabled: webhook.enabled,
    events: [...webhook.events],
    createdAt: webhook.createdAt,
    updatedAt: webhook.updatedAt,
    hasSecret: webhook.secret !== null,
    consecutiveFailures: webhook.consecutiveFailures,
    disabledReason: webhook.disabledReason,
  };
}

/** The contract's WebhookDelivery. */
export function deliveryView(delivery: DeliveryRecord): components['schemas']['WebhookDelivery'] {
  return {
    id: delivery.id,
    webhookId: delivery.webhookId,
    eventId: delivery.eventId,
    event: delivery.event,
    status: delivery.status,
    attempts: delivery.attempts.map((attempt) => ({ ...attempt })),
    nextAttemptAt: delivery.nextAttemptAt,
    createdAt: delivery.createdAt,
    lastAttemptAt: delivery.lastAttemptAt,
  };
}

export function allWebhooks(workspace: Workspace): WebhookRecord[] {
  return Object.values(webhooksStore.read(workspace).webhooks);
}

/** A webhook of this workspace, or 404: ids of other workspaces are never found. */
export function getWebhook(workspace: Workspace, id: string): WebhookRecord {
  const webhook = getOwn(webhooksStore.peek(workspace)?.webhooks ?? {}, id);
  if (!webhook) throw notFound('Webhook', id);
  return webhook;
}

/** The delivery log of a webhook, oldest first (the list reads it backwards). */
export function deliveriesOf(workspace: Workspace, webhook: WebhookRecord): readonly DeliveryRecord[] {
  return webhooksStore.read(workspace).deliveries[webhook.id] ?? [];
}

export type CreateWebhookInput = components['requestBodies']['CreateWebhookBody']['content']['application/json'];

/**
 * The contract has already checked lengths, the http(s) scheme, the event names and
 * duplicates; what is left is what a schema cannot say.
 */
function checkUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw validationError('url', `url must be an absolute http or https URL; got '${url}'.`);
  }
  // A user name and password are allowed: they are sent as Basic authorization (src/api/webhooks/url-credentials.ts).
  if (parsed.hostname === '') throw validationError('url', `url has no host: '${maskCredentials(url)}'.`);
}

export function createWebhook(workspace: Workspace, input: CreateWebhookInput): WebhookRecord {
  checkUrl(input.url);
  const store = webhooksStore.get(workspace);
  const now = workspace.nowIso();
  const webhook: WebhookRecord = {
    id: workspace.newId(),
    seq: store.nextSeq++,
    name: input.name,
    url: input.url,
    events: [...input.events],
    enabled: input.enabled ?? true,
    secret: input.secret ?? null,
    createdAt: now,
    updatedAt: now,
    consecutiveFailures: 0,
    disabledReason: null,
    faults: null,
    heldDeliveryId: null,
  };
  store.webhooks[webhook.id] = webhook;
  store.deliveries[webhook.id] = [];
  return webhook;
}

export type UpdateWebhookInput = components['schemas']['UpdateWebhookBody'];

/** Changes the sent fields only. `enabled: true` on a disabled webhook starts it afresh. */
export function updateWebhook(workspace: Workspace, id: string, input: UpdateWebhookInput): WebhookRecord {
  const webhook = getWebhook(workspace, id);
  if (input.url !== undefined) checkUrl(input.url);
  const changed = Object.values(input).some((value) => value !== undefined);
  if (input.name !== undefined) webhook.name = input.name;
  // The URL the webhook's GET showed, password masked, sent back unchanged (a read-modify-write
  // client) keeps the stored password rather than setting it to `***`.
  if (input.url !== undefined && input.url !== maskCredentials(webhook.url)) webhook.url = input.url;
  if (input.events !== undefined) webhook.events = [...input.events];
  if (input.enabled === true && !webhook.enabled) {
    webhook.enabled = true;
    webhook.consecutiveFailures = 0;
    webhook.disabledReason = null;
  } else if (input.enabled === false && webhook.enabled) {
    disableWebhook(workspace, webhook, null);
  }
  if (changed) webhook.updatedAt = workspace.nowIso();
  return webhook;
}

/** Deletes the webhook, its log and its pending retries. */
export function deleteWebhook(workspace: Workspace, id: string): void {
  const webhook = getWebhook(workspace, id);
  const store = webhooksStore.get(workspace);
  cancelWebhookJobs(workspace, webhook.id);
  delete store.webhooks[webhook.id];
  delete store.deliveries[webhook.id];
}

/**
 * Sends `webhook.test` to this webhook now, whatever its events and even when it is
 * disabled, and answers once the attempt is recorded. The event also goes on the
 * bus (the SSE stream shows it); the dispatcher leaves it to this function.
 */
export async function testWebhook(workspace: Workspace, id: string): Promise<DeliveryRecord> {
  const webhook = getWebhook(workspace, id);
  const event = workspace.events.emit('webhook.test', { webhookId: webhook.id, message: 'This is a test event from the Social Publishing Gateway.' });
  const delivery = createDelivery(workspace, webhook, event, 'test');
  await startAttempt(workspace, webhook.id, delivery.id, 'manual');
  return delivery;
}

/** One more attempt of a logged delivery, now, with the same event id and body. */
export async function redeliver(workspace: Workspace, webhookId: string, deliveryId: string): Promise<DeliveryRecord> {
  const webhook = getWebhook(workspace, webhookId);
  const delivery = findDelivery(workspace, webhook.id, deliveryId);
  if (!delivery) throw notFound('Delivery', deliveryId);
  await startAttempt(workspace, webhook.id, delivery.id, 'manual');
  return delivery;
}

/** What a test or a scenario asks for; omitted fields are off. */
export interface DeliveryFaultsInput {
  duplicate?: boolean;
  outOfOrder?: boolean;
  delayMs?: number;
  failStatus?: number;
  /** How many attempts fail with `failStatus`; every attempt when omitted. */
  failCount?: number;
}

/** A webhook's delivery faults as control.yaml shows them (failCount: attempts still to fail; null means every attempt). */
export type DeliveryFaultsView = controlComponents['schemas']['WebhookFaults']['faults'];

export function deliveryFaultsView(webhook: WebhookRecord): DeliveryFaultsView {
  const faults = webhook.faults;
  const failStatus = faults?.failStatus ?? null;
  const failError = faults?.failError ?? null;
  return {
    duplicate: faults?.duplicate ?? false,
    outOfOrder: faults?.outOfOrder ?? false,
    delayMs: faults?.delayMs ?? 0,
    failStatus,
    failError,
    failCount: failStatus !== null || failError !== null ? (faults?.failRemaining ?? null) : null,
  };
}

/**
 * The faults a request asks for, checked (a scenario's `webhook.faults` step checks
 * them with this when the scenario loads, before any webhook exists).
 */
export function deliveryFaults(input: DeliveryFaultsInput): WebhookFaults {
  if (input.failCount !== undefined && input.failStatus === undefined) {
    throw validationError('failCount', 'failCount needs failStatus: the status those attempts fail with.');
  }
  return {
    duplicate: input.duplicate ?? false,
    outOfOrder: input.outOfOrder ?? false,
    delayMs: input.delayMs ?? 0,
    failStatus: input.failStatus ?? null,
    failRemaining: input.failStatus !== undefined ? (input.failCount ?? null) : null,
  };
}

/** What `POST /__control/webhooks/{id}/failures` asks for: exactly one way to fail. */
export interface ForcedFailuresInput {
  count: number;
  status?: number;
  timeout?: boolean;
  reset?: boolean;
}

/**
 * Makes the webhook's next `count` attempts fail as asked. The same state as the
 * `failStatus`/`failCount` faults (one mechanism), so it replaces any forced failure
 * set before and leaves the other faults as they are.
 */
export function forceDeliveryFailures(workspace: Workspace, webhookId: string, input: ForcedFailuresInput): DeliveryFaultsView {
  const webhook = getWebhook(workspace, webhookId);
  const ways = (['status', 'timeout', 'reset'] as const).filter((way) => (way === 'status' ? input.status !== undefined : input[way] === true));
  if (ways.length !== 1) {
    throw validationError(ways[1] ?? 'status', 'Say how the attempts fail: exactly one of status, timeout: true and reset: true.');
  }
  const faults = webhook.faults ?? deliveryFaults({});
  webhook.faults = {
    ...faults,
    failStatus: input.status ?? null,
    failError: input.timeout === true ? 'timeout' : input.reset === true ? 'reset' : null,
    failRemaining: input.count,
  };
  return deliveryFaultsView(webhook);
}

/**
 * Switches a webhook's delivery faults, replacing the previous set (`{}` clears
 * them). For the scenario engine and tests; the API never shows faults. A delivery
 * the out-of-order fault was holding goes out as soon as that fault is off.
 */
export function setDeliveryFaults(workspace: Workspace, webhookId: string, input: DeliveryFaultsInput): DeliveryFaultsView {
  const webhook = getWebhook(workspace, webhookId);
  const faults = deliveryFaults(input);
  const active = faults.duplicate || faults.outOfOrder || faults.delayMs > 0 || faults.failStatus !== null;
  webhook.faults = active ? faults : null;
  const held = webhook.heldDeliveryId;
  if (held !== null && !faults.outOfOrder) {
    webhook.heldDeliveryId = null;
    workspace.scheduler.cancel((job) => job.data.deliveryId === held && job.data.webhookId === webhook.id);
    releaseDelivery(workspace, webhook, held);
  }
  return deliveryFaultsView(webhook);
}

export interface DeliveryLogFilters {
  sinceMs?: number;
  untilMs?: number;
  status?: DeliveryRecord['status'];
  event?: EventName;
}

export interface DeliveryLog {
  /** Deliveries passing every filter, newest first. */
  matching: DeliveryRecord[];
  /** Deliveries passing every filter but `status`: what facets and the histogram count. */
  counted: DeliveryRecord[];
  window: LogWindow;
}

/**
 * The delivery log as the list shows it: the plan's retention and the time window
 * first, then the event and status filters. Facets and the histogram ignore the
 * status filter, so they still show how the other statuses compare.
 */
export function deliveryLog(workspace: Workspace, webhookId: string, filters: DeliveryLogFilters): DeliveryLog {
  const webhook = getWebhook(workspace, webhookId);
  const window = logWindow(filters, workspace.now(), LOG_RETENTION_MS[workspace.data.plan]);
  const counted: DeliveryRecord[] = [];
  const log = deliveriesOf(workspace, webhook);
  // The log is oldest first; walking it backwards gives newest first without a sort.
  for (let i = log.length - 1; i >= 0; i--) {
    const delivery = log[i] as DeliveryRecord;
    if (delivery.createdAtMs >= window.untilMs) continue;
    if (delivery.createdAtMs < window.sinceMs) break;
    if (filters.event !== undefined && delivery.event !== filters.event) continue;
    counted.push(delivery);
  }
  const matching = filters.status === undefined ? counted : counted.filter((delivery) => delivery.status === filters.status);
  return { matching, counted, window };
}
