/*
 * The Limits view's pure logic: `GET /__control/limits` turned into what its gauges and its
 * velocity table say. No DOM here, so a unit test loads it as it is.
 */
import type { ControlBudgetName, ControlBudgetWindow, ControlLimits, ControlUpdateLimitsBody, ControlVelocityWindow } from '../../generated/named-types.js';
import { formatInstant } from './clock.js';

export type Limits = ControlLimits;
export type BudgetName = ControlBudgetName;

/** The budgets, in the order the view draws them, with what each one counts. */
export const BUDGETS = ['requests', 'analytics'] as const satisfies readonly BudgetName[];
export const BUDGET_LABELS: Record<BudgetName, string> = {
  requests: 'Requests (every endpoint, per minute)',
  analytics: 'Analytics (GET /v1/analytics and /v1/analytics/timeline, per second)',
};

/** What a `<meter>` and its text say of one budget window: the calls left of its limit. */
export interface Gauge {
  value: number;
  max: number;
  /** The gauge in words, so no one needs its colour or length: `57 of 60 left (3 used)`. */
  text: string;
  /** When the window frees a place, in virtual time; an empty window has nothing to free. */
  reset: string;
  /** Fewer than a tenth left: the meter's `low`, and the words say it too. */
  low: number;
}

export function gaugeOf(window: ControlBudgetWindow): Gauge {
  return {
    value: window.remaining,
    max: window.limit,
    text: `${window.remaining} of ${window.limit} left (${window.count} used in the last ${window.windowSeconds} s)${window.remaining === 0 ? ': used up, the next call gets 429' : ''}`,
    reset: window.count === 0 ? 'Window empty: nothing to reset' : `Oldest call ages out at ${formatInstant(Date.parse(window.resetAt))}`,
    low: Math.ceil(window.limit / 10),
  };
}

/** One velocity cell, `used / cap`, and when its window frees a place. */
export function velocityText(window: ControlVelocityWindow): string {
  const reset = window.resetAt === null ? '' : ` (resets ${formatInstant(Date.parse(window.resetAt))})`;
  return `${window.count} / ${window.limit}${window.count >= window.limit ? ' — at cap' : ''}${reset}`;
}

/** The body of `POST /__control/limits` that drains or refills one budget. */
export function budgetAction(action: 'drain' | 'refill', budget: BudgetName): ControlUpdateLimitsBody {
  return action === 'drain' ? { drain: [budget] } : { refill: [budget] };
}
