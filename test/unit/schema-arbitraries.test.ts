import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadSpec } from '../../src/http/spec.js';
import { operationModels } from '../fuzz/operations.js';
import { applyMutation, type FuzzRequest } from '../fuzz/requests.js';
import { codePoints, IdRef, SchemaArbitraries, type Schema } from '../fuzz/schema-arbitraries.js';
import { percentEncode, resolveIds } from '../fuzz/wire.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const contracts = ([['openapi.yaml', 'api'], ['control.yaml', 'control']] as const).map(([file, name]) => {
  const spec = loadSpec(file);
  const ajv = new Ajv({ strict: false, validateSchema: false });
  addFormats(ajv);
  ajv.addSchema(spec.document as object, 'contract');
  return { name, document: spec.document, ajv, arbitraries: new SchemaArbitraries({ document: spec.document }) };
});

const pools = { own: ['3f1c2a9e-8b7d-4c6e-9a5f-1d2e3b4c5a6f'], foreign: ['0f8e7d6c-5b4a-4392-8a1b-2c3d4e5f6a7b'] };

// Every JSON body of both contracts, wherever its schema is written (a named schema, a named
// request body, or inline in the operation).
const bodies = contracts.flatMap(({ name, document, ajv, arbitraries }) =>
  operationModels(document, name)
    .flatMap((op) => (op.body?.contentTypes.includes('application/json') && Object.keys(op.body.schema).length > 0 ? [op.body] : []).map((body) => [op.operationId, body.schema, body.schemaPointer, ajv, arbitraries] as const)),
);

describe('SchemaArbitraries.valid', () => {
  it('has the bodies the fuzz aims at, named request bodies among them', () => {
    expect(bodies.map(([id]) => id)).toEqual(expect.arrayContaining(['createPost', 'createWebhook', 'createAutomation', 'createWorkspace', 'setWebhookFaults']));
  });

  it.each(bodies)('aims at values the contract accepts for the %s body', (_id, schema, pointer, ajv, arbitraries) => {
    const validate = ajv.compile({ $ref: `contract${pointer}` });
    const samples = fc.sample(arbitraries.valid(schema), { numRuns: 60, seed: 42 }).map((value) => resolveIds(value, pools));
    const accepted = samples.filter((value) => validate(value)).length;
    // Not every aim lands (a grapheme can be two code points); the fuzz judges each value anyway.
    expect(accepted / samples.length, JSON.stringify(validate.errors)).toBeGreaterThanOrEqual(0.75);
  });

  it.each([
    [{ type: 'string', minLength: 3, maxLength: 5 } as Schema, (v: unknown) => typeof v === 'string' && codePoints(v) >= 3 && codePoints(v) <= 5],
    [{ type: 'string', pattern: '^[a-z0-9]{4}-[a-z0-9]{4}$' } as Schema, (v: unknown) => typeof v === 'string' && /^[a-z0-9]{4}-[a-z0-9]{4}$/.test(v)],
    [{ type: 'string', format: 'date-time' } as Schema, (v: unknown) => typeof v === 'string' && !Number.isNaN(Date.parse(v)) && /(Z|[+-]\d{2}:\d{2})$/.test(v)],
    [{ type: 'string', format: 'uuid' } as Schema, (v: unknown) => typeof v === 'string' && /^[0-9a-f-]{36}$/.test(v)],
    [{ type: 'integer', minimum: 1, maximum: 20 } as Schema, (v: unknown) => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 20],
    [{ type: 'string', enum: ['a', 'b'] } as Schema, (v: unknown) => v === 'a' || v === 'b'],
    [{ type: 'array', items: { type: 'boolean' }, minItems: 1, maxItems: 3, uniqueItems: true } as Schema, (v: unknown) => Array.isArray(v) && v.length >= 1 && v.length <= 2],
    [{ type: 'string', nullable: true, minLength: 1 } as Schema, (v: unknown) => v === null || (typeof v === 'string' && v.length > 0)],
  ])('generates only values of %j', (schema, accepts) => {
    const { arbitraries } = contracts[0] as (typeof contracts)[number];
    for (const value of fc.sample(arbitraries.valid(schema), { numRuns: 200, seed: 7 })) expect(accepts(value), JSON.stringify(value)).toBe(true);
  });

  it('fills id-named fields with ids of the workspace most of the time', () => {
    const { arbitraries } = contracts[0] as (typeof contracts)[number];
    const values = fc.sample(arbitraries.valid({ type: 'string', minLength: 1 }, 'connectionId'), { numRuns: 200, seed: 3 });
    const own = values.filter((value) => value instanceof IdRef && value.pool === 'own').length;
    expect(own).toBeGreaterThan(100);
    expect(values.some((value) => value instanceof IdRef && value.pool === 'foreign')).toBe(true);
  });
});

describe('mutations', () => {
  const op = operationModels(loadSpec('openapi.yaml').document, 'api').find((candidate) => candidate.operationId === 'createProfile');
  const base: FuzzRequest = { method: 'POST', pathParams: {}, query: [], rawQuery: '', headers: {}, auth: 'x-api-key', body: { kind: 'json', value: { name: 'Brand' }, contentType: 'application/json' }, mutations: [] };
  const { arbitraries } = contracts[0] as (typeof contracts)[number];

  it('adds __proto__ as an own key, never as the prototype', () => {
    if (!op) throw new Error('createProfile is missing from the contract');
    const mutated = applyMutation(base, { kind: 'body.extraKey', pick: 0, pick2: 0 }, op, arbitraries);
    const value = (mutated.body as { value: Record<string, unknown> }).value;
    expect(Object.hasOwn(value, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(JSON.stringify(value)).toBe('{"name":"Brand","__proto__":{"polluted":"yes"}}');
    expect(base.body).toEqual({ kind: 'json', value: { name: 'Brand' }, contentType: 'application/json' });
  });

  it('aims a boundary mutation just past maxLength', () => {
    if (!op) throw new Error('createProfile is missing from the contract');
    const lengths = [0, 1, 2, 3].map((pick2) => {
      const mutated = applyMutation(base, { kind: 'body.boundary', pick: 0, pick2 }, op, arbitraries);
      return codePoints((mutated.body as { value: { name: string } }).value.name);
    });
    expect(lengths).toEqual([0, 1, 60, 61]);
  });
});

describe('percentEncode', () => {
  it.each([
    ['plain-text_1.2~', 'plain-text_1.2~'],
    ['a b/c?d', 'a%20b%2Fc%3Fd'],
    ['é', '%C3%A9'],
    ['\ud800', '%EF%BF%BD'],
  ])('encodes %j as %s without throwing on lone surrogates', (text, encoded) => {
    expect(percentEncode(text)).toBe(encoded);
  });
});
