import type { RequestHandler } from 'express';

const ALLOWED_HEADERS = 'Content-Type, Authorization, x-api-key, Idempotency-Key, x-control-token';
const EXPOSED_HEADERS = 'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, Idempotent-Replayed';

/**
 * --cors: lets a browser app under development call the mock. Off by default,
 * since a mock that any page can call is a mock any page can reset.
 */
export function cors(origins: string[]): RequestHandler {
  const any = origins.includes('*');
  return (req, res, next) => {
    const origin = req.headers.origin;
    if (origin !== undefined && (any || origins.includes(origin))) {
      res.setHeader('Access-Control-Allow-Origin', any ? '*' : origin);
      res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
      if (!any) res.setHeader('Vary', 'Origin');
      if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) {
        res.setHeader('Access-Control-Allow-Methods', 'GET, POST, PUT, PATCH, DELETE');
        res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
        res.setHeader('Access-Control-Max-Age', '600');
        res.statusCode = 204;
        res.end();
        return;
      }
    }
    next();
  };
}
