/*
 * Which names carry a secret: one answer for headers, JSON fields, query and path parameters, in
 * any spelling. A name is compared by its letters and digits alone, lower-cased, with a trailing
 * `[]` or `[0]` dropped, so `api_key`, `apiKey`, `API-KEY`, `x-api-key` and `api_key[]` are one
 * name (decision 0030). Imports nothing: every layer that shows a request may use it.
 */

/** Where a name stands: some names are secrets in one place only (`code` and `state` in an OAuth callback's query). */
export type NameKind = 'header' | 'field' | 'query' | 'path';

/** What a name is reduced to before it is compared: `X-Api-Key`, `api_key[]` → `xapikey`, `apikey`. */
export function normalizeName(name: string): string {
  return name
    .toLowerCase()
    .replace(/\[[^\]]*\]$/, '')
    .replace(/[^a-z0-9]/g, '');
}

/**
 * The families: any name that holds one of these is a secret, whatever surrounds it
 * (`x-auth-token`, `client_secret`, `db_password`, `privateKey`, `apiKey`).
 */
const FAMILIES = ['token', 'secret', 'password', 'passwd', 'passphrase', 'credential', 'key'] as const;

/** Secrets by their whole name, outside the families: sessions, signatures, cookies. */
const NAMED: Readonly<Record<NameKind, readonly string[]>> = {
  header: ['authorization', 'proxy-authorization', 'cookie', 'set-cookie'],
  field: ['connectSession', 'session', 'sessionId', 'signature'],
  // What OAuth callbacks and presigned URLs carry besides: an authorization code, its state, a signature.
  query: ['connectSession', 'session', 'sessionId', 'code', 'state', 'signature', 'sig', 'x-amz-signature', 'x-amz-credential', 'x-amz-security-token'],
  path: ['connectSession', 'session', 'sessionId'],
};

/**
 * Names of a family that carry no secret: read from openapi.yaml and control.yaml, where each is a
 * date, a list of words, a flag or a count (decision 0030 lists them). `Idempotency-Key` names a
 * request, and the journal and recordings must keep it to show which retries were the same.
 */
const NOT_SECRET = [
  'idempotency-key',
  'idempotencyKeyInUse',
  'tokenExpiresAt',
  'keyword',
  'keywords',
  'excludeKeywords',
  'matchedKeyword',
  'keyScope',
  'keyScopes',
  'hasSecret',
  'monkey',
  'hockey',
  'turkey',
  'keyboard',
] as const;

const NOT_SECRET_NORMALIZED = new Set(NOT_SECRET.map(normalizeName));

/** Names seen are remembered, up to this many: a hostile client's endless new names must not grow memory. */
const MEMO_LIMIT = 4096;

/**
 * Answers whether a name carries a secret where it stands. `extra` names (--redact) are secrets
 * everywhere, compared the same way.
 */
export class SecretNames {
  private readonly named: Record<NameKind, Set<string>>;
  private readonly memo: Record<NameKind, Map<string, boolean>> = { header: new Map(), field: new Map(), query: new Map(), path: new Map() };

  constructor(extra: readonly string[] = []) {
    const extras = extra.map(normalizeName).filter((name) => name !== '');
    const set = (kind: NameKind) => new Set([...NAMED[kind].map(normalizeName), ...extras]);
    this.named = { header: set('header'), field: set('field'), query: set('query'), path: set('path') };
  }

  is(kind: NameKind, name: string): boolean {
    const memo = this.memo[kind];
    const known = memo.get(name);
    if (known !== undefined) return known;
    const normalized = normalizeName(name);
    const secret = this.named[kind].has(normalized) || (!NOT_SECRET_NORMALIZED.has(normalized) && FAMILIES.some((family) => normalized.includes(family)));
    if (memo.size < MEMO_LIMIT) memo.set(name, secret);
    return secret;
  }
}
