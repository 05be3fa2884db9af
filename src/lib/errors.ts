/** Options an error response may carry besides its code and message. */
export interface ApiErrorExtra {
  /** The request field at fault, as a path: `limit`, `destinations[0].text`. */
  param?: string;
  details?: Record<string, unknown>;
  headers?: Record<string, string>;
}

/**
 * Every failure the API answers with: status, code and message in the nested
 * envelope `{ error: { code, message, param?, details? } }`. Services throw it; the
 * error handler turns it into the response, so no handler builds envelopes itself.
 */
export class ApiError extends Error {
  override name = 'ApiError';

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: ApiErrorExtra = {},
  ) {
    super(message);
  }

  /** The body for this error; the flat rate-limit form overrides it. */
  body(): unknown {
    const { param, details } = this.extra;
    return { error: { code: this.code, message: this.message, ...(param !== undefined && { param }), ...(details && { details }) } };
  }
}

/** 429 RATE_LIMITED uses the flat envelope of the reference's rate-limit page. */
export class RateLimitedError extends ApiError {
  override body(): unknown {
    return { error: this.message, code: this.code, details: this.extra.details ?? {} };
  }
}

/**
 * 500 for a bug of the mock that was contained (decision 0041): the answer names the id of the
 * log line that holds its stack, never the stack itself.
 */
export function internalError(requestId?: string): ApiError {
  const where = requestId === undefined ? '' : ` (${requestId} in its log)`;
  return new ApiError(500, 'INTERNAL_ERROR', `The mock hit an unexpected error; this is a bug in social-gateway-mock${where}.`, requestId === undefined ? {} : { details: { requestId } });
}

export function validationError(param: string, message: string): ApiError {
  return new ApiError(400, 'VALIDATION_ERROR', message, { param });
}

export function notFound(what: string, id: string): ApiError {
  return new ApiError(404, 'NOT_FOUND', `${what} '${id}' was not found in this workspace.`);
}

/** The path as the client sent it, without its query (a mounted router sees only the part below its mount). */
export function requestPath(originalUrl: string): string {
  return originalUrl.split('?', 1)[0] ?? originalUrl;
}

/** 404 for a path no route serves. */
export function noRoute(method: string, originalUrl: string): ApiError {
  return new ApiError(404, 'NOT_FOUND', `No route for ${method} ${requestPath(originalUrl)}.`);
}

/**
 * 503 for a write whose change the --data file did not take (decision 0028): the
 * change stays in memory and goes out with the next write that succeeds, so each
 * write tries again; until one does, every write answers this and reads still work.
 */
export function dataFileUnwritable(file: string, reason: string): ApiError {
  return new ApiError(
    503,
    'DATA_FILE_UNWRITABLE',
    `The change is not acknowledged: the data file ${file} cannot be written (${reason}). It stays in memory and is saved by the next write that succeeds, or lost if the server stops first; until then every write answers 503.`,
    { details: { file, reason } },
  );
}
