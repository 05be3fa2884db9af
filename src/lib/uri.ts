/** `decodeURIComponent`, except that a malformed %-escape is kept as written rather than thrown: whoever reads it next judges it. */
export function decodeOrKeep(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** A URL's user info (`user:password@`), anywhere in a text: what a command line prints must not show it. */
const USER_INFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@'"]+@/gi;

/** The text with every URL's user info replaced: `https://user:pass@host` → `https://***@host`. */
export function maskUserInfo(text: string): string {
  return text.replace(USER_INFO, '$1***@');
}
