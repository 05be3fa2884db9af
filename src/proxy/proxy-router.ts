import { readdirSync } from 'node:fs';
import type { Request, RequestHandler, Response } from 'express';
import type { OperationIndex } from '../http/operations.js';
import { sendJson } from '../http/respond.js';
import type { Containment } from '../lib/containment.js';
import { decodeContentEncoding } from '../lib/content-encoding.js';
import { internalError } from '../lib/errors.js';
import type { Workspace } from '../workspaces/workspace.js';
import type { ContractComparer, Finding } from './compare.js';
import { endToEndHeaders, forward, targetProblem, UpstreamError, type UpstreamAgents, type UpstreamAnswer } from './forward.js';
import { writeExchange, RECORDING_FORMAT, type RecordedBody, type RecordedExchange } from './recording.js';
import type { Redactor } from '../redaction/redactor.js';
import { exchangeScrubber, redactExchange } from './redact-exchange.js';

/** What `proxy` mode adds to the server (createMockServer's `proxy`). */
export interface ProxyOptions {
  /** Where every /v1 request goes: `https://api.example.com` (a path there prefixes the request's). */
  upstream: string;
  /** Answer an upstream response that breaks openapi.yaml with 502 CONTRACT_VIOLATION instead of passing it on. */
  strict?: boolean;
  /** Write each exchange, redacted, into this folder. */
  recordDir?: string;
  /** How long the upstream has to answer completely, in wall milliseconds (default 30 000). */
  upstreamTimeoutMs?: number;
  /** Certificates (PEM) trusted for an https upstream besides Node's own (a private CA). */
  upstreamCa?: string;
  /**
   * The largest request body the proxy holds (default 64 MiB, as for answers). Not the mock's
   * `--body-limit`: the upstream decides what it takes, and answers a body too large for it itself.
   */
  maxBodyBytes?: number;
}

export const DEFAULT_UPSTREAM_TIMEOUT_MS = 30_000;

/**
 * The header that carries an answer's violations: `2; response undeclared-field body/data/0/extra; …`.
 * What the contract tolerates (an open enumeration's new value) is drift, not a violation: it is
 * in the journal, not here.
 */
export const VIOLATIONS_HEADER = 'X-Contract-Violations';

/** Longest value of the findings header: the journal keeps the whole list. */
export const VIOLATIONS_HEADER_MAX = 1024;

/** A finding as the journal and the 502's details carry it. */
export interface ReportedFinding {
  side: Finding['side'];
  kind: Finding['kind'];
  field: string;
  message: string;
  /** The contract allows it (an open schema, an open enumeration): drift, not a violation; strict mode lets it pass. */
  tolerated?: boolean;
}

export interface ProxyRouterOptions {
  upstream: URL;
  strict: boolean;
  recordDir: string | undefined;
  upstreamTimeoutMs: number;
  bodyLimitBytes: number;
  /** The connections kept open to the upstream; the server destroys them when it closes. */
  agents: UpstreamAgents;
  index: OperationIndex;
  comparer: ContractComparer;
  redactor: Redactor;
  /** The workspace whose journal and stream show the traffic (the default one). */
  workspace: () => Workspace;
  realTime: () => number;
  /** Told of every compared exchange (coverage's per-operation summary). */
  onCompared: (operationId: string | null, findings: readonly Finding[]) => void;
  /** Told when an exchange cannot be written (the disk is full): the answer still goes out. */
  onRecordError: (error: unknown) => void;
  /** Where the proxy's own failure stops (decision 0041). */
  containment: Containment;
}

/**
 * The highest seq of the exchanges already in a recording folder (0 when it is empty or
 * missing): a proxy started again on the same folder appends after them rather than write over
 * the first ones and leave the rest of the old session mixed in.
 */
export function lastRecordedSeq(dir: string): number {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  return names.reduce((highest, name) => {
    const seq = /^(\d+)-.*\.json$/.exec(name)?.[1];
    return seq === undefined ? highest : Math.max(highest, Number(seq));
  }, 0);
}

class BodyTooLarge extends Error {}

/** The request's body as sent, byte for byte, refused past the limit (without reading the rest). */
async function readRawBody(req: Request, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw new BodyTooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new BodyTooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Header pairs as a record of lower-case names, repeats joined by `, ` (the recording's form). */
export function headerRecord(rawHeaders: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = (rawHeaders[i] as string).toLowerCase();
    const value = rawHeaders[i + 1] as string;
    out[name] = out[name] === undefined ? value : `${out[name]}, ${value}`;
  }
  return out;
}

/**
 * Headers and body as recorded: the body `json` when its media type is JSON and it parses, `text`
 * otherwise, absent when empty; decompressed, and then without the headers that said it was not.
 */
export function recordedMessage(body: Buffer, headers: Record<string, string>): RecordedBody & { headers: Record<string, string> } {
  // An unknown coding is recorded as it came (as text): drift sees a body that is not JSON.
  const bytes = decodeContentEncoding(body, headers['content-encoding']) ?? body;
  if (bytes !== body) {
    // A replay answers the decoded body: it must not be told it is still compressed, or how long it was.
    const { 'content-encoding': _encoding, 'content-length': _length, ...rest } = headers;
    headers = rest;
  }
  if (bytes.length === 0) return { headers };
  const text = bytes.toString('utf8');
  const mediaType = (headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (mediaType === 'application/json' || mediaType.endsWith('+json')) {
    try {
      return { headers, json: JSON.parse(text) as unknown };
    } catch {
      // Recorded as it came: drift reports a body that is not JSON.
    }
  }
  return { headers, text };
}

/** The violations header's value: the count, then `side kind field` each, in ASCII, cut to a bounded length. */
export function violationsHeader(findings: readonly ReportedFinding[]): string {
  const ascii = (text: string) => text.replace(/[^\x20-\x7e]/g, '?').replace(/;/g, ',');
  let value = String(findings.length);
  for (const [i, finding] of findings.entries()) {
    const next = `; ${finding.side} ${finding.kind} ${ascii(finding.field)}`;
    if (value.length + next.length > VIOLATIONS_HEADER_MAX - 8) {
      value += `; +${findings.length - i} more`;
      break;
    }
    value += next;
  }
  return value;
}

/** The code of an error envelope (`{ error: { code } }`, or the flat rate-limit form), if the body is one. */
function errorCodeOf(body: RecordedBody): string | undefined {
  const json = body.json as { error?: unknown; code?: unknown } | undefined;
  if (!json || typeof json !== 'object') return undefined;
  if (typeof json.error === 'object' && json.error !== null && typeof (json.error as { code?: unknown }).code === 'string') return (json.error as { code: string }).code;
  return typeof json.error === 'string' && typeof json.code === 'string' ? json.code : undefined;
}

/**
 * The proxy's own answer (the upstream gave none, --strict refused its answer, the body was too
 * large): not the service's, so the journal marks it injected and coverage counts it apart from
 * the statuses the service answered, as it counts a fault a rule injected.
 */
function sendEnvelope(req: Request, res: Response, status: number, code: string, message: string, details: Record<string, unknown>, headers: Record<string, string> = {}): void {
  req.ctx.errorCode = code;
  req.ctx.injected = true;
  if (res.headersSent || res.destroyed) return;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.statusCode = status;
  sendJson(res, { error: { code, message, details } });
}

/**
 * /v1 in proxy mode: each request goes to the upstream as sent (minus hop-by-hop headers), and
 * the upstream's answer comes back as sent, with what it breaks of openapi.yaml in
 * X-Contract-Violations, the journal and coverage. The mock's own keys, rules and state play no
 * part: the caller's real key goes upstream.
 */
export function createProxyRouter(options: ProxyRouterOptions): RequestHandler {
  let seq = options.recordDir === undefined ? 0 : lastRecordedSeq(options.recordDir);
  const handle = async (req: Request, res: Response): Promise<void> => {
    options.containment.trip('proxy');
    const workspace = options.workspace();
    req.ctx.contract = 'api';
    req.ctx.workspace = workspace;
    req.ctx.arrivedAt = workspace.nowIso();
    const match = options.index.match(req.method, req.originalUrl.split('?')[0] ?? req.originalUrl);
    if (match.kind === 'found') {
      req.ctx.operation = match.operation;
      req.ctx.params = match.params;
    }
    const operationId = match.kind === 'found' ? match.operation.operationId : null;
    // Only origin-form, without dot segments: what reaches the upstream stays under its base path.
    const targetRefused = targetProblem(req.originalUrl);
    if (targetRefused !== undefined) {
      return sendEnvelope(req, res, 400, 'VALIDATION_ERROR', `The request target ${targetRefused}; it was not sent upstream.`, { upstream: options.upstream.origin });
    }
    const startedAt = options.realTime();
    const startedIso = new Date(startedAt).toISOString();
    // Numbered on arrival: concurrent exchanges are recorded in the order they came, not the order they ended.
    const exchangeSeq = ++seq;

    let body: Buffer;
    try {
      body = await readRawBody(req, options.bodyLimitBytes);
    } catch (error) {
      // The caller went away while sending: there is no one to answer, and nothing was forwarded.
      if (req.destroyed && !(error instanceof BodyTooLarge)) return;
      if (!(error instanceof BodyTooLarge)) throw error;
      // The rest of the body is not read: the connection cannot be reused.
      res.setHeader('Connection', 'close');
      return sendEnvelope(req, res, 413, 'PAYLOAD_TOO_LARGE', `The body is larger than the ${options.bodyLimitBytes} bytes the proxy holds to compare a request; it was not sent upstream.`, { limit: options.bodyLimitBytes });
    }

    const queryAt = req.originalUrl.indexOf('?');
    const requestHeaders = headerRecord(endToEndHeaders(req.rawHeaders));
    const recordedRequest = {
      method: req.method,
      path: queryAt === -1 ? req.originalUrl : req.originalUrl.slice(0, queryAt),
      query: queryAt === -1 ? '' : req.originalUrl.slice(queryAt + 1),
      ...recordedMessage(body, requestHeaders),
    };
    // What the dashboard's live detail shows of the request (the contract router's body parser would have set it).
    req.body = recordedRequest.json ?? recordedRequest.text;
    const record = (exchange: Omit<RecordedExchange, 'format' | 'seq' | 'operationId' | 'startedAt' | 'durationMs' | 'request'>) => {
      if (options.recordDir === undefined) return;
      const full: RecordedExchange = { format: RECORDING_FORMAT, seq: exchangeSeq, operationId, startedAt: startedIso, durationMs: options.realTime() - startedAt, request: recordedRequest, ...exchange };
      try {
        writeExchange(options.recordDir, redactExchange(options.redactor, full, req.ctx.params));
      } catch (error) {
        options.onRecordError(error);
      }
    };

    // The caller going away ends the upstream request with it, rather than leave it to the timeout.
    const abort = new AbortController();
    const onClose = () => {
      if (!res.writableFinished) abort.abort();
    };
    res.once('close', onClose);
    let answer: UpstreamAnswer;
    try {
      answer = await forward(options.upstream, { method: req.method, pathAndQuery: req.originalUrl, rawHeaders: req.rawHeaders, body }, { timeoutMs: options.upstreamTimeoutMs, signal: abort.signal, agents: options.agents });
    } catch (error) {
      if (!(error instanceof UpstreamError)) throw error;
      // The caller went away: not the upstream's failure, so not recorded as one (a replay would answer a 502 that never was).
      if (abort.signal.aborted) return;
      const upstreamError = { code: 'PLATFORM_ERROR', message: `The upstream ${options.upstream.origin} gave no answer (${error.reason}): ${error.message}` };
      record({ response: null, upstreamError });
      options.onCompared(operationId, []);
      return sendEnvelope(req, res, 502, 'PLATFORM_ERROR', upstreamError.message, { upstream: options.upstream.origin, reason: error.reason });
    } finally {
      res.off('close', onClose);
    }

    const recordedResponse = { status: answer.status, ...recordedMessage(answer.body, headerRecord(answer.rawHeaders)) };
    const compared = options.comparer.compare({ request: recordedRequest, response: recordedResponse });
    // Findings quote values; a secret the exchange carried must not ride out on them.
    const scrub = exchangeScrubber(options.redactor, { request: recordedRequest, response: recordedResponse }, req.ctx.params);
    const findings: ReportedFinding[] = compared.findings.map((finding) => ({ side: finding.side, kind: finding.kind, field: scrub(finding.field), message: scrub(finding.message), ...(finding.tolerated && { tolerated: true }) }));
    options.onCompared(compared.operationId ?? operationId, compared.findings);
    req.ctx.contractFindings = findings;
    const code = errorCodeOf(recordedResponse);
    if (code !== undefined) req.ctx.errorCode = code;
    record({ response: recordedResponse });

    const violations = findings.filter((finding) => !finding.tolerated);
    const headers: Record<string, string> = violations.length > 0 ? { [VIOLATIONS_HEADER]: violationsHeader(violations) } : {};
    const broken = violations.filter((finding) => finding.side === 'response');
    if (options.strict && broken.length > 0) {
      const fields = [...new Set(broken.map((finding) => finding.field))];
      return sendEnvelope(req, res, 502, 'CONTRACT_VIOLATION', `The upstream's ${answer.status} answer breaks openapi.yaml at ${fields.join(', ')}.`, { upstream: options.upstream.origin, upstreamStatus: answer.status, violations: broken }, headers);
    }
    if (res.headersSent || res.destroyed) return;
    const raw = [...answer.rawHeaders];
    for (const [name, value] of Object.entries(headers)) raw.push(name, value);
    res.writeHead(answer.status, answer.statusMessage, raw);
    res.end(answer.body);
  };
  // The proxy's own failure ends its request alone: answered 500 with the log line's id while the
  // request is open, and counted at the proxy boundary (decision 0041).
  return (req: Request, res: Response) =>
    handle(req, res).catch((error: unknown) => {
      const requestId = options.containment.caught('proxy', error);
      if (res.headersSent || res.destroyed) return void res.destroy();
      const answer = internalError(requestId);
      sendEnvelope(req, res, answer.status, answer.code, answer.message, answer.extra.details ?? {});
    });
}
