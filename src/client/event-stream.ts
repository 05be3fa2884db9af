import type { EventName } from '../events/catalog.js';
import type { WebhookEventBody } from '../events/payloads.js';

/**
 * One event of `GET /__control/events`: the body a webhook receives, with `data` typed by
 * the event's name, so checking `event.event` narrows `event.data`.
 */
export type ControlEvent = { [E in EventName]: WebhookEventBody<E> }[EventName];

/** One Server-Sent Events message, as the wire has it (`data` lines joined with `\n`). */
export interface ServerSentMessage {
  id?: string;
  event?: string;
  data?: string;
  /** The text of a comment line (`: connected to ws_…`); a message holds either this or fields. */
  comment?: string;
}

/**
 * Reads Server-Sent Events from a response body, one message per blank-line-terminated
 * block (the subset of the SSE format the mock writes: `id`, `event`, `data`, comments).
 * Ends quietly when the body ends or `signal` aborts.
 */
export async function* readServerSentEvents(body: ReadableStream<Uint8Array>, signal: AbortSignal): AsyncGenerator<ServerSentMessage> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        // Closing the stream aborts the read under way: that is the end, not a failure.
        if (signal.aborted) return;
        throw error;
      }
      if (chunk.done) return;
      buffer += decoder.decode(chunk.value, { stream: true }).replaceAll('\r\n', '\n');
      let end = buffer.indexOf('\n\n');
      while (end !== -1) {
        const message = parseBlock(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (message) yield message;
        end = buffer.indexOf('\n\n');
      }
    }
  } finally {
    // Leaving early (a `break`, a closed stream) must free the connection.
    reader.releaseLock();
    if (!signal.aborted) await body.cancel().catch(() => undefined);
  }
}

function parseBlock(block: string): ServerSentMessage | undefined {
  const message: ServerSentMessage = {};
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) {
      message.comment = line.slice(1).trim();
      continue;
    }
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'data') data.push(value);
    else if (field === 'id' || field === 'event') message[field] = value;
  }
  if (data.length > 0) message.data = data.join('\n');
  return Object.keys(message).length > 0 ? message : undefined;
}

/**
 * An open `GET /__control/events` stream of one workspace. Iterate it with `for await`
 * (leaving the loop closes it), or take events one at a time with {@link next} and
 * {@link take}; {@link close} ends it. It is live when `streamEvents` resolves: every event
 * the workspace emits from then on arrives here.
 *
 * @example
 * ```ts
 * const events = await control.streamEvents();
 * await control.receiveInboundComment({ text: 'Where can I buy this?' });
 * const [event] = await events.take(1);
 * if (event?.event === 'comment.received') console.log(event.data.comment.text);
 * events.close();
 * ```
 */
export class ControlEventStream implements AsyncIterable<ControlEvent> {
  private readonly events: AsyncGenerator<ControlEvent, void, undefined>;
  private readonly closeListeners: Array<() => void> = [];
  private ended = false;

  /** @internal Made by `ControlClient.streamEvents`, which reads the opening comment first. */
  constructor(
    messages: AsyncGenerator<ServerSentMessage>,
    private readonly abort: AbortController,
  ) {
    this.events = this.parse(messages);
  }

  private async *parse(messages: AsyncGenerator<ServerSentMessage>): AsyncGenerator<ControlEvent, void, undefined> {
    try {
      for await (const message of messages) {
        if (message.data === undefined) continue;
        yield JSON.parse(message.data) as ControlEvent;
      }
    } finally {
      this.finish();
    }
  }

  /** The next event; rejects when the stream ends (closed, or the server stopped) first. */
  async next(): Promise<ControlEvent> {
    const result = await this.events.next();
    if (result.done) throw new Error('social-gateway-mock: the event stream ended before another event arrived');
    return result.value;
  }

  /** The next `count` events, in the order they were emitted. */
  async take(count: number): Promise<ControlEvent[]> {
    const taken: ControlEvent[] = [];
    while (taken.length < count) taken.push(await this.next());
    return taken;
  }

  /** Ends the stream and frees its connection; a pending {@link next} rejects. Safe to call twice. */
  close(): void {
    this.abort.abort();
    // Runs the reader's `finally` when it is suspended between events; harmless otherwise.
    this.events.return(undefined).catch(() => undefined);
    this.finish();
  }

  /** Whether the stream has ended (closed here, or by the server). */
  get closed(): boolean {
    return this.ended;
  }

  /** @internal Lets the client forget a stream once it ends. */
  onClose(listener: () => void): void {
    if (this.ended) listener();
    else this.closeListeners.push(listener);
  }

  [Symbol.asyncIterator](): AsyncIterator<ControlEvent> {
    return this.events;
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    for (const listener of this.closeListeners.splice(0)) listener();
  }
}
