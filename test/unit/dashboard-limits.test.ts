import { describe, expect, it } from 'vitest';
import { budgetAction, gaugeOf, velocityText } from '../../src/dashboard/ui/limits.js';

/* The Limits view's pure logic (src/dashboard/ui/limits.ts): what its gauges and velocity cells say of GET /__control/limits. */

const RESET = '2026-03-02T09:00:42.000Z';

describe('gaugeOf', () => {
  it.each([
    { window: { limit: 60, count: 0, remaining: 60, resetAt: RESET, windowSeconds: 60 }, value: 60, text: '60 of 60 left (0 used in the last 60 s)', reset: 'Window empty: nothing to reset' },
    { window: { limit: 60, count: 3, remaining: 57, resetAt: RESET, windowSeconds: 60 }, value: 57, text: '57 of 60 left (3 used in the last 60 s)', reset: 'Oldest call ages out at 2026-03-02T09:00:42Z' },
    { window: { limit: 6, count: 6, remaining: 0, resetAt: RESET, windowSeconds: 1 }, value: 0, text: '0 of 6 left (6 used in the last 1 s): used up, the next call gets 429', reset: 'Oldest call ages out at 2026-03-02T09:00:42Z' },
  ])('shows $window.remaining left of $window.limit as the meter value and in words', ({ window, value, text, reset }) => {
    const gauge = gaugeOf(window);
    expect(gauge).toMatchObject({ value, max: window.limit, text, reset });
  });

  it('marks the low band at a tenth of the limit, rounded up', () => {
    expect(gaugeOf({ limit: 600, count: 0, remaining: 600, resetAt: RESET, windowSeconds: 60 }).low).toBe(60);
    expect(gaugeOf({ limit: 6, count: 0, remaining: 6, resetAt: RESET, windowSeconds: 1 }).low).toBe(1);
  });
});

describe('velocityText', () => {
  it.each([
    { window: { count: 0, limit: 25, resetAt: null }, text: '0 / 25' },
    { window: { count: 4, limit: 25, resetAt: '2026-03-02T10:00:00.000Z' }, text: '4 / 25 (resets 2026-03-02T10:00:00Z)' },
    { window: { count: 25, limit: 25, resetAt: '2026-03-03T00:00:00.000Z' }, text: '25 / 25 — at cap (resets 2026-03-03T00:00:00Z)' },
  ])('says $text', ({ window, text }) => {
    expect(velocityText(window)).toBe(text);
  });
});

describe('budgetAction', () => {
  it.each([
    { action: 'drain', budget: 'requests', body: { drain: ['requests'] } },
    { action: 'refill', budget: 'requests', body: { refill: ['requests'] } },
    { action: 'drain', budget: 'analytics', body: { drain: ['analytics'] } },
    { action: 'refill', budget: 'analytics', body: { refill: ['analytics'] } },
  ] as const)('$action $budget is the body POST /__control/limits names', ({ action, budget, body }) => {
    expect(budgetAction(action, budget)).toEqual(body);
  });
});
