import { lookup as systemLookup } from 'node:dns';
import type { LookupFunction } from 'node:net';

/** How long a host name the resolver said does not exist stays known not to, in wall milliseconds. */
export const NOT_FOUND_TTL_MS = 30_000;

/** Host names remembered at most; the oldest goes first. */
const MAX_REMEMBERED = 1_000;

export interface HostLookupOptions {
  /** Wall time in milliseconds (replaceable in tests). */
  now?: () => number;
  ttlMs?: number;
  /** The resolver asked (`dns.lookup` unless a test gives another). */
  lookup?: LookupFunction;
}

/**
 * `dns.lookup` for webhook requests, remembering for a while (RFC 2308's negative caching) that
 * a host name does not exist. A webhook to a name that does not resolve is attempted again and
 * again (its retries, every event after), and a resolver sometimes takes its own time-out of
 * seconds before it says so: on this project's machines one lookup in thirty of a name that
 * does not exist took 5 s, so attempts to it ran into the webhook time-out and a clock move,
 * which waits for its attempts, took tens of seconds (docs/reliability.md). Only "not found" is
 * remembered: a name that resolves, or fails for another reason, is asked again every time.
 */
export function hostLookup({ now = Date.now, ttlMs = NOT_FOUND_TTL_MS, lookup = systemLookup as LookupFunction }: HostLookupOptions = {}): LookupFunction {
  const notFound = new Map<string, { until: number; error: NodeJS.ErrnoException }>();
  return (hostname, options, callback) => {
    const known = notFound.get(hostname);
    if (known !== undefined && now() < known.until) {
      // A copy: whoever gets the error may change it (Node adds the host and port to it).
      const error: NodeJS.ErrnoException = Object.assign(new Error(known.error.message), { code: known.error.code, errno: known.error.errno, syscall: known.error.syscall, hostname });
      process.nextTick(() => callback(error, '', undefined));
      return;
    }
    lookup(hostname, options, (error, address, family) => {
      if (error?.code === 'ENOTFOUND') {
        notFound.delete(hostname);
        if (notFound.size >= MAX_REMEMBERED) notFound.delete(notFound.keys().next().value as string);
        notFound.set(hostname, { until: now() + ttlMs, error });
      } else if (!error) {
        notFound.delete(hostname);
      }
      callback(error, address, family);
    });
  };
}
