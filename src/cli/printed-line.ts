import { maskUserInfo } from '../lib/uri.js';
import { Redactor } from '../redaction/redactor.js';

/** The built-in secret names, as the journal, the logs and recordings hide them (decision 0030). */
const redactor = new Redactor();

/** A query in a line: from a `?` to the next space, quote, bracket or fragment. */
const QUERY = /\?[^\s'"<>()[\]{}#]+/g;

/**
 * A line as the command line prints it (a banner, an error quoting a flag's value): every URL's
 * user info (`http://***@host`) and the value of every secret-named query parameter (`password`,
 * `api_key`, `token`, …) masked, with the rules the journal and recordings use. A query is masked
 * wherever it stands, in a URL or in a value that failed to parse as one, so a terminal, a CI log
 * or a screenshot never shows what it carried (issue 35, decision 0045).
 */
export function maskPrintedLine(line: string): string {
  const withoutUserInfo = maskUserInfo(line);
  return withoutUserInfo.includes('?') ? withoutUserInfo.replace(QUERY, (query) => `?${redactor.query(query.slice(1))}`) : withoutUserInfo;
}
