import fc from 'fast-check';
import { resolvePointer as resolveJsonPointer } from '../../src/lib/json-pointer.js';

/** The subset of JSON Schema (OpenAPI 3.0 flavour) the contracts' requests use. */
export interface Schema {
  $ref?: string;
  type?: string;
  nullable?: boolean;
  enum?: unknown[];
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  minProperties?: number;
  maxProperties?: number;
  oneOf?: Schema[];
  anyOf?: Schema[];
  allOf?: Schema[];
  example?: unknown;
  'x-known-values'?: unknown[];
}

/**
 * An id the generator cannot know yet: the request runs against a workspace created
 * for the property, so ids are picked from it (or from another workspace, `foreign`)
 * when the request is sent. `index` picks one; shrinking moves it towards 0.
 */
export class IdRef {
  constructor(
    readonly pool: 'own' | 'foreign',
    readonly index: number,
  ) {}

  toJSON(): string {
    return `<${this.pool} id #${this.index}>`;
  }
}

/** Key names that reach Object.prototype when a server copies or merges carelessly. */
export const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype'] as const;

/** Ids that name members of Object.prototype: a lookup `records[id]` finds them without an own record. */
export const RESERVED_IDS = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'prototype', '__defineGetter__'];

/** Sets a property as an own, enumerable one, even `__proto__` (a plain assignment would set the prototype). */
export function defineOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

/** Field names that hold ids of the workspace's own records (so valid requests can hit real ones). */
export function isIdName(name: string | undefined): boolean {
  return name !== undefined && (/^(id|post)$/.test(name) || /[a-z]Id$/.test(name));
}

/** Length as JSON Schema counts it: code points, not UTF-16 units. */
export function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

const MAX_DEPTH = 8;

/** Instants `date-time` and `date` values are drawn between (milliseconds), unless a generator is given its own. */
const DEFAULT_DATE_RANGE: readonly [number, number] = [Date.parse('2000-01-01T00:00:00Z'), Date.parse('2099-12-31T00:00:00Z')];

function formatArbitrary(format: string, [from, to]: readonly [number, number]): fc.Arbitrary<string> | undefined {
  switch (format) {
    case 'uri':
      return fc.oneof(fc.webUrl({ withQueryParameters: true, withFragments: true }), fc.constantFrom('https://cdn.example/a.png', 'http://127.0.0.1:4010/__media/x.jpg', 'mailto:a@b.example', 'urn:isbn:0451450523'));
    case 'date-time':
      return fc
        .record({
          ms: fc.integer({ min: from, max: to }),
          offset: fc.constantFrom('Z', '+00:00', '+05:30', '-08:00', '+14:00'),
          millis: fc.boolean(),
        })
        .map(({ ms, offset, millis }) => {
          const iso = new Date(ms).toISOString();
          return (millis ? iso.slice(0, -1) : iso.slice(0, 19)) + offset;
        });
    case 'date':
      return fc.integer({ min: from, max: to }).map((ms) => new Date(ms).toISOString().slice(0, 10));
    case 'uuid':
      return fc.uuid();
    default:
      return undefined;
  }
}

/** Text of `min` to `max` code points: mostly ASCII, some any-script graphemes, some any code point, and the bounds exactly. */
function textArbitrary(min: number, max: number | undefined): fc.Arbitrary<string> {
  const cap = max ?? min + 60;
  const small = Math.min(cap, min + 24);
  const choices: Array<fc.WeightedArbitrary<string>> = [
    { weight: 6, arbitrary: fc.string({ minLength: min, maxLength: small }) },
    { weight: 2, arbitrary: fc.string({ minLength: min, maxLength: small, unit: 'grapheme-composite' }) },
    { weight: 1, arbitrary: fc.string({ minLength: min, maxLength: small, unit: 'binary' }) },
    { weight: 1, arbitrary: fc.constant('x'.repeat(min)) },
  ];
  if (max !== undefined) choices.push({ weight: 1, arbitrary: fc.constantFrom('é'.repeat(max), 'x'.repeat(max)) });
  return fc.oneof(...choices);
}

export interface GeneratorOptions {
  /** The document `$ref`s point into. */
  document: unknown;
  /** Share of id-named string fields filled from the workspaces' ids (0 to 1). */
  idWeight?: number;
  /**
   * Instants (ms) to draw dates between; 2000 to 2099 by default. A fuzz that sends them to
   * `POST /__control/clock/set` keeps them near its clock: every virtual hour crossed runs the
   * world's jobs (docs/reliability.md).
   */
  dateRange?: readonly [number, number];
  /** Arbitraries to use for the schemas these JSON pointers name (`#/components/schemas/X/properties/y`), instead of ones built from them. */
  overrides?: Record<string, fc.Arbitrary<unknown>>;
}

/**
 * JSON Schema to fast-check: arbitraries that aim at values the schema accepts.
 * They need not be perfect (a grapheme can be two code points, a pattern and a
 * length can pull apart): the fuzz test judges every value with ajv afterwards,
 * so an aim that misses simply becomes one more invalid input.
 */
export class SchemaArbitraries {
  /**
   * Arbitraries already built, by schema, then by the name and depth they were built for (a name
   * marks ids, a depth past MAX_DEPTH stops a nesting). An arbitrary only describes how to draw a
   * value, so one built again draws exactly what the kept one does; building them again for every
   * request was a tenth of the fuzz's CPU (fast-check's `string` works out its slices on each build).
   */
  private readonly cache = new WeakMap<object, Map<string, fc.Arbitrary<unknown>>>();

  /** `options.overrides`, by the schema object each pointer names. */
  private readonly overrides = new Map<object, fc.Arbitrary<unknown>>();

  constructor(private readonly options: GeneratorOptions) {
    for (const [pointer, arbitrary] of Object.entries(options.overrides ?? {})) this.overrides.set(resolvePointer(options.document, pointer) as object, arbitrary);
  }

  /** Follows `$ref` (local JSON pointers) to the schema it names. */
  resolve(schema: Schema): Schema {
    let current = schema;
    for (let hops = 0; current.$ref !== undefined; hops++) {
      if (hops > 32) throw new Error(`$ref loop at ${current.$ref}`);
      current = resolvePointer(this.options.document, current.$ref) as Schema;
    }
    return current;
  }

  valid(schema: Schema, name?: string, depth = 0): fc.Arbitrary<unknown> {
    let built = this.cache.get(schema);
    if (built === undefined) this.cache.set(schema, (built = new Map()));
    const key = `${depth}:${name ?? ''}`;
    const cached = built.get(key);
    if (cached) return cached;
    const arbitrary = this.build(schema, name, depth);
    built.set(key, arbitrary);
    return arbitrary;
  }

  private build(raw: Schema, name: string | undefined, depth: number): fc.Arbitrary<unknown> {
    const override = this.overrides.get(raw) ?? this.overrides.get(this.resolve(raw));
    if (override) return override;
    const schema = this.resolve(raw);
    if (depth > MAX_DEPTH) return fc.constant(null);
    const base = this.nonNull(schema, name, depth);
    return schema.nullable ? fc.oneof({ weight: 5, arbitrary: base }, { weight: 1, arbitrary: fc.constant(null) }) : base;
  }

  private nonNull(schema: Schema, name: string | undefined, depth: number): fc.Arbitrary<unknown> {
    if (schema.enum) return fc.constantFrom(...schema.enum);
    if (schema.oneOf ?? schema.anyOf) return fc.oneof(...(schema.oneOf ?? schema.anyOf ?? []).map((branch) => this.valid(branch, name, depth + 1)));
    if (schema.allOf) return this.valid(this.mergeAll(schema.allOf), name, depth + 1);
    const type = schema.type ?? (schema.properties ? 'object' : undefined);
    switch (type) {
      case 'string':
        return this.string(schema, name);
      case 'integer':
        return this.number(schema, true);
      case 'number':
        return this.number(schema, false);
      case 'boolean':
        return fc.boolean();
      case 'array':
        return this.array(schema, name, depth);
      case 'object':
        return this.object(schema, depth);
      default:
        return fc.jsonValue({ maxDepth: 2 });
    }
  }

  private string(schema: Schema, name: string | undefined): fc.Arbitrary<unknown> {
    const min = schema.minLength ?? 0;
    const max = schema.maxLength;
    const pattern = schema.pattern !== undefined ? new RegExp(schema.pattern, 'u') : undefined;
    const format = schema.format !== undefined ? formatArbitrary(schema.format, this.options.dateRange ?? DEFAULT_DATE_RANGE) : undefined;
    let text: fc.Arbitrary<string>;
    if (format) text = pattern ? format.filter((value) => pattern.test(value)) : format;
    else if (pattern) text = fc.stringMatching(pattern);
    else text = textArbitrary(min, max);
    if (format || pattern) text = text.filter((value) => codePoints(value) >= min && (max === undefined || codePoints(value) <= max));
    const known = schema['x-known-values'];
    if (known && known.length > 0) text = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...(known as string[])) }, { weight: 1, arbitrary: text });
    if (!format && !pattern && isIdName(name)) {
      const weight = Math.round((this.options.idWeight ?? 0.7) * 10);
      return fc.oneof(
        { weight, arbitrary: fc.nat(1_000).map((index) => new IdRef('own', index)) },
        { weight: 1, arbitrary: fc.nat(1_000).map((index) => new IdRef('foreign', index)) },
        { weight: Math.max(1, 10 - weight), arbitrary: text },
        // Now and then an id that is a member of Object.prototype (found a 500 in `?post=constructor`).
        { weight: 1, arbitrary: fc.constantFrom(...RESERVED_IDS) },
      );
    }
    return text;
  }

  private number(schema: Schema, integer: boolean): fc.Arbitrary<number> {
    const min = schema.minimum ?? (schema.maximum !== undefined ? schema.maximum - 1_000_000 : -1_000_000);
    const max = schema.maximum ?? min + 1_000_000;
    const inner = integer ? fc.integer({ min: Math.ceil(min), max: Math.floor(max) }) : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
    return fc.oneof({ weight: 4, arbitrary: inner }, { weight: 1, arbitrary: fc.constantFrom(integer ? Math.ceil(min) : min, integer ? Math.floor(max) : max) });
  }

  private array(schema: Schema, name: string | undefined, depth: number): fc.Arbitrary<unknown[]> {
    const item = this.valid(schema.items ?? {}, name, depth + 1);
    const minLength = schema.minItems ?? 0;
    const declaredMax = schema.maxItems ?? minLength + 4;
    const maxLength = Math.min(declaredMax, minLength + 4);
    const short = schema.uniqueItems ? fc.uniqueArray(item, { minLength, maxLength, selector: (value) => JSON.stringify(value) }) : fc.array(item, { minLength, maxLength });
    if (declaredMax <= maxLength) return short;
    // Now and then exactly as many items as allowed.
    const full = schema.uniqueItems
      ? fc.uniqueArray(item, { minLength: declaredMax, maxLength: declaredMax, selector: (value) => JSON.stringify(value) })
      : fc.array(item, { minLength: declaredMax, maxLength: declaredMax });
    return fc.oneof({ weight: 6, arbitrary: short }, { weight: 1, arbitrary: full });
  }

  private object(schema: Schema, depth: number): fc.Arbitrary<Record<string, unknown>> {
    const properties = schema.properties ?? {};
    const names = Object.keys(properties);
    if (names.length === 0) {
      // A map: free-form (metadata: any JSON) or typed (`additionalProperties: <schema>`), prototype-ish keys included.
      if (schema.additionalProperties === false) return fc.constant({});
      const key = fc.oneof({ weight: 5, arbitrary: fc.string({ minLength: 1, maxLength: 12 }) }, { weight: 1, arbitrary: fc.constantFrom(...PROTOTYPE_KEYS) });
      const item = typeof schema.additionalProperties === 'object' ? this.valid(schema.additionalProperties, undefined, depth + 1) : fc.jsonValue({ maxDepth: 2 });
      return fc.array(fc.tuple(key, item), { maxLength: 4 }).map((entries) => {
        const map: Record<string, unknown> = {};
        for (const [k, v] of entries) defineOwn(map, k, v);
        return map;
      });
    }
    const required = new Set(schema.required ?? []);
    const fields = names.map((field) => {
      const arbitrary = this.valid(properties[field] as Schema, field, depth + 1);
      return required.has(field) ? fc.tuple(fc.constant(field), arbitrary.map((value) => ({ value }))) : fc.tuple(fc.constant(field), fc.option(arbitrary.map((value) => ({ value })), { nil: undefined }));
    });
    let record = fc.tuple(...fields).map((pairs) => {
      const value: Record<string, unknown> = {};
      for (const [field, holder] of pairs) if (holder !== undefined) defineOwn(value, field, holder.value);
      return value;
    });
    const minProperties = schema.minProperties ?? 0;
    const maxProperties = schema.maxProperties ?? Infinity;
    if (minProperties > 0 || maxProperties < names.length) record = record.filter((value) => Object.keys(value).length >= minProperties && Object.keys(value).length <= maxProperties);
    return record;
  }

  /** `allOf` branches merged into one object schema (properties, required, additionalProperties). */
  mergeAll(branches: Schema[]): Schema {
    const merged: Schema = { type: 'object', properties: {}, required: [] };
    for (const branch of branches.map((b) => this.resolve(b))) {
      Object.assign(merged.properties as object, branch.properties ?? {});
      merged.required = [...(merged.required ?? []), ...(branch.required ?? [])];
      if (branch.additionalProperties === false) merged.additionalProperties = false;
    }
    return merged;
  }

  /**
   * The schema of the value at `path` inside a value of `schema` (for mutations
   * that aim at a field's bounds); undefined where the schema says nothing.
   */
  schemaAt(schema: Schema, path: ReadonlyArray<string | number>): Schema | undefined {
    let current: Schema | undefined = this.resolve(schema);
    for (const segment of path) {
      if (!current) return undefined;
      if (current.oneOf ?? current.anyOf) current = this.resolve((current.oneOf ?? current.anyOf ?? [])[0] ?? {});
      if (typeof segment === 'number') current = current.items ? this.resolve(current.items) : undefined;
      else {
        const property: Schema | undefined = current.properties?.[segment];
        const extra = current.additionalProperties;
        current = property ? this.resolve(property) : typeof extra === 'object' ? this.resolve(extra) : undefined;
      }
    }
    return current;
  }
}

/** Follows a local JSON pointer (`#/components/schemas/Post`) in `document`. */
export function resolvePointer(document: unknown, ref: string): unknown {
  if (!ref.startsWith('#/')) throw new Error(`only local $ref is supported, got ${ref}`);
  const found = resolveJsonPointer(document, ref);
  if (!found.found || found.value === undefined) throw new Error(`$ref ${ref} points at nothing`);
  return found.value;
}
