import type { ResponseStream } from '../http/route.js';
import type { EventSubscriber } from './bus.js';
import type { DomainEvent } from './catalog.js';

/** One event as a Server-Sent Events message: `id` and `event` from the event, `data` the webhook body. */
export function sseMessage(event: DomainEvent): string {
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

  readonly subscriber: EventSubscriber<{ readonly id: string }> = (workspace, event) => {
    const streams = this.open.get(workspace.id);
    if (!streams) return;
    const message = sseMessage(event);
    for (const stream of streams) stream.write(message);
  };

  /** Adds a stream to the workspace's; it leaves when it closes. */
  attach(workspaceId: string, stream: ResponseStream): void {
    let streams = this.open.get(workspaceId);
    if (!streams) {
      streams = new Set();
      this.open.set(workspaceId, streams);
    }
    streams.add(stream);
    stream.onClose(() => {
      streams.delete(stream);
      if (streams.size === 0 && this.open.get(workspaceId) === streams) this.open.delete(workspaceId);
    });
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
    for (const stream of [...streams]) stream.end();
  }

  /** Ends every stream: a server cannot close while a response is still open. */
  closeAll(): void {
    for (const streams of [...this.open.values()]) for (const stream of [...streams]) stream.end();
    this.open.clear();
  }
}
