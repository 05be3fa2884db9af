import type { DomainEvent, EventName } from './catalog.js';

/** Reacts to every event of every workspace: the webhook dispatcher, the automation runner, SSE. */
export type EventSubscriber<W> = (workspace: W, event: DomainEvent) => void;

/**
 * A workspace's event bus. Services emit domain events here and never call the
 * webhook or automation code themselves; subscribers are wired once per server.
 * The most recent events are kept (bounded) for inspection.
 */
export class EventBus<W> {
  private readonly recentEvents: DomainEvent[] = [];

  constructor(
    private readonly owner: W,
    private readonly subscribers: ReadonlyArray<EventSubscriber<W>>,
    private readonly describe: { workspaceId: string; newId: () => string; nowIso: () => string },
    private readonly keep = 1000,
  ) {}

  emit(event: EventName, data: Record<string, unknown>): DomainEvent {
    const domainEvent: DomainEvent = { id: `evt_${this.describe.newId().replace(/-/g, '')}`, event, createdAt: this.describe.nowIso(), workspaceId: this.describe.workspaceId, data };
    this.recentEvents.push(domainEvent);
    if (this.recentEvents.length > this.keep) this.recentEvents.shift();
    for (const subscriber of this.subscribers) {
      try {
        subscriber(this.owner, domainEvent);
      } catch (error) {
        // A broken subscriber must not undo the service's work that emitted the event.
        console.error(`social-gateway-mock: event subscriber failed on ${event}:`, error);
      }
    }
    return domainEvent;
  }

  /** Events emitted since the workspace was loaded, oldest first (at most `keep`). */
  recent(): readonly DomainEvent[] {
    return this.recentEvents;
  }
}
