import { ApiError, internalError } from '../lib/errors.js';

interface ValidatorErrorItem {
  path?: string;
  message?: string;
  errorCode?: string;
}

interface HttpLikeError {
  status?: number;
  statusCode?: number;
  type?: string;
  message?: string;
  errors?: ValidatorErrorItem[];
  headers?: Record<string, string>;
  /** The body parser's limit, in bytes, on its 413. */
  limit?: number;
}

/**
 * Turns the validator's error path into the reference's `param`:
 * `/body/destinations/0/text` → `destinations[0].text`, `/query/limit` → `limit`,
 * `/headers/idempotency-key` → `Idempotency-Key`.
 */
export function paramFromPath(path: string): string {
  const parts = path.replace(/^[./]/, '').split(/[./]/).filter((part) => part !== '');
  const location = parts.shift();
  if (location === 'headers') return (parts[0] ?? '').replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase());
  let param = '';
  for (const part of parts) {
    const index = /^\[?(\d+)\]?$/.exec(part);
    if (index) param += `[${index[1]}]`;
    else param += param === '' ? part.replace(/\[(\d+)\]/g, '[$1]') : `.${part}`;
  }
  return param === '' ? (location ?? 'body') : param;
}

/** The parts of the request a validator error path can point into. */
export interface RequestInput {
  body?: unknown;
  query?: unknown;
  headers?: unknown;
}

const MISSING = Symbol('missing');

/** The value a validator error path points at (`/body/events/0` → the body's events[0]). */
function valueAt(input: RequestInput, path: string): unknown {
  const parts = path.replace(/^[./]/, '').split(/[./]/).filter((part) => part !== '');
  const location = parts.shift();
  let node: unknown = location === 'body' ? input.body : location === 'query' ? input.query : location === 'headers' ? input.headers : MISSING;
  // `destinations[0]` and `destinations/0` both step into index 0.
  for (const raw of parts.flatMap((part) => part.split(/[[\]]/).filter((key) => key !== ''))) {
    const key = location === 'headers' ? raw.toLowerCase() : raw;
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) return MISSING;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function shown(value: unknown): string {
  return typeof value === 'string' ? `'${value}'` : JSON.stringify(value) ?? String(value);
}

function describe(item: ValidatorErrorItem, param: string, input: RequestInput | undefined): string {
  const message = item.message ?? 'is invalid';
  // "must have required property 'x'" and "Unknown query parameter 'x'" already name the field; others read better prefixed.
  const namesField = /'[^']+'/.test(message) && (message.includes('required') || message.includes(`'${param}'`));
  const described = namesField ? message : `${param} ${message}`;
  // An enum error lists the allowed values; naming the value sent shows the typo at a glance.
  if (item.errorCode?.startsWith('enum') && input && item.path) {
    const value = valueAt(input, item.path);
    if (value !== MISSING) return `${described}; got ${shown(value)}`;
  }
  return described;
}

/**
 * Maps any error that reaches the error handler to an ApiError: our own pass
 * through; the body parser's and the OpenAPI validator's become the envelope's
 * codes (with the request's `input`, an enum error also names the value sent). Anything else is a bug, answered as 500 INTERNAL_ERROR without a trace:
 * `contain` logs and counts it, and answers the id the answer names.
 */
export function toApiError(error: unknown, input?: RequestInput, contain?: (error: unknown) => string): ApiError {
  if (error instanceof ApiError) return error;
  const e = (error ?? {}) as HttpLikeError;
  const status = e.status ?? e.statusCode;
  if (e.type === 'entity.parse.failed') {
    return new ApiError(400, 'VALIDATION_ERROR', `The request body is not valid JSON: ${e.message ?? 'parse error'}`, { param: 'body' });
  }
  if (e.type === 'entity.too.large' || status === 413) {
    // Limits differ by operation (a snapshot to restore takes more), so the answer names the one that applied.
    return new ApiError(413, 'PAYLOAD_TOO_LARGE', `The request body is larger than the server accepts${typeof e.limit === 'number' ? ` (${e.limit} bytes on this operation)` : ''}.`);
  }
  if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported') {
    return new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', e.message ?? 'Unsupported body encoding.');
  }
  if (status === 415) {
    return new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json.', { param: 'Content-Type' });
  }
  if (status === 400 && Array.isArray(e.errors) && e.errors.length > 0) {
    const first = e.errors[0] as ValidatorErrorItem;
    const param = paramFromPath(first.path ?? '');
    const message = e.errors.map((item) => describe(item, paramFromPath(item.path ?? ''), input)).join('; ');
    return new ApiError(400, 'VALIDATION_ERROR', message, { param });
  }
  if (status === 400) {
    return new ApiError(400, 'VALIDATION_ERROR', e.message ?? 'The request is invalid.');
  }
  // Logged once with its stack and counted (decision 0041); the answer carries the log line's id.
  if (contain === undefined) console.error('social-gateway-mock: unexpected error', error);
  return internalError(contain?.(error));
}
