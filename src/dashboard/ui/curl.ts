import type { JournalEntry } from './contract.js';

/** Quotes a word for a POSIX shell. */
function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * A curl command that sends the request again, as far as the journal knows it: the method
 * and path. The key is left as $SGW_API_KEY (the page never sees it), and the journal keeps
 * no query string, headers or body yet (docs/dashboard.md).
 */
export function curlCommand(entry: Pick<JournalEntry, 'method' | 'path'>, origin: string): string {
  const parts = ['curl'];
  if (entry.method !== 'GET') parts.push('-X', entry.method);
  parts.push(shellQuote(origin + entry.path), '-H', '"x-api-key: $SGW_API_KEY"');
  return parts.join(' ');
}
