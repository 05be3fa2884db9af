import { RE2JS } from 're2js';
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { COMPILE_UNITS, MatchBudget, MAX_PATTERN_LENGTH, MAX_WORKSPACE_PATTERNS_LENGTH, valueMatches } from '../../src/scenarios/matching.js';
import { expectApiError, expectStatus, useMock } from '../helpers/mock.js';
import { addRule, freshWorkspace } from '../helpers/scenarios.js';

/*
 * Issue 35, item 4: every cost inside a budget. A rule's RE2 pattern was compiled per request
 * into a 64-entry cache the whole server shared, before the matching budget was charged: 100
 * rules of distinct patterns made one small request hold every tenant 1 to 6 s, and one tenant's
 * patterns evicted another's. Patterns are now compiled once, when their rule is loaded, kept
 * with the rule, capped per workspace, and a compile a request cannot avoid is charged to its
 * budget. The work is counted here (RE2's compilations), not timed: the time is in
 * `npm run bench:hostile` and docs/reliability.md.
 */

const mock = useMock();

const MISS = { status: 400, code: 'VALIDATION_ERROR', message: 'Scripted.' };

/** A rule whose header pattern is its own: `^v<i>-…`, which the requests below never match. */
const distinctRule = (i: number) => ({ match: { operationId: 'listConnections', headers: [{ name: 'x-probe', matches: `^v${i}-[a-z]+\\d{2}$` }] }, then: { error: MISS } });

async function workspaceWithRules(count: number): Promise<string> {
  return (await workspaceWithRulesAndId(count)).key;
}

async function workspaceWithRulesAndId(count: number): Promise<{ key: string; id: string }> {
  const made = await mock.control('post', '/__control/workspaces').send({});
  expectStatus(made, 201);
  const key = made.body.apiKey as string;
  for (let i = 0; i < count; i++) await addRule(mock, key, distinctRule(i));
  return { key, id: made.body.workspaceId as string };
}

let compiles: MockInstance;

beforeEach(() => {
  compiles = vi.spyOn(RE2JS, 'compile');
});

afterEach(() => {
  compiles.mockRestore();
});

describe('rule patterns', () => {
  it('are compiled when their rule is added, never by a request: 100 rules of distinct patterns, three requests, no compilation', async () => {
    const key = await workspaceWithRules(100);
    compiles.mockClear();
    for (let i = 0; i < 3; i++) expectStatus(await mock.call('get', '/v1/connections', key).set('x-probe', 'nothing-here'), 200);
    expect(compiles).not.toHaveBeenCalled();
  });

  it("are one workspace's own: another tenant's 100 rules neither evict them nor make its requests compile", async () => {
    const mine = await freshWorkspace(mock);
    await addRule(mock, mine, { match: { operationId: 'listConnections', path: '/v1/connections', headers: [{ name: 'x-probe', matches: '^mine$' }] }, then: { error: MISS } });
    const theirs = await workspaceWithRules(100);
    expectStatus(await mock.call('get', '/v1/connections', theirs).set('x-probe', 'nothing-here'), 200);
    compiles.mockClear();
    expectApiError(await mock.call('get', '/v1/connections', mine).set('x-probe', 'mine'), 400, 'VALIDATION_ERROR');
    expect(compiles).not.toHaveBeenCalled();
  });

  it('are compiled when a workspace is forked or restored, so its requests compile nothing either', async () => {
    const { key, id } = await workspaceWithRulesAndId(3);
    const fork = await mock.control('post', '/__control/workspaces', key).send({ from: id });
    expectStatus(fork, 201);
    const state = await mock.control('get', '/__control/state', key);
    const restored = await freshWorkspace(mock);
    expectStatus(await mock.control('put', '/__control/state', restored).send(state.body), 200);
    compiles.mockClear();
    for (const forked of [fork.body.apiKey as string, restored]) expectStatus(await mock.call('get', '/v1/connections', forked).set('x-probe', 'nothing-here'), 200);
    expect(compiles).not.toHaveBeenCalled();
  });

  it('are capped per workspace: the rule that takes its patterns past the cap is refused, named, and the others still match', async () => {
    const key = await freshWorkspace(mock);
    const perRule = (i: number) => ({ id: `wide-${i}`, match: { operationId: 'listConnections', headers: [0, 1, 2, 3].map((h) => ({ name: `x-${h}`, matches: `${'a'.repeat(MAX_PATTERN_LENGTH - 2)}${String(i % 100).padStart(2, '0')}` })) }, then: { error: MISS } });
    const fit = Math.floor(MAX_WORKSPACE_PATTERNS_LENGTH / (4 * MAX_PATTERN_LENGTH));
    for (let i = 0; i < fit; i++) await addRule(mock, key, perRule(i));
    const refused = await mock.control('post', '/__control/rules', key).send(perRule(fit));
    expectApiError(refused, 400, 'INVALID_SCENARIO', 'match');
    expect(refused.body.error.message).toContain(`rule 'wide-${fit}'`);
    expect(refused.body.error.message).toContain(`over the ${MAX_WORKSPACE_PATTERNS_LENGTH}`);
    expect((await mock.control('get', '/__control/rules', key)).body.data).toHaveLength(fit);
  });
});

describe("a request's budget", () => {
  it('pays for a compilation it cannot avoid: with less than COMPILE_UNITS left, the pattern is neither compiled nor run', () => {
    const budget = new MatchBudget(COMPILE_UNITS - 1);
    expect(valueMatches('abc', { matches: '^abc$' }, budget)).toBe(false);
    expect(compiles).not.toHaveBeenCalled();
    expect(valueMatches('abc', { matches: '^abc$' }, new MatchBudget(COMPILE_UNITS + 100))).toBe(true);
  });
});
