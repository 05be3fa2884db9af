import type { EventName } from '../../events/catalog.js';
import { defineStore } from '../../store/define-store.js';
import type { DeliveryRecord as DeliveryRecordOf, WebhookRecord as WebhookRecordOf } from './records.js';

export type { DeliveryAttemptRecord, DeliveryStatus, ForcedError, WebhookFaults } from './records.js';

/** A registered webhook. */
export type WebhookRecord = WebhookRecordOf<EventName>;

/** One event sent to one webhook, with all its attempts (docs/decisions/0001). */
export type DeliveryRecord = DeliveryRecordOf<EventName>;

/** Webhooks of one workspace and their delivery logs. */
export const webhooksStore = defineStore('webhooks', () => ({
  webhooks: {} as Record<string, WebhookRecord>,
  /** Delivery log per webhook id, oldest first (appended in creation order; pruned from the front). */
  deliveries: {} as Record<string, DeliveryRecord[]>,
  /** Next `seq` of a webhook or delivery. */
  nextSeq: 1,
}));
