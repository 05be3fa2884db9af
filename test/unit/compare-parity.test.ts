import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ContractChecker } from '../../src/http/contract.js';
import { OperationIndex, type Operation } from '../../src/http/operations.js';
import { loadSpec } from '../../src/http/spec.js';
import { ContractComparer } from '../../src/proxy/compare.js';
import { SchemaArbitraries, type Schema } from '../fuzz/schema-arbitraries.js';

/*
 * The comparer walks response schemas itself (to name each difference); the mock's own
 * ContractChecker validates them with ajv. Both must agree on what breaks the contract: for
 * generated bodies of every declared response, valid ones and ones mutated at a random place,
 * the checker refuses exactly when the comparer has a response finding the contract does not
 * tolerate.
 */

const document = loadSpec('openapi.yaml').document;
const index = new OperationIndex(document);
const checker = new ContractChecker(document, 'openapi');
const comparer = new ContractComparer(document);
const arbitraries = new SchemaArbitraries({ document });
const RATE = { 'content-type': 'application/json', 'x-ratelimit-limit': '600', 'x-ratelimit-remaining': '599', 'x-ratelimit-reset': '1772442060', 'retry-after': '12' };

type Json = Record<string, unknown>;

/** Every (operation, status) with a JSON body schema, and that schema. */
function declaredBodies(): Array<{ operation: Operation; status: number; schema: Schema }> {
  const found: Array<{ operation: Operation; status: number; schema: Schema }> = [];
  for (const operation of index.operations) {
    const op = document.paths[operation.path]?.[operation.method.toLowerCase()] as { responses: Record<string, Json> };
    for (const [status, raw] of Object.entries(op.responses)) {
      const response = arbitraries.resolve(raw as Schema) as Json;
      const schema = (response.content as Record<string, { schema?: Schema }> | undefined)?.['application/json']?.schema;
      if (schema && /^\d{3}$/.test(status)) found.push({ operation, status: Number(status), schema });
    }
  }
  return found;
}

type Mutation = { kind: 'none' } | { kind: 'replace' | 'delete' | 'add'; at: number; value: unknown };

/** Applies a mutation to the `at`-th node (depth first) of a JSON value, in place of a copy. */
function mutate(value: unknown, mutation: Mutation): unknown {
  if (mutation.kind === 'none') return value;
  let counter = 0;
  const visit = (node: unknown): unknown => {
    const here = counter++;
    if (here === mutation.at) {
      if (mutation.kind === 'replace') return mutation.value;
      if (typeof node === 'object' && node !== null && !Array.isArray(node)) {
        const copy = { ...(node as Json) };
        const keys = Object.keys(copy);
        if (mutation.kind === 'delete' && keys.length > 0) delete copy[keys[0] as string];
        if (mutation.kind === 'add') copy.unexpectedField = mutation.value;
        return copy;
      }
      return mutation.value;
    }
    if (Array.isArray(node)) return node.map(visit);
    if (typeof node === 'object' && node !== null) return Object.fromEntries(Object.entries(node).map(([key, inner]) => [key, visit(inner)]));
    return node;
  };
  return visit(value);
}

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ kind: 'none' as const }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constantFrom('replace' as const, 'delete' as const, 'add' as const), at: fc.nat(12), value: fc.jsonValue({ maxDepth: 1 }) }) },
);

describe('the comparer and ContractChecker', () => {
  const bodies = declaredBodies();

  it('cover many declared responses', () => {
    expect(bodies.length).toBeGreaterThan(300);
  });

  it('agree on every generated answer: the checker refuses exactly when the comparer finds what the contract does not tolerate', () => {
    const cases = fc.oneof(...bodies.map(({ operation, status, schema }) => fc.tuple(fc.constant(operation), fc.constant(status), arbitraries.valid(schema), mutation)));
    let refused = 0;
    fc.assert(
      fc.property(cases, ([operation, status, generated, change]) => {
        // As a recording holds it: JSON, ids written out.
        const body = JSON.parse(JSON.stringify(mutate(JSON.parse(JSON.stringify(generated)) as unknown, change))) as unknown;
        const violation = checker.check(operation, status, body, RATE);
        const path = operation.path.replace(/\{[^}]+\}/g, 'x');
        const { findings } = comparer.compare({ request: { method: operation.method, path, query: '', headers: { 'x-api-key': 'k' } }, response: { status, headers: RATE, json: body } });
        const breaking = findings.filter((finding) => finding.side === 'response' && !finding.tolerated);
        if (violation) refused += 1;
        const context = `${operation.operationId} ${status} ${JSON.stringify(body).slice(0, 400)}\nchecker: ${JSON.stringify(violation?.problems)}\ncomparer: ${JSON.stringify(breaking.map((finding) => finding.message))}`;
        expect(breaking.length > 0, context).toBe(violation !== undefined);
      }),
      { seed: 22, numRuns: 1500 },
    );
    // The mutations break a fair share of the answers, so both sides of the equivalence are exercised.
    expect(refused).toBeGreaterThan(200);
  });
});
