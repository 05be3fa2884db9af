import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonBytes, sameJson, ViewMemo } from '../../src/http/json-memo.js';

/** JSON-like values, with the oddities JSON.stringify treats specially (undefined, -0, NaN, Infinity) mixed in. */
const value = fc.letrec((tie) => ({
  leaf: fc.oneof(fc.jsonValue({ maxDepth: 0 }), fc.string({ maxLength: 4, unit: 'binary' }), fc.constantFrom(undefined, -0, Number.NaN, Number.POSITIVE_INFINITY, 0)),
  node: fc.oneof({ depthSize: 'small' }, tie('leaf'), fc.array(tie('node'), { maxLength: 4 }), fc.dictionary(fc.string({ maxLength: 3 }), tie('node'), { maxKeys: 4 })),
})).node;

/** Decoded strictly, so bytes that are not UTF-8 (a lone surrogate encoded by hand, say) fail the test rather than compare as U+FFFD. */
function text(bytes: Buffer | undefined): string | undefined {
  return bytes === undefined ? undefined : new TextDecoder('utf-8', { fatal: true }).decode(bytes);
}

describe('jsonBytes', () => {
  it('is the UTF-8 of JSON.stringify, byte for byte, with remembered views anywhere in the body', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ maxLength: 4, unit: 'binary' }), fc.oneof(value, fc.array(value, { maxLength: 4 }))), fc.array(fc.dictionary(fc.string({ maxLength: 3 }), value), { maxLength: 4 }), (body, views) => {
        const memo = new ViewMemo();
        const remembered = views.map((view) => memo.of({}, view));
        const withViews = { ...body, data: remembered, first: remembered[0], list: [1, remembered[1], undefined, () => 1] };
        expect(text(jsonBytes(withViews))).toBe(JSON.stringify(withViews));
        // A second time: the bytes now come from the memo.
        expect(text(jsonBytes(withViews))).toBe(JSON.stringify(withViews));
      }),
      { seed: 21, numRuns: 300 },
    );
  });

  it('serializes what is not a plain object natively', () => {
    for (const body of [[1, 2], 'text', 3, null, new Date(0), { toJSON: () => 'x' }]) expect(text(jsonBytes(body))).toBe(JSON.stringify(body));
    expect(jsonBytes(undefined)).toBeUndefined();
  });
});

describe('ViewMemo', () => {
  it('answers the remembered view while the record is unchanged, and the new one once it changed', () => {
    const memo = new ViewMemo();
    const record = { id: 'p1', status: 'queued' };
    const first = memo.of(record, { id: record.id, status: record.status, metrics: null });
    expect(memo.of(record, { id: record.id, status: record.status, metrics: null })).toBe(first);
    record.status = 'published';
    const second = memo.of(record, { id: record.id, status: record.status, metrics: { likes: 1 } });
    expect(second).not.toBe(first);
    expect(text(jsonBytes({ post: second }))).toBe('{"post":{"id":"p1","status":"published","metrics":{"likes":1}}}');
    // Another record's equal view is its own.
    expect(memo.of({ id: 'p1' }, { id: 'p1', status: 'published', metrics: { likes: 1 } })).not.toBe(second);
  });

  it('freezes what it remembers, so an answered view cannot change under later answers', () => {
    const view = new ViewMemo().of({}, { destinations: [{ metrics: { likes: 1 } }] });
    expect(() => {
      (view.destinations[0] as { metrics: { likes: number } }).metrics.likes = 2;
    }).toThrow(TypeError);
  });
});

describe('sameJson', () => {
  it('never calls two values the same when their JSON differs', () => {
    fc.assert(
      fc.property(value, value, (a, b) => {
        if (sameJson(a, b)) expect(JSON.stringify(a)).toBe(JSON.stringify(b));
      }),
      { seed: 21, numRuns: 2000 },
    );
  });

  it('tells key order and type apart', () => {
    expect(sameJson({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(false);
    expect(sameJson([1], { 0: 1 })).toBe(false);
    expect(sameJson('1', 1)).toBe(false);
    expect(sameJson({ a: [1, { b: null }] }, { a: [1, { b: null }] })).toBe(true);
  });
});
