import type { JournalEntry, LiveDetail, MaskedHeaderPrefix } from './contract.js';

/** Quotes a word for a POSIX shell. */
function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** Headers curl sets itself, or that name this connection rather than the request. */
const LEFT_OUT = new Set(['host', 'content-length', 'connection', 'accept-encoding', 'accept-language', 'user-agent']);

/**
 * How the server shows a secret header (any spelling of any family: the redactor's rule, which
 * this page cannot load): such a header is left out rather than sent as a useless `••••ault`,
 * and the page keeps no list of secret names of its own to fall behind the server's.
 */
const MASKED: MaskedHeaderPrefix = '••••';

/** What a request asked for: its path and, when it had one, its query (`/v1/posts?limit=5`). */
export function requestTarget(entry: Pick<JournalEntry, 'path' | 'query'>): string {
  return entry.query === '' ? entry.path : `${entry.path}?${entry.query}`;
}

/**
 * A curl command that sends the request again, as far as the page knows it: the method, path
 * and query from the journal, and the headers and body when the page saw it live. The key is
 * always `$SOCIAL_GATEWAY_MOCK_API_KEY` (the page is shown only its last four characters): the
 * variable `run` sets for its command (RUN_ENVIRONMENT.apiKey, which this page cannot load; a test
 * holds the two together), so a command pasted into a suite's script runs as it is. A secret query
 * parameter stays `[REDACTED]`, as the journal keeps it, for the user to fill in.
 */
export const CURL_KEY_VARIABLE = 'SOCIAL_GATEWAY_MOCK_API_KEY';

export function curlCommand(entry: Pick<JournalEntry, 'method' | 'path' | 'query'>, origin: string, detail?: LiveDetail): string {
  const parts = ['curl'];
  if (entry.method !== 'GET') parts.push('-X', entry.method);
  parts.push(shellQuote(origin + requestTarget(entry)), '-H', `"x-api-key: $${CURL_KEY_VARIABLE}"`);
  for (const [name, value] of Object.entries(detail?.requestHeaders ?? {})) {
    if (!LEFT_OUT.has(name.toLowerCase()) && !name.toLowerCase().startsWith('sec-') && !value.startsWith(MASKED)) parts.push('-H', shellQuote(`${name}: ${value}`));
  }
  if (detail?.requestBody != null && !detail.requestBodyTruncated) parts.push('--data-raw', shellQuote(detail.requestBody));
  return parts.join(' ');
}
