import { describe, expect, it } from 'vitest';
import { errorAtOf, hitsText, lineNumbers, matchText, offsetOf, parseRuleSnippet, SAMPLE_RULE } from '../../src/dashboard/ui/scenarios.js';

/* The Scenarios view's pure logic: a refused scenario's line and column, the caret put there, and how a rule reads. */

describe('errorAtOf', () => {
  it.each([
    ['an INVALID_SCENARIO of pasted YAML', { file: '<inline>', line: 8, column: 17, field: 'rules[0].then.error.status' }, { line: 8, column: 17 }],
    ['a line without a column, at its start', { line: 3 }, { line: 3, column: 1 }],
    ['a run-time rule error, naming a field only', { field: 'then.error.status', reason: 'x' }, null],
    ['no details', undefined, null],
    ['a line that is no line', { line: 0, column: 2 }, null],
  ])('%s', (_, details, expected) => {
    expect(errorAtOf(details)).toEqual(expected);
  });
});

describe('offsetOf', () => {
  const text = 'a: 1\nrules:\n  - id: x\n';
  it.each([
    [{ line: 1, column: 1 }, 0],
    [{ line: 2, column: 1 }, 5],
    [{ line: 3, column: 5 }, 16],
    // Past the end of its line: the line's end; past the last line: the last one.
    [{ line: 1, column: 40 }, 4],
    [{ line: 9, column: 1 }, text.length],
  ])('puts %o at %i', (at, offset) => {
    expect(offsetOf(text, at)).toBe(offset);
    expect(text.slice(0, offset).split('\n').length).toBe(Math.min(at.line, 4));
  });
});

describe('lineNumbers', () => {
  it.each([
    ['', [1]],
    ['a', [1]],
    ['a\nb\n', [1, 2, 3]],
  ])('numbers %j', (text, expected) => {
    expect(lineNumbers(text)).toEqual(expected);
  });
});

describe('parseRuleSnippet', () => {
  it('takes a JSON object, the sample first', () => {
    expect(parseRuleSnippet(SAMPLE_RULE)).toEqual({ rule: JSON.parse(SAMPLE_RULE) });
  });
  it.each([['{ match: 1 }'], ['[1]'], ['null'], ['"rule"']])('refuses %s', (text) => {
    expect(parseRuleSnippet(text)).toHaveProperty('problem');
  });
});

describe('hitsText and matchText', () => {
  it.each([
    [{ fired: 2, times: null }, '2'],
    [{ fired: 1, times: 3 }, '1 of 3'],
  ])('hits of %o', (rule, text) => {
    expect(hitsText(rule)).toBe(text);
  });
  it.each([
    [{ operationId: 'listConnections' }, 'listConnections'],
    [{ method: 'GET', path: '/v1/**' }, 'GET /v1/**'],
    [{}, 'every request'],
  ])('match %o', (match, text) => {
    expect(matchText(match)).toBe(text);
  });
});
