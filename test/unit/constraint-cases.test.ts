import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { constraintCase } from '../fuzz/constraints.js';
import { FuzzPlan } from '../fuzz/engine.js';
import { SchemaArbitraries } from '../fuzz/schema-arbitraries.js';
import { toWire } from '../fuzz/wire.js';
import { loadSpec } from '../../src/http/spec.js';

// The fuzz's constraint cases aim; the oracle decides. Each declared constraint must be
// broken alone (valid part accepted, broken request refused) often enough to be tested.
const plan = new FuzzPlan({ bodyLimitBytes: 1024 * 1024 });
const generators = { api: new SchemaArbitraries({ document: loadSpec('openapi.yaml').document }), control: new SchemaArbitraries({ document: loadSpec('control.yaml').document }) };
const pools = { own: ['3f1c2a9e-8b7d-4c6e-9a5f-1d2e3b4c5a6f'], foreign: ['0f8e7d6c-5b4a-4392-8a1b-2c3d4e5f6a7b'] };

describe('constraint cases', () => {
  it('break each constraint both contracts declare alone, in at least 3 draws of 10', { timeout: 120_000 }, () => {
    const weak: string[] = [];
    for (const [op, constraints] of plan.constraints) {
      for (const constraint of constraints) {
        const cases = fc.sample(constraintCase(op, constraint, generators[op.contract]), { seed: 1, numRuns: 10 });
        const alone = cases.filter((drawn) => plan.judge(op, drawn.broken, toWire(op, drawn.broken, pools, 'key')).kind === 'reject' && plan.judge(op, drawn.valid, toWire(op, drawn.valid, pools, 'key')).kind === 'accept');
        if (alone.length < 3) weak.push(`${op.operationId} ${constraint.kind} ${constraint.param}: ${alone.length} of 10`);
      }
    }
    expect(weak).toEqual([]);
  });

  it('cover every kind of constraint on every operation that has one', () => {
    const createPost = plan.operations.find((op) => op.operationId === 'createPost');
    const kinds = new Set((createPost && plan.constraints.get(createPost))?.map((constraint) => constraint.kind));
    for (const kind of ['type', 'enum', 'maxLength', 'minItems', 'maxItems', 'required', 'additionalProperties', 'notJson', 'contentType', 'bodyMissing', 'apiKey'] as const) expect(kinds).toContain(kind);
  });
});
