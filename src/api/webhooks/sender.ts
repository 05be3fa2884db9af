import type { LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { HostFence, Refusal } from '../../lib/host-fence.js';
import { VERSION } from '../../version.js';
import { hostLookup } from './host-lookup.js';
import { splitCredentials } from './url-credentials.js';

/** What one HTTP attempt came to. */
export interface SendOutcome {
  /** A 2xx arrived within the time-out. */
  ok: boolean;
  responseStatus: number | null;
  /** Real milliseconds from sending to the answer (or to giving up). */
  durationMs: number;
  /** Why it failed when no status explains it (time-out, network error, redirect, fence); null otherwise. */
  error: string | null;
  /** The fence refused the target: nothing was sent, and nothing would be on a retry. */
  refused?: true;
}

export interface SendRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  /** Where the request may not go (the server itself, --webhook-allow, --webhook-deny). */
  fence?: HostFence;
}

/** Names that do not exist are known not to for a while, whichever workspace's webhook asked. */
const lookup = hostLookup();

/** A lookup's answer the fence refused; it ends the request before any connection. */
class FenceRefusal extends Error {
  constructor(readonly refusal: Refusal) {
    super(refusal.reason);
  }
}

/**
 * The lookup, with the fence applied to what it answers: the request then connects only to an
 * address the fence let through, so a name that resolves to the server itself (or into a denied
 * range) is caught however it is spelt, and no second lookup can answer differently. Addresses
 * refused are dropped (a name with a refused IPv6 and an allowed IPv4 address still goes by IPv4);
 * when none is left, the request fails with the first refusal.
 */
function fencedLookup(fence: HostFence, hostname: string, port: number): LookupFunction {
  return (name, options, callback) => {
    lookup(name, { ...options, all: true }, (error, answer) => {
      if (error) return callback(error, '', undefined);
      const addresses = answer as unknown as LookupAddress[];
      let refusal: Refusal | null = null;
      const kept = addresses.filter((candidate) => {
        const refused = fence.refusal(hostname, port, candidate.address);
        refusal ??= refused;
        return refused === null;
      });
      if (refusal !== null && kept.length === 0) return callback(new FenceRefusal(refusal), '', undefined);
      if (options.all) return callback(null, kept as unknown as string);
      callback(null, kept[0]?.address ?? '', kept[0]?.family);
    });
  };
}

/**
 * Sends one webhook request for real. User information in the URL goes as an
 * `Authorization: Basic` header, never in the request line or an error message.
 * Only the status line counts: the answer's
 * body is drained and ignored. Redirects are not followed (a receiver that moved
 * must be updated), and the connection is not pooled, so a closed test receiver
 * leaves nothing behind. The time-out is real time on purpose: it bounds real I/O,
 * which the virtual clock cannot.
 */
export function sendWebhookRequest({ url: given, body, headers, timeoutMs, fence }: SendRequest): Promise<SendOutcome> {
  const { url, authorization } = splitCredentials(given);
  // Durations are measured, not read from a calendar: a monotonic timer is the honest tool.
  const startedAt = performance.now();
  const elapsed = () => Math.max(0, Math.round(performance.now() - startedAt));
  return new Promise<SendOutcome>((resolve) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      resolve({ ok: false, responseStatus: null, durationMs: 0, error: `invalid url: ${url}` });
      return;
    }
    // The contract refuses other schemes on create and update; a restored snapshot could still hold one.
    if (target.protocol !== 'http:' && target.protocol !== 'https:') {
      resolve({ ok: false, responseStatus: null, durationMs: 0, error: `not an http(s) url: ${url}` });
      return;
    }
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const port = Number(target.port) || (target.protocol === 'https:' ? 443 : 80);
    // An address in the URL is connected to without a lookup: the fence looks at it here, and at a name before it is looked up.
    const literal = target.hostname.replace(/^\[(.*)\]$/, '$1');
    const refused = fence?.refusal(target.hostname, port, isIP(literal) !== 0 ? literal : undefined) ?? null;
    if (refused) {
      resolve({ ok: false, responseStatus: null, durationMs: 0, error: refused.reason, refused: true });
      return;
    }
    let settled = false;
    const finish = (outcome: Omit<SendOutcome, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...outcome, durationMs: elapsed() });
    };
    const req = send(target, {
      method: 'POST',
      agent: false,
      lookup: fence ? fencedLookup(fence, target.hostname, port) : lookup,
      headers: {
        ...headers,
        ...(authorization !== null && { Authorization: authorization }),
        'Content-Type': 'application/json',
        'Content-Length': String(Buffer.byteLength(body)),
        'User-Agent': `social-gateway-mock/${VERSION} (webhooks)`,
        Connection: 'close',
      },
    });
    const timer = setTimeout(() => {
      finish({ ok: false, responseStatus: null, error: `timeout: no answer within ${timeoutMs} ms` });
      req.destroy();
    }, timeoutMs);
    req.on('response', (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      // Read and drop the answer so the socket closes cleanly.
      res.resume();
      res.on('error', () => undefined);
      const redirect = status >= 300 && status < 400;
      finish({ ok: status >= 200 && status < 300, responseStatus: status, error: redirect ? `redirect to ${res.headers.location ?? '(no Location)'} not followed` : null });
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error instanceof FenceRefusal) finish({ ok: false, responseStatus: null, error: error.refusal.reason, refused: true });
      else finish({ ok: false, responseStatus: null, error: describeNetworkError(error) });
    });
    req.end(body);
  });
}

function describeNetworkError(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'connection reset';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `host not found: ${error.message}`;
    default:
      return error.code ? `${error.code}: ${error.message}` : error.message;
  }
}
