/** The 22 events of DESIGN.md: what webhooks can subscribe to and services emit. */
export const EVENT_NAMES = [
  'post.scheduled',
  'post.published',
  'post.failed',
  'post.partial',
  'post.cancelled',
  'post.deleted',
  'post.platform.published',
  'post.platform.failed',
  'post.external.created',
  'account.connected',
  'account.disconnected',
  'account.expired',
  'account.reconnected',
  'comment.received',
  'comment.replied',
  'message.received',
  'message.sent',
  'conversation.started',
  'review.new',
  'automation.triggered',
  'automation.failed',
  'webhook.test',
] as const;
export type EventName = (typeof EVENT_NAMES)[number];

/** The payload every delivery carries; `id` stays the same across retries. */
export interface DomainEvent {
  id: string;
  event: EventName;
  createdAt: string;
  workspaceId: string;
  data: Record<string, unknown>;
}
