import { defineStore } from '../store/define-store.js';
import type { Workspace } from '../workspaces/workspace.js';
import { compileRule } from './load.js';
import { keepPatterns, MAX_WORKSPACE_PATTERNS_LENGTH, patternsLength } from './matching.js';
import { parseRuntimeRule, ScenarioError } from './parse.js';
import { initialRuleState, type RuleState } from './rule-state.js';
import { loadedScenario, type LoadedRule } from './store.js';

/*
 * Rules added to a running workspace (POST /__control/rules), beside the loaded
 * scenario's. They are part of the workspace's data, so a snapshot, a restore and
 * --data keep them with their counters, and a reset or a scenario load (which start
 * the workspace afresh) removes them: the workspace's start has none.
 */

/** Where an active rule came from. */
export const RULE_SOURCES = ['scenario', 'runtime'] as const;
export type RuleSource = (typeof RULE_SOURCES)[number];

/** The name coverage files run-time rules under, in place of a scenario's. */
export const RUNTIME_RULES_NAME = 'runtime';

export const runtimeRulesStore = defineStore('rules', () => ({
  /** The rules added at run time, in the order added: tried in that order, before the scenario's. */
  rules: [] as LoadedRule[],
  /** Each one's counters, by rule id; they move only through rule-state.ts. */
  ruleStates: {} as Record<string, RuleState>,
  /** The number in the id of the next rule added without one (`rule-1`, `rule-2`, …). */
  nextId: 1,
  /** Virtual time each rule was added at, by id: its relative window moments count from it. */
  addedAt: {} as Record<string, string>,
}));

/** A rule with its counters, as GET /__control/rules lists it. */
export interface ActiveRule {
  rule: LoadedRule;
  source: RuleSource;
  state: RuleState;
  addedAt: string | null;
}

/** Every rule the workspace tries, in the order it tries them: run-time rules first, then the scenario's. */
export function activeRules(workspace: Workspace): ActiveRule[] {
  const runtime = runtimeRulesStore.peek(workspace);
  const scenario = loadedScenario(workspace);
  return [
    ...(runtime?.rules ?? []).map((rule) => ({ rule, source: 'runtime' as const, state: runtime?.ruleStates[rule.id] ?? initialRuleState(), addedAt: runtime?.addedAt[rule.id] ?? null })),
    ...(scenario?.rules ?? []).map((rule) => ({ rule, source: 'scenario' as const, state: scenario?.ruleStates[rule.id] ?? initialRuleState(), addedAt: scenario?.loadedAt ?? null })),
  ];
}

/**
 * The most rules one workspace adds at run time. Every request of the workspace is tried
 * against each active rule, so the list cannot grow with every call; a suite that adds a
 * rule per test and never removes one still has room for a thousand tests between resets.
 * (A scenario brings at most 200 of its own: the schema's bound.)
 */
export const MAX_RUNTIME_RULES = 1000;

/** The workspace holds MAX_RUNTIME_RULES run-time rules already. */
export class RuleLimitError extends Error {
  override name = 'RuleLimitError';

  constructor(readonly limit: number) {
    super(`This workspace holds ${limit} rules added at run time, the cap of run-time rules per workspace; remove some (DELETE /__control/rules/{id}) or reset the workspace before adding another.`);
  }
}

/** A rule id already in use, scenario's or run-time. */
export class DuplicateRuleError extends Error {
  override name = 'DuplicateRuleError';

  constructor(readonly ruleId: string) {
    super(`A rule with the id '${ruleId}' is already active in this workspace; remove it first (DELETE /__control/rules/${ruleId}) or pick another id.`);
  }
}

/**
 * Checks a rule as a scenario file's would be checked (the loaded scenario's states are
 * the ones it may name), then adds it, armed, after the other run-time rules. Throws a
 * ScenarioError, a DuplicateRuleError or a RuleLimitError and changes nothing when it cannot.
 */
export function addRuntimeRule(workspace: Workspace, body: Record<string, unknown>): ActiveRule {
  const store = runtimeRulesStore.read(workspace);
  if (store.rules.length >= MAX_RUNTIME_RULES) throw new RuleLimitError(MAX_RUNTIME_RULES);
  const taken = new Set(activeRules(workspace).map((active) => active.rule.id));
  let nextId = store.nextId;
  let id = typeof body['id'] === 'string' ? body['id'] : undefined;
  if (id === undefined) {
    while (taken.has(`rule-${nextId}`)) nextId++;
    id = `rule-${nextId}`;
    nextId++;
  }
  if (taken.has(id)) throw new DuplicateRuleError(id);
  const parsed = parseRuntimeRule({ ...body, id }, loadedScenario(workspace)?.states ?? []);
  const held = activeRules(workspace).reduce((sum, active) => sum + patternsLength(active.rule.match), 0) + patternsLength(parsed.rule.match);
  if (held > MAX_WORKSPACE_PATTERNS_LENGTH) {
    throw new ScenarioError(
      '<rule>',
      null,
      null,
      'match',
      `rule '${id}' would bring the paths and regular expressions of this workspace's rules to ${held} characters, over the ${MAX_WORKSPACE_PATTERNS_LENGTH} one workspace may hold; remove rules (DELETE /__control/rules/{id}) or reset the workspace first`,
    );
  }
  const addedAtMs = workspace.now();
  const rule = compileRule(workspace, parsed, parsed.rule, addedAtMs);

  // Nothing changes before every check has passed.
  const stored = runtimeRulesStore.get(workspace);
  stored.nextId = nextId;
  stored.rules.push(rule);
  stored.ruleStates[rule.id] = initialRuleState();
  stored.addedAt[rule.id] = new Date(addedAtMs).toISOString();
  workspace.changed();
  return { rule, source: 'runtime', state: initialRuleState(), addedAt: stored.addedAt[rule.id] ?? null };
}

/**
 * Compiles the patterns of every active rule that has none kept: those of a workspace read back
 * from a snapshot, a fork or a --data file, whose rules are JSON. Called when such a workspace
 * is installed, so its requests never compile (issue 35).
 */
export function keepActiveRulePatterns(workspace: Workspace): void {
  for (const active of activeRules(workspace)) keepPatterns(active.rule.match);
}

/**
 * Removes an active rule, run-time or the scenario's (a reset brings the scenario's
 * back). Answers the rule as it was, or undefined when no rule has the id.
 */
export function removeRule(workspace: Workspace, id: string): ActiveRule | undefined {
  const found = activeRules(workspace).find((active) => active.rule.id === id);
  if (!found) return undefined;
  const holder = found.source === 'runtime' ? runtimeRulesStore.get(workspace) : loadedScenario(workspace);
  if (!holder) return undefined;
  holder.rules = holder.rules.filter((rule) => rule.id !== id);
  delete holder.ruleStates[id];
  if (found.source === 'runtime') delete runtimeRulesStore.get(workspace).addedAt[id];
  workspace.changed();
  return found;
}
