import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonLength } from '../../src/lib/json-length.js';

/** What jsonLength must always answer: the length of JSON.stringify's text (undefined where it writes none). */
const stringified = (value: unknown) => JSON.stringify(value)?.length;

class Point {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}
}

describe('jsonLength', () => {
  it.each([
    ['a post view', { post: { id: 'a1', text: 'Fresh beans, same roast.', mediaUrls: [], status: 'published', scheduledFor: null, destinations: [{ id: 'd1', metrics: { likes: 3, plays: null } }] } }],
    ['quotes, backslashes and the short escapes', { 'k"ey\\': 'a"b\\c\b\f\n\r\t' }],
    ['other control characters', { text: '\u0000\u0001\u001f\u007f' }],
    ['a surrogate pair, a lone high and a lone low half', { text: '😀 \ud800x \udc00 \ud800' }],
    ['numbers JSON writes as null, and -0', [NaN, Infinity, -Infinity, -0, 1e21, 1.5e-7, 0.1 + 0.2]],
    ['members JSON leaves out or writes as null', { a: undefined, b: () => 1, c: Symbol('s'), d: [undefined, () => 1, Symbol('s')], e: 1 }],
    ['empty containers', { a: {}, b: [], c: [[]], d: [{}] }],
    ['an object without a prototype', Object.assign(Object.create(null) as object, { a: 1, b: 'two' })],
    ['a Date (toJSON)', { at: new Date(0), text: 'x' }],
    ['a class instance', { point: new Point(1, 2) }],
    ['an own toJSON', { a: { toJSON: () => ({ replaced: true }) } }],
    ['a Map and a boxed string', { m: new Map([[1, 2]]), s: Object('boxed') as unknown }],
    ['an array with extra properties', Object.assign([1, 2], { extra: 'ignored' })],
    // eslint-disable-next-line no-sparse-arrays -- the hole is the case
    ['a sparse array', [1, , 3]],
    ['nesting deeper than the walk goes', JSON.parse(`${'{"a":['.repeat(100)}1${']}'.repeat(100)}`) as unknown],
    ['a bare string', 'text'],
    ['undefined', undefined],
  ])('%s: the length of JSON.stringify', (_name, value) => {
    expect(jsonLength(value)).toBe(stringified(value));
  });

  it('throws what JSON.stringify throws: a cycle, a bigint', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic['self'] = { back: cyclic };
    expect(() => jsonLength(cyclic)).toThrow(TypeError);
    expect(() => jsonLength({ n: 1n })).toThrow(TypeError);
  });

  it('agrees with JSON.stringify on any JSON value, escapes and lone surrogates included', () => {
    fc.assert(
      fc.property(fc.jsonValue({ depthSize: 'medium' }), fc.string({ unit: 'binary' }), (value, odd) => {
        expect(jsonLength(value)).toBe(stringified(value));
        expect(jsonLength({ [odd]: [odd, value] })).toBe(stringified({ [odd]: [odd, value] }));
      }),
      { numRuns: 200 },
    );
  });

  it('agrees with JSON.stringify on values that are not JSON (undefined, functions, dates, class instances)', () => {
    fc.assert(
      fc.property(fc.anything({ withDate: true, withMap: true, withSet: true, withBoxedValues: true, withNullPrototype: true, withSparseArray: true, withTypedArray: true }), (value) => {
        expect(jsonLength(value)).toBe(stringified(value));
      }),
      { numRuns: 200 },
    );
  });
});
