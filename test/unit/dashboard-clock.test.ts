import { describe, expect, it } from 'vitest';
import { ADVANCE_PRESETS, clockNow, firstOf, formatInstant, formatUntil, fromUtcField, toUtcField } from '../../src/dashboard/ui/clock.js';

/* The Clock view's pure logic (src/dashboard/ui/clock.ts), outside a browser. */

const NOW = '2026-03-02T09:00:00.000Z';
const NOW_MS = Date.parse(NOW);

describe('ADVANCE_PRESETS', () => {
  it('are the ISO 8601 durations the advance endpoint takes, for 1 min, 1 h and 1 day', () => {
    expect(ADVANCE_PRESETS.map((preset) => [preset.label, preset.by])).toEqual([
      ['1 min', 'PT1M'],
      ['1 h', 'PT1H'],
      ['1 day', 'P1D'],
    ]);
  });
});

describe('clockNow', () => {
  it.each([
    ['a frozen clock stays where it was read', true, 5000, NOW_MS],
    ['a running clock moves with the wall clock since its read', false, 5000, NOW_MS + 5000],
    ['a wall clock gone backwards does not move it back', false, -5000, NOW_MS],
  ])('%s', (_, frozen, elapsed, expected) => {
    expect(clockNow({ now: NOW, frozen }, 1_000_000, 1_000_000 + elapsed)).toBe(expected);
  });
});

describe('formatInstant', () => {
  it('prints UTC to the second', () => {
    expect(formatInstant(NOW_MS + 1234)).toBe('2026-03-02T09:00:01Z');
  });
});

describe('formatUntil', () => {
  it.each([
    [0, 'due now'],
    [-60_000, 'due now'],
    [45_000, 'in 45 s'],
    [59 * 60_000, 'in 59 min'],
    [3_600_000 + 90_000, 'in 1 h 1 min'],
    [2 * 86_400_000 + 3 * 3_600_000 + 59_000, 'in 2 d 3 h'],
  ])('says %i ms ahead as %j', (ahead, words) => {
    expect(formatUntil(NOW_MS, NOW_MS + ahead)).toBe(words);
  });
});

describe('the Set field', () => {
  it.each([
    ['2026-03-02T10:30:15', '2026-03-02T10:30:15Z'],
    ['2026-03-02T10:30', '2026-03-02T10:30:00Z'],
    ['', null],
  ])('reads %j as %j', (value, instant) => {
    expect(fromUtcField(value)).toBe(instant);
  });

  it('shows an instant as UTC, and reads it back', () => {
    expect(toUtcField(NOW_MS)).toBe('2026-03-02T09:00:00');
    expect(fromUtcField(toUtcField(NOW_MS))).toBe('2026-03-02T09:00:00Z');
  });
});

describe('firstOf', () => {
  it.each([
    [3, 5, 3, 0],
    [5, 5, 5, 0],
    [12, 5, 5, 7],
  ])('of %i items, limit %i, shows %i and counts %i more', (length, limit, shown, more) => {
    const result = firstOf(Array.from({ length }, (_, index) => index), limit);
    expect(result.shown).toHaveLength(shown);
    expect(result.more).toBe(more);
  });
});
