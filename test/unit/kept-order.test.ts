import { describe, expect, it } from 'vitest';
import { compareKeys } from '../../src/http/lists.js';
import { KeptOrder, type Kept } from '../../src/lib/kept-order.js';
import type { SortKey } from '../../src/lib/cursor-codec.js';

const ascending = (a: SortKey, b: SortKey) => compareKeys(a, b, 'asc');
const entry = (at: string, id: string): Kept<string> => ({ item: id, key: [at, id] });
const ids = (entries: Iterable<Kept<string>>) => [...entries].map((e) => e.item);

describe('KeptOrder', () => {
  it('walks greatest first from below a key, whatever order the entries came in', () => {
    const order = new KeptOrder(ascending, [entry('2026-01-02', 'b'), entry('2026-01-01', 'a'), entry('2026-01-02', 'a')]);
    order.insert(entry('2026-01-03', 'c'));
    order.insert(entry('2026-01-01', 'b'));
    expect(ids(order.descending())).toEqual(['c', 'b', 'a', 'b', 'a']);
    expect(ids(order.descending(['2026-01-02', 'b']))).toEqual(['a', 'b', 'a']);
    expect(order.lowerBound(['2026-01-02', ''])).toBe(2);
    expect(order.size).toBe(5);
  });

  it('moves an entry to its new key and takes out those below a key, least first', () => {
    const old = entry('2026-01-01', 'a');
    const order = new KeptOrder(ascending, [old, entry('2026-01-02', 'b'), entry('2026-01-03', 'c')]);
    order.move(old, ['2026-01-04', 'a']);
    expect(ids(order.descending())).toEqual(['a', 'c', 'b']);
    expect(ids(order.removeBelow(['2026-01-03', '\uffff']))).toEqual(['b', 'c']);
    expect(ids(order.descending())).toEqual(['a']);
    order.remove(old);
    expect(order.size).toBe(0);
  });
});
