/** A UTF-16 surrogate without its other half: no character, and nothing UTF-8 or a URL can carry. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * The text with each lone surrogate replaced by U+FFFD, as UTF-8 encoders (Buffer, TextEncoder)
 * replace it. JSON can hold one, so any request may bring one; `encodeURIComponent` throws a
 * URIError on it, which in a response's close handler ended the process (issue 35).
 */
function wellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, '\ufffd');
}

/** `encodeURIComponent` that never throws: a lone surrogate is encoded as U+FFFD is (`%EF%BF%BD`), as Buffer and fetch send it. */
export function encodeComponent(text: string): string {
  return encodeURIComponent(wellFormed(text));
}

/** `decodeURIComponent`, except that a malformed %-escape is kept as written rather than thrown: whoever reads it next judges it. */
export function decodeOrKeep(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * A URL's user info (`user:password@`), anywhere in a text: what a command line prints, and what
 * the redactor shows, must not hold it. The scheme is at most 32 characters (RFC 3986 sets no
 * limit; registered ones are far shorter): unbounded, every word start in a long run such as
 * `a.a.a…@` began a scan to the run's end, and 16 KB of it took 150 ms, a megabyte minutes.
 */
const USER_INFO = /\b([a-z][a-z0-9+.-]{0,31}:\/\/)[^\s/?#@'"]+@/gi;

/** The text with every URL's user info replaced: `https://user:pass@host` → `https://***@host`. */
export function maskUserInfo(text: string): string {
  return text.includes('@') ? text.replace(USER_INFO, '$1***@') : text;
}
