/*
 * Webhook URLs may carry credentials (`https://user:pass@host/hook`): many receivers
 * sit behind HTTP Basic authentication. The mock keeps the URL as given, sends the
 * credentials only as an `Authorization: Basic` header (never in the request line),
 * and shows the URL everywhere else with the password masked
 * (docs/decisions/0014-last-gaps-against-the-reference.md).
 */
import { decodeOrKeep } from '../../lib/uri.js';

/** What replaces the password wherever a webhook URL is shown. */
export const MASKED_PASSWORD = '***';

/** The URL without its user information, and the Basic authorization it stood for (null when it had none). */
export function splitCredentials(url: string): { url: string; authorization: string | null } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { url, authorization: null };
  }
  if (parsed.username === '' && parsed.password === '') return { url, authorization: null };
  // The URL keeps them percent-encoded; the header carries what they stand for (RFC 7617).
  const credentials = `${decodeOrKeep(parsed.username)}:${decodeOrKeep(parsed.password)}`;
  parsed.username = '';
  parsed.password = '';
  return { url: parsed.toString(), authorization: `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}` };
}

/**
 * The URL as it may be shown: the password replaced by `***`, the user name kept
 * (it says which account the receiver expects, and is no secret on its own).
 * Anything that does not parse is shown as it is: it cannot have reached a receiver.
 */
export function maskCredentials(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  if (parsed.password === '') return url;
  parsed.password = MASKED_PASSWORD;
  return parsed.toString();
}

