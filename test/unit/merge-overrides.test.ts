import { describe, expect, it } from 'vitest';
import { mergeOverrides } from '../../src/lib/merge-overrides.js';

describe('mergeOverrides', () => {
  it.each([
    ['an object merges key by key', { post: { id: 'p1', text: 'a', tags: ['x'] } }, { post: { text: 'b' } }, { post: { id: 'p1', text: 'b', tags: ['x'] } }],
    ['a new key is added', { a: 1 }, { b: { c: 2 } }, { a: 1, b: { c: 2 } }],
    ['a list replaces a list', { tags: ['x', 'y'] }, { tags: ['z'] }, { tags: ['z'] }],
    ['null replaces an object', { error: { code: 'X' } }, { error: null }, { error: null }],
    ['an object replaces a scalar', { error: null }, { error: { code: 'X' } }, { error: { code: 'X' } }],
    ['a scalar replaces an object', { post: { id: 'p1' } }, { post: 'gone' }, { post: 'gone' }],
    ['nothing to override keeps the base', { a: { b: 1 } }, {}, { a: { b: 1 } }],
  ])('%s', (_, base, overrides, expected) => {
    expect(mergeOverrides(base, overrides)).toEqual(expected);
  });

  it('changes neither input', () => {
    const base = { post: { text: 'a' } };
    const overrides = { post: { text: 'b', extra: { n: 1 } } };
    const merged = mergeOverrides(base, overrides) as { post: { extra: { n: number } } };
    merged.post.extra.n = 2;
    expect(base).toEqual({ post: { text: 'a' } });
    expect(overrides.post.extra.n).toBe(1);
  });

  it('takes __proto__ from a JSON body as a field, never as a prototype', () => {
    const overrides = JSON.parse('{ "post": { "__proto__": { "polluted": true } }, "__proto__": { "polluted": true } }') as unknown;
    const merged = mergeOverrides({ post: { id: 'p1' } }, overrides) as Record<string, Record<string, unknown>>;
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(merged.post)).toBe(Object.prototype);
    expect(Object.hasOwn(merged, '__proto__')).toBe(true);
    expect((merged.post as { polluted?: unknown }).polluted).toBeUndefined();
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });
});
