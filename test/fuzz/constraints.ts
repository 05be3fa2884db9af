import fc from 'fast-check';
import type { OperationModel, ParameterModel } from './operations.js';
import { cloneValue, validRequest, type FuzzRequest } from './requests.js';
import { defineOwn, type Schema, type SchemaArbitraries } from './schema-arbitraries.js';

/*
 * Every constraint the contract declares on an operation's request, read from its
 * schemas (not written per operation), and for each a fast-check arbitrary of
 * requests that are valid except for breaking exactly that one constraint.
 *
 * The arbitraries aim; the oracle decides. A request whose valid part misses (a
 * generator that cannot hit a pattern and a length at once) or whose broken value
 * happens to pass is judged by ajv before it is sent, and is then counted as an
 * ordinary fuzzed request instead of a constraint case (see engine.ts).
 */

export const CONSTRAINT_KINDS = [
  'type',
  'enum',
  'format',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'minItems',
  'maxItems',
  'uniqueItems',
  'required',
  'additionalProperties',
  'minProperties',
  'maxProperties',
  'notJson',
  'contentType',
  'bodyMissing',
  'apiKey',
] as const;
export type ConstraintKind = (typeof CONSTRAINT_KINDS)[number];

type Segment = string | number;

/** One constraint of one operation's request. */
export interface Constraint {
  kind: ConstraintKind;
  /** Where the broken value goes. `request` is the request as a whole (its key, its body's bytes). */
  location: 'path' | 'query' | 'header' | 'body' | 'request';
  /** The field, as the API's `param` names it: `limit`, `Idempotency-Key`, `destinations[0].text`, `body`. */
  param: string;
  /** For `body`: the path of the value the constraint is on (for `required`, the missing field; for `additionalProperties`, the object). */
  path: Segment[];
  /** The schema that declares the constraint (the field's, or for `required` and `additionalProperties` the object's). */
  schema: Schema;
  /** The required or unknown field, for `required`; the parameter, for path/query/header. */
  field?: string;
}

/** `destinations[0].text` from `['destinations', 0, 'text']`, as src/http/error-mapping.ts names body fields. */
export function paramOf(path: readonly Segment[]): string {
  let param = '';
  for (const segment of path) param += typeof segment === 'number' ? `[${segment}]` : param === '' ? segment : `.${segment}`;
  return param === '' ? 'body' : param;
}

/** `Idempotency-Key` from `idempotency-key`, as the error envelope names a header. */
function headerParam(name: string): string {
  return name.toLowerCase().replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase());
}

function typeOf(schema: Schema): string | undefined {
  return schema.type ?? (schema.properties ? 'object' : undefined);
}

/** Constraints on one value's own schema (type, enum, format, bounds), wherever it sits. */
function valueConstraints(schema: Schema, base: Omit<Constraint, 'kind' | 'schema'>, text: boolean): Constraint[] {
  const found: Constraint[] = [];
  const add = (kind: ConstraintKind) => found.push({ ...base, kind, schema });
  const type = typeOf(schema);
  // Text parameters are strings on the wire: only a number or boolean type can be broken there.
  if (type !== undefined && (!text || type === 'integer' || type === 'number' || type === 'boolean')) add('type');
  if (schema.enum) add('enum');
  if (schema.format !== undefined && BAD_FORMATS[schema.format]) add('format');
  if (schema.pattern !== undefined) add('pattern');
  // An empty path segment is another route (`/v1/accounts/` lists accounts), not an empty id.
  if (schema.minLength !== undefined && schema.minLength > 0 && !(base.location === 'path' && schema.minLength === 1)) add('minLength');
  if (schema.maxLength !== undefined) add('maxLength');
  if (schema.minimum !== undefined) add('minimum');
  if (schema.maximum !== undefined) add('maximum');
  if (schema.minItems !== undefined && schema.minItems > 0) add('minItems');
  if (schema.maxItems !== undefined) add('maxItems');
  if (schema.uniqueItems) add('uniqueItems');
  return found;
}

/**
 * Walks a body schema: every field's constraints, `required` per required field and
 * `additionalProperties: false` per closed object. Inside a `oneOf`/`anyOf` a broken
 * value can match another branch, so only the branch point itself is walked no further.
 */
function bodyConstraints(raw: Schema, path: Segment[], arbitraries: SchemaArbitraries, depth = 0): Constraint[] {
  if (depth > 6) return [];
  let schema = arbitraries.resolve(raw);
  if (schema.allOf) schema = arbitraries.mergeAll(schema.allOf);
  if (schema.oneOf ?? schema.anyOf) return [];
  const param = paramOf(path);
  const found = valueConstraints(schema, { location: 'body', param, path }, false);
  const type = typeOf(schema);
  if (type === 'object') {
    const properties = schema.properties ?? {};
    for (const field of schema.required ?? []) found.push({ kind: 'required', location: 'body', param: paramOf([...path, field]), path, schema, field });
    if (schema.additionalProperties === false) found.push({ kind: 'additionalProperties', location: 'body', param, path, schema });
    if (schema.minProperties !== undefined && schema.minProperties > 0) found.push({ kind: 'minProperties', location: 'body', param, path, schema });
    if (schema.maxProperties !== undefined && schema.maxProperties < Object.keys(properties).length) found.push({ kind: 'maxProperties', location: 'body', param, path, schema });
    for (const [field, child] of Object.entries(properties)) found.push(...bodyConstraints(child, [...path, field], arbitraries, depth + 1));
  }
  if (type === 'array' && schema.items) found.push(...bodyConstraints(schema.items, [...path, 0], arbitraries, depth + 1));
  return found;
}

/** Every constraint the contract declares on the operation's request. */
export function constraintsOf(op: OperationModel, arbitraries: SchemaArbitraries): Constraint[] {
  const found: Constraint[] = [];
  for (const parameter of op.parameters) {
    if (parameter.in === 'cookie') continue;
    const param = parameter.in === 'header' ? headerParam(parameter.name) : parameter.name;
    const base = { location: parameter.in, param, path: [] as Segment[], field: parameter.name };
    const schema = arbitraries.resolve(parameter.schema);
    found.push(...valueConstraints(schema, base, true));
    if (parameter.required && parameter.in !== 'path') found.push({ ...base, kind: 'required', schema });
  }
  if (op.body) {
    const json = op.body.contentTypes.includes('application/json');
    if (json) {
      found.push(...bodyConstraints(op.body.schema, [], arbitraries));
      found.push({ kind: 'notJson', location: 'body', param: 'body', path: [], schema: op.body.schema });
    }
    found.push({ kind: 'contentType', location: 'request', param: 'Content-Type', path: [], schema: op.body.schema });
    if (op.body.required) found.push({ kind: 'bodyMissing', location: 'body', param: 'body', path: [], schema: op.body.schema });
  }
  // The API's one required header: its key (the control plane takes none unless --control-token is set).
  if (op.contract === 'api') found.push({ kind: 'apiKey', location: 'request', param: 'x-api-key', path: [], schema: {} });
  return found;
}

// ----------------------------------------------------------------- broken values

/** Text each format refuses: fast-check strings would rarely land anywhere near one. */
const BAD_FORMATS: Record<string, string[]> = {
  'date-time': ['2026-13-01T00:00:00Z', '2026-02-30T10:00:00Z', '2026-03-02 09:00:00', '2026-03-02T25:00:00Z', 'yesterday', '1710000000', '2026-03-02T09:00:00'],
  date: ['2026-13-01', '2026-02-30', '02/03/2026', 'today', '2026-3-2'],
  uri: ['not a uri', '//no-scheme', 'http//missing-colon', ':', 'a b'],
  uuid: ['3f1c2a9e-8b7d-4c6e-9a5f', 'not-a-uuid', '3f1c2a9e8b7d4c6e9a5f1d2e3b4c5a6fx'],
  email: ['no-at-sign', 'a@', '@b.example'],
};

/** Visible ASCII: the only text a header value can carry. */
const HEADER_TEXT = fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789-_'), minLength: 1, maxLength: 8 });

function textOfLength(min: number, max: number, header: boolean): fc.Arbitrary<string> {
  // Past a few hundred characters, a drawn tail on a repeated run: fast-check draws text a character at a time.
  if (min > 256) return textOfLength(0, Math.min(max - min, 16), header).map((tail) => 'x'.repeat(min) + tail);
  return header ? fc.string({ unit: fc.constantFrom(...'abcdef0123456789'), minLength: min, maxLength: max }) : fc.string({ minLength: min, maxLength: max });
}

/** JSON values of any type but `type` (and not null where the schema allows null). */
function wrongTypeValue(schema: Schema): fc.Arbitrary<unknown> {
  const type = typeOf(schema);
  const candidates: Array<[string, fc.Arbitrary<unknown>]> = [
    ['string', fc.string({ maxLength: 12 })],
    ['integer', fc.integer()],
    ['number', fc.integer({ min: -1_000_000, max: 1_000_000 }).map((n) => n + 0.5)],
    ['boolean', fc.boolean()],
    ['null', fc.constant(null)],
    ['array', fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 })],
    ['object', fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 })],
  ];
  const allowed = new Set([type, ...(type === 'number' ? ['integer'] : []), ...(schema.nullable ? ['null'] : [])]);
  return fc.oneof(...candidates.filter(([name]) => !allowed.has(name)).map(([, arbitrary]) => arbitrary));
}

/** What replaces the value a constraint is on (given the valid value that was there). */
type Breaker = fc.Arbitrary<(current: unknown) => unknown>;

function replaceWith(arbitrary: fc.Arbitrary<unknown>): Breaker {
  return arbitrary.map((value) => () => value);
}

/** Arbitraries of broken values for a value constraint; `text` for parameters (path, query, header). */
function breaker(constraint: Constraint, arbitraries: SchemaArbitraries, text: boolean): Breaker {
  const schema = constraint.schema;
  const header = constraint.location === 'header';
  const min = schema.minLength ?? 0;
  switch (constraint.kind) {
    case 'type':
      if (!text) return replaceWith(wrongTypeValue(schema));
      // A number or boolean parameter given words.
      return replaceWith(fc.stringMatching(/^[a-z][a-z_]{0,7}$/).map((word) => (word === 'true' || word === 'false' ? `${word}_` : word)));
    case 'enum': {
      const allowed = new Set((schema.enum ?? []).map(String));
      return replaceWith((header ? HEADER_TEXT : fc.string({ minLength: 1, maxLength: 16 })).map((value) => (allowed.has(value) ? `${value}-x` : value)));
    }
    case 'format':
      return replaceWith(fc.constantFrom(...(BAD_FORMATS[schema.format ?? ''] ?? ['x'])));
    case 'pattern': {
      const pattern = new RegExp(schema.pattern ?? '', 'u');
      const max = schema.maxLength ?? min + 16;
      // Within the field's lengths, so only the pattern is broken.
      // A draw that still matches is sent anyway: the oracle then counts it as plain fuzz (a filter could loop forever on `.*`).
      return replaceWith(textOfLength(Math.max(min, 1), Math.max(min, Math.min(max, min + 16)), header).map((value) => (pattern.test(value) ? `${value.slice(0, -1)} ` : value)));
    }
    case 'minLength':
      return replaceWith(textOfLength(0, min - 1, header));
    case 'maxLength': {
      const max = schema.maxLength ?? 0;
      return replaceWith(textOfLength(max + 1, max + 8, header));
    }
    case 'minimum': {
      const bound = schema.minimum ?? 0;
      return replaceWith(typeOf(schema) === 'integer' ? fc.integer({ min: bound - 1_000_000, max: bound - 1 }) : fc.double({ min: bound - 1_000_000, max: bound, maxExcluded: true, noNaN: true }));
    }
    case 'maximum': {
      const bound = schema.maximum ?? 0;
      return replaceWith(typeOf(schema) === 'integer' ? fc.integer({ min: bound + 1, max: bound + 1_000_000 }) : fc.double({ min: bound, max: bound + 1_000_000, minExcluded: true, noNaN: true }));
    }
    case 'minItems': {
      const below = (schema.minItems ?? 1) - 1;
      return fc.nat(below).map((length) => (current) => (Array.isArray(current) ? current.slice(0, length) : []));
    }
    case 'maxItems': {
      const max = schema.maxItems ?? 0;
      const item = arbitraries.valid(schema.items ?? {});
        // Not unique even under uniqueItems: an enum of `max` values has no `max + 1` distinct items.
      return replaceWith(fc.array(item, { minLength: max + 1, maxLength: max + 3 }));
    }
    case 'uniqueItems': {
      const item = arbitraries.valid(schema.items ?? {});
      const room = Math.max(1, (schema.maxItems ?? Infinity) - 1);
      return item.map((fresh) => (current) => {
        const items = Array.isArray(current) && current.length > 0 ? current.slice(0, room) : [fresh];
        return [...items, cloneValue(items[0])];
      });
    }
    case 'required': {
      const field = constraint.field ?? '';
      return fc.constant((current) => {
        if (typeof current !== 'object' || current === null || Array.isArray(current)) return current;
        const copy = cloneValue(current) as Record<string, unknown>;
        delete copy[field];
        return copy;
      });
    }
    case 'additionalProperties': {
      const declared = new Set(Object.keys(schema.properties ?? {}));
      const name = fc.stringMatching(/^[a-z][a-zA-Z0-9_]{0,15}$/).map((key) => (declared.has(key) ? `${key}_unknown` : key));
      return fc.tuple(name, fc.jsonValue({ maxDepth: 1 })).map(([key, value]) => (current) => {
        const copy = (typeof current === 'object' && current !== null && !Array.isArray(current) ? cloneValue(current) : {}) as Record<string, unknown>;
        defineOwn(copy, key, value);
        return copy;
      });
    }
    case 'minProperties': {
      const keep = (schema.minProperties ?? 1) - 1;
      return fc.constant((current) => {
        const copy: Record<string, unknown> = {};
        if (typeof current === 'object' && current !== null && !Array.isArray(current)) for (const key of Object.keys(current).slice(0, keep)) defineOwn(copy, key, (current as Record<string, unknown>)[key]);
        return copy;
      });
    }
    case 'maxProperties': {
      // Valid values for every declared field, added until there is one too many.
      const fields = Object.entries(schema.properties ?? {});
      const max = schema.maxProperties ?? 0;
      return fc.tuple(...fields.map(([, field]) => arbitraries.valid(field))).map((values) => (current) => {
        const copy = (typeof current === 'object' && current !== null && !Array.isArray(current) ? cloneValue(current) : {}) as Record<string, unknown>;
        fields.forEach(([name], i) => {
          if (Object.keys(copy).length <= max && !Object.hasOwn(copy, name)) defineOwn(copy, name, values[i]);
        });
        return copy;
      });
    }
    default:
      return fc.constant((current) => current);
  }
}

/**
 * A valid value of `raw` with the value at `path` present (optional fields and empty
 * arrays on the way are filled), and the same value with that one replaced by what
 * `replace` makes of it: `[valid, broken]`.
 */
function validWith(raw: Schema, path: Segment[], replace: Breaker, arbitraries: SchemaArbitraries): fc.Arbitrary<[unknown, unknown]> {
  let schema = arbitraries.resolve(raw);
  if (schema.allOf) schema = arbitraries.mergeAll(schema.allOf);
  // Never null on the way: a field filled into null would break `required` too.
  if (schema.nullable) schema = { ...schema, nullable: false };
  const [head, ...rest] = path;
  if (head === undefined) return fc.tuple(arbitraries.valid(schema), replace).map(([value, change]) => [value, change(cloneValue(value))]);
  if (typeof head === 'number') {
    const item = validWith(schema.items ?? {}, rest, replace, arbitraries);
    return fc.tuple(arbitraries.valid(schema), item).map(([value, pair]) => {
      const place = (inner: unknown) => {
        const items = Array.isArray(value) ? value.map(cloneValue) : [];
        if (items.length === 0) items.push(inner);
        else items[0] = inner;
        return items;
      };
      return [place(pair[0]), place(pair[1])];
    });
  }
  const child = validWith(schema.properties?.[head] ?? {}, rest, replace, arbitraries);
  return fc.tuple(arbitraries.valid(schema), child).map(([value, pair]) => {
    const place = (inner: unknown) => {
      const object = (typeof value === 'object' && value !== null && !Array.isArray(value) ? cloneValue(value) : {}) as Record<string, unknown>;
      defineOwn(object, head, inner);
      return object;
    };
    return [place(pair[0]), place(pair[1])];
  });
}

/** The parameter a path/query/header constraint is on. */
function parameterOf(op: OperationModel, constraint: Constraint): ParameterModel | undefined {
  return op.parameters.find((p) => p.in === constraint.location && p.name === constraint.field);
}

/** A constraint case: the valid request it started from and the request that breaks the constraint. */
export interface ConstraintCase {
  constraint: Constraint;
  valid: FuzzRequest;
  broken: FuzzRequest;
}

const NOT_JSON = fc.oneof(
  fc.constantFrom('{', '{"a":', "{'a': 1}", '{"a": NaN}', 'undefined', '[1,]', '{"a":1}}', 'nul', '<xml/>'),
  fc.string({ minLength: 1, maxLength: 24 }).map((text) => {
    try {
      JSON.parse(text);
      return `{${text}`;
    } catch {
      return text.trim() === '' ? `{${text}` : text;
    }
  }),
);
const NOT_JSON_TYPES = fc.constantFrom('text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=fuzz', 'image/png', 'application/octet-stream');

/** Requests valid but for breaking `constraint`. */
export function constraintCase(op: OperationModel, constraint: Constraint, arbitraries: SchemaArbitraries): fc.Arbitrary<ConstraintCase> {
  const label = `${constraint.kind}:${constraint.param}`;
  const broken = (valid: FuzzRequest, change: Partial<FuzzRequest>): ConstraintCase => ({ constraint, valid, broken: { ...valid, ...change, mutations: [label] } });
  // A body case starts from a request that has a JSON body (an optional body may be generated absent).
  const base = validRequest(op, arbitraries);
  switch (constraint.location) {
    case 'path':
    case 'query':
    case 'header': {
      const parameter = parameterOf(op, constraint);
      const name = parameter?.name ?? constraint.param;
      if (constraint.kind === 'required') return base.map((valid) => broken(valid, { query: valid.query.filter(([key]) => key !== name) }));
      return fc.tuple(base, breaker(constraint, arbitraries, true)).map(([valid, change]) => {
        const value = String(change(undefined));
        if (constraint.location === 'path') return broken(valid, { pathParams: { ...valid.pathParams, [name]: value } });
        if (constraint.location === 'header') return broken(valid, { headers: { ...valid.headers, [name]: value } });
        return broken(valid, { query: [...valid.query.filter(([key]) => key !== name), [name, value]] });
      });
    }
    case 'request':
      if (constraint.kind === 'apiKey') return base.map((valid) => broken(valid, { auth: 'none' }));
      return fc.tuple(base, NOT_JSON_TYPES).map(([valid, contentType]) => broken(valid, { body: { kind: 'raw', text: valid.body.kind === 'json' ? (JSON.stringify(valid.body.value) ?? '{}') : '{}', contentType } }));
    case 'body': {
      if (constraint.kind === 'bodyMissing') return base.map((valid) => broken(valid, { body: { kind: 'none' } }));
      if (constraint.kind === 'notJson') return fc.tuple(base, NOT_JSON).map(([valid, text]) => broken(valid, { body: { kind: 'raw', text, contentType: 'application/json' } }));
      const bodySchema = op.body?.schema ?? {};
      const change = breaker(constraint, arbitraries, false);
      // `required` removes a field of the object at `path`; the rest replace the value at `path`.
      return fc.tuple(base, validWith(bodySchema, constraint.path, change, arbitraries)).map(([request, [before, after]]) => {
        const valid: FuzzRequest = { ...request, body: { kind: 'json', value: before, contentType: 'application/json' } };
        return broken(valid, { body: { kind: 'json', value: after, contentType: 'application/json' } });
      });
    }
  }
}
