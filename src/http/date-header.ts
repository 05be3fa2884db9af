import type { ServerResponse } from 'node:http';
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
 * Every response's `Date` header is in virtual time: the request's workspace's when the
 * responder writes the answer (src/http/respond.ts), so that `X-RateLimit-Reset` minus
 * `Date` is the wait and a call that moves the clock (`/__control/clock/advance`) answers
 * with the new time; until then the default workspace's, which this sets when a request
 * arrives for the answers that do not go through the responder (the docs, the dashboard's
 * files, the sign-in pages, a CORS preflight). Node would otherwise stamp each response
 * with the wall clock.
 *
 * Stamped on each response rather than in an override of `writeHead`: the override lived on
 * the Express app's response prototype, which the API's requests no longer get (bare-api.ts),
 * and assigning it to each response changed its shape and cost about 5% of a request.
 */
export function stampDate(res: ServerResponse, workspace: Workspace): void {
  res.setHeader('Date', httpDate(workspace.now()));
}
