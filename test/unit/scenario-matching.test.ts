import { describe, expect, it } from 'vitest';
import { resolvePointer } from '../../src/lib/json-pointer.js';
import { countSelects, drawUnit, pathCanReach, pathMatches, pathPattern, queryMatches, valueMatches } from '../../src/scenarios/matching.js';
import { parseMoment, resolveMoment } from '../../src/scenarios/moments.js';
import { initialRuleState, nextRuleState, nextScenarioState, ScenarioStateError } from '../../src/scenarios/rule-state.js';

describe('rule paths', () => {
  it.each([
    ['/v1/accounts/{id}', '/v1/accounts/abc', true],
    ['/v1/accounts/{id}', '/v1/accounts/abc/', true],
    ['/v1/accounts/{id}', '/v1/accounts', false],
    ['/v1/accounts/{id}', '/v1/accounts/abc/sync', false],
    ['/v1/accounts/*', '/v1/accounts/abc', true],
    ['/v1/accounts/*', '/v1/accounts/a/b', false],
    ['/v1/connections/*/stats', '/v1/connections/x/stats', true],
    ['/v1/connections/*/stats', '/v1/connections/x/media', false],
    ['/v1/**', '/v1', true],
    ['/v1/**', '/v1/accounts/abc/sync', true],
    ['/v1/**/stats', '/v1/stats', true],
    ['/v1/**/stats', '/v1/connections/x/stats', true],
    ['/v1/**/stats', '/v1/connections/x/statsx', false],
    ['/v1/post*', '/v1/posts', true],
    ['/v1/post*', '/v1/profiles', false],
    ['/v1/a.b', '/v1/aXb', false],
  ])('%s against %s: %s', (rule, path, expected) => {
    expect(pathMatches({ pathPattern: pathPattern(rule) }, path)).toBe(expected);
  });

  it.each([
    ['/v1/accounts/{id}', '/v1/accounts/{id}', true],
    ['/v1/accounts/abc', '/v1/accounts/{id}', true],
    ['/v1/accounts/*', '/v1/accounts/{id}/sync', false],
    ['/v1/**', '/v1/accounts/{id}/sync', true],
    ['/v1/connections/*/stats', '/v1/connections/{id}/stats', true],
    ['/v1/connections/*/stats', '/v1/connections/{id}/media', false],
    ['/v1/post*', '/v1/posts/{id}', false],
    ['/v1/post*/**', '/v1/posts/{id}/cancel', true],
    ['/v1/p*s*', '/v1/posts', true],
    ['/v1/*o*t*', '/v1/posts', true],
    ['/v1/*o*x', '/v1/posts', false],
    ['/v1/**/**/stats', '/v1/connections/{id}/stats', true],
    ['/v1/**/cancel', '/v1/posts/{id}/analytics/timeline', false],
  ])('%s can reach the template %s: %s', (rule, template, expected) => {
    expect(pathCanReach(rule, template)).toBe(expected);
  });
});

describe('the query, exactly', () => {
  it.each([
    [{}, '', true],
    [{}, 'limit=20', false],
    [{ limit: '20' }, 'limit=20', true],
    [{ limit: '20' }, 'limit=21', false],
    [{ limit: '20' }, '', false],
    [{ limit: '20' }, 'limit=20&cursor=c', false],
    [{ limit: '20', cursor: 'c' }, 'cursor=c&limit=20', true],
    [{ platform: ['x', 'bluesky'] }, 'platform=x&platform=bluesky', true],
    [{ platform: ['x', 'bluesky'] }, 'platform=bluesky&platform=x', false],
    [{ platform: 'x' }, 'platform=x&platform=x', false],
    [{ token: null }, 'token=anything', true],
    [{ token: null }, '', false],
    [{ q: 'a b/c' }, 'q=a%20b%2Fc', true],
    [{ q: 'a b' }, 'q=a+b', true],
  ] as const)('%j against ?%s: %s', (expected, query, result) => {
    expect(queryMatches(expected, new URLSearchParams(query))).toBe(result);
  });
});

describe('counters', () => {
  it.each([
    [1, undefined, undefined, true],
    [3, 3, undefined, true],
    [2, 3, undefined, false],
    [4, 3, undefined, false],
    [2, undefined, 2, true],
    [3, undefined, 2, false],
    [6, undefined, 3, true],
    [5, undefined, 1, true],
  ])('the request seen %i-th with nth %s and every %s fires: %s', (seen, nth, every, expected) => {
    expect(countSelects(seen, nth, every)).toBe(expected);
  });
});

describe('the seeded probability draw', () => {
  it('repeats for the same seed, rule and counter, and differs otherwise', () => {
    expect(drawUnit(7, 'flaky', 3)).toBe(drawUnit(7, 'flaky', 3));
    expect(drawUnit(7, 'flaky', 3)).not.toBe(drawUnit(8, 'flaky', 3));
    expect(drawUnit(7, 'flaky', 3)).not.toBe(drawUnit(7, 'other', 3));
    expect(drawUnit(7, 'flaky', 3)).not.toBe(drawUnit(7, 'flaky', 4));
  });

  it('is spread evenly over [0, 1)', () => {
    const draws = Array.from({ length: 4000 }, (_, n) => drawUnit(1, 'spread', n));
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...draws)).toBeLessThan(1);
    const underQuarter = draws.filter((draw) => draw < 0.25).length / draws.length;
    expect(underQuarter).toBeGreaterThan(0.22);
    expect(underQuarter).toBeLessThan(0.28);
  });
});

describe('rule state', () => {
  it('counts a match, then a fire, and exhausts after `times` fires', () => {
    let state = initialRuleState();
    state = nextRuleState(state, { type: 'matched' });
    expect(state).toEqual({ phase: 'armed', seen: 1, fired: 0 });
    state = nextRuleState(state, { type: 'fired', times: 2 });
    expect(state).toEqual({ phase: 'armed', seen: 1, fired: 1 });
    state = nextRuleState(nextRuleState(state, { type: 'matched' }), { type: 'fired', times: 2 });
    expect(state).toEqual({ phase: 'exhausted', seen: 2, fired: 2 });
  });

  it('never leaves the exhausted phase', () => {
    const exhausted = { phase: 'exhausted' as const, seen: 1, fired: 1 };
    expect(() => nextRuleState(exhausted, { type: 'matched' })).toThrow(ScenarioStateError);
    expect(() => nextRuleState(exhausted, { type: 'fired', times: null })).toThrow(ScenarioStateError);
  });

  it('fires forever without a limit', () => {
    let state = initialRuleState();
    for (let i = 0; i < 50; i++) state = nextRuleState(nextRuleState(state, { type: 'matched' }), { type: 'fired', times: null });
    expect(state).toEqual({ phase: 'armed', seen: 50, fired: 50 });
  });

  it('moves the scenario only to a declared state', () => {
    expect(nextScenarioState(['calm', 'storm'], 'storm')).toBe('storm');
    expect(() => nextScenarioState(['calm', 'storm'], 'flood')).toThrow(/not declared/);
  });
});

describe('moments', () => {
  it.each([
    ['PT2H', { relativeMs: 7_200_000 }],
    ['-PT30M', { relativeMs: -1_800_000 }],
    ['P1DT1S', { relativeMs: 86_401_000 }],
    ['PT0S', { relativeMs: 0 }],
    ['2026-03-02T11:00:00Z', { absoluteMs: Date.parse('2026-03-02T11:00:00Z') }],
    ['2026-03-02T11:00:00+01:00', { absoluteMs: Date.parse('2026-03-02T10:00:00Z') }],
    ['P1M', undefined],
    ['2 hours', undefined],
    ['2026-03-02T11:00:00', undefined],
    ['2026-03-02', undefined],
  ])('%s reads as %j', (text, expected) => {
    expect(parseMoment(text)).toEqual(expected);
  });

  it('resolves a relative moment from the load and leaves an absolute one', () => {
    expect(resolveMoment({ relativeMs: -1000 }, 5000)).toBe(4000);
    expect(resolveMoment({ absoluteMs: 42 }, 5000)).toBe(42);
  });
});

describe('JSON Pointers into a body', () => {
  const body = { text: 'Hi', destinations: [{ connectionId: 'a' }, { connectionId: 'b' }], 'a/b': { '~k': 1 }, empty: null };
  it.each([
    ['', true, body],
    ['/text', true, 'Hi'],
    ['/destinations/1/connectionId', true, 'b'],
    ['/destinations/2/connectionId', false, undefined],
    ['/destinations/01', false, undefined],
    ['/destinations/-', false, undefined],
    ['/a~1b/~0k', true, 1],
    ['/empty', true, null],
    ['/empty/x', false, undefined],
    ['/text/length', false, undefined],
    ['/toString', false, undefined],
  ])('%s: found %s', (pointer, found, value) => {
    expect(resolvePointer(body, pointer)).toEqual(found ? { found, value } : { found });
  });
});

describe('equals and matches', () => {
  it.each([
    ['a string equal', 'abc', { equals: 'abc' }, true],
    ['a string not equal', 'abc', { equals: 'ABC' }, false],
    ['an object compared whole', { a: [1, 2] }, { equals: { a: [1, 2] } }, true],
    ['an object that differs', { a: [1, 2] }, { equals: { a: [1] } }, false],
    ['null equal to null', null, { equals: null }, true],
    ['a string matching', 'my-sdk/1.4', { matches: '^my-sdk/1\\.' }, true],
    ['a number read as text', 42, { matches: '^4' }, true],
    ['a boolean read as text', true, { matches: '^true$' }, true],
    ['an object never matching', { a: 1 }, { matches: '.' }, false],
    ['null never matching', null, { matches: '.*' }, false],
  ])('%s', (_case, value, test, expected) => {
    expect(valueMatches(value, test)).toBe(expected);
  });
});
