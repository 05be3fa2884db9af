import { describe, expect, it } from 'vitest';
import { MATCH_BUDGET_UNITS, MatchBudget, MAX_PATTERN_LENGTH, MAX_PATTERNS_LENGTH, pathCanReach, valueMatches } from '../../src/scenarios/matching.js';
import { expectApiError, expectStatus, useMock } from '../helpers/mock.js';
import { addRule, freshWorkspace } from '../helpers/scenarios.js';

/*
 * Issue 28, item 4: rule patterns come from tenants of a shared server, so they must
 * not backtrack. On the old code (JavaScript's RegExp) each attack below held the event
 * loop, every workspace's, for far longer than the test's 20 s.
 */

const mock = useMock();

const SCRIPTED = { error: { status: 400, code: 'VALIDATION_ERROR', message: 'Scripted.' } };

/** A header value as long as the server's 16 KiB header block leaves room for. */
const LONG = 15_000;

function scripted(res: { status: number; body: { error?: { message?: string } } }): boolean {
  return res.status === 400 && res.body.error?.message === 'Scripted.';
}

describe('a regular expression that backtracks on RegExp', () => {
  it('runs on RE2: `^(a+)+$` against a 15,000-character "aaa…ab" header answers for real, and an all-a header meets the rule', async () => {
    const key = await freshWorkspace(mock);
    await addRule(mock, key, { match: { operationId: 'listConnections', headers: [{ name: 'x-client', matches: '^(a+)+$' }] }, then: SCRIPTED });
    const missed = await mock.call('get', '/v1/connections', key).set('x-client', `${'a'.repeat(LONG)}b`);
    expectStatus(missed, 200);
    expect(scripted(await mock.call('get', '/v1/connections', key).set('x-client', 'a'.repeat(LONG)))).toBe(true);
  });

  it('runs on RE2 for a body field too: `(x+x+)+y` against "xxx…x"', async () => {
    const key = await freshWorkspace(mock);
    await addRule(mock, key, { match: { operationId: 'createPost', body: [{ pointer: '/text', matches: '(x+x+)+y' }] }, then: SCRIPTED });
    const missed = await mock.call('post', '/v1/posts', key).send({ text: 'x'.repeat(5_000), destinations: [] });
    expect(scripted(missed)).toBe(false);
    expect(scripted(await mock.call('post', '/v1/posts', key).send({ text: `${'x'.repeat(5_000)}y`, destinations: [] }))).toBe(true);
  });
});

describe('a pattern RE2 cannot run', () => {
  it.each([
    ['a backreference', '(a)\\1', 'match.headers[0].matches'],
    ['a lookahead', 'a(?=b)', 'match.headers[0].matches'],
    ['a negative lookahead', '^(?!internal)', 'match.headers[0].matches'],
    ['a lookbehind', '(?<=v)1', 'match.headers[0].matches'],
  ])('is refused when the rule is added (%s), naming the field and why', async (_case, matches, field) => {
    const key = await freshWorkspace(mock);
    const res = await mock.control('post', '/__control/rules', key).send({ match: { headers: [{ name: 'user-agent', matches }] }, then: SCRIPTED });
    expectApiError(res, 400, 'INVALID_SCENARIO', field);
    expect(res.body.error.message).toContain('RE2 syntax: no backreferences or lookaround');
  });

  it('is refused when a scenario is loaded, at its line', async () => {
    const yaml = ['rules:', '  - id: old-sdk', '    match:', '      body: [{ pointer: /text, matches: "(\\\\w+) \\\\1" }]', '    then: { latencyMs: 0 }', ''].join('\n');
    const res = await mock.control('post', '/__control/workspaces').send({ scenario: yaml });
    expectApiError(res, 400, 'INVALID_SCENARIO');
    expect(res.body.error.message).toMatch(/rules\[0\]\.match\.body\[0\]\.matches.*RE2 syntax: no backreferences or lookaround/);
  });

  it('is refused when it compiles to a program too costly to run (`[a-z]{1000}`)', async () => {
    const key = await freshWorkspace(mock);
    const res = await mock.control('post', '/__control/rules', key).send({ match: { headers: [{ name: 'user-agent', matches: '[a-z]{1000}' }] }, then: SCRIPTED });
    expectApiError(res, 400, 'INVALID_SCENARIO', 'match.headers[0].matches');
    expect(res.body.error.message).toContain('too costly');
  });

  it('is refused when too long, alone or with the others of its rule', async () => {
    const key = await freshWorkspace(mock);
    const alone = await mock.control('post', '/__control/rules', key).send({ match: { headers: [{ name: 'a', matches: 'a'.repeat(MAX_PATTERN_LENGTH + 1) }] }, then: SCRIPTED });
    expectApiError(alone, 400, 'INVALID_SCENARIO', 'match.headers[0].matches');
    const count = Math.ceil(MAX_PATTERNS_LENGTH / MAX_PATTERN_LENGTH) + 1;
    const headers = Array.from({ length: count }, (_, i) => ({ name: `h${i}`, matches: 'b'.repeat(MAX_PATTERN_LENGTH) }));
    const together = await mock.control('post', '/__control/rules', key).send({ match: { headers }, then: SCRIPTED });
    expectApiError(together, 400, 'INVALID_SCENARIO', `match.headers[${count - 1}].matches`);
    expect(together.body.error.message).toContain(`over the ${MAX_PATTERNS_LENGTH}`);
  });

  it('matches nothing when a restored state holds one, rather than failing the request', () => {
    expect(valueMatches('aa', { matches: '(a)\\1' })).toBe(false);
  });
});

describe('the JavaScript spellings users already write', () => {
  it.each([
    ['\\u0041', 'A'],
    ['^(?<major>\\d+)\\.', '12.0'],
    ['^my-sdk/1\\.', 'my-sdk/1.4'],
    ['[^]', '\n'],
  ])('%s still matches', (matches, value) => {
    expect(valueMatches(value, { matches })).toBe(true);
  });
});

describe('a path glob with many `*`', () => {
  const glob = `/v1/accounts/${'a*'.repeat(50)}c`;

  it('matches a long path without backtracking, and answers correctly', async () => {
    const key = await freshWorkspace(mock);
    await addRule(mock, key, { match: { method: 'GET', path: glob }, then: SCRIPTED });
    const missed = await mock.call('get', `/v1/accounts/${'a'.repeat(1_000)}b`, key);
    expectApiError(missed, 404, 'NOT_FOUND');
    expect(scripted(await mock.call('get', `/v1/accounts/${'a'.repeat(1_000)}c`, key))).toBe(true);
  });

  it('is judged at load without backtracking against the contract’s paths', async () => {
    expect(pathCanReach(`/v1/${'*'.repeat(60)}~`, '/v1/connections')).toBe(false);
    expect(pathCanReach(`/v1/${'**/'.repeat(40)}stats`, '/v1/connections/{id}/stats')).toBe(true);
    const key = await freshWorkspace(mock);
    expectApiError(await mock.control('post', '/__control/rules', key).send({ match: { path: `/v1/${'*'.repeat(60)}~` }, then: SCRIPTED }), 400, 'INVALID_SCENARIO', 'match');
  });
});

describe("a request's matching", () => {
  it('is bounded: a pattern whose run the budget cannot pay for does not run, and counts as not matching', () => {
    const text = 'a'.repeat(MATCH_BUDGET_UNITS);
    expect(valueMatches(text.slice(0, 1_000), { matches: 'a' })).toBe(true);
    expect(valueMatches(text, { matches: 'a' })).toBe(false);
  });

  it('shares one budget across every pattern it meets', () => {
    const budget = new MatchBudget();
    const text = 'a'.repeat(Math.floor(MATCH_BUDGET_UNITS / 10));
    let ran = 0;
    // Each run of the three-instruction program `a` costs about 3 × the text's length.
    while (valueMatches(text, { matches: 'a' }, budget)) ran++;
    expect(ran).toBeGreaterThan(0);
    expect(ran).toBeLessThan(10);
  });
});
