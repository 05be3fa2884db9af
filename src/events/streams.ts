import type { Containment } from '../lib/containment.js';
import type { EventSubscriber } from './bus.js';
import type { DomainEvent } from './catalog.js';

/** An open response a route keeps writing to (Server-Sent Events). */
export interface ResponseStream {
  write(chunk: string): void;
  end(): void;
  /** Called once when the client goes away or the stream ends. */
  onClose(listener: () => void): void;
}

/**
 * What the streams carry besides the webhook events: news of the control plane itself,
 * which no webhook ever sends (control.yaml lists them under `ControlEventName`).
 */
export const CONTROL_EVENTS = ['request.recorded'] as const;
export type ControlEventName = (typeof CONTROL_EVENTS)[number];

/** One event as a Server-Sent Events message: `id` and `event` from the event, `data` the webhook body. */
export function sseMessage(event: Omit<DomainEvent, 'event'> & { event: string }): string {
  const body = JSON.stringify({ id: event.id, event: event.event, createdAt: event.createdAt, workspaceId: event.workspaceId, data: event.data });
  return `id: ${event.id}\nevent: ${event.event}\ndata: ${body}\n\n`;
}

/**
 * The open `GET /__control/events` streams of one server, by workspace id (so a
 * stream survives its workspace being reset). Its subscriber is wired beside the
 * API areas' subscribers and writes each event to that workspace's streams.
 */
export class EventStreams {
  private readonly open = new Map<string, Set<ResponseStream>>();
  /** The streams among them that asked for `request.recorded` too (`requests=true`), by workspace id. */
  private readonly watchingRequests = new Map<string, Set<ResponseStream>>();

  /**
   * `containment`: where a stream's failed write stops (decision 0041). The write runs inside
   * whoever emitted the event (another tenant's request, a job, a response's close handler):
   * one stream's failure must end neither that work nor the other streams' messages.
   */
  constructor(private readonly containment: Containment) {}

  private writeAll(streams: ReadonlySet<ResponseStream>, message: string): void {
    for (const stream of streams) this.containment.call('event-stream', writeTo, stream, message);
  }

  readonly subscriber: EventSubscriber<{ readonly id: string }> = (workspace, event) => {
    const streams = this.open.get(workspace.id);
    if (!streams) return;
    this.writeAll(streams, sseMessage(event));
  };

  /**
   * Writes a control event to the workspace's streams that asked for it. With none open it
   * costs a map lookup, so a workspace nobody watches pays nothing for it (decision 0018).
   */
  publishControl(workspaceId: string, event: ControlEventName, id: string, createdAt: string, data: Record<string, unknown>): void {
    const streams = this.watchingRequests.get(workspaceId);
    if (!streams) return;
    this.writeAll(streams, sseMessage({ id, event, createdAt, workspaceId, data }));
  }

  /** Whether a stream asked for `request.recorded`: of the workspace, or of any when none is named. */
  watchesRequests(workspaceId?: string): boolean {
    return workspaceId === undefined ? this.watchingRequests.size > 0 : this.watchingRequests.has(workspaceId);
  }

  /**
   * Adds a stream to the workspace's; it leaves when it closes. Control events reach it only
   * when it asks (`requests`): a client written for the webhook events sees nothing new.
   */
  attach(workspaceId: string, stream: ResponseStream, { requests = false }: { requests?: boolean } = {}): void {
    joinSet(this.open, workspaceId, stream);
    if (requests) joinSet(this.watchingRequests, workspaceId, stream);
  }

  /** How many streams are open, for the workspace or in all. */
  count(workspaceId?: string): number {
    if (workspaceId !== undefined) return this.open.get(workspaceId)?.size ?? 0;
    let total = 0;
    for (const streams of this.open.values()) total += streams.size;
    return total;
  }

  /** Ends the workspace's streams: it was deleted or evicted, and nothing will ever be emitted to them. */
  closeWorkspace(workspaceId: string): void {
    const streams = this.open.get(workspaceId);
    if (!streams) return;
    this.open.delete(workspaceId);
    this.watchingRequests.delete(workspaceId);
    for (const stream of [...streams]) stream.end();
  }

  /** Ends every stream: a server cannot close while a response is still open. */
  closeAll(): void {
    for (const streams of [...this.open.values()]) for (const stream of [...streams]) stream.end();
    this.open.clear();
    this.watchingRequests.clear();
  }
}

function writeTo(stream: ResponseStream, message: string): void {
  stream.write(message);
}

/** Adds the stream to the workspace's set in `sets`, and takes it out (and an emptied set) when it closes. */
function joinSet(sets: Map<string, Set<ResponseStream>>, workspaceId: string, stream: ResponseStream): void {
  let streams = sets.get(workspaceId);
  if (!streams) {
    streams = new Set();
    sets.set(workspaceId, streams);
  }
  streams.add(stream);
  const joined = streams;
  stream.onClose(() => {
    joined.delete(stream);
    if (joined.size === 0 && sets.get(workspaceId) === joined) sets.delete(workspaceId);
  });
}
