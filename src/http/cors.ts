import type { RequestHandler } from 'express';
import { isApiPath } from './transport.js';

const ALLOWED_HEADERS = 'Content-Type, Authorization, x-api-key, Idempotency-Key';
const EXPOSED_HEADERS = 'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, Idempotent-Replayed';

/**
 * --cors: lets a browser app under development call the mock's API (/v1, never the control
 * plane). Off by default, since a mock that any page can call is a mock any page can reset.
 */
export function cors(origins: string[]): RequestHandler {
  const any = origins.includes('*');
  return (req, res, next) => {
    const origin = req.headers.origin;
    // The API only: a page that may call /v1 must still not read or drive the control plane.
    if (origin !== undefined && (any || origins.includes(origin)) && isApiPath(req.path)) {
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
