import type { Request, RequestHandler, Response } from 'express';
import type { Workspace } from '../workspaces/workspace.js';

/** An HTTP date (RFC 9110's IMF-fixdate, `Tue, 02 Mar 2027 09:00:00 GMT`) of an instant. */
export function httpDate(ms: number): string {
  return new Date(ms).toUTCString();
}

/**
 * Every response's `Date` header in the virtual time of the request's workspace (the
 * default workspace's when none is known: a 401, the docs), so that `X-RateLimit-Reset`
 * minus `Date` is the wait and a client that reads the server's time sees the world's.
 * Node would otherwise stamp each response with the wall clock. The header is written
 * when the head goes out (`writeHead`, which Node also calls for an implicit head), so a
 * call that moves the clock (`/__control/clock/advance`) answers with the new time.
 */
export function virtualDateHeader(workspaceOf: (req: Request) => Workspace): RequestHandler {
  return (req, res, next) => {
    const writeHead = res.writeHead;
    res.writeHead = function (this: Response, ...args: unknown[]) {
      if (!this.headersSent) this.setHeader('Date', httpDate(workspaceOf(req).now()));
      return writeHead.apply(this, args as Parameters<Response['writeHead']>);
    } as Response['writeHead'];
    next();
  };
}
