import fc from 'fast-check';
import type { OperationModel, ParameterModel } from './operations.js';
import { defineOwn, IdRef, isIdName, PROTOTYPE_KEYS, RESERVED_IDS, type Schema, type SchemaArbitraries } from './schema-arbitraries.js';

/** A path segment sent exactly as written (not percent-encoded): `..`, `%`, broken escapes. */
export interface RawSegment {
  raw: string;
}

export type PathValue = string | IdRef | RawSegment;
/** `hostile`: the key is a hostile string (header.hostile), which no workspace has. */
export type Auth = 'x-api-key' | 'bearer' | 'none' | 'unknown-key' | 'wrong-key-first' | 'hostile';
export type Body =
  | { kind: 'none' }
  | { kind: 'json'; value: unknown; contentType: string }
  | { kind: 'raw'; text: string; contentType: string | undefined };

/** A request as generated, before the workspace's ids are filled in. */
export interface FuzzRequest {
  method: string;
  pathParams: Record<string, PathValue>;
  query: Array<[string, unknown]>;
  /** Appended to the query string unencoded. */
  rawQuery: string;
  headers: Record<string, string>;
  auth: Auth;
  body: Body;
  /** What was done to the valid request, for the failure report and the statistics. */
  mutations: string[];
}

// ----------------------------------------------------------------- hostile values

const WRONG_TYPE_VALUES: unknown[] = [0, 1.5, -1, 1e308, 'text', '', true, false, null, [], {}, ['a'], { a: 1 }];
const EXTRA_KEYS = [...PROTOTYPE_KEYS, 'toString', 'hasOwnProperty', 'unknownField', 'scheduled_for', 'a'.repeat(300), '🔑', ''];
const EXTRA_VALUES: unknown[] = [{ polluted: 'yes' }, { prototype: { polluted: 'yes' } }, 'x', 1, null, []];
/** Text that breaks naive code: NUL, lone surrogates, direction overrides, joiners, BOM, line separators, injections. */
export const NASTY_STRINGS = [
  '\u0000',
  '\ud800',
  '\udfff\ud800',
  'a\u202eb',
  '👩‍👩‍👧‍👦',
  'e\u0301\u0301\u0301',
  '\ufeffbom',
  '\u2028\u2029',
  '𝕳𝖊𝖑𝖑𝖔',
  'Ω≈ç√∫˜µ≤≥÷',
  '<script>alert(1)</script>',
  "'; DROP TABLE posts; --",
  '../../../etc/passwd',
  '%00%2e%2e%2f',
  '{{7*7}}${7*7}',
  '__proto__',
  ' ',
  'null',
  // Patterns a backtracking engine takes exponential time on, for the fields that are regular expressions (rule matchers).
  '^(a+)+$',
  '(a|aa)+$',
  '(.*a){25}',
  '(x+x+)+y',
];
/**
 * Hostile strings (issue 35): lone surrogates, NUL and other control characters, direction marks,
 * stacked combining marks, 100 KB. Each is at least six characters, the length from which a value
 * sent under a secret name is searched for in what the journal keeps: a one-character `\ud800`
 * never reached the redactor's encoding, which `\ud800abcdefgh` as a webhook secret did, and
 * ended the process.
 */
export const HOSTILE_STRINGS = [
  '\ud800abcdefgh',
  'abcdefgh\udfff',
  'sec\udc00\ud800ret-value',
  'a\u0000b\u0001c\u0008d\u001b[31me\u007f\u0085f',
  'line\r\nX-Injected: yes\r\n\r\n',
  '\u202eabc\u202d\u200f\u061c\u2066rtl\u2069',
  `e${'\u0301'.repeat(64)}z\u0489\u0489\u0489`,
  'h'.repeat(100_000),
  `${'\u202e'.repeat(8)}${'\u0645\u0631'.repeat(50_000)}\ud800`,
];
/** Names a secret travels under: each hostile header and query value goes under one of them too. */
const SECRET_HEADERS = ['Authorization', 'X-Api-Key', 'X-Control-Token', 'Cookie', 'Idempotency-Key', 'X-Webhook-Secret', 'Proxy-Authorization'];
const SECRET_QUERY_NAMES = ['api_key', 'token', 'access_token', 'secret', 'password', 'signature'];

/**
 * A hostile string as an HTTP client can send it in a header: its UTF-8 bytes one per latin1
 * character (a lone surrogate as U+FFFD's), without the control characters Node's client
 * refuses to send (the server's parser refuses them too: test/security/hostile-strings.test.ts
 * sends them raw).
 */
export function headerForm(text: string): string {
  // eslint-disable-next-line no-control-regex
  return Buffer.from(text, 'utf8').toString('latin1').replace(/[\u0000-\u0008\u000a-\u001f\u007f]/g, '');
}

/** Nesting depths for body.deep: each far past the server's limit of 64 levels. */
const DEEP_DEPTHS = [80, 200, 600];

/** `depth` levels of arrays (`[[…]]`) or objects (`{"a":{…}}`), built without recursion. */
export function nestedValue(depth: number, arrays: boolean): unknown {
  let value: unknown = 0;
  for (let level = 0; level < depth; level++) value = arrays ? [value] : { a: value };
  return value;
}

const TOP_LEVEL_BODIES: unknown[] = [null, 42, 'text', true, []];
const CONTENT_TYPES: Array<string | undefined> = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=fuzz',
  'application/xml',
  undefined,
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/vnd.api+json',
  'application/jsonx',
  'image/png',
];
const BAD_QUERY_VALUES = ['abc', '-1', '0', '1e309', '0x10', '', ' ', '1.5', 'true', '999999999999999999999', '2026-13-45T99:99:99Z', 'null', '[]'];
const UNKNOWN_QUERY_NAMES = ['colour', '__proto__', '__proto__[polluted]', 'constructor[prototype][polluted]', 'limit[]', 'x'.repeat(200), 'sort_by'];
const RAW_QUERIES = ['%', '%E0%A4%A', '&&&', '=', '==x', 'limit=%FF', '%00=%00', 'a[b][c][d][e][f]=1', 'cursor=%ED%A0%80'];
const WEIRD_SEGMENTS = ['..', '.', '%2e%2e', '%', '%E0%A4%A', '%2F', 'a%2Fb', '%00', 'caf\u00e9', 'x'.repeat(3000), '%F0%9F%98%80', '~', '*', "'"];
const IDEMPOTENCY_KEYS = ['x'.repeat(256), '__proto__', 'constructor', 'toString', ' padded ', 'same-key'];
const AUTHS: Auth[] = ['none', 'unknown-key', 'wrong-key-first', 'bearer'];

// ----------------------------------------------------------------- paths inside a JSON value

type Segment = string | number;
interface Located {
  path: Segment[];
  value: unknown;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof IdRef);
}

function locate(value: unknown, path: Segment[] = [], found: Located[] = []): Located[] {
  found.push({ path, value });
  if (Array.isArray(value)) value.forEach((item, i) => locate(item, [...path, i], found));
  else if (isObject(value)) for (const key of Object.keys(value)) locate(value[key], [...path, key], found);
  return found;
}

/** A copy that keeps IdRefs as they are and `__proto__` keys as own properties. */
export function cloneValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(cloneValue);
  if (isObject(value)) {
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(value)) defineOwn(copy, key, cloneValue(value[key]));
    return copy;
  }
  return value;
}

function setAt(root: unknown, path: Segment[], replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  let parent = root as Record<string | number, unknown>;
  for (const segment of path.slice(0, -1)) parent = parent[segment] as Record<string | number, unknown>;
  const last = path[path.length - 1] as Segment;
  if (Array.isArray(parent)) parent[last as number] = replacement;
  else defineOwn(parent, String(last), replacement);
  return root;
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (value instanceof IdRef) return 'string';
  return typeof value;
}

function pickFrom<T>(items: readonly T[], pick: number): T | undefined {
  return items.length === 0 ? undefined : items[pick % items.length];
}

// ----------------------------------------------------------------- mutations

export const MUTATIONS = [
  'body.wrongType',
  'body.dropKey',
  'body.extraKey',
  'body.null',
  'body.arrayForObject',
  'body.objectForArray',
  'body.boundary',
  'body.huge',
  'body.deep',
  'body.unicode',
  'body.hostile',
  'body.topLevel',
  'body.contentType',
  'body.malformed',
  'body.absentOrUnexpected',
  'query.wrongType',
  'query.unknown',
  'query.duplicate',
  'query.huge',
  'query.unicode',
  'query.raw',
  'query.hostile',
  'path.foreign',
  'path.reserved',
  'path.weird',
  'header.idempotencyKey',
  'header.hostile',
  'auth',
  'method',
] as const;
export type MutationKind = (typeof MUTATIONS)[number];

export interface MutationSpec {
  kind: MutationKind;
  pick: number;
  pick2: number;
}

/** Mutations that can apply to the operation (a path mutation needs a path parameter). */
export function mutationsFor(op: OperationModel): MutationKind[] {
  const hasPath = op.parameters.some((p) => p.in === 'path');
  const hasIdempotency = op.parameters.some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key');
  return MUTATIONS.filter((kind) => {
    if (kind.startsWith('body.') && kind !== 'body.absentOrUnexpected') return op.body !== undefined;
    if (kind.startsWith('path.')) return hasPath;
    if (kind === 'header.idempotencyKey') return hasIdempotency;
    if (kind === 'method') return op.pathMethods.length < 5;
    return true;
  });
}

function mutateJson(request: FuzzRequest, mutate: (value: unknown) => unknown): FuzzRequest {
  if (request.body.kind !== 'json') return request;
  return { ...request, body: { ...request.body, value: mutate(cloneValue(request.body.value)) } };
}

function stringPaths(value: unknown): Located[] {
  return locate(value).filter((entry) => typeof entry.value === 'string' || entry.value instanceof IdRef);
}

/** Values just inside and just outside a field's bounds. */
function boundaryValues(schema: Schema | undefined, current: unknown): unknown[] {
  if (!schema) return [];
  const values: unknown[] = [];
  if (typeof current === 'string' || current instanceof IdRef || schema.type === 'string') {
    if (schema.minLength !== undefined && schema.minLength > 0) values.push('y'.repeat(schema.minLength - 1), 'y'.repeat(schema.minLength));
    if (schema.maxLength !== undefined) values.push('z'.repeat(schema.maxLength), 'z'.repeat(schema.maxLength + 1), '😀'.repeat(schema.maxLength), '😀'.repeat(schema.maxLength + 1));
  }
  if (Array.isArray(current) || schema.type === 'array') {
    const item = Array.isArray(current) && current.length > 0 ? current[0] : 'item';
    if (schema.minItems !== undefined && schema.minItems > 0) values.push(Array.from({ length: schema.minItems - 1 }, () => cloneValue(item)));
    if (schema.maxItems !== undefined) values.push(Array.from({ length: schema.maxItems + 1 }, () => cloneValue(item)));
  }
  if (schema.type === 'integer' || schema.type === 'number') {
    if (schema.minimum !== undefined) values.push(schema.minimum, schema.minimum - 1);
    if (schema.maximum !== undefined) values.push(schema.maximum, schema.maximum + 1);
    if (schema.type === 'integer') values.push(1.5, Number.MAX_SAFE_INTEGER + 2);
  }
  return values;
}

const MALFORMED: Array<(json: string) => string> = [
  (json) => json.slice(0, Math.max(1, Math.floor(json.length / 2))),
  (json) => `${json}}`,
  (json) => `${json} trailing`,
  (json) => `\ufeff${json}`,
  (json) => `/* comment */ ${json}`,
  () => "{'single': 'quotes'}",
  () => '{"n": NaN}',
  () => '['.repeat(5000) + ']'.repeat(5000),
  () => '{"a":1,"a":2}',
  () => '',
  () => '{"a":"\\ud800"}',
  () => '{"a": 1e999999}',
];

/**
 * Applies one mutation. Every choice comes from `pick`/`pick2`, so a failing case
 * replays and shrinks; a mutation with nothing to aim at leaves the request alone.
 */
export function applyMutation(request: FuzzRequest, spec: MutationSpec, op: OperationModel, arbitraries: SchemaArbitraries): FuzzRequest {
  const { pick, pick2 } = spec;
  const labelled = (next: FuzzRequest): FuzzRequest => ({ ...next, mutations: [...request.mutations, spec.kind] });
  const bodySchema = op.body?.schema ?? {};
  switch (spec.kind) {
    case 'body.wrongType':
      return labelled(
        mutateJson(request, (value) => {
          const target = pickFrom(locate(value), pick);
          if (!target) return value;
          const replacement = pickFrom(WRONG_TYPE_VALUES.filter((candidate) => jsonType(candidate) !== jsonType(target.value)), pick2);
          return setAt(value, target.path, cloneValue(replacement));
        }),
      );
    case 'body.dropKey':
      return labelled(
        mutateJson(request, (value) => {
          const target = pickFrom(locate(value).filter((entry) => isObject(entry.value) && Object.keys(entry.value).length > 0), pick);
          if (!target) return value;
          const object = target.value as Record<string, unknown>;
          delete object[pickFrom(Object.keys(object), pick2) as string];
          return value;
        }),
      );
    case 'body.extraKey':
      return labelled(
        mutateJson(request, (value) => {
          const target = pickFrom(locate(value).filter((entry) => isObject(entry.value)), pick);
          if (!target) return value;
          defineOwn(target.value as Record<string, unknown>, pickFrom(EXTRA_KEYS, pick2) as string, cloneValue(pickFrom(EXTRA_VALUES, pick2 >> 4)));
          return value;
        }),
      );
    case 'body.null':
      return labelled(
        mutateJson(request, (value) => {
          const target = pickFrom(locate(value), pick);
          return target ? setAt(value, target.path, null) : value;
        }),
      );
    case 'body.arrayForObject':
      return labelled(
        mutateJson(request, (value) => {
          const target = pickFrom(locate(value).filter((entry) => isObject(entry.value)), pick);
          return target ? setAt(value, target.path, [target.value]) : value;
        }),
      );
    case 'body.objectForArray':
      return labelled(
        mutateJson(request, (value) => {
          const target = pickFrom(locate(value).filter((entry) => Array.isArray(entry.value)), pick);
          return target ? setAt(value, target.path, { ...(target.value as unknown[]) }) : value;
        }),
      );
    case 'body.boundary':
      return labelled(
        mutateJson(request, (value) => {
          const candidates = locate(value).filter((entry) => entry.path.length > 0 && boundaryValues(arbitraries.schemaAt(bodySchema, entry.path), entry.value).length > 0);
          const target = pickFrom(candidates, pick);
          if (!target) return value;
          return setAt(value, target.path, pickFrom(boundaryValues(arbitraries.schemaAt(bodySchema, target.path), target.value), pick2));
        }),
      );
    case 'body.huge':
      return labelled(
        mutateJson(request, (value) => {
          // One time in four, past the 1 MiB body limit (413); otherwise 200 KB in one field.
          if (pick2 % 4 === 0) return isObject(value) ? setAt(value, ['padding'], 'p'.repeat(1_100_000)) : 'p'.repeat(1_100_000);
          const target = pickFrom(stringPaths(value), pick);
          return target ? setAt(value, target.path, (pick2 % 3 === 1 ? '😀' : 'h').repeat(100_000)) : value;
        }),
      );
    case 'body.deep':
      return labelled(
        mutateJson(request, (value) => {
          // Far past the server's nesting limit (64), in arrays or objects, at the top or in a field.
          const depth = DEEP_DEPTHS[pick2 % DEEP_DEPTHS.length] as number;
          const deep = nestedValue(depth, pick2 % 2 === 0);
          const target = pickFrom(locate(value), pick);
          return target ? setAt(value, target.path, deep) : deep;
        }),
      );
    case 'body.unicode':
      return labelled(
        mutateJson(request, (value) => {
          const target = pickFrom(stringPaths(value), pick);
          return target ? setAt(value, target.path, pickFrom(NASTY_STRINGS, pick2)) : value;
        }),
      );
    case 'body.hostile':
      return labelled(
        mutateJson(request, (value) => {
          const hostile = pickFrom(HOSTILE_STRINGS, pick2) as string;
          // Every string field at once, or one of them; and now and then a key.
          const targets = stringPaths(value);
          for (const target of pick % 2 === 0 ? targets : targets.slice(pick % Math.max(1, targets.length)).slice(0, 1)) value = setAt(value, target.path, hostile);
          const object = pick % 3 === 0 ? pickFrom(locate(value).filter((entry) => isObject(entry.value)), pick2) : undefined;
          if (object) defineOwn(object.value as Record<string, unknown>, hostile.slice(0, 300), 'x');
          return value;
        }),
      );
    case 'body.topLevel':
      return labelled(mutateJson(request, (value) => (pick2 % (TOP_LEVEL_BODIES.length + 1) === TOP_LEVEL_BODIES.length ? [value] : pickFrom(TOP_LEVEL_BODIES, pick2))));
    case 'body.contentType': {
      if (request.body.kind !== 'json') return request;
      const contentType = pickFrom(CONTENT_TYPES, pick2);
      const text = contentType === 'application/x-www-form-urlencoded' ? 'name=form&x=1' : JSON.stringify(request.body.value);
      return labelled({ ...request, body: { kind: 'raw', text, contentType } });
    }
    case 'body.malformed': {
      if (request.body.kind !== 'json') return request;
      const json = JSON.stringify(request.body.value) ?? '{}';
      return labelled({ ...request, body: { kind: 'raw', text: (pickFrom(MALFORMED, pick2) as (json: string) => string)(json), contentType: 'application/json' } });
    }
    case 'body.absentOrUnexpected': {
      if (op.body) return labelled({ ...request, body: { kind: 'none' } });
      // A body to an operation that takes none: small, broken, or past the body limit.
      const unexpected: Body[] = [
        { kind: 'json', value: { unexpected: pickFrom(EXTRA_VALUES, pick2 >> 2) }, contentType: 'application/json' },
        { kind: 'raw', text: '{"unexpected":', contentType: 'application/json' },
        { kind: 'raw', text: `{"padding":"${'p'.repeat(1_100_000)}"}`, contentType: 'application/json' },
        { kind: 'raw', text: 'plain words', contentType: 'text/plain' },
      ];
      return labelled({ ...request, body: pickFrom(unexpected, pick2) as Body });
    }
    case 'query.wrongType': {
      const declared = op.parameters.filter((p) => p.in === 'query');
      const name = pickFrom(declared, pick)?.name ?? 'limit';
      return labelled({ ...request, query: [...request.query.filter(([key]) => key !== name), [name, pickFrom(BAD_QUERY_VALUES, pick2)]] });
    }
    case 'query.unknown':
      return labelled({ ...request, query: [...request.query, [pickFrom(UNKNOWN_QUERY_NAMES, pick2) as string, 'x']] });
    case 'query.duplicate': {
      const entry = pickFrom(request.query, pick) ?? [pickFrom(op.parameters.filter((p) => p.in === 'query'), pick)?.name ?? 'limit', '1'];
      return labelled({ ...request, query: [...request.query, entry, [entry[0], pickFrom(['2', 'other', ''], pick2)]] });
    }
    case 'query.huge': {
      const name = pickFrom(op.parameters.filter((p) => p.in === 'query'), pick)?.name ?? 'padding';
      return labelled({ ...request, query: [...request.query.filter(([key]) => key !== name), [name, 'q'.repeat(pick2 % 2 === 0 ? 9_000 : 3_000)]] });
    }
    case 'query.unicode': {
      const name = pickFrom(op.parameters.filter((p) => p.in === 'query'), pick)?.name ?? 'q';
      return labelled({ ...request, query: [...request.query.filter(([key]) => key !== name), [name, pickFrom(NASTY_STRINGS, pick2)]] });
    }
    case 'query.raw':
      return labelled({ ...request, rawQuery: pickFrom(RAW_QUERIES, pick2) as string });
    case 'query.hostile': {
      // Every declared parameter, and one under a secret name; 100 KB ones make the URL too long (414).
      const hostile = pickFrom(HOSTILE_STRINGS, pick2) as string;
      const declared = op.parameters.filter((p) => p.in === 'query').map((p) => p.name);
      const secret = pickFrom(SECRET_QUERY_NAMES, pick) as string;
      return labelled({ ...request, query: [...request.query.filter(([key]) => !declared.includes(key)), ...declared.map((name): [string, unknown] => [name, hostile]), [secret, hostile]] });
    }
    case 'path.foreign':
    case 'path.reserved':
    case 'path.weird': {
      const name = pickFrom(Object.keys(request.pathParams), pick);
      if (name === undefined) return request;
      const value: PathValue = spec.kind === 'path.foreign' ? new IdRef('foreign', pick2) : spec.kind === 'path.reserved' ? (pickFrom(RESERVED_IDS, pick2) as string) : { raw: pickFrom(WEIRD_SEGMENTS, pick2) as string };
      return labelled({ ...request, pathParams: { ...request.pathParams, [name]: value } });
    }
    case 'header.idempotencyKey':
      return labelled({ ...request, headers: { ...request.headers, 'Idempotency-Key': pickFrom(IDEMPOTENCY_KEYS, pick2) as string } });
    case 'header.hostile': {
      // Under a secret name (the key itself, now and then), and under a plain one.
      const name = pickFrom(SECRET_HEADERS, pick) as string;
      const value = headerForm(pickFrom(HOSTILE_STRINGS, pick2) as string);
      // A hostile key is the request's key: the key it had is not sent, and the answer is 401 (or 431 past the header limit).
      const auth: Auth = name === 'X-Api-Key' ? 'hostile' : request.auth;
      return labelled({ ...request, auth, headers: { ...request.headers, [name]: value, 'X-Hostile': value } });
    }
    case 'auth':
      // A hostile key stays the request's key.
      return request.auth === 'hostile' ? request : labelled({ ...request, auth: pickFrom(AUTHS, pick2) as Auth });
    case 'method': {
      const others = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].filter((method) => !op.pathMethods.includes(method) && !(method === 'HEAD' && op.pathMethods.includes('GET')));
      const method = pickFrom(others, pick2);
      return method ? labelled({ ...request, method }) : request;
    }
  }
}

// ----------------------------------------------------------------- valid requests

function parameterArbitrary(parameter: ParameterModel, arbitraries: SchemaArbitraries): fc.Arbitrary<unknown> {
  const schema = arbitraries.resolve(parameter.schema);
  if (parameter.in === 'header') {
    // Header values must be visible ASCII to travel at all.
    return fc.oneof(fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/), fc.uuid());
  }
  const fromSchema = arbitraries.valid(parameter.schema, parameter.name);
  const example = (schema as { example?: unknown }).example ?? (parameter as { example?: unknown }).example;
  return example === undefined ? fromSchema : fc.oneof({ weight: 2, arbitrary: fromSchema }, { weight: 1, arbitrary: fc.constant(example) });
}

/** A request the contract accepts (as far as the generator aims), with the workspace's own ids. */
export function validRequest(op: OperationModel, arbitraries: SchemaArbitraries): fc.Arbitrary<FuzzRequest> {
  const pathParams = op.parameters.filter((p) => p.in === 'path');
  const queryParams = op.parameters.filter((p) => p.in === 'query');
  const headerParams = op.parameters.filter((p) => p.in === 'header');

  const path = fc.tuple(
    ...pathParams.map((p) =>
      isIdName(p.name)
        ? fc.oneof({ weight: 8, arbitrary: fc.nat(1_000).map((index): PathValue => new IdRef('own', index)) }, { weight: 1, arbitrary: arbitraries.valid(p.schema, p.name).map((v) => String(v)) })
        : arbitraries.valid(p.schema, p.name).map((v) => String(v)),
    ),
  );
  const query = fc.tuple(...queryParams.map((p) => (p.required ? parameterArbitrary(p, arbitraries) : fc.option(parameterArbitrary(p, arbitraries), { nil: undefined }))));
  const headers = fc.tuple(...headerParams.map((p) => fc.option(parameterArbitrary(p, arbitraries), { nil: undefined })));
  const body: fc.Arbitrary<Body> = op.body
    ? fc.oneof(
        { weight: op.body.required ? 10 : 4, arbitrary: arbitraries.valid(op.body.schema).map((value): Body => ({ kind: 'json', value, contentType: 'application/json' })) },
        { weight: op.body.required ? 0 : 1, arbitrary: fc.constant<Body>({ kind: 'none' }) },
      )
    : fc.constant<Body>({ kind: 'none' });
  const auth = fc.oneof({ weight: 4, arbitrary: fc.constant<Auth>('x-api-key') }, { weight: 1, arbitrary: fc.constant<Auth>('bearer') });

  return fc.record({ path, query, headers, body, auth }).map(({ path: pathValues, query: queryValues, headers: headerValues, body: bodyValue, auth: authValue }) => {
    const request: FuzzRequest = { method: op.method, pathParams: {}, query: [], rawQuery: '', headers: {}, auth: authValue, body: bodyValue, mutations: [] };
    pathParams.forEach((p, i) => {
      request.pathParams[p.name] = pathValues[i] as PathValue;
    });
    queryParams.forEach((p, i) => {
      if (queryValues[i] !== undefined) request.query.push([p.name, queryValues[i]]);
    });
    headerParams.forEach((p, i) => {
      if (headerValues[i] !== undefined) request.headers[p.name] = String(headerValues[i]);
    });
    return request;
  });
}

/** A valid request with up to two mutations; about a third stay valid. */
export function fuzzRequest(op: OperationModel, arbitraries: SchemaArbitraries): fc.Arbitrary<FuzzRequest> {
  const kinds = mutationsFor(op);
  const spec = fc.record({ kind: fc.constantFrom(...kinds), pick: fc.nat(10_000), pick2: fc.nat(10_000) });
  const specs = fc.oneof({ weight: 1, arbitrary: fc.constant<MutationSpec[]>([]) }, { weight: 2, arbitrary: fc.array(spec, { minLength: 1, maxLength: 2 }) });
  return fc.tuple(validRequest(op, arbitraries), specs).map(([request, mutations]) => mutations.reduce((current, mutation) => applyMutation(current, mutation, op, arbitraries), request));
}
