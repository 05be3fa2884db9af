import type { ScenarioSource, WorkspaceBase } from '../store/database.js';
import type { ScenarioChoice } from '../workspaces/registry.js';
import type { Workspace } from '../workspaces/workspace.js';
import { keepPatterns, pathPattern } from './matching.js';
import { resolveMoment } from './moments.js';
import { parseScenario, readScenario, type ParsedScenario } from './parse.js';
import { initialRuleState, type RuleState } from './rule-state.js';
import type { RuleSpec, Scenario } from './scenario.js';
import { scenarioStore, type LoadedMatch, type LoadedRule, type LoadedScenario } from './store.js';
import { STEP_JOB_PREFIX, stepKind } from './timeline-steps.js';
import { addWorldPosts, changeWorldAccount, resolveAccount } from './world.js';

/** Learns what scenarios do, for contract coverage ("which rules fired"). */
export interface ScenarioObserver {
  scenarioLoaded(workspace: Workspace, scenario: { name: string; rules: ReadonlyArray<{ id: string }> }): void;
  /** `scenario` names where the rule came from: the loaded scenario, or `runtime` for a rule added at run time. */
  ruleFired(workspace: Workspace, scenario: { name: string }, ruleId: string): void;
}

/**
 * The parts of a scenario that decide how its workspace is made rather than what it
 * holds: the registry builds the workspace from them, then calls applyScenario.
 */
function scenarioStart(scenario: Scenario): Partial<WorkspaceBase> {
  return {
    ...(scenario.plan !== undefined && { plan: scenario.plan }),
    ...(scenario.seed !== undefined && { seed: scenario.seed }),
    ...(scenario.fixtures !== undefined && { fixtures: scenario.fixtures }),
    ...(scenario.clock.startMs !== undefined && { clockStartMs: scenario.clock.startMs }),
    ...(scenario.clock.frozen !== undefined && { clockFrozen: scenario.clock.frozen }),
  };
}

/**
 * Scenarios read by scenarioChoice, by their source: the registry hands the same source object
 * on to applyScenario, which takes the parse from here instead of reading the YAML again. A
 * source read back from a workspace's origin (a reset, a restart with --data) is another object
 * and is read afresh; one chosen and never applied goes with its source.
 */
const chosen = new WeakMap<ScenarioSource, ParsedScenario>();

/**
 * Reads and checks a scenario (a bad one throws a ScenarioError naming its line), once:
 * the plan, seed, clock and fixtures it asks of the workspace it builds, for the registry.
 */
export function scenarioChoice(source: ScenarioSource): ScenarioChoice {
  return choiceOf(parseScenario(source));
}

/** scenarioChoice for a scenario a request sent, read in slices that let other tenants in (decision 0057). */
export async function readScenarioChoice(source: ScenarioSource): Promise<ScenarioChoice> {
  return choiceOf(await readScenario(source));
}

function choiceOf(parsed: ParsedScenario): ScenarioChoice {
  chosen.set(parsed.source, parsed);
  return { source: parsed.source, start: scenarioStart(parsed.scenario) };
}

/** A checked rule made ready for requests: account references resolved, moments made absolute (relative to `loadedAtMs`). */
export function compileRule(workspace: Workspace, parsed: Pick<ParsedScenario, 'fail'>, rule: RuleSpec, loadedAtMs: number): LoadedRule {
  const { match } = rule;
  const at = [...rule.at, 'match'];
  const loaded: LoadedMatch = {
    ...(match.operationIds && { operationIds: match.operationIds }),
    ...(match.methods && { methods: match.methods }),
    ...(match.path !== undefined && { path: match.path, pathPattern: pathPattern(match.path) }),
    ...(match.platforms && { platforms: match.platforms }),
    ...(match.params && { params: match.params }),
    ...(match.headers && { headers: match.headers }),
    ...(match.query && { query: match.query }),
    ...(match.body && { body: match.body }),
    ...(match.nth !== undefined && { nth: match.nth }),
    ...(match.every !== undefined && { every: match.every }),
    ...(match.probability !== undefined && { probability: match.probability }),
    ...(match.state !== undefined && { state: match.state }),
  };
  if (match.accounts) {
    loaded.accountIds = match.accounts.map((ref, i) => resolveAccount(workspace, ref, (reason) => parsed.fail(match.accounts?.length === 1 ? [...at, 'account'] : [...at, 'account', i], reason)).id);
  }
  if (match.window?.from) loaded.fromMs = resolveMoment(match.window.from, loadedAtMs);
  if (match.window?.until) loaded.untilMs = resolveMoment(match.window.until, loadedAtMs);
  if (loaded.fromMs !== undefined && loaded.untilMs !== undefined && loaded.fromMs >= loaded.untilMs) {
    parsed.fail([...at, 'window', 'until'], `the window ends (${new Date(loaded.untilMs).toISOString()}) before it starts (${new Date(loaded.fromMs).toISOString()})`);
  }
  // Compiled now, once: a request only runs them (issue 35: compiled per request, 100 rules held every tenant seconds).
  keepPatterns(loaded);
  return { id: rule.id, description: rule.description ?? null, match: loaded, then: rule.then, times: rule.times };
}

/**
 * Applies a scenario to a freshly made workspace (its plan, seed, clock and fixtures
 * already set from scenarioChoice's start): changes the world, installs the rules with fresh
 * counters and schedules the timeline. Throws a ScenarioError naming the line of
 * anything the workspace cannot satisfy; the registry then discards the workspace.
 */
export function applyScenario(workspace: Workspace, source: ScenarioSource, observer?: ScenarioObserver): LoadedScenario {
  const parsed = chosen.get(source) ?? parseScenario(source);
  const { scenario } = parsed;
  const loadedAtMs = workspace.now();

  for (const spec of scenario.accounts) changeWorldAccount(workspace, spec, loadedAtMs, (reason) => parsed.fail([...spec.at, 'account'], reason));
  for (const spec of scenario.posts) {
    addWorldPosts(workspace, spec, loadedAtMs, (field, reason) => parsed.fail(typeof field === 'number' ? [...spec.at, 'to', field] : [...spec.at, field], reason));
  }

  const rules = scenario.rules.map((rule) => compileRule(workspace, parsed, rule, loadedAtMs));
  const ruleStates: Record<string, RuleState> = {};
  for (const rule of rules) ruleStates[rule.id] = initialRuleState();

  scenario.timeline.forEach((step, i) => {
    const kind = stepKind(step.do);
    // The schema lets only known kinds through; this guards a schema and registry that disagree.
    if (!kind) return parsed.fail([...step.at, 'do'], `unknown step kind "${step.do}"`);
    const data = kind.prepare(step.params, { workspace, loadedAtMs, fail: (field, reason) => parsed.fail([...step.at, ...(typeof field === 'string' ? [field] : field)], reason) });
    const dueAt = resolveMoment(step.when, loadedAtMs);
    if (dueAt < loadedAtMs) parsed.fail([...step.at, 'at'], `the step would run at ${new Date(dueAt).toISOString()}, before the scenario is loaded (${new Date(loadedAtMs).toISOString()})`);
    workspace.scheduler.schedule(`${STEP_JOB_PREFIX}${step.do}`, dueAt, { ...data, scenario: scenario.name, step: i }, `${scenario.name}: ${kind.label(data)}`);
  });

  const loaded: LoadedScenario = {
    name: scenario.name,
    description: scenario.description,
    loadedAt: new Date(loadedAtMs).toISOString(),
    loadedAtMs,
    states: scenario.states,
    state: scenario.states[0] ?? null,
    rules,
    ruleStates,
    timelineSteps: scenario.timeline.length,
  };
  scenarioStore.get(workspace).loaded = loaded;
  observer?.scenarioLoaded(workspace, loaded);
  workspace.changed();
  return loaded;
}
