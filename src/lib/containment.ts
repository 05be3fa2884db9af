import { randomBytes } from 'node:crypto';

/*
 * One place where a failure that escaped its own code stops (decision 0041). A request's steps
 * hand their errors to the error handler, which answers them; but a response's `close` handler,
 * a timer, the scheduler, a webhook attempt, an event stream's write, an MCP session, the proxy,
 * a background file write and the HTTP server's own `error` events run with nobody above them:
 * a throw there reached the event loop and ended the process, and every workspace on the server
 * with it (issue 35: one webhook secret with a lone surrogate did). Each of those boundaries runs
 * its work through a Containment, which catches the failure where it happens, logs it once with
 * its stack, and counts it for `GET /__control/health`.
 */

/** Where a failure was caught (control.yaml's ContainedFailures says what each is). */
export const BOUNDARIES = ['request', 'response', 'timer', 'scheduler', 'webhook', 'event-stream', 'mcp', 'proxy', 'file-write', 'server'] as const;
export type Boundary = (typeof BOUNDARIES)[number];

/** What `GET /__control/health` says of the failures contained since the start. */
export interface ContainedFailures {
  total: number;
  byBoundary: Record<Boundary, number>;
}

/** The stack when there is one (the first line is the message), else the value as text. */
function describeFailure(error: unknown): string {
  if (error instanceof Error) return error.stack ?? `${error.name}: ${error.message}`;
  try {
    return `a thrown ${typeof error}: ${String(error)}`;
  } catch {
    return `a thrown ${typeof error}`;
  }
}

/** What the test seam throws: recognisable in the log, never mistaken for a real failure. */
export class InjectedFailure extends Error {
  constructor(readonly boundary: Boundary) {
    super(`a failure injected at the ${boundary} boundary (test seam)`);
    this.name = 'InjectedFailure';
  }
}

/**
 * The server's containment: one per server, handed to each boundary. Calling work through it
 * costs a try block, no closure: `call(boundary, fn, a, b)` passes the arguments on, and
 * `guard` wraps a callback made once (a timer's, a listener shared by every request).
 */
export class Containment {
  private readonly counts: Record<Boundary, number> = Object.fromEntries(BOUNDARIES.map((boundary) => [boundary, 0])) as Record<Boundary, number>;
  private total = 0;
  /** The test seam: boundaries whose next entry throws an InjectedFailure. */
  private armed: Boundary[] = [];

  /** `log`: where each failure goes, once, with its stack (standard error by default). */
  constructor(private readonly log: (line: string) => void = (line) => console.error(line)) {}

  /**
   * A failure caught at `boundary`: logged once with its stack and counted. Answers the id the log
   * line carries, which an answer still open gives its client (`details.requestId` of a 500).
   */
  caught(boundary: Boundary, error: unknown): string {
    const requestId = `req_${randomBytes(8).toString('hex')}`;
    this.total++;
    this.counts[boundary]++;
    try {
      this.log(`social-gateway-mock: a failure at the ${boundary} boundary was contained (${requestId}); the server goes on:\n${describeFailure(error)}`);
    } catch {
      // A log that throws (a closed stderr) must not undo the containment.
    }
    return requestId;
  }

  /** Runs `fn(a, b)` at `boundary`: whatever it throws stops here. Answers whether it ran to its end, so a caller can undo what it left half done. */
  call<A, B>(boundary: Boundary, fn: (a: A, b: B) => void, a: A, b: B): boolean {
    try {
      if (this.armed.length > 0) this.trip(boundary);
      fn(a, b);
      return true;
    } catch (error) {
      this.caught(boundary, error);
      return false;
    }
  }

  /** Work that may go on asynchronously, at `boundary`: a throw or a rejection stops here. */
  settle(boundary: Boundary, work: () => unknown): void {
    try {
      if (this.armed.length > 0) this.trip(boundary);
      const result = work();
      if (result instanceof Promise) result.catch((error: unknown) => this.caught(boundary, error));
    } catch (error) {
      this.caught(boundary, error);
    }
  }

  /** `fn` made safe once, for a callback made once: each call runs at `boundary`. */
  guard<A extends unknown[]>(boundary: Boundary, fn: (...args: A) => unknown): (...args: A) => void {
    return (...args: A) => this.settle(boundary, () => fn(...args));
  }

  /**
   * A request listener whose throw stops here: counted at the `request` boundary, and `answer`ed
   * with the log line's id while the request is still open. Made once, for the HTTP server.
   */
  requests<Req, Res>(listener: (req: Req, res: Res) => void, answer: (req: Req, res: Res, requestId: string) => void): (req: Req, res: Res) => void {
    return (req, res) => {
      try {
        if (this.armed.length > 0) this.trip('request');
        listener(req, res);
      } catch (error) {
        const requestId = this.caught('request', error);
        try {
          answer(req, res, requestId);
        } catch (failure) {
          this.caught('request', failure);
        }
      }
    };
  }

  /** The test seam's check at a boundary the work of which is not run through `call` or `settle` (a job's own code). */
  trip(boundary: Boundary): void {
    const at = this.armed.indexOf(boundary);
    if (at === -1) return;
    this.armed.splice(at, 1);
    throw new InjectedFailure(boundary);
  }

  /** The test seam: the next entry at `boundary` throws, as a bug there would. */
  failNext(boundary: Boundary): void {
    this.armed.push(boundary);
  }

  /** The failures contained since the start. */
  report(): ContainedFailures {
    return { total: this.total, byBoundary: { ...this.counts } };
  }
}
