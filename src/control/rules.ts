import type { CoverageTracker } from '../coverage/coverage.js';
import { ApiError } from '../lib/errors.js';
import { created, ok, type Reply } from '../http/route.js';
import { ScenarioError } from '../scenarios/parse.js';
import { activeRules, addRuntimeRule, DuplicateRuleError, removeRule, RuleLimitError, RUNTIME_RULES_NAME, type ActiveRule } from '../scenarios/runtime-rules.js';
import { loadedScenario } from '../scenarios/store.js';
import type { Workspace } from '../workspaces/workspace.js';

/*
 * The handlers of /__control/rules: break one thing now, without a reset. A rule
 * added here is a scenario rule in every way (the same schema, checks, matchers,
 * effects and counters); only where it lives differs (src/scenarios/runtime-rules.ts).
 */

/** A rule as the control plane shows it: where it came from, what it matches and does, and its counters. */
function ruleView(workspace: Workspace, active: ActiveRule) {
  const { rule, state } = active;
  return {
    id: rule.id,
    description: rule.description,
    source: active.source,
    scenario: active.source === 'scenario' ? (loadedScenario(workspace)?.name ?? null) : null,
    addedAt: active.addedAt,
    match: rule.match,
    then: rule.then,
    times: rule.times,
    phase: state.phase,
    seen: state.seen,
    fired: state.fired,
    remaining: rule.times === null ? null : Math.max(0, rule.times - state.fired),
  };
}

/** `POST /__control/rules`: checks the rule as a scenario's and adds it, answering it with its id. */
export function addRule(workspace: Workspace, body: Record<string, unknown>, coverage: CoverageTracker): Reply {
  let active: ActiveRule;
  try {
    active = addRuntimeRule(workspace, body);
  } catch (error) {
    if (error instanceof DuplicateRuleError) throw new ApiError(409, 'CONFLICT', error.message, { param: 'id' });
    if (error instanceof RuleLimitError) throw new ApiError(409, 'CONFLICT', error.message, { details: { limit: error.limit } });
    // The field is the rule's own (`match.body[0].pointer`); the whole rule when empty.
    if (error instanceof ScenarioError) throw new ApiError(400, 'INVALID_SCENARIO', `${error.field || 'rule'}: ${error.reason}`, { param: error.field || 'body', details: { field: error.field, reason: error.reason } });
    throw error;
  }
  // Coverage lists every rule that could fire, fired or not.
  coverage.scenarioLoaded(workspace, { name: RUNTIME_RULES_NAME, rules: [active.rule] });
  return created(ruleView(workspace, active));
}

/** `GET /__control/rules`: every active rule in the order requests meet them. Changes nothing. */
export function listRules(workspace: Workspace): Reply {
  return ok({ data: activeRules(workspace).map((active) => ruleView(workspace, active)) });
}

/** `DELETE /__control/rules/{id}`: removes a rule, run-time or the scenario's, answering it as it was. */
export function deleteRule(workspace: Workspace, id: string): Reply {
  const removed = removeRule(workspace, id);
  if (!removed) throw new ApiError(404, 'NOT_FOUND', `No active rule has the id '${id}' in this workspace.`, { param: 'id' });
  return ok(ruleView(workspace, removed));
}
