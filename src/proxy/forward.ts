import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { rootCertificates as tlsRootCertificates } from 'node:tls';

/*
 * One request to the upstream and its whole answer, bounded in time. Node's own client
 * (node:http, node:https) rather than fetch: fetch decodes gzip bodies and merges or drops
 * headers, and the proxy must hand the caller the upstream's bytes and headers as they came.
 */

/** Headers of one connection, not of the message: never forwarded either way (RFC 9110 7.6.1). */
export const HOP_BY_HOP_HEADERS = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/** Why the upstream gave no answer, as the 502's `details.reason` says it. */
export const UPSTREAM_FAILURES = ['timeout', 'refused', 'reset', 'dns', 'tls', 'too-large', 'network'] as const;
export type UpstreamFailure = (typeof UPSTREAM_FAILURES)[number];

export class UpstreamError extends Error {
  override name = 'UpstreamError';
  constructor(
    readonly reason: UpstreamFailure,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The largest upstream answer read: the proxy holds an answer whole to compare it before passing
 * it on, so one that never ends must not hold the proxy's memory until the timeout.
 */
export const UPSTREAM_BODY_LIMIT_BYTES = 64 * 1024 * 1024;

export interface UpstreamRequest {
  method: string;
  /** Path and query as the caller sent them, `/v1/posts?limit=2`. */
  pathAndQuery: string;
  /** Raw header pairs as `IncomingMessage.rawHeaders` holds them (name, value, name, value…). */
  rawHeaders: readonly string[];
  body: Buffer;
}

export interface UpstreamAnswer {
  status: number;
  statusMessage: string;
  /** Raw header pairs, case and repeats as the upstream sent them, hop-by-hop ones removed. */
  rawHeaders: string[];
  body: Buffer;
}

/** The names a `Connection` header lists are hop-by-hop for that message too. */
function connectionListed(rawHeaders: readonly string[]): Set<string> {
  const listed = new Set<string>();
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if ((rawHeaders[i] ?? '').toLowerCase() !== 'connection') continue;
    for (const name of (rawHeaders[i + 1] ?? '').split(',')) listed.add(name.trim().toLowerCase());
  }
  return listed;
}

/** Raw header pairs without the hop-by-hop ones (and without those named in `drop`). */
export function endToEndHeaders(rawHeaders: readonly string[], drop: readonly string[] = []): string[] {
  const listed = connectionListed(rawHeaders);
  const out: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] as string;
    const lower = name.toLowerCase();
    if (HOP_BY_HOP_HEADERS.has(lower) || listed.has(lower) || drop.includes(lower)) continue;
    out.push(name, rawHeaders[i + 1] as string);
  }
  return out;
}

/** What a socket error means for the caller. */
export function failureOf(error: unknown): UpstreamFailure {
  if (error instanceof UpstreamError) return error.reason;
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ECONNREFUSED') return 'refused';
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'ECONNABORTED' || code === 'UND_ERR_SOCKET') return 'reset';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME') return 'dns';
  if (code === 'ETIMEDOUT') return 'timeout';
  // EPROTO and ERR_SSL_*: the handshake itself failed (an https:// URL for a server that speaks plain HTTP, most often).
  if (typeof code === 'string' && (code === 'EPROTO' || code.startsWith('ERR_SSL') || code.startsWith('ERR_TLS') || code.startsWith('CERT_') || code.includes('SELF_SIGNED') || code === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE')) return 'tls';
  return 'network';
}

/** A socket error as the 502 tells it: its reason, and a message a person can act on. */
export function upstreamErrorOf(error: Error): UpstreamError {
  const reason = failureOf(error);
  // OpenSSL's own words ("ssl3_get_record:wrong version number") say nothing to someone who typed https for http.
  if (reason === 'tls' && /wrong version number|packet length too long|unknown protocol/i.test(error.message)) {
    return new UpstreamError(reason, 'the upstream did not answer in TLS: is it an http:// server? (--upstream says https://)');
  }
  return new UpstreamError(reason, error.message.trim());
}

function asHeaderObject(rawHeaders: readonly string[]): OutgoingHttpHeaders {
  const headers: Record<string, string | string[]> = {};
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = (rawHeaders[i] as string).toLowerCase();
    const value = rawHeaders[i + 1] as string;
    const seen = headers[name];
    headers[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return headers;
}

export interface ForwardOptions {
  /** How long the whole answer may take. */
  timeoutMs: number;
  /** Aborts the request (the caller went away). */
  signal?: AbortSignal;
  /** The largest answer read (default UPSTREAM_BODY_LIMIT_BYTES). */
  bodyLimitBytes?: number;
  /** Keeps connections to the upstream open between requests (UpstreamAgents); a new connection per request without. */
  agents?: UpstreamAgents;
}

/**
 * Kept-alive connections to the upstream, one pool per scheme. A TLS handshake per request would
 * add a round trip or two to every answer of a real service. Node's agent retires a connection
 * before the `Keep-Alive: timeout` the upstream announced, and forward() retries once a request
 * that met a reused connection already closed by the upstream.
 */
export class UpstreamAgents {
  readonly http = new HttpAgent({ keepAlive: true });
  readonly https: HttpsAgent;

  /** `ca`: certificates (PEM) trusted for the upstream besides Node's own, for a staging service behind a private CA. */
  constructor(ca?: string) {
    this.https = new HttpsAgent({ keepAlive: true, ...(ca !== undefined && { ca: [...tlsRootCertificates, ca] }) });
  }

  destroy(): void {
    this.http.destroy();
    this.https.destroy();
  }
}

/**
 * Why a request target may not go upstream, or undefined. Only origin-form (`/v1/posts?limit=5`:
 * a path from the root, RFC 9112 section 3.2.1) is sent, so the upstream's base path always
 * prefixes it: an absolute-form target (`http://other/v1/…`) would make the upstream act as a proxy,
 * and authority-form or `*` name no path at all. No segment may be a dot segment, written raw or
 * percent-encoded in any case (`..`, `%2e%2E`, `.%2e`), nor hide one behind an encoded slash or a
 * backslash (`..%2f`, `..\`), which an upstream may decode or fold into a real one: `/v1/../../admin`
 * would leave `--upstream`'s base path (issue 35).
 */
export function targetProblem(target: string): string | undefined {
  if (!target.startsWith('/') || target.startsWith('//')) return 'is not a path from the root (origin-form, such as /v1/posts); the proxy forwards no other form';
  const queryAt = target.indexOf('?');
  const path = queryAt === -1 ? target : target.slice(0, queryAt);
  const segments = path
    .replace(/%2e/gi, '.')
    .replace(/%2f|%5c|\\/gi, '/')
    .split('/');
  if (segments.some((segment) => segment === '.' || segment === '..')) return "has a dot segment ('.' or '..', raw or percent-encoded), which would leave the upstream's base path";
  return undefined;
}

/** The path and query sent upstream: the upstream's base path, then the request's (checked by `targetProblem`). */
export function upstreamPath(upstream: URL, target: string): string {
  const problem = targetProblem(target);
  // The router answers such a target 400 before it comes here; forwarding it anyway would be a hole.
  if (problem !== undefined) throw new Error(`The request target ${problem}`);
  return `${upstream.pathname.replace(/\/+$/, '')}${target}`;
}

/**
 * Sends the request to `upstream` (its path prefixed to the request's) and reads the whole
 * answer. Settles within `timeoutMs` whatever the upstream does: an answer, or an
 * UpstreamError saying why there was none.
 */
export function forward(upstream: URL, request: UpstreamRequest, { timeoutMs, signal, bodyLimitBytes = UPSTREAM_BODY_LIMIT_BYTES, agents }: ForwardOptions): Promise<UpstreamAnswer> {
  const path = upstreamPath(upstream, request.pathAndQuery);
  const headers = asHeaderObject(endToEndHeaders(request.rawHeaders, ['host', 'content-length']));
  headers.host = upstream.host;
  if (request.body.length > 0) headers['content-length'] = String(request.body.length);
  const secure = upstream.protocol === 'https:';
  const send = secure ? httpsRequest : httpRequest;

  return new Promise<UpstreamAnswer>((resolve, reject) => {
    let settled = false;
    let outgoing: ClientRequest | undefined;
    const finish = (error: Error | undefined, answer?: UpstreamAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (error) {
        outgoing?.destroy();
        reject(error instanceof UpstreamError ? error : upstreamErrorOf(error));
      } else resolve(answer as UpstreamAnswer);
    };
    const timer = setTimeout(() => finish(new UpstreamError('timeout', `the upstream did not answer completely within ${timeoutMs} ms`)), timeoutMs);
    const onAbort = () => finish(new UpstreamError('reset', 'the caller went away before the upstream answered'));
    signal?.addEventListener('abort', onAbort, { once: true });

    const attempt = (retried: boolean) => {
      const current = send({
        protocol: upstream.protocol,
        hostname: upstream.hostname.replace(/^\[|\]$/g, ''),
        port: upstream.port === '' ? undefined : Number(upstream.port),
        method: request.method,
        path,
        headers,
        agent: agents ? (secure ? agents.https : agents.http) : false,
      });
      outgoing = current;
      let answered = false;
      current.on('error', (error) => {
        // A kept-alive connection the upstream closed as it was reused: the request never reached it (Node's documented retry).
        if (!retried && !answered && current.reusedSocket && failureOf(error) === 'reset' && !settled) return attempt(true);
        finish(error);
      });
      current.on('response', (incoming: IncomingMessage) => {
        answered = true;
        const chunks: Buffer[] = [];
        let size = 0;
        incoming.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > bodyLimitBytes) finish(new UpstreamError('too-large', `the upstream's answer is larger than ${bodyLimitBytes} bytes`));
          else chunks.push(chunk);
        });
        incoming.on('error', (error) => finish(error));
        // 'close' before 'end': the upstream cut its answer short.
        incoming.on('close', () => {
          if (!incoming.complete) finish(new UpstreamError('reset', 'the upstream closed the connection before its answer was complete'));
        });
        incoming.on('end', () =>
          finish(undefined, {
            status: incoming.statusCode ?? 502,
            statusMessage: incoming.statusMessage ?? '',
            rawHeaders: endToEndHeaders(incoming.rawHeaders),
            body: Buffer.concat(chunks),
          }),
        );
      });
      current.end(request.body.length > 0 ? request.body : undefined);
    };
    attempt(false);
  });
}
