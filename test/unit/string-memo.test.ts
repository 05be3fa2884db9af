import { describe, expect, it } from 'vitest';
import { StringMemo } from '../../src/lib/string-memo.js';

describe('StringMemo', () => {
  it('gives back what was set under a key, and set returns the value', () => {
    const memo = new StringMemo<number>();
    expect(memo.get('a')).toBeUndefined();
    expect(memo.set('a', 1)).toBe(1);
    expect(memo.get('a')).toBe(1);
  });

  it('forgets everything at once when full, so it never holds more than its entries', () => {
    const memo = new StringMemo<number>(3);
    for (const [i, key] of ['a', 'b', 'c'].entries()) memo.set(key, i);
    expect(['a', 'b', 'c'].map((key) => memo.get(key))).toEqual([0, 1, 2]);
    memo.set('d', 3);
    expect(['a', 'b', 'c', 'd'].map((key) => memo.get(key))).toEqual([undefined, undefined, undefined, 3]);
  });

  it('keeps nothing for a key longer than its limit, and still gives the value back', () => {
    const memo = new StringMemo<string>(64, 4);
    expect(memo.set('abcde', 'long')).toBe('long');
    expect(memo.get('abcde')).toBeUndefined();
    memo.set('abcd', 'short');
    expect(memo.get('abcd')).toBe('short');
  });
});
