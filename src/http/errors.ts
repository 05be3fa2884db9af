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
