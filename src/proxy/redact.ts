import { REDACTED, type RecordedBody, type RecordedExchange } from './recording.js';
import { decodeOrKeep } from '../lib/uri.js';

/*
 * The one list of what is a secret, and the one place that hides them. Recordings, the journal,
 * the event stream (the dashboard's Requests view) and the request log all go through a
 * Redactor, so a name added with --redact is hidden everywhere at once.
 */

/** Headers that carry a credential or a session. */
export const SECRET_HEADERS = ['authorization', 'proxy-authorization', 'x-api-key', 'x-control-token', 'cookie', 'set-cookie'] as const;

/**
 * JSON fields (at any depth) that carry a credential or a session, from openapi.yaml: the
 * app password of a connect, a webhook's signing secret, the `connectSession` and `tempToken`
 * of a headless or facebook_login connect (also the `{sessionId}` of
 * /v1/connect-sessions/{sessionId}/candidates), and the usual names of tokens and keys a real
 * service may add. `code` and `state` are not here: in a body they are an error's code and a
 * resource's state, not OAuth's.
 */
export const SECRET_FIELDS = [
  'appPassword',
  'password',
  'secret',
  'clientSecret',
  'token',
  'accessToken',
  'refreshToken',
  'idToken',
  'tempToken',
  'uploadToken',
  'apiKey',
  'connectSession',
  'session',
  'sessionId',
] as const;

/**
 * Query parameters that carry one: the fields above, plus what OAuth callbacks and presigned
 * URLs carry (`code`, `state`, a signature). The presign answer's `uploadUrl` holds `?token=`,
 * the OAuth redirect's `url` holds `?session=`.
 */
export const SECRET_QUERY = [...SECRET_FIELDS, 'code', 'state', 'signature', 'sig', 'x-amz-signature', 'x-amz-credential', 'x-amz-security-token', 'access_token', 'refresh_token', 'id_token', 'api_key', 'client_secret'] as const;

/**
 * Path parameters that carry one: the fields above, and `key`, which in a path is an API key
 * (`DELETE /__control/keys/{key}`) while in a body it is a media file's name.
 */
export const SECRET_PATH_PARAMS = [...SECRET_FIELDS, 'key'] as const;

/** Secrets shorter than this are not searched for as bare values: `1` or `true` would match everywhere. */
const MIN_SCRUBBED_LENGTH = 6;

/**
 * Nor a short plain word (`active`, `pending_review`): a `state=active` query would otherwise hide
 * every `"status": "active"` of the answer. It is still hidden where it was named.
 */
function searchable(value: string): boolean {
  return value.length >= MIN_SCRUBBED_LENGTH && value !== REDACTED && !(value.length < 16 && /^[A-Za-z]+(?:[_-][A-Za-z]+)*$/.test(value));
}

function lowerSet(names: Iterable<string>): Set<string> {
  return new Set([...names].map((name) => name.toLowerCase()));
}


/** Reads `--redact a,b`: names, trimmed, empty ones dropped. */
export function parseRedactList(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
}

/**
 * Hides secrets by name (headers, JSON fields at any depth, query parameters, path parameters)
 * and, in an exchange, every other place a value seen under a secret name shows up again (an
 * upstream echoing the key it was sent, a token inside a URL in a text body).
 */
export class Redactor {
  private readonly headerNames: Set<string>;
  private readonly fieldNames: Set<string>;
  private readonly queryNames: Set<string>;
  private readonly pathNames: Set<string>;

  /** `extra`: names added by --redact, each hidden as a header, a field and a query parameter. */
  constructor(extra: readonly string[] = []) {
    this.headerNames = lowerSet([...SECRET_HEADERS, ...extra]);
    this.fieldNames = lowerSet([...SECRET_FIELDS, ...extra]);
    this.queryNames = lowerSet([...SECRET_QUERY, ...extra]);
    this.pathNames = lowerSet([...SECRET_PATH_PARAMS, ...extra]);
  }

  isSecretHeader(name: string): boolean {
    return this.headerNames.has(name.toLowerCase());
  }

  isSecretField(name: string): boolean {
    return this.fieldNames.has(name.toLowerCase());
  }

  isSecretPathParam(name: string): boolean {
    return this.pathNames.has(name.toLowerCase());
  }

  /**
   * A copy of the headers with each secret one's value replaced. An Authorization header keeps
   * its scheme (`Bearer [REDACTED]`): which way the caller authenticated is no secret, and the
   * contract's check of a recorded request needs it.
   */
  headers(headers: Readonly<Record<string, string>>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) {
      const lower = name.toLowerCase();
      const scheme = lower === 'authorization' || lower === 'proxy-authorization' ? /^\s*([A-Za-z][\w-]*)\s+\S/.exec(value)?.[1] : undefined;
      // A redirect's Location (an OAuth callback) carries its secrets in its query.
      out[name] = this.isSecretHeader(name) ? (scheme ? `${scheme} ${REDACTED}` : REDACTED) : lower === 'location' ? this.url(value) : value;
    }
    return out;
  }

  /** A query string (without its `?`) with each secret parameter's value replaced; the rest kept as written. */
  query(query: string): string {
    if (query === '') return query;
    return query
      .split('&')
      .map((pair) => {
        const at = pair.indexOf('=');
        const name = at === -1 ? pair : pair.slice(0, at);
        return this.queryNames.has(decodeQueryPart(name).toLowerCase()) ? `${name}=${REDACTED}` : pair;
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
    if (secrets === undefined) return path;
    const hidden = secrets;
    // A path segment's `+` is a plus, not a space as in a query.
    return path
      .split('/')
      .map((segment) => (hidden.includes(decodeOrKeep(segment)) ? REDACTED : segment))
      .join('/');
  }

  /** A URL, absolute or a path, with its query and (given the params) its path redacted. */
  url(url: string, params?: Readonly<Record<string, string>>): string {
    const at = url.indexOf('?');
    if (at === -1) return this.path(url, params);
    const hash = url.indexOf('#', at);
    const query = hash === -1 ? url.slice(at + 1) : url.slice(at + 1, hash);
    return `${this.path(url.slice(0, at), params)}?${this.query(query)}${hash === -1 ? '' : url.slice(hash)}`;
  }

  /** A copy of a JSON value with every secret field replaced, and the query of every URL in a string. */
  json(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((item) => this.json(item));
    if (typeof value === 'string') return value.includes('?') && /^(https?:\/\/|\/)/i.test(value) ? this.url(value) : value;
    if (typeof value !== 'object' || value === null) return value;
    const out: Record<string, unknown> = {};
    for (const [name, field] of Object.entries(value)) out[name] = this.isSecretField(name) && field !== null ? REDACTED : this.json(field);
    return out;
  }

  /**
   * A body that is not JSON (or JSON cut short): `"name": "value"` pairs and `name=value`
   * pairs (a form, a URL) of secret names are replaced where they are found.
   */
  text(text: string): string {
    // The string's body as an unrolled loop ([^"\\]*(?:\\.[^"\\]*)*): an alternation inside a star overflows the regex engine's stack on a long value.
    let out = text.replace(/"([^"\\]{1,64})"(\s*:\s*)"[^"\\]*(?:\\.[^"\\]*)*"/g, (whole, name: string, colon: string) => (this.isSecretField(name) ? `"${name}"${colon}"${REDACTED}"` : whole));
    out = out.replace(/([A-Za-z0-9_.-]{1,64})=([^&\s"'<>#]*)/g, (whole, name: string) => (this.queryNames.has(name.toLowerCase()) ? `${name}=${REDACTED}` : whole));
    return out;
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
      if (at > 0 && this.queryNames.has(decodeQueryPart(pair.slice(0, at)).toLowerCase())) into.add(decodeQueryPart(pair.slice(at + 1)));
    }
    return into;
  }

  /**
   * A recorded exchange with every secret hidden: by name first, then every value that was
   * held under a secret name replaced wherever else it appears (both ways: the answer echoing
   * a key, a request repeating a token the answer gave).
   */
  exchange(exchange: RecordedExchange, pathParams: Readonly<Record<string, string>> = {}): RecordedExchange {
    try {
      return this.exchangeRedacted(exchange, pathParams);
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      // A body nested too deep to walk: fail closed, both bodies hidden whole, the rest by name.
      const hidden = (message: RecordedBody): RecordedBody => (message.json === undefined && message.text === undefined ? {} : { text: REDACTED });
      return {
        ...exchange,
        request: { ...exchange.request, path: this.path(exchange.request.path, pathParams), query: this.query(exchange.request.query), headers: this.headers(exchange.request.headers), json: undefined, text: undefined, ...hidden(exchange.request) },
        response: exchange.response && { ...exchange.response, headers: this.headers(exchange.response.headers), json: undefined, text: undefined, ...hidden(exchange.response) },
      };
    }
  }

  private exchangeRedacted(exchange: RecordedExchange, pathParams: Readonly<Record<string, string>>): RecordedExchange {
    const scrub = this.scrubberFor(exchange, pathParams);
    const request = {
      ...exchange.request,
      path: scrub(this.path(exchange.request.path, pathParams)),
      query: scrub(this.query(exchange.request.query)),
      headers: scrubRecord(this.headers(exchange.request.headers), scrub),
      ...this.body(exchange.request, scrub),
    };
    const response = exchange.response && {
      ...exchange.response,
      headers: scrubRecord(this.headers(exchange.response.headers), scrub),
      ...this.body(exchange.response, scrub),
    };
    return {
      ...exchange,
      request,
      response,
      ...(exchange.upstreamError && { upstreamError: { ...exchange.upstreamError, message: scrub(exchange.upstreamError.message) } }),
    };
  }

  /** Replaces, in any text, every value the exchange held under a secret name. */
  scrubberFor(exchange: Pick<RecordedExchange, 'request' | 'response'>, pathParams: Readonly<Record<string, string>> = {}): (text: string) => string {
    const secrets = this.secretValuesOfRequest(exchange.request.headers, exchange.request.query);
    for (const [name, value] of Object.entries(pathParams)) if (this.isSecretPathParam(name)) secrets.add(value);
    this.secretValuesOfBody(exchange.request, secrets);
    if (exchange.response) {
      this.secretValuesOfRequest(exchange.response.headers, '', secrets);
      this.secretValuesOfBody(exchange.response, secrets);
    }
    return valueScrubber(secrets);
  }

  private secretValuesOfBody(body: RecordedBody, into: Set<string>): void {
    if (body.json !== undefined) this.secretValuesOfJson(body.json, into);
  }

  private body(body: RecordedBody, scrub: (text: string) => string): RecordedBody {
    if (body.json !== undefined) return { json: scrubJson(this.json(body.json), scrub) };
    if (body.text !== undefined) return { text: scrub(this.text(body.text)) };
    return {};
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
  const forms = [...new Set(values.flatMap((value) => [value, encodeURIComponent(value)]))].sort((a, b) => b.length - a.length);
  return (text) => forms.reduce((out, form) => (out.includes(form) ? out.split(form).join(REDACTED) : out), text);
}

function scrubRecord(record: Record<string, string>, scrub: (text: string) => string): Record<string, string> {
  return Object.fromEntries(Object.entries(record).map(([name, value]) => [name, scrub(value)]));
}

function scrubJson(value: unknown, scrub: (text: string) => string): unknown {
  if (typeof value === 'string') return scrub(value);
  if (Array.isArray(value)) return value.map((item) => scrubJson(item, scrub));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([name, field]) => [name, scrubJson(field, scrub)]));
}

/** A query's name or value as written: `+` is a space there, and a malformed %-escape is kept. */
function decodeQueryPart(text: string): string {
  return decodeOrKeep(text.replace(/\+/g, ' '));
}
