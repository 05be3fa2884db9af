import type { components } from '../generated/openapi.js';
import type { DomainEvent, EventName } from './catalog.js';

type Schemas = components['schemas'];

/**
 * The `data` of each event, from the contract (openapi.yaml's `callbacks` on
 * createWebhook and the *EventData schemas). Services that emit an event build
 * exactly this; `emitEvent` makes the compiler check it.
 */
export interface EventPayloads {
  'post.scheduled': Schemas['PostEventData'];
  'post.published': Schemas['PostEventData'];
  'post.failed': Schemas['PostEventData'];
  'post.partial': Schemas['PostEventData'];
  'post.cancelled': Schemas['PostEventData'];
  'post.deleted': Schemas['PostEventData'];
  'post.platform.published': Schemas['PostPlatformEventData'];
  'post.platform.failed': Schemas['PostPlatformEventData'];
  'post.external.created': Schemas['PostEventData'];
  'account.connected': Schemas['AccountEventData'];
  'account.disconnected': Schemas['DisconnectedAccount'];
  'account.expired': Schemas['AccountEventData'];
  'account.reconnected': Schemas['AccountEventData'];
  'comment.received': Schemas['CommentEventData'];
  'comment.replied': Schemas['CommentEventData'];
  'message.received': Schemas['MessageEventData'];
  'message.sent': Schemas['MessageEventData'];
  'conversation.started': Schemas['ConversationEventData'];
  'review.new': Schemas['ReviewEventData'];
  'automation.triggered': Schemas['AutomationEventData'];
  'automation.failed': Schemas['AutomationEventData'];
  'webhook.test': Schemas['WebhookTestEventData'];
}

export type EventData<E extends EventName> = EventPayloads[E];

/** The body of a webhook request (and of an SSE message) for event `E`. */
export interface WebhookEventBody<E extends EventName = EventName> {
  id: string;
  event: E;
  createdAt: string;
  workspaceId: string;
  data: EventData<E>;
}

/** What can emit: a workspace's event bus. */
interface Emitter {
  readonly events: { emit(event: EventName, data: Record<string, unknown>): DomainEvent };
}

/** Emits `event` with its data checked against the contract's payload type at compile time. */
export function emitEvent<E extends EventName>(workspace: Emitter, event: E, data: EventData<E>): DomainEvent {
  return workspace.events.emit(event, data as unknown as Record<string, unknown>);
}
