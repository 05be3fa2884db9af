import { describe, expect, it } from 'vitest';
import { hasRecords, setOwn } from '../../src/lib/records.js';

describe('hasRecords', () => {
  it('tells an object with a record of its own from one with none, whatever it inherits', () => {
    expect(hasRecords({})).toBe(false);
    expect(hasRecords(Object.create({ inherited: 1 }) as object)).toBe(false);
    expect(hasRecords({ wh_1: { id: 'wh_1' } })).toBe(true);
    const proto: Record<string, number> = {};
    setOwn(proto, '__proto__', 1);
    expect(hasRecords(proto)).toBe(true);
  });
});
