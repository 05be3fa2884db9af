import type { Express, Request, Response } from 'express';
import type { Workspace } from '../workspaces/workspace.js';

/** The last second formatted: responses come many to a second (Node keeps its own Date header the same way). */
let lastSecond = Number.NaN;
let lastText = '';

/** An HTTP date (RFC 9110's IMF-fixdate, `Tue, 02 Mar 2027 09:00:00 GMT`) of an instant. */
export function httpDate(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== lastSecond) {
    lastSecond = second;
    lastText = new Date(second * 1000).toUTCString();
  }
  return lastText;
}

/**
 * Every response's `Date` header in the virtual time of the request's workspace (the
 * default workspace's when none is known: a 401, the docs), so that `X-RateLimit-Reset`
 * minus `Date` is the wait and a client that reads the server's time sees the world's.
 * Node would otherwise stamp each response with the wall clock. The header is written
 * when the head goes out (`writeHead`, which Node also calls for an implicit head), so a
 * call that moves the clock (`/__control/clock/advance`) answers with the new time.
 *
 * Installed once on the app's own response prototype (Express gives every response of this
 * app that prototype), not per response: assigning a method to each response changed its
 * shape and cost every request about 5% of its CPU (bench:profile).
 */
export function useVirtualDateHeader(app: Express, workspaceOf: (req: Request) => Workspace): void {
  const response = app.response as Response;
  const writeHead = response.writeHead;
  response.writeHead = function (this: Response, ...args: unknown[]) {
    if (!this.headersSent) this.setHeader('Date', httpDate(workspaceOf(this.req).now()));
    return writeHead.apply(this, args as Parameters<Response['writeHead']>);
  } as Response['writeHead'];
}
