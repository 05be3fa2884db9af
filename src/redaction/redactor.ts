import { StringMemo } from '../lib/string-memo.js';
import { decodeOrKeep, encodeComponent, maskUserInfo } from '../lib/uri.js';
import { SecretNames, type NameKind } from './secret-names.js';

/*
 * The one place that hides secrets. Recordings, the journal, the event stream (the dashboard's
 * Requests view), the request log and `scenario from-recording` all go through a Redactor, so a
 * name added with --redact is hidden everywhere at once (decisions 0022 and 0030). A secret is
 * found three ways: by its name, in any spelling (secret-names.ts); by its shape, wherever it
 * stands (a well-known key prefix, a private key, a URL's password); and, in one exchange, every
 * other place a value seen under a secret name shows up again.
 */

/** What a hidden value is replaced by. */
export const REDACTED = '[REDACTED]';

/**
 * Values that are secrets by their shape alone: the prefixes services give their keys and tokens,
 * a JSON Web Token, a PEM private key. Each alternative is a prefix and then one run of a character
 * class, so matching stays linear in the text. A JSON Web Token starts only where no character of
 * its own alphabet stands before it: with `\b`, each `eyJ` after a `-` in one long run (`eyJ…-eyJ…-`)
 * began a scan to the run's end looking for the dot, quadratic in the run (16 KB: 30 ms).
 */
const SECRET_SHAPES = new RegExp(
  [
    '-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----[^-]*(?:-----END [A-Z0-9 ]{0,40}PRIVATE KEY-----)?',
    '\\bsgw_(?:test|live)_[A-Za-z0-9_]{4,}',
    '\\b[sr]k_(?:live|test)_[A-Za-z0-9]{8,}',
    '\\bwhsec_[A-Za-z0-9+/=_-]{8,}',
    '\\bgh[pousr]_[A-Za-z0-9]{20,}',
    '\\bgithub_pat_[A-Za-z0-9_]{20,}',
    '\\bxox[abposr]-[A-Za-z0-9-]{10,}',
    '\\bglpat-[A-Za-z0-9_-]{16,}',
    '\\bnpm_[A-Za-z0-9]{30,}',
    '\\bAKIA[0-9A-Z]{16}\\b',
    '\\bAIza[0-9A-Za-z_-]{35}',
    '(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}',
  ].join('|'),
  'g',
);

/**
 * A Bearer credential in any text: a header that is not on the list (`X-Forwarded-Authorization`,
 * `X-Upstream-Auth`), an upstream's message quoting the one it got. The scheme stays, as in an
 * Authorization header. A digit is required, so prose ("send a Bearer token", "Bearer <key>") stays.
 */
const BEARER = /\b(Bearer)\s+(?=[A-Za-z._~+/=-]*[0-9])[A-Za-z0-9._~+/-]{8,}=*/gi;

/** Secrets shorter than this are not searched for as bare values: `1` or `true` would match everywhere. */
const MIN_SCRUBBED_LENGTH = 6;

/**
 * Nor a short plain word (`active`, `pending_review`): a `state=active` query would otherwise hide
 * every `"status": "active"` of the answer. It is still hidden where it was named.
 */
function searchable(value: string): boolean {
  return value.length >= MIN_SCRUBBED_LENGTH && value !== REDACTED && !(value.length < 16 && /^[A-Za-z]+(?:[_-][A-Za-z]+)*$/.test(value));
}

/**
 * A text with every secret that shows by its shape hidden: a well-known key or token, a private
 * key, a Bearer credential, a URL's user info (`https://***@host`). Cheap when there is none: one
 * scan each, and each pattern linear in the text (test/security/redaction.test.ts feeds each its
 * worst case).
 */
export function hideSecretShapes(text: string): string {
  let out = maskUserInfo(text);
  SECRET_SHAPES.lastIndex = 0;
  if (SECRET_SHAPES.test(out)) out = out.replace(SECRET_SHAPES, REDACTED);
  BEARER.lastIndex = 0;
  if (BEARER.test(out)) out = out.replace(BEARER, `$1 ${REDACTED}`);
  return out;
}

/** Reads `--redact a,b`: names, trimmed, empty ones dropped. */
export function parseRedactList(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
}

/**
 * Hides secrets by name (headers, JSON fields at any depth, query parameters, path parameters) and
 * by shape; `valueScrubber` then hides, in an exchange, every other place a value seen under a
 * secret name shows up again (an upstream echoing the key it was sent, a token inside a URL).
 */
export class Redactor {
  private readonly names: SecretNames;
  private readonly queries = new StringMemo<string>();

  /** `extra`: names added by --redact, each hidden as a header, a field, a query and a path parameter. */
  constructor(extra: readonly string[] = []) {
    this.names = new SecretNames(extra);
  }

  isSecret(kind: NameKind, name: string): boolean {
    return this.names.is(kind, name);
  }

  isSecretHeader(name: string): boolean {
    return this.names.is('header', name);
  }

  isSecretField(name: string): boolean {
    return this.names.is('field', name);
  }

  isSecretPathParam(name: string): boolean {
    return this.names.is('path', name);
  }

  /**
   * A copy of the headers with each secret one's value replaced. An Authorization header keeps
   * its scheme (`Bearer [REDACTED]`): which way the caller authenticated is no secret, and the
   * contract's check of a recorded request needs it. Any other header is shown with the
   * secrets of its value hidden by their shape (a Location's query, a token in a custom header).
   */
  headers(headers: Readonly<Record<string, string>>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) {
      const lower = name.toLowerCase();
      const scheme = lower === 'authorization' || lower === 'proxy-authorization' ? /^\s*([A-Za-z][\w-]*)\s+\S/.exec(value)?.[1] : undefined;
      // A redirect's Location (an OAuth callback) carries its secrets in its query.
      out[name] = this.isSecretHeader(name) ? (scheme ? `${scheme} ${REDACTED}` : REDACTED) : lower === 'location' ? this.url(value) : hideSecretShapes(value);
    }
    return out;
  }

  /**
   * A query string (without its `?`) with each secret parameter's value replaced; the rest kept as
   * written. Remembered by the query: every journaled request with one comes here, mostly with a
   * query seen a moment before (a suite paging the same list), and the names hidden never change.
   */
  query(query: string): string {
    if (query === '') return query;
    return this.queries.get(query) ?? this.queries.set(query, this.hideQuerySecrets(query));
  }

  private hideQuerySecrets(query: string): string {
    return query
      .split('&')
      .map((pair) => {
        const at = pair.indexOf('=');
        const name = at === -1 ? pair : pair.slice(0, at);
        return this.names.is('query', decodeQueryPart(name)) ? `${name}=${REDACTED}` : hideSecretShapes(pair);
      })
      .join('&');
  }

  /**
   * A path with the value of each secret path parameter replaced (the `{sessionId}` of
   * /v1/connect-sessions/{sessionId}/candidates); `params` are the matched operation's.
   */
  path(path: string, params: Readonly<Record<string, string>> = {}): string {
    // Every journaled request comes here: nothing is allocated unless a parameter is a secret.
    let secrets: string[] | undefined;
    for (const name in params) {
      const value = params[name];
      if (value && this.isSecretPathParam(name)) (secrets ??= []).push(value);
    }
    if (secrets === undefined) return hideSecretShapes(path);
    const hidden = secrets;
    // A path segment's `+` is a plus, not a space as in a query.
    return hideSecretShapes(
      path
        .split('/')
        .map((segment) => (hidden.includes(decodeOrKeep(segment)) ? REDACTED : segment))
        .join('/'),
    );
  }

  /** A URL, absolute or a path, with its user info, its query and (given the params) its path redacted. */
  url(url: string, params?: Readonly<Record<string, string>>): string {
    const at = url.indexOf('?');
    if (at === -1) return this.path(url, params);
    const hash = url.indexOf('#', at);
    const query = hash === -1 ? url.slice(at + 1) : url.slice(at + 1, hash);
    return `${this.path(url.slice(0, at), params)}?${this.query(query)}${hash === -1 ? '' : url.slice(hash)}`;
  }

  /**
   * A copy of a JSON value with every secret field replaced, and every string's secrets hidden
   * (a URL's query and user info, a well-known key). Walked with its own stack, not recursion:
   * a recorded answer may nest deeper than any request body may.
   */
  json(value: unknown): unknown {
    const copy = (node: unknown): unknown => {
      if (typeof node === 'string') return node.includes('?') && /^(https?:\/\/|\/)/i.test(node) ? this.url(node) : hideSecretShapes(node);
      if (Array.isArray(node)) return new Array<unknown>(node.length);
      if (typeof node === 'object' && node !== null) return {};
      return node;
    };
    const root = { value: copy(value) };
    const pending: Array<[unknown, Record<string | number, unknown>]> = [[value, root.value as Record<string | number, unknown>]];
    while (pending.length > 0) {
      const [source, target] = pending.pop() as [unknown, Record<string | number, unknown>];
      if (Array.isArray(source)) {
        source.forEach((item, index) => {
          target[index] = copy(item);
          if (typeof item === 'object' && item !== null) pending.push([item, target[index] as Record<string | number, unknown>]);
        });
      } else if (typeof source === 'object' && source !== null) {
        for (const [name, field] of Object.entries(source)) {
          if (this.isSecretField(name) && field !== null) {
            Object.defineProperty(target, name, { value: REDACTED, enumerable: true, writable: true, configurable: true });
            continue;
          }
          Object.defineProperty(target, name, { value: copy(field), enumerable: true, writable: true, configurable: true });
          if (typeof field === 'object' && field !== null) pending.push([field, target[name] as Record<string | number, unknown>]);
        }
      }
    }
    return root.value;
  }

  /**
   * A body that is not JSON (or JSON cut short): `"name": "value"` pairs and `name=value`
   * pairs (a form, a URL) of secret names are replaced where they are found, then every secret
   * that shows by its shape.
   */
  text(text: string): string {
    // The string's body as an unrolled loop ([^"\\]*(?:\\.[^"\\]*)*): an alternation inside a star overflows the regex engine's stack on a long value.
    let out = text.replace(/"([^"\\]{1,64})"(\s*:\s*)"[^"\\]*(?:\\.[^"\\]*)*"/g, (whole, name: string, colon: string) => (this.isSecretField(name) ? `"${name}"${colon}"${REDACTED}"` : whole));
    out = out.replace(/([A-Za-z0-9_.[\]-]{1,64})=([^&\s"'<>#]*)/g, (whole, name: string) => (this.names.is('query', name) ? `${name}=${REDACTED}` : whole));
    return hideSecretShapes(out);
  }

  /** Every value of a JSON value held under a secret name, for scrubbing elsewhere. */
  secretValuesOfJson(value: unknown, into: Set<string> = new Set()): Set<string> {
    // A walk with its own stack, not recursion: a body nested a hundred thousand deep parses, and must not overflow here.
    const pending: unknown[] = [value];
    while (pending.length > 0) {
      const next = pending.pop();
      if (Array.isArray(next)) {
        for (const item of next) pending.push(item);
      } else if (typeof next === 'object' && next !== null) {
        for (const [name, field] of Object.entries(next)) {
          if (this.isSecretField(name) && (typeof field === 'string' || typeof field === 'number')) into.add(String(field));
          else pending.push(field);
        }
      }
    }
    return into;
  }

  /** Every value of the headers and query held under a secret name (a Bearer key also bare). */
  secretValuesOfRequest(headers: Readonly<Record<string, string>>, query: string, into: Set<string> = new Set()): Set<string> {
    for (const [name, value] of Object.entries(headers)) {
      if (!this.isSecretHeader(name)) continue;
      into.add(value);
      const bearer = /^\s*\w+\s+(\S+)\s*$/.exec(value);
      if (bearer?.[1]) into.add(bearer[1]);
      for (const cookie of value.split(/[;,]\s*/)) {
        const at = cookie.indexOf('=');
        if (at > 0) into.add(cookie.slice(at + 1));
      }
    }
    for (const pair of query.split('&')) {
      const at = pair.indexOf('=');
      if (at > 0 && this.names.is('query', decodeQueryPart(pair.slice(0, at)))) into.add(decodeQueryPart(pair.slice(at + 1)));
    }
    return into;
  }
}

/**
 * Replaces every occurrence of each secret value (long enough to be one) by the placeholder,
 * longest first. By plain search, not one regular expression of them all: a request may hold
 * values of any size under secret names, and such a pattern grows past what the engine compiles.
 */
export function valueScrubber(secrets: Iterable<string>): (text: string) => string {
  const values = [...secrets].filter(searchable);
  if (values.length === 0) return (text) => text;
  // Also as URL-encoded, the way a value travels in a query or a path.
  const forms = [...new Set(values.flatMap((value) => [value, encodeComponent(value)]))].sort((a, b) => b.length - a.length);
  return (text) => forms.reduce((out, form) => (out.includes(form) ? out.split(form).join(REDACTED) : out), text);
}

/** A query's name or value as written: `+` is a space there, and a malformed %-escape is kept. */
function decodeQueryPart(text: string): string {
  return decodeOrKeep(text.replace(/\+/g, ' '));
}
