import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the receiver got, as it arrived. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body, exactly as sent: what the signature covers. */
  body: string;
  json: { id: string; event: string; createdAt: string; workspaceId: string; data: Record<string, unknown> };
}

/** How to answer: a status, `hang` to never answer (until the receiver closes), or a status after a real delay (a slow receiver). */
export type Answer = number | 'hang' | { status: number; afterMs: number };

/**
 * A real HTTP server on 127.0.0.1 and a free port, standing in for an
 * integrator's webhook endpoint. It records every request and answers from a
 * queue of answers (then the default, 200).
 */
export class WebhookReceiver {
  readonly requests: ReceivedRequest[] = [];
  private readonly answers: Answer[] = [];
  private defaultAnswer: Answer = 200;
  private readonly waiters: Array<{ count: number; resolve: () => void }> = [];
  private readonly hanging = new Set<ServerResponse>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<WebhookReceiver> {
    // The handler needs the receiver, which needs the server's port: it is filled in once listening.
    const holder: { receiver?: WebhookReceiver } = {};
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => holder.receiver?.receive(req.method ?? '', req.url ?? '', req.headers, Buffer.concat(chunks).toString('utf8'), res));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    holder.receiver = new WebhookReceiver(server, `http://127.0.0.1:${port}/hooks`);
    return holder.receiver;
  }

  /** Answers the next requests with these, in order; then the default. */
  answer(...answers: Answer[]): this {
    this.answers.push(...answers);
    return this;
  }

  /** What every request gets once the queue is empty. */
  answerAlways(answer: Answer): this {
    this.defaultAnswer = answer;
    return this;
  }

  /** Resolves once `count` requests in all have arrived (the test's own time-out bounds the wait). */
  waitFor(count: number): Promise<void> {
    if (this.requests.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }

  events(): string[] {
    return this.requests.map((request) => request.json.event);
  }

  /** Answers every request left hanging with `status`, now. */
  releaseHanging(status = 200): void {
    for (const res of this.hanging) res.writeHead(status).end('ok');
    this.hanging.clear();
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private receive(method: string, path: string, headers: IncomingHttpHeaders, body: string, res: ServerResponse): void {
    this.requests.push({ method, path, headers, body, json: JSON.parse(body) as ReceivedRequest['json'] });
    const answer = this.answers.shift() ?? this.defaultAnswer;
    const reply = (status: number) => res.writeHead(status, status >= 300 && status < 400 ? { Location: 'https://elsewhere.example/hooks' } : {}).end('ok');
    if (answer === 'hang') this.hanging.add(res);
    else if (typeof answer === 'number') reply(answer);
    else {
      this.hanging.add(res);
      setTimeout(() => {
        if (this.hanging.delete(res)) reply(answer.status);
      }, answer.afterMs);
    }
    for (const waiter of [...this.waiters]) {
      if (this.requests.length < waiter.count) continue;
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  }
}
