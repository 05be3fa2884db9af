import { BlockList, isIP } from 'node:net';
import type { NextFunction, Request, RequestHandler } from 'express';
import { ApiError } from '../lib/errors.js';
import { isApiPath } from './transport.js';

/**
 * Host names the server answers besides its own (`--allowed-hosts`), or `true` to answer any
 * (`--allowed-hosts all`). An entry starting with a dot allows that name and every name under
 * it, as in Vite's `server.allowedHosts` and webpack-dev-server's `allowedHosts`.
 */
export type AllowedHosts = readonly string[] | true;

/** For the IPv6 spellings of loopback; BlockList matches IPv4-mapped addresses against IPv4 rules. */
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** 127.0.0.0/8 and ::1, in any IPv6 spelling (`::ffff:127.0.0.1`, what a dual-stack socket reports, included). */
export function isLoopbackAddress(address: string): boolean {
  const family = isIP(address);
  // isIP accepts only dotted quads, so the prefix is exact; BlockList costs about a microsecond a call, on every request.
  if (family === 4) return address.startsWith('127.');
  return family === 6 && (address === '::1' || LOOPBACK.check(address, 'ipv6'));
}

/** The unspecified addresses: a browser that opens `http://0.0.0.0:4010` (the banner's URL with `--host 0.0.0.0`) reaches this machine. */
const UNSPECIFIED = new Set(['0.0.0.0', '::']);

/** A Host header: a name or IPv4 address, or an IPv6 address in brackets; then an optional port. */
const HOST_HEADER = /^(?:\[([0-9a-f:.]+)\]|([a-z0-9_.-]+))(?::\d{1,5})?$/i;
/** An allowed host: a name or address, without port or scheme; a leading dot covers the subdomains. */
const ALLOWED_ENTRY = /^\.?[a-z0-9_-]+(?:\.[a-z0-9_-]+)*\.?$|^\[?[0-9a-f:.]+\]?$/i;

/** Lower case, without a trailing dot (`localhost.` is `localhost`) or IPv6 brackets. */
function normalize(name: string): string {
  const lower = name.toLowerCase();
  const bare = lower.startsWith('[') && lower.endsWith(']') ? lower.slice(1, -1) : lower;
  return bare.length > 1 && bare.endsWith('.') ? bare.slice(0, -1) : bare;
}

/** Why an `allowedHosts` entry is refused, or undefined when it is a host name. */
export function allowedHostProblem(entry: string): string | undefined {
  if (entry === 'all') return "'all' turns the check off and cannot be mixed with host names";
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(entry)) return `'${entry}' is a URL; give its host name alone`;
  if (entry.startsWith('*.')) return `'${entry}' is a wildcard; write '${entry.slice(1)}' for a domain and every name under it`;
  if (/:\d+$/.test(entry) && isIP(entry) === 0) return `'${entry}' has a port; give the host name alone (any port is allowed)`;
  if (!ALLOWED_ENTRY.test(entry)) return `'${entry}' is not a host name`;
  return undefined;
}

/** The name of a Host header, or undefined when the header is missing or is no host. */
function hostName(header: string | undefined): string | undefined {
  const match = header === undefined ? null : HOST_HEADER.exec(header);
  if (!match) return undefined;
  const name = normalize(match[1] ?? match[2] ?? '');
  // Brackets hold an IPv6 address and nothing else.
  return match[1] !== undefined && isIP(name) !== 6 ? undefined : name;
}

/**
 * Refuses requests whose `Host` is not the server's own: the defence against DNS rebinding,
 * where a page on another site points its own name at 127.0.0.1 and so reaches the mock
 * (its control plane, its journal) as a page of the same origin (decision 0019). Answered:
 * `localhost` and names under `.localhost` (browsers resolve them to loopback themselves),
 * loopback and unspecified addresses, and the `allowed` names. A request that came over the
 * network (the server bound to a non-loopback address) may also name any IP address, as in
 * Vite and webpack-dev-server: a page can reach the mock by address only from that address's
 * own origin, so no rebinding is involved, and the machine's addresses cannot be listed ahead.
 */
export function hostCheck(allowed: readonly string[]): RequestHandler {
  const exact = new Set<string>();
  const domains: string[] = [];
  for (const entry of allowed) {
    const problem = allowedHostProblem(entry);
    if (problem !== undefined) throw new Error(`allowedHosts: ${problem}`);
    const name = normalize(entry);
    if (name.startsWith('.')) {
      exact.add(name.slice(1));
      domains.push(name);
    } else exact.add(name);
  }
  const allows = (name: string) => name === 'localhost' || name.endsWith('.localhost') || exact.has(name) || domains.some((domain) => name.endsWith(domain)) || isLoopbackAddress(name) || UNSPECIFIED.has(name);
  // Host headers found allowed on any connection: a client sends the same one on every request,
  // and the lookup is cheaper than parsing it again. Bounded, so junk headers cannot grow it.
  const answered = new Set<string>();

  return (req, _res, next) => {
    const header = req.headers.host;
    if (header !== undefined && answered.has(header)) return next();
    const name = hostName(header);
    if (name === undefined) {
      // RFC 9112 §3.2: 400 for a request without a Host (HTTP/1.0; Node refuses HTTP/1.1 ones itself) or with one that names no host.
      refuse(req, next, new ApiError(400, 'VALIDATION_ERROR', header === undefined ? 'The request has no Host header; send the host name you called.' : 'The Host header is not a host name (a name or an address, and an optional port).', { param: 'Host' }));
      return;
    }
    if (allows(name)) {
      if (header !== undefined && answered.size < 64) answered.add(header);
      return next();
    }
    const family = isIP(name);
    if (family !== 0 && !isLoopbackAddress(req.socket.localAddress ?? '')) return next();
    const shown = family === 6 ? `[${name}]` : name;
    refuse(
      req,
      next,
      new ApiError(
        403,
        'FORBIDDEN',
        `This server does not answer requests for the host '${shown}' (a page of another site could reach it through DNS rebinding). To allow it, start the server with --allowed-hosts ${name} (or allowedHosts: ['${name}']).`,
        { param: 'Host', details: { host: name } },
      ),
    );
  };
}

/** Methods a page of another site may send without changing anything (the mock's GETs read only). */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** `http://localhost:4010` against the Host `localhost:4010`: the same origin, whatever the scheme (the mock speaks HTTP only). */
function isOwnOrigin(origin: string, host: string | undefined): boolean {
  if (host === undefined) return false;
  try {
    return new URL(origin).host === host.toLowerCase();
  } catch {
    // `null` (a sandboxed frame, a file:// page) and junk: no origin of this server.
    return false;
  }
}

/**
 * Refuses writes a page of another origin sends: the Host check stops DNS rebinding, but a page
 * on any site may still POST to `http://127.0.0.1:4010/__control/reset` by its address, without
 * reading the answer (a "simple" request, sent without a CORS preflight). Browsers put `Origin`
 * on every such request, and clients that are not browsers (curl, SDKs, test suites) send none,
 * so a write whose Origin is neither this server's own nor, on /v1, one `--cors` allows is
 * answered 403 before it runs. Reads stay open: without CORS the page cannot see their answers.
 */
function crossOriginWriteCheck(corsOrigins: readonly string[] = []): RequestHandler {
  const any = corsOrigins.includes('*');
  return (req, _res, next) => {
    const origin = req.headers.origin;
    if (origin === undefined || SAFE_METHODS.has(req.method) || isOwnOrigin(origin, req.headers.host)) return next();
    // --cors opens the API to a browser app, never the control plane: that app's page must not reset or read other tests' worlds.
    if (isApiPath(req.path) && (any || corsOrigins.includes(origin))) return next();
    refuse(
      req,
      next,
      new ApiError(403, 'FORBIDDEN', `This server does not take writes from pages of another origin ('${origin}'): a page of any site could otherwise change it. ${isApiPath(req.path) ? `To let a browser app of that origin call the API, start the server with --cors ${origin}.` : '--cors opens only the API (/v1), never the control plane or the pages.'}`, {
        param: 'Origin',
        details: { origin },
      }),
    );
  };
}

/**
 * Both checks a page of another site meets, as one step before every route (one layer each request
 * passes, not two): the Host check unless `allowed` is `true` (`--allowed-hosts all`), then the
 * cross-origin write check, which no flag turns off.
 */
export function browserBoundary(allowed: AllowedHosts, corsOrigins: readonly string[] = []): RequestHandler {
  const checkOrigin = crossOriginWriteCheck(corsOrigins);
  if (allowed === true) return checkOrigin;
  const checkHost = hostCheck(allowed);
  return (req, res, next) => checkHost(req, res, (error?: unknown) => (error === undefined ? checkOrigin(req, res, next) : next(error)));
}

function refuse(req: Request, next: NextFunction, error: ApiError): void {
  // A /v1 refusal still gets its X-RateLimit-* headers, counted as a request of no workspace (as a 414 is).
  if (isApiPath(req.path)) req.ctx.contract = 'api';
  next(error);
}
