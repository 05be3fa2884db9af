import type { Containment } from '../lib/containment.js';
import { ApiError } from '../lib/errors.js';
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

/** How many streams may be open at once (decision 0045): each holds a connection, and so a file, for as long as it lasts. */
export interface StreamLimits {
  perWorkspace: number;
  perServer: number;
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
  /** The key each stream was opened with (none: the owner's, by token or on a server without one). */
  private readonly keys = new Map<ResponseStream, string>();
  private total = 0;

  /**
   * `containment`: where a stream's failed write stops (decision 0041). The write runs inside
   * whoever emitted the event (another tenant's request, a job, a response's close handler):
   * one stream's failure must end neither that work nor the other streams' messages.
   * `limits`: how many streams may be open at once (decision 0045).
   */
  constructor(
    private readonly containment: Containment,
    private readonly limits: StreamLimits = { perWorkspace: Number.POSITIVE_INFINITY, perServer: Number.POSITIVE_INFINITY },
  ) {}

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
   * Refuses one more stream of the workspace with 429 EVENT_STREAM_LIMIT_REACHED, naming the cap,
   * when the workspace or the server holds as many as it may. Asked before the stream's headers go.
   */
  admit(workspaceId: string): void {
    const refusal = this.refusal(workspaceId);
    if (refusal) throw refusal;
  }

  /**
   * Adds a stream to the workspace's; it leaves when it closes. Control events reach it only
   * when it asks (`requests`): a client written for the webhook events sees nothing new. `key`
   * is the API key it was opened with: revoking that key ends it. A stream past a cap (two
   * requests admitted together) is ended at once.
   */
  attach(workspaceId: string, stream: ResponseStream, { requests = false, key }: { requests?: boolean; key?: string | undefined } = {}): void {
    if (this.refusal(workspaceId)) return void stream.end();
    this.total++;
    stream.onClose(() => {
      this.total--;
      this.keys.delete(stream);
    });
    if (key !== undefined) this.keys.set(stream, key);
    joinSet(this.open, workspaceId, stream);
    if (requests) joinSet(this.watchingRequests, workspaceId, stream);
  }

  /** How many streams are open, for the workspace or in all. */
  count(workspaceId?: string): number {
    if (workspaceId !== undefined) return this.open.get(workspaceId)?.size ?? 0;
    return this.total;
  }

  /**
   * Ends the workspace's streams opened with a key it no longer holds (revoked, or gone with a
   * restore): what they carry (request bodies included) is for key holders only. Answers how many.
   */
  closeRevoked(workspaceId: string, keys: readonly string[]): number {
    const held = new Set(keys);
    let closed = 0;
    for (const stream of [...(this.open.get(workspaceId) ?? [])]) {
      const key = this.keys.get(stream);
      if (key === undefined || held.has(key)) continue;
      stream.end();
      closed++;
    }
    return closed;
  }

  private refusal(workspaceId: string): ApiError | undefined {
    const inWorkspace = this.count(workspaceId);
    if (inWorkspace >= this.limits.perWorkspace) {
      return new ApiError(429, 'EVENT_STREAM_LIMIT_REACHED', `This workspace has ${inWorkspace} event streams open, the most one workspace may hold (${this.limits.perWorkspace}); close one before opening another.`, {
        details: { scope: 'workspace', limit: this.limits.perWorkspace, open: inWorkspace },
      });
    }
    if (this.total >= this.limits.perServer) {
      return new ApiError(429, 'EVENT_STREAM_LIMIT_REACHED', `This server has ${this.total} event streams open, the most it holds (${this.limits.perServer}, from its limit of open files); try again once one closes.`, {
        details: { scope: 'server', limit: this.limits.perServer, open: this.total },
      });
    }
    return undefined;
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
    this.keys.clear();
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
