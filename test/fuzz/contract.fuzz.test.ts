import { describe, expect, it } from 'vitest';
import { startMock } from '../helpers/mock.js';
import { CONSTRAINT_KINDS } from './constraints.js';
import { FuzzPlan, formatReport, runFuzz } from './engine.js';

/*
 * The suite's run of the fuzz engine (test/fuzz/engine.ts), the one `npm run fuzz` drives
 * for a million requests: FUZZ_REQUESTS (default 10,000) requests generated from
 * openapi.yaml and control.yaml with seed FUZZ_SEED (default 9009), against one
 * in-process server with strict responses. Valid requests, mutated ones, and for every
 * operation its declared constraints broken one at a time, each of which must get a 4xx
 * in the envelope naming the field. Every 4th request also has its state checked (a
 * refused request and any read leave the workspace byte-identical, another workspace
 * never changes, Object.prototype stays as Node made it). See docs/reliability.md.
 */

const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 10_000);
const SEED = Number(process.env.FUZZ_SEED ?? 9009);
const BODY_LIMIT_BYTES = 1024 * 1024;

describe('the contracts, fuzzed', () => {
  it(`answer ${REQUESTS} generated requests within the contract (seed ${SEED})`, { timeout: 600_000 }, async () => {
    const plan = new FuzzPlan({ bodyLimitBytes: BODY_LIMIT_BYTES });
    // The rate limit counts and sends its headers but never answers 429: the fuzz's own volume would.
    // Fuzzed webhooks point at hosts that do not answer, and a clock move waits for their attempts.
    const mock = await startMock({ rateLimit: false, webhookTimeoutMs: 1_000 });
    const baseUrl = await mock.server.listen(0);
    const report = await runFuzz(
      plan,
      { baseUrl, workspace: (id) => mock.server.registry.get(id), violations: () => mock.server.violations.length },
      { requests: REQUESTS, seed: SEED, concurrency: 2, stateEvery: 4 },
    );
    await mock.close();
    console.log(formatReport(report, (index) => `npm run fuzz -- --server in-process --seed ${SEED} --replay ${index}`));

    expect(report.failures.map((failure) => `#${failure.index} ${failure.operation} [${failure.label}]: ${failure.problems.join('; ')}\n  ${failure.request}\n  → ${failure.response}`)).toEqual([]);
    expect(report.requests).toBe(REQUESTS);
    // And /mcp took hostile strings beside them.
    expect(report.mcpCalls).toBeGreaterThan(0);
    // Every operation was reached, and every kind of constraint the contracts declare was broken alone at least once.
    expect(report.perOperation.size).toBe(plan.operations.length);
    const declaredKinds = new Set([...plan.constraints.values()].flat().map((constraint) => constraint.kind));
    const brokenKinds = new Set([...report.constraints.exercised].map((key) => key.split(' ')[1]));
    expect(CONSTRAINT_KINDS.filter((kind) => declaredKinds.has(kind) && !brokenKinds.has(kind))).toEqual([]);
  });
});
