import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { InputFileError, parseInputJson, readInputText } from '../lib/input-file.js';
import { MAX_STORED_DEPTH } from '../lib/nesting.js';

/*
 * A recording is a folder of exchanges, one JSON file each, written by `proxy --record DIR` and
 * read by `scenario from-recording DIR` and `drift DIR`. Files sort in the order the requests
 * arrived (`000001-createPost.json`), so a person can read a recording with `ls` and `jq`, edit
 * it, or delete an exchange, and the tools that read it still agree on its order.
 *
 * Secrets never reach these files: the proxy redacts every exchange before it is written
 * (API keys, Authorization, tokens and passwords in headers, bodies and URLs become PLACEHOLDER).
 */

/** The `format` of every exchange file; a reader refuses any other. */
export const RECORDING_FORMAT = 'social-gateway-mock/exchange@1';

/** A body as recorded: parsed JSON when it was JSON, its text otherwise, absent when there was none. */
export interface RecordedBody {
  /** The body parsed, when its media type was JSON and it parsed. */
  json?: unknown;
  /** The body as text, when it was not JSON (or JSON that did not parse). */
  text?: string;
}

export interface RecordedRequest extends RecordedBody {
  method: string;
  /** The path as sent, `/v1/posts/abc`, without the query. */
  path: string;
  /** The query string without its `?`, redacted; empty when there was none. */
  query: string;
  /** Header names in lower case; a header sent several times is joined by `, `. */
  headers: Record<string, string>;
}

export interface RecordedResponse extends RecordedBody {
  status: number;
  headers: Record<string, string>;
}

/** One exchange between a client and the upstream, as the proxy saw it. */
export interface RecordedExchange {
  format: typeof RECORDING_FORMAT;
  /** Arrival order in the recording, from 1. */
  seq: number;
  /** The operation of openapi.yaml the request matched; null when it matched none. */
  operationId: string | null;
  /** Wall-clock time the request arrived, ISO 8601. */
  startedAt: string;
  /** Wall-clock milliseconds until the upstream's answer was complete (or failed). */
  durationMs: number;
  request: RecordedRequest;
  /** The upstream's answer; null when it gave none (timed out, refused, dropped). */
  response: RecordedResponse | null;
  /** Why there was no answer, when there was none: the error the proxy answered instead. */
  upstreamError?: { code: string; message: string };
}

/** The largest exchange file read: the proxy holds up to 64 MiB each way, and a file shows both, indented. */
export const MAX_EXCHANGE_FILE_BYTES = 256 * 1024 * 1024;

export class RecordingError extends Error {
  override name = 'RecordingError';
}

/** The file an exchange is written to: arrival order first, then the operation for people reading `ls`. */
export function exchangeFileName(exchange: Pick<RecordedExchange, 'seq' | 'operationId'>): string {
  return `${String(exchange.seq).padStart(6, '0')}-${exchange.operationId ?? 'unmatched'}.json`;
}

/** Writes one (already redacted) exchange into `dir`, creating it when needed. */
export function writeExchange(dir: string, exchange: RecordedExchange): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, exchangeFileName(exchange));
  writeFileSync(path, `${JSON.stringify(exchange, null, 2)}\n`);
  return path;
}

function isExchange(value: unknown): value is RecordedExchange {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<RecordedExchange>;
  return (
    candidate.format === RECORDING_FORMAT &&
    Number.isSafeInteger(candidate.seq) &&
    (candidate.operationId === null || typeof candidate.operationId === 'string') &&
    typeof candidate.request === 'object' &&
    candidate.request !== null &&
    typeof candidate.request.method === 'string' &&
    typeof candidate.request.path === 'string' &&
    (candidate.response === null || (typeof candidate.response === 'object' && candidate.response !== undefined && Number.isInteger(candidate.response.status)))
  );
}

/**
 * Every exchange of a recording, in arrival order (by `seq`). A folder that is missing or holds
 * no exchange, and a file that is not one, throw a RecordingError naming the file.
 */
export function readRecording(dir: string): RecordedExchange[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.json'));
  } catch (error) {
    throw new RecordingError(`cannot read recording ${dir}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const exchanges: RecordedExchange[] = [];
  for (const name of names) {
    const path = join(dir, name);
    let parsed: unknown;
    try {
      parsed = parseInputJson(readInputText(path, MAX_EXCHANGE_FILE_BYTES), path, MAX_STORED_DEPTH);
    } catch (error) {
      if (!(error instanceof InputFileError)) throw error;
      throw new RecordingError(error.message);
    }
    if (!isExchange(parsed)) throw new RecordingError(`${path}: not an exchange of format ${RECORDING_FORMAT}`);
    exchanges.push(parsed);
  }
  if (exchanges.length === 0) throw new RecordingError(`${dir} holds no recorded exchange (*.json written by proxy --record)`);
  return exchanges.sort((a, b) => a.seq - b.seq);
}
