import { created, ok, route, type Reply } from '../http/route.js';
import { ApiError } from '../lib/errors.js';
import { availableScenarios, inlineScenario } from '../scenarios/library.js';
import { ScenarioError } from '../scenarios/parse.js';
import { initialRuleState } from '../scenarios/rule-state.js';
import { activeRules, addRuntimeRule, DuplicateRuleError, removeRule, RuleLimitError, RUNTIME_RULES_NAME, type ActiveRule } from '../scenarios/runtime-rules.js';
import { loadedScenario } from '../scenarios/store.js';
import type { Workspace } from '../workspaces/workspace.js';
import { CONTROL_BODY_LIMITS } from './body-limits.js';
import type { ControlDependencies, ControlRouteFactory } from './dependencies.js';
import { chooseScenario, namedScenario, stillThere, withScenario } from './scenario-input.js';
import { clockView } from './views.js';

function scenarioView(workspace: Workspace) {
  const loaded = loadedScenario(workspace);
  if (!loaded) return undefined;
  return {
    name: loaded.name,
    description: loaded.description,
    loadedAt: loaded.loadedAt,
    states: loaded.states,
    state: loaded.state,
    rules: loaded.rules.map((rule) => {
      const state = loaded.ruleStates[rule.id] ?? initialRuleState();
      return { id: rule.id, description: rule.description, phase: state.phase, seen: state.seen, fired: state.fired, times: rule.times };
    }),
    timelineSteps: loaded.timelineSteps,
  };
}

/*
 * The rules of /__control/rules: break one thing now, without a reset. A rule added here is a
 * scenario rule in every way (the same schema, checks, matchers, effects and counters); only
 * where it lives differs (src/scenarios/runtime-rules.ts).
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
function addRule(workspace: Workspace, body: Record<string, unknown>, coverage: ControlDependencies['coverage']): Reply {
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

/** `DELETE /__control/rules/{id}`: removes a rule, run-time or the scenario's, answering it as it was. */
function deleteRule(workspace: Workspace, id: string): Reply {
  const removed = removeRule(workspace, id);
  if (!removed) throw new ApiError(404, 'NOT_FOUND', `No active rule has the id '${id}' in this workspace.`, { param: 'id' });
  return ok(ruleView(workspace, removed));
}

/** The operations of control.yaml's tag Scenarios: scripted worlds, and rules added at run time. */
export const scenariosRoutes: ControlRouteFactory = ({ registry, coverage }) => [
  route('listScenarios', ({ workspace }) => {
    const loaded = scenarioView(workspace);
    return ok({ available: availableScenarios(), ...(loaded && { loaded }) });
  }),

  {
    ...route<never, never, { name?: string; yaml?: string }>('loadScenario', async ({ workspace, body }) => {
      const param = body.name !== undefined ? 'name' : 'yaml';
      const source = body.name !== undefined ? namedScenario(body.name, param) : inlineScenario(body.yaml ?? '');
      const choice = await chooseScenario(source, param);
      const current = stillThere(registry, workspace);
      const loaded = withScenario(param, () => registry.loadScenario(current, choice));
      return ok({ workspaceId: loaded.id, scenario: scenarioView(loaded), clock: clockView(loaded) });
    }),
    ...CONTROL_BODY_LIMITS.loadScenario,
  },

  // Every active rule in the order requests meet them. Changes nothing.
  route('listRules', ({ workspace }) => ok({ data: activeRules(workspace).map((active) => ruleView(workspace, active)) })),
  route<never, never, Record<string, unknown>>('addRule', ({ workspace, body }) => addRule(workspace, body, coverage)),
  route<{ id: string }>('removeRule', ({ workspace, params }) => deleteRule(workspace, params.id)),
];
