/*
 * The state a scenario keeps while it runs, and the only ways it may change.
 * WireMock's scenarios are state machines that refuse undeclared states; ours are too:
 * a rule's counters move only through the transitions below, and the scenario's own
 * state only to a state the file declared. Anything else is a bug, and throws.
 */

/** `armed` rules are tried; an `exhausted` rule (fired `times` times) lets requests pass. */
export const RULE_PHASES = ['armed', 'exhausted'] as const;
export type RulePhase = (typeof RULE_PHASES)[number];

export interface RuleState {
  phase: RulePhase;
  /** Requests its matchers accepted (the counter `nth`, `every` and `probability` read). */
  seen: number;
  /** Times it answered. */
  fired: number;
}

export type RuleEvent =
  /** A request passed the rule's matchers (before nth, every and probability). */
  | { type: 'matched' }
  /** The rule answered the request; `times` is its limit, null for none. */
  | { type: 'fired'; times: number | null };

const TRANSITIONS: Record<RulePhase, ReadonlyArray<RuleEvent['type']>> = {
  armed: ['matched', 'fired'],
  exhausted: [],
};

export class ScenarioStateError extends Error {
  override name = 'ScenarioStateError';
}

export function initialRuleState(): RuleState {
  return { phase: 'armed', seen: 0, fired: 0 };
}

/** The rule's next state after an event; an event its phase does not declare throws. */
export function nextRuleState(state: RuleState, event: RuleEvent): RuleState {
  if (!TRANSITIONS[state.phase].includes(event.type)) {
    throw new ScenarioStateError(`A rule in phase '${state.phase}' cannot take '${event.type}'`);
  }
  if (event.type === 'matched') return { ...state, seen: state.seen + 1 };
  const fired = state.fired + 1;
  return { ...state, fired, phase: event.times !== null && fired >= event.times ? 'exhausted' : 'armed' };
}

/** The scenario's state after moving to `target`, which must be one it declared. */
export function nextScenarioState(declared: readonly string[], target: string): string {
  if (!declared.includes(target)) {
    throw new ScenarioStateError(`State '${target}' is not declared (states: ${declared.join(', ') || 'none'})`);
  }
  return target;
}
