import { jsonLength } from '../lib/json-length.js';
import type { DomainEvent, EventName } from './catalog.js';

/**
 * Bytes of event data a workspace keeps for `?replay=true` and the control plane's reports,
 * besides the count: a thousand ordinary events take under 1 MB, and a few large ones
 * (an emitted event with big overrides) cannot make the list hold a gigabyte.
 */
export const RECENT_EVENTS_MAX_BYTES = 4 * 1024 * 1024;

/**
 * The most bytes (of JSON) of data an event made up outside the services may carry: a
 * `POST /__control/events` payload with its overrides, a scenario's `emit` step. Each
 * event is kept in every webhook's delivery log and sent to every stream, so one request
 * must not be able to make it megabytes; the services' own events are far smaller.
 */
export const EMITTED_DATA_MAX_BYTES = 64 * 1024;

/** Reacts to every event of every workspace: the webhook dispatcher, the automation runner, SSE. */
export type EventSubscriber<W> = (workspace: W, event: DomainEvent) => void;

/**
 * A workspace's event bus. Services emit domain events here and never call the
 * webhook or automation code themselves; subscribers are wired once per server.
 * The most recent events are kept (bounded) for inspection.
 */
export class EventBus<W> {
  private readonly recentEvents: DomainEvent[] = [];
  /** The size of each kept event's data (its JSON's length), in step with recentEvents. */
  private readonly recentSizes: number[] = [];
  private recentBytes = 0;
  /** The lists of the calls being captured (`capture`), innermost last. */
  private readonly captures: DomainEvent[][] = [];

  constructor(
    private readonly owner: W,
    private readonly subscribers: ReadonlyArray<EventSubscriber<W>>,
    /** `newEventId`: `evt_` and the digits of the workspace's next id (`newId`'s UUID without its dashes). */
    private readonly describe: { workspaceId: string; newEventId: () => string; nowIso: () => string },
    private readonly keep = 1000,
    private readonly keepBytes = RECENT_EVENTS_MAX_BYTES,
  ) {}

  emit(event: EventName, data: Record<string, unknown>): DomainEvent {
    const domainEvent: DomainEvent = { id: this.describe.newEventId(), event, createdAt: this.describe.nowIso(), workspaceId: this.describe.workspaceId, data };
    this.keepRecent(domainEvent);
    for (const capture of this.captures) capture.push(domainEvent);
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

  /**
   * Runs `act` and answers every event emitted meanwhile, in order, however many: the kept
   * events are bounded, so telling them apart before and after the call could miss some.
   * The subscribers run inside each emit, so what they set off (an automation) is among them.
   */
  capture<T>(act: () => T): { result: T; events: DomainEvent[] } {
    const events: DomainEvent[] = [];
    this.captures.push(events);
    try {
      return { result: act(), events };
    } finally {
      this.captures.splice(this.captures.lastIndexOf(events), 1);
    }
  }

  /** Events emitted since the workspace was loaded, oldest first (at most `keep`, and `keepBytes` of data besides the newest). */
  recent(): readonly DomainEvent[] {
    return this.recentEvents;
  }

  /**
   * Keeps the event, dropping the oldest past either bound; the newest is always kept, whatever its size.
   * O(size of the event's data) to measure it (counted, not serialised: three events for each post
   * published), then O(1) for each event dropped.
   */
  private keepRecent(event: DomainEvent): void {
    const size = jsonLength(event.data) ?? 0;
    this.recentEvents.push(event);
    this.recentSizes.push(size);
    this.recentBytes += size;
    while (this.recentEvents.length > 1 && (this.recentEvents.length > this.keep || this.recentBytes > this.keepBytes)) {
      this.recentEvents.shift();
      this.recentBytes -= this.recentSizes.shift() ?? 0;
    }
  }
}
