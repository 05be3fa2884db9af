import { STATUS_CODES, type ServerOptions } from 'node:http';
import type { Duplex } from 'node:stream';
import type { RequestHandler } from 'express';
import { ApiError } from '../lib/errors.js';
import { ASSUMED_OPEN_FILES, connectionBudget, readOpenFileLimit } from '../lib/descriptor-limit.js';

/**
 * What the HTTP server tolerates from a client before Express sees a request.
 * Node's defaults wait a minute for headers and five for a body, which lets a few
 * slow clients hold sockets open (slowloris); a mock on a laptop or in CI has
 * fast, local clients, so the limits here are tighter and documented
 * (docs/reliability.md).
 */
export interface HttpLimits {
  /** Time a client has to send the request line and every header. */
  headersTimeoutMs: number;
  /** Time a client has to send the whole request, body included. */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open between requests. */
  keepAliveTimeoutMs: number;
  /** Request line plus headers; larger is 431 HEADERS_TOO_LARGE, answered by the server itself. */
  maxHeaderBytes: number;
  /** Request target (path and query); longer is 414 URI_TOO_LONG. */
  maxUrlBytes: number;
  /** On close, how long requests in flight may take before their connections are cut. */
  shutdownGraceMs: number;
  /**
   * What an open stream (the event stream) may hold for a client that does not read, beyond
   * what the kernel's socket buffers took; past it the connection is cut. A client that keeps
   * up never comes near it: a clock advance that publishes thousands of posts writes a few MB.
   */
  maxStreamBufferBytes: number;
  /**
   * Connections held at once (`server.maxConnections`); past it Node closes a new one at once.
   * Derived from the process's limit of open files, so the server never runs out of them.
   */
  maxConnections: number;
  /** Event streams open at once on the whole server (GET /__control/events); past it 429 EVENT_STREAM_LIMIT_REACHED. */
  maxEventStreams: number;
  /** Event streams open at once on one workspace, whatever key or token opened them. */
  maxEventStreamsPerWorkspace: number;
}

/** The budget of connections of this process, from its limit of open files. */
const CONNECTIONS = connectionBudget(readOpenFileLimit() ?? ASSUMED_OPEN_FILES);

export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  headersTimeoutMs: 15_000,
  requestTimeoutMs: 60_000,
  keepAliveTimeoutMs: 5_000,
  maxHeaderBytes: 16 * 1024,
  maxUrlBytes: 8 * 1024,
  shutdownGraceMs: 2_000,
  maxStreamBufferBytes: 8 * 1024 * 1024,
  maxConnections: CONNECTIONS.maxConnections,
  maxEventStreams: CONNECTIONS.maxEventStreams,
  // A dashboard tab holds one, a test one or two: 32 leaves room for many tabs and parallel tests.
  maxEventStreamsPerWorkspace: 32,
};

/** Options for `http.createServer`: header size, and timeouts checked often enough to matter. */
export function serverOptions(limits: HttpLimits): ServerOptions {
  return {
    maxHeaderSize: limits.maxHeaderBytes,
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // Node looks for expired requests every 30 s by default, which would let a 15 s limit last 45 s.
    connectionsCheckingInterval: Math.max(25, Math.min(1000, Math.floor(Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs) / 4))),
  };
}

interface ClientErrorAnswer {
  status: number;
  code: string;
  message: string;
}

function answerFor(error: NodeJS.ErrnoException, limits: HttpLimits): ClientErrorAnswer {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, code: 'HEADERS_TOO_LARGE', message: `The request line and headers are larger than the ${limits.maxHeaderBytes} bytes the server accepts.` };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, code: 'REQUEST_TIMEOUT', message: `The request did not arrive in time (headers within ${limits.headersTimeoutMs} ms, the whole request within ${limits.requestTimeoutMs} ms).` };
    default:
      return { status: 400, code: 'VALIDATION_ERROR', message: `The request is not valid HTTP/1.1 (${error.code ?? 'parse error'}).` };
  }
}

/**
 * After answering a request it could not parse, how much more of it the server reads off
 * before it cuts the connection; and it waits no longer than the client had to send its
 * headers (`headersTimeoutMs`). Closing with the rest of a large request unread makes the
 * kernel reset the connection, and a client still writing it (Node's http client sending a
 * 900 KB request line) then sees EPIPE or ECONNRESET instead of the answer waiting in its
 * buffer: the "lingering close" of RFC 9112 §9.6. A fixed 2 s was not enough for a client
 * on a machine loaded eleven times over (1 in 288,000 fuzz requests).
 */
const LINGER_BYTES = 4 * 1024 * 1024;

/**
 * Node answers a request it cannot parse (headers too large, too slow, malformed)
 * itself, with an empty body, before Express sees it. This answers in the API's
 * envelope instead, then closes the connection, as Node's own answer does, but
 * only once the client has stopped sending (within LINGER_BYTES and the headers' time).
 */
export function clientErrorHandler(limits: HttpLimits): (error: NodeJS.ErrnoException, socket: Duplex) => void {
  /** The sockets answered, with the bytes read off them when they were. */
  const answered = new WeakMap<Duplex, number>();
  return (error, socket) => {
    const readWhenAnswered = answered.get(socket);
    if (readWhenAnswered !== undefined) {
      // The parser fails again on each chunk the client still sends after the answer: it is read
      // off and dropped, up to the bound.
      if (bytesRead(socket) - readWhenAnswered > LINGER_BYTES) socket.destroy();
      return;
    }
    // A client that reset the connection cannot be answered; nor can one mid-response.
    if (error.code === 'ECONNRESET' || !socket.writable || (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent) {
      socket.destroy();
      return;
    }
    const { status, code, message } = answerFor(error, limits);
    const body = JSON.stringify({ error: { code, message } });
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
    answered.set(socket, bytesRead(socket));
    const cut = setTimeout(() => socket.destroy(), limits.headersTimeoutMs);
    cut.unref();
    socket.once('close', () => clearTimeout(cut));
  };
}

function bytesRead(socket: Duplex): number {
  return (socket as Duplex & { bytesRead?: number }).bytesRead ?? 0;
}

/**
 * Whether `path` is under `prefix` (in lower case) as Express's `app.use(prefix, …)` takes it:
 * in any case, then the end or a slash.
 */
export function underPrefix(prefix: string, path: string): boolean {
  return path.length >= prefix.length && (path.length === prefix.length || path.charCodeAt(prefix.length) === 47) && path.slice(0, prefix.length).toLowerCase() === prefix;
}

/** Whether the path is the API's (`/v1`, any case, as Express routes it). */
export function isApiPath(path: string): boolean {
  return underPrefix('/v1', path);
}

/** Where the control plane is mounted. */
export const CONTROL_PREFIX = '/__control';

/** Whether the path is the control plane's (any case, as Express's mount takes it). */
export function isControlPath(path: string): boolean {
  return underPrefix(CONTROL_PREFIX, path);
}

/**
 * 414 URI_TOO_LONG for a request target over the limit, before anything parses it.
 * Longer still (past maxHeaderBytes) and the server answers 431 itself.
 */
export function urlLengthGuard(limits: HttpLimits): RequestHandler {
  return (req, _res, next) => {
    const length = Buffer.byteLength(req.originalUrl);
    if (length <= limits.maxUrlBytes) return next();
    // A /v1 request still gets its X-RateLimit-* headers, counted as a request of no workspace.
    if (isApiPath(req.path)) req.ctx.contract = 'api';
    throw new ApiError(414, 'URI_TOO_LONG', `The request target is ${length} bytes; the server accepts up to ${limits.maxUrlBytes}.`);
  };
}
