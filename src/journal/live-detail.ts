import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { Request, Response } from 'express';
import { decodeContentEncoding } from '../lib/content-encoding.js';
import { valueScrubber, type Redactor } from '../redaction/redactor.js';
import type { LiveDetail, MaskedHeaderPrefix } from './live-detail-shape.js';

export type { LiveDetail };

/*
 * What a dashboard watching a workspace is told of a request besides its journal entry: the
 * headers and bodies both ways. Captured only while some event stream asked for requests
 * (`requests=true`), sent on the stream once, and never kept: the journal stays a ring of
 * metadata, so a workspace costs what it did whether or not anyone watches (decision 0018,
 * docs/dashboard.md).
 */

/** The most of each body sent; a longer one is cut there and flagged. */
export const LIVE_DETAIL_BODY_CAP_BYTES = 16 * 1024;

const MASKED: MaskedHeaderPrefix = '••••';

function masked(value: string): string {
  return value.length <= 8 ? MASKED : `${MASKED}${value.slice(-4)}`;
}

/**
 * Headers of the redaction list (decision 0022) keep their last four characters only, so a person
 * can tell two keys apart on the dashboard without the page ever holding one.
 */
function headerRecord(headers: IncomingHttpHeaders | OutgoingHttpHeaders, redactor: Redactor, scrub: (text: string) => string): Record<string, string> {
  const plain: Record<string, string> = {};
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(', ') : String(value);
    if (redactor.isSecretHeader(name)) out[name] = masked(text);
    else plain[name] = scrub(text);
  }
  return { ...redactor.headers(plain), ...out };
}

/** A body's text with its secret fields hidden: as JSON when it parses (it may be cut at the cap), by pattern otherwise. */
function redactedBody(text: string, redactor: Redactor): string {
  try {
    return JSON.stringify(redactor.json(JSON.parse(text)));
  } catch {
    return redactor.text(text);
  }
}

function headerText(value: number | string | string[] | undefined): string | undefined {
  return value === undefined ? undefined : Array.isArray(value) ? value.join(', ') : String(value);
}

function capped(text: string): { text: string; truncated: boolean } {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= LIVE_DETAIL_BODY_CAP_BYTES) return { text, truncated: false };
  // Cut on the byte cap; a character split there is dropped by the decoder's replacement.
  return { text: bytes.subarray(0, LIVE_DETAIL_BODY_CAP_BYTES).toString('utf8'), truncated: true };
}

type Chunk = string | Buffer | Uint8Array;

/**
 * Starts copying the response's body (up to the cap) as it is written, and answers a
 * function that reads the whole detail once the response is over.
 */
export function captureLiveDetail(req: Request, res: Response, redactor: Redactor): () => LiveDetail {
  const chunks: Buffer[] = [];
  let size = 0;
  let cut = false;
  const keep = (chunk: unknown, encoding?: unknown) => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
    if (size >= LIVE_DETAIL_BODY_CAP_BYTES) {
      cut = true;
      return;
    }
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8') : Buffer.from(chunk as Uint8Array);
    const room = LIVE_DETAIL_BODY_CAP_BYTES - size;
    if (buffer.length > room) cut = true;
    chunks.push(buffer.subarray(0, room));
    size += Math.min(buffer.length, room);
  };
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => Response;
  res.write = ((chunk: Chunk, ...rest: unknown[]) => {
    keep(chunk, rest[0]);
    return write(chunk, ...rest);
  }) as Response['write'];
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    keep(chunk, rest[0]);
    return end(chunk, ...rest);
  }) as Response['end'];

  return () => {
    const request = req.body === undefined || (typeof req.body === 'object' && req.body !== null && Object.keys(req.body as object).length === 0 && !req.headers['content-length']) ? null : capped(typeof req.body === 'string' ? req.body : JSON.stringify(req.body));
    // A compressed answer is shown decoded (and so redacted), or not at all when it cannot be (cut at the cap).
    const responseBytes = size === 0 ? undefined : decodeContentEncoding(Buffer.concat(chunks), headerText(res.getHeader('content-encoding')));
    const responseText = responseBytes === undefined ? null : responseBytes.toString('utf8');
    // A value sent under a secret name is hidden wherever else it shows (an answer echoing it).
    const requestHeaders = Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : String(value ?? '')]));
    const secrets = redactor.secretValuesOfRequest(requestHeaders, req.originalUrl.split('?')[1] ?? '');
    redactor.secretValuesOfJson(req.body, secrets);
    // A session in the path (connect-sessions/{sessionId}) is echoed by the answer's error message.
    for (const [name, value] of Object.entries(req.ctx.params)) if (redactor.isSecretPathParam(name)) secrets.add(value);
    const scrub = valueScrubber(secrets);
    return {
      requestHeaders: headerRecord(req.headers, redactor, scrub),
      requestBody: request ? scrub(redactedBody(request.text, redactor)) : null,
      requestBodyTruncated: request?.truncated ?? false,
      responseHeaders: headerRecord(res.getHeaders(), redactor, scrub),
      responseBody: responseText === null ? null : scrub(redactedBody(responseText, redactor)),
      responseBodyTruncated: cut,
    };
  };
}
