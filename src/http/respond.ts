import type { Request, Response } from 'express';
import type { ContractChecker, ContractViolation } from './contract.js';
import type { Containment } from '../lib/containment.js';
import { ApiError } from '../lib/errors.js';
import type { Workspace } from '../workspaces/workspace.js';
import { stampDate } from './date-header.js';
import { encodeJson, jsonBytes, type JsonParts } from './json-memo.js';
import type { ResponseStream } from '../events/streams.js';
import type { Reply } from './route.js';
import { DEFAULT_HTTP_LIMITS } from './transport.js';
import { writeWithFault } from './wire-faults.js';

/** Adds headers every response carries (the rate-limit headers, for one). */
export type ResponseDecorator = (req: Request, res: Response, reply: Reply) => void;

/** Learns the final answer of every request (idempotency keeps it). */
export type SentListener = (req: Request, reply: Reply) => void;

/**
 * Work the answer must wait for (the --data write), or undefined to answer at once.
 * When the work fails, its promise rejects with the ApiError a success becomes.
 */
export type SendGate = (req: Request) => Promise<void> | undefined;

export interface ResponderOptions {
  checkers: Record<'api' | 'control', ContractChecker>;
  /** --strict-responses, and always in the test suite: a response off the contract becomes a 500. */
  strictResponses: boolean;
  onViolation: (violation: ContractViolation) => void;
  /** The workspace whose clock dates an answer (date-header.ts): the request's, or the default one. Without it Node dates answers. */
  clockOf?: (req: Request) => Workspace;
  /** Bytes a stream may have waiting for its client before it is cut (default: DEFAULT_HTTP_LIMITS'). */
  maxStreamBufferBytes?: number;
  /** Where a stream's close listener's failure stops (decision 0041); without one it reaches the caller. */
  containment?: Containment;
}

/**
 * The one way out for every response. It applies the decorators, checks the
 * response against the contract when strict, and sends JSON (or nothing).
 */
export class Responder {
  private readonly decorators: ResponseDecorator[] = [];
  private readonly sentListeners: SentListener[] = [];
  private gate: SendGate | undefined;

  constructor(private readonly options: ResponderOptions) {}

  decorate(decorator: ResponseDecorator): void {
    this.decorators.push(decorator);
  }

  onSent(listener: SentListener): void {
    this.sentListeners.push(listener);
  }

  /**
   * Holds every answer until the gate's promise settles. The listeners (idempotency)
   * run first, so what the gate persists already holds the answer a retry replays
   * (and a replay is held again: it too is a success only once the file has it).
   */
  holdUntil(gate: SendGate): void {
    this.gate = gate;
  }

  send(req: Request, res: Response, reply: Reply): void {
    for (const decorator of this.decorators) decorator(req, res, reply);
    for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
    const checked = this.check(req, res, reply);
    for (const listener of this.sentListeners) listener(req, checked);
    const held = this.gate?.(req);
    if (!held) return this.write(req, res, checked);
    held.then(
      () => this.write(req, res, checked),
      // A success is an acknowledgement, and what was not kept is never acknowledged (decision 0028).
      // An error answer acknowledges nothing: it goes out as it was.
      (refusal: ApiError) => this.write(req, res, checked.status >= 200 && checked.status < 300 ? this.refuse(req, res, checked, refusal) : checked),
    );
  }

  /** The gate's error in place of a success, without the success's own headers (a replay mark). */
  private refuse(req: Request, res: Response, success: Reply, refusal: ApiError): Reply {
    for (const name of Object.keys(success.headers ?? {})) res.removeHeader(name);
    for (const [name, value] of Object.entries(refusal.extra.headers ?? {})) res.setHeader(name, value);
    req.ctx.errorCode = refusal.code;
    return this.check(req, res, { status: refusal.status, body: refusal.body() });
  }

  sendError(req: Request, res: Response, error: ApiError): void {
    req.ctx.errorCode = error.code;
    this.send(req, res, { status: error.status, body: error.body(), headers: error.extra.headers });
  }

  private write(req: Request, res: Response, reply: Reply): void {
    // The client may have gone while the answer waited on the gate.
    if (res.headersSent || res.destroyed) return;
    if (this.options.clockOf) stampDate(res, this.options.clockOf(req));
    res.statusCode = reply.status;
    if (reply.status >= 400) noteAnsweredError(req, reply.body);
    if (req.ctx.wireFault && !reply.stream) writeWithFault(req, res, replyBytes(res, reply), req.ctx.wireFault, this.options.containment);
    else if (reply.stream) openStream(res, reply.stream, this.options.maxStreamBufferBytes ?? DEFAULT_HTTP_LIMITS.maxStreamBufferBytes, this.options.containment);
    else if (reply.body === undefined) res.end();
    // A recorded type goes out as the service sent it; any other text is UTF-8 and says so, as Express's `res.type(…).send(text)` did.
    else if (reply.contentType !== undefined) sendText(res, reply.recorded ? reply.contentType : textType(reply.contentType), String(reply.body));
    else sendJson(res, reply.body);
  }

  private check(req: Request, res: Response, reply: Reply): Reply {
    const { operation, contract } = req.ctx;
    if (reply.recorded && operation && contract) {
      const offContract = this.options.checkers[contract].check(operation, reply.status, reply.body, res.getHeaders(), reply.contentType) !== undefined;
      if (offContract) req.ctx.injected = true;
      return reply;
    }
    // 501 marks an operation the mock has not built; the contract describes the real service, so it is not declared there.
    // An off-contract answer is a fault a rule injected on purpose, never a violation.
    if (!this.options.strictResponses || !operation || !contract || reply.status === 501 || reply.offContract) return reply;
    const violation = this.options.checkers[contract].check(operation, reply.status, reply.body, res.getHeaders(), reply.contentType);
    if (!violation) return reply;
    this.options.onViolation(violation);
    const error = new ApiError(500, 'CONTRACT_VIOLATION', `The mock's response broke its own contract (${violation.operationId} ${violation.status}): ${violation.problems.join('; ')}`, {
      details: { operationId: violation.operationId, status: violation.status, problems: violation.problems },
    });
    req.ctx.errorCode = error.code;
    return { status: 500, body: error.body() };
  }
}

/**
 * The envelope an error answer carries, noted for the journal (what it says is why the request got
 * it): nested, or flat as a 429 RATE_LIMITED has it (`{ error: message, code }`).
 */
function noteAnsweredError(req: Request, body: unknown): void {
  const said = (body as { error?: unknown } | null | undefined)?.error;
  if (typeof said === 'string') {
    req.ctx.answeredError = { message: said };
    return;
  }
  const error = said as { message?: unknown; param?: unknown; details?: unknown } | undefined;
  if (typeof error?.message !== 'string') return;
  req.ctx.answeredError = {
    message: error.message,
    ...(typeof error.param === 'string' && { param: error.param }),
    ...(typeof error.details === 'object' && error.details !== null && !Array.isArray(error.details) && { details: error.details as Record<string, unknown> }),
  };
}

/**
 * A JSON body as Express's `res.json` sends it (the same Content-Type unless one is
 * set, the same Content-Length; no ETag, which the app disables), written straight
 * to the response: `res.json` and `res.send` re-check the body's type, the charset,
 * the app's settings and the request's freshness on every call. A HEAD request gets
 * the headers only (Node drops the body of a response to HEAD).
 */
export function sendJson(res: Response, body: unknown): void {
  const json = encodeJson(body) ?? '';
  if (!res.hasHeader('Content-Type')) res.setHeader('Content-Type', 'application/json; charset=utf-8');
  if (typeof json === 'string') endText(res, json);
  else if (Buffer.isBuffer(json)) endBytes(res, json);
  else {
    res.setHeader('Content-Length', json.length);
    endWithParts(res, json);
  }
}

/**
 * Buffers a page of views is copied into on its way out, each taken back once the socket
 * has the answer. A buffer of its own per answer cost three page faults (19 KB the
 * allocator handed back to the kernel between collections): more system time than the
 * copy saved. Kept: up to 16 buffers of up to 1 MiB; a larger answer, or one whose socket
 * closes before it is written, has a buffer the collector takes.
 */
const spare: Buffer[] = [];
const MAX_SPARE = 16;
const MAX_SPARE_BYTES = 1 << 20;

function endWithParts(res: Response, json: JsonParts): void {
  let buffer = spare.pop();
  if (buffer === undefined || buffer.length < json.length) buffer = Buffer.allocUnsafeSlow(Math.max(16_384, 2 ** Math.ceil(Math.log2(json.length))));
  json.copyTo(buffer);
  const kept = buffer;
  res.end(buffer.subarray(0, json.length), () => {
    if (spare.length < MAX_SPARE && kept.length <= MAX_SPARE_BYTES) spare.push(kept);
  });
}

const EMPTY = Buffer.alloc(0);

/** A media type with `charset=utf-8` in place of any charset it named: the text is sent as UTF-8. */
function textType(contentType: string): string {
  return `${contentType.replace(/;\s*charset=[^;]*/gi, '')}; charset=utf-8`;
}

/** A text body under exactly the Content-Type given (`res.send` would add a charset a recorded answer did not have). */
function sendText(res: Response, contentType: string, text: string): void {
  res.setHeader('Content-Type', contentType);
  endText(res, text);
}

/**
 * The longest text `endText` hands to Node as it is: every answer of the hot paths is far shorter
 * (a created post is 807 bytes, a clock's report of 1,000 jobs about 180 KB).
 */
export const TEXT_WRITE_MAX = 256 * 1024;

/**
 * Ends the response with `text` as UTF-8. Handed a text, Node joins the head and the body into one
 * string, which the socket encodes as it writes; handed bytes (`Buffer.from(text)`), it has them
 * made first and writes the head beside them. On a created post the text was 4% to 8% less CPU a
 * request, in turns (docs/performance.md, "Round four, eleventh stop"). A longer text (a
 * workspace's snapshot, some 155 MB at 100,000 posts) is made into bytes first all the same: the
 * socket's encoding of a 137 MB text held about as much again beside it (RSS 987 MB at its peak
 * against 852). JSON.stringify escapes lone surrogates, and `Buffer.byteLength` counts any other
 * text's as the socket writes them (U+FFFD, 3 bytes).
 */
function endText(res: Response, text: string): void {
  if (text.length > TEXT_WRITE_MAX) return endBytes(res, Buffer.from(text));
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

function endBytes(res: Response, bytes: Buffer): void {
  res.setHeader('Content-Length', bytes.length);
  res.end(bytes);
}

/** The bytes of a reply's body, as write would send them, with its Content-Type set on `res`. */
function replyBytes(res: Response, reply: Reply): Buffer {
  if (reply.body === undefined) return EMPTY;
  if (reply.contentType !== undefined) {
    res.setHeader('Content-Type', textType(reply.contentType));
    return Buffer.from(String(reply.body));
  }
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  return jsonBytes(reply.body) ?? EMPTY;
}

function runListener(listener: () => void): void {
  listener();
}

/**
 * Sends the headers now and hands the open response to the route. A client that stops
 * reading would make Node buffer every later write; past `maxBufferedBytes` the
 * connection is cut instead (an EventSource reconnects, and `replay=true` catches up).
 */
function openStream(res: Response, write: NonNullable<Reply['stream']>, maxBufferedBytes: number, containment: Containment | undefined): void {
  res.flushHeaders();
  const listeners: Array<() => void> = [];
  let closed = false;
  // Runs on the response's 'close' too, with nobody above it: each listener at the event-stream boundary.
  const close = () => {
    if (closed) return;
    closed = true;
    for (const listener of listeners) {
      if (containment) containment.call('event-stream', runListener, listener, undefined);
      else listener();
    }
  };
  res.on('close', close);
  const stream: ResponseStream = {
    write(chunk) {
      if (closed) return;
      res.write(chunk);
      if (res.writableLength <= maxBufferedBytes) return;
      res.destroy();
      close();
    },
    end() {
      if (closed) return;
      res.end();
      close();
    },
    onClose(listener) {
      listeners.push(listener);
    },
  };
  write(stream);
}
