import type { Reply } from '../http/route.js';
import type { WireFault } from '../http/wire-faults.js';
import type { FaultEffect, FaultStatus, ThenSpec } from './scenario.js';

/*
 * The answers of off-contract faults: what a load balancer, a reverse proxy or a
 * crashed server sends in place of the API's answer. No contract declares them, and
 * that is the point: retry code meets them in production and must be tested on them.
 */

/** nginx's reason phrases, as its error pages and status lines show them. */
const REASONS: Record<FaultStatus, string> = {
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Temporarily Unavailable',
  504: 'Gateway Time-out',
};

/** The `json` body's default code per status. */
const CODES: Record<FaultStatus, string> = {
  500: 'INTERNAL_ERROR',
  502: 'BAD_GATEWAY',
  503: 'SERVICE_UNAVAILABLE',
  504: 'GATEWAY_TIMEOUT',
};

/** nginx's built-in error page for a status, byte for byte (CRLF line ends included). */
export function nginxErrorPage(status: FaultStatus): string {
  const title = `${status} ${REASONS[status]}`;
  return [`<html>`, `<head><title>${title}</title></head>`, `<body>`, `<center><h1>${title}</h1></center>`, `<hr><center>nginx</center>`, `</body>`, `</html>`, ``].join('\r\n');
}

/** The reply of a fault effect; the responder sends it unchecked (`offContract`). */
export function faultReply(fault: FaultEffect, ruleId: string): Reply {
  const headers: Record<string, string> = { ...fault.headers };
  if (fault.retryAfter !== undefined && !Object.keys(headers).some((name) => name.toLowerCase() === 'retry-after')) headers['Retry-After'] = String(fault.retryAfter);
  if (fault.body === 'html') return { status: fault.status, headers: { Server: 'nginx', ...headers }, contentType: 'text/html', body: nginxErrorPage(fault.status), offContract: true };
  if (fault.body === 'empty') return { status: fault.status, headers, offContract: true };
  const message = fault.message ?? `${REASONS[fault.status]} (scenario rule '${ruleId}').`;
  return { status: fault.status, headers, body: { error: { code: fault.code ?? CODES[fault.status], message } }, offContract: true };
}

/** How a rule's effects send the answer on the wire, if they touch it at all. */
export function wireFaultOf(then: ThenSpec): WireFault | undefined {
  const cut: WireFault['cut'] =
    then.truncated !== undefined
      ? { afterBytes: then.truncated.afterBytes ?? 'half', how: 'close' }
      : typeof then.reset === 'object'
        ? { afterBytes: then.reset.afterBytes, how: 'reset' }
        : undefined;
  if (!cut && !then.drip) return undefined;
  return { ...(then.drip && { drip: then.drip }), ...(cut && { cut }) };
}
