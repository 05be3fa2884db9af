import { describe, expect, it } from 'vitest';
import { SlidingWindow } from '../../src/limits/sliding-window.js';

describe('SlidingWindow', () => {
  it('ages each request out on its own, a window after it arrived', () => {
    const window = new SlidingWindow(60_000);
    window.record(0);
    window.record(20_000);
    window.record(40_000);
    expect(window.count(59_999)).toBe(3);
    expect(window.count(60_000)).toBe(2);
    expect(window.count(80_000)).toBe(1);
    expect(window.count(100_000)).toBe(0);
  });

  it('tells when the oldest request ages out', () => {
    const window = new SlidingWindow(1_000);
    expect(window.oldestExpiry(0)).toBeUndefined();
    window.record(300);
    window.record(700);
    expect(window.oldestExpiry(500)).toBe(1_300);
    expect(window.oldestExpiry(1_300)).toBe(1_700);
  });

  it('fills to a total and clears', () => {
    const window = new SlidingWindow(1_000);
    window.record(0);
    window.fillTo(5, 10);
    expect(window.count(10)).toBe(5);
    window.clear();
    expect(window.count(10)).toBe(0);
  });

  it('stays correct across compaction of a long history', () => {
    const window = new SlidingWindow(100);
    for (let t = 0; t < 10_000; t++) window.record(t);
    expect(window.count(9_999)).toBe(100);
    expect(window.oldestExpiry(9_999)).toBe(9_900 + 100);
  });
});

describe('SlidingWindow memory', () => {
  it('holds one entry for any number of requests at one instant (a frozen clock with the limit off)', () => {
    const window = new SlidingWindow(60_000);
    for (let i = 0; i < 100_000; i++) window.record(5_000);
    expect(window.count(5_000)).toBe(100_000);
    expect(window.entries).toBe(1);
    expect(window.oldestExpiry(5_000)).toBe(65_000);
    window.record(5_001);
    expect(window.entries).toBe(2);
    expect(window.count(65_000)).toBe(1);
  });

  it('drains onto the instant of the last request without a new entry', () => {
    const window = new SlidingWindow(1_000);
    window.record(10);
    window.fillTo(600, 10);
    expect(window.count(10)).toBe(600);
    expect(window.entries).toBe(1);
  });
});
