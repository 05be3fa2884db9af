import { get, type ClientRequest, type IncomingMessage } from 'node:http';

export interface SseMessage {
  id?: string;
  event?: string;
  data?: string;
  /** A comment line (`: …`). */
  comment?: string;
}

/** A Server-Sent Events client over a real connection, parsing messages as they arrive. */
export class SseClient {
  readonly messages: SseMessage[] = [];
  private buffer = '';
  private readonly waiters: Array<{ count: number; resolve: () => void }> = [];

  private constructor(
    private readonly request: ClientRequest,
    readonly response: IncomingMessage,
  ) {
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => this.receive(chunk));
  }

  /** Opens the stream and resolves once the headers arrived. */
  static open(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
    return new Promise((resolve, reject) => {
      const request = get(url, { headers: { Accept: 'text/event-stream', ...headers } }, (response) => resolve(new SseClient(request, response)));
      request.on('error', reject);
    });
  }

  /** Event messages only (comments left out). */
  events(): SseMessage[] {
    return this.messages.filter((message) => message.comment === undefined);
  }

  /** Resolves once `count` messages in all (comments included) have arrived. */
  waitFor(count: number): Promise<void> {
    if (this.messages.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }

  /** Resolves when the server ends the stream. */
  ended(): Promise<void> {
    if (this.response.readableEnded) return Promise.resolve();
    return new Promise((resolve) => this.response.once('end', () => resolve()));
  }

  close(): void {
    this.request.destroy();
  }

  private receive(chunk: string): void {
    this.buffer += chunk;
    let end = this.buffer.indexOf('\n\n');
    while (end !== -1) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const message: SseMessage = {};
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) message.comment = line.slice(1).trim();
        const match = /^(id|event|data): ?(.*)$/.exec(line);
        if (match) message[match[1] as 'id' | 'event' | 'data'] = match[2];
      }
      this.messages.push(message);
      end = this.buffer.indexOf('\n\n');
    }
    for (const waiter of [...this.waiters]) {
      if (this.messages.length < waiter.count) continue;
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  }
}
