import type { JournalEntry, LiveDetail } from './contract.js';

/** Quotes a word for a POSIX shell. */
function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** Headers curl sets itself, or that name this connection rather than the request. */
const LEFT_OUT = new Set(['host', 'content-length', 'connection', 'accept-encoding', 'accept-language', 'user-agent', 'x-api-key', 'authorization', 'x-control-token', 'cookie']);

/**
 * A curl command that sends the request again, as far as the page knows it: the method and path
 * from the journal, and the headers and body when the page saw it live. The key is always
 * `$SGW_API_KEY` (the page is shown only its last four characters), and the journal keeps no
 * query string.
 */
export function curlCommand(entry: Pick<JournalEntry, 'method' | 'path'>, origin: string, detail?: LiveDetail): string {
  const parts = ['curl'];
  if (entry.method !== 'GET') parts.push('-X', entry.method);
  parts.push(shellQuote(origin + entry.path), '-H', '"x-api-key: $SGW_API_KEY"');
  for (const [name, value] of Object.entries(detail?.requestHeaders ?? {})) {
    if (!LEFT_OUT.has(name.toLowerCase()) && !name.toLowerCase().startsWith('sec-')) parts.push('-H', shellQuote(`${name}: ${value}`));
  }
  if (detail?.requestBody != null && !detail.requestBodyTruncated) parts.push('--data-raw', shellQuote(detail.requestBody));
  return parts.join(' ');
}
