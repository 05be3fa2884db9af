import { defineStore } from '../store/define-store.js';
import type { Workspace } from '../workspaces/workspace.js';
import type { RuleState } from './rule-state.js';
import type { BodyMatcher, HeaderMatcher, QueryMatcher, ThenSpec } from './scenario.js';

/** A rule's matchers with everything resolved at load: account ids, absolute windows, the path as a pattern. */
export interface LoadedMatch {
  operationIds?: string[];
  methods?: string[];
  /** The path as written, and as a regular expression over request paths. */
  path?: string;
  pathPattern?: string;
  accountIds?: string[];
  platforms?: string[];
  params?: Record<string, string[]>;
  headers?: HeaderMatcher[];
  query?: QueryMatcher;
  body?: BodyMatcher[];
  nth?: number;
  every?: number;
  fromMs?: number;
  untilMs?: number;
  probability?: number;
  state?: string;
}

export interface LoadedRule {
  id: string;
  description: string | null;
  match: LoadedMatch;
  then: ThenSpec;
  times: number | null;
}

/** The scenario a workspace runs: JSON, so snapshots, restores and --data keep it with its counters. */
export interface LoadedScenario {
  name: string;
  description: string | null;
  /** Virtual time of the load: relative moments count from it. */
  loadedAt: string;
  loadedAtMs: number;
  /** Declared states; the scenario's current one (null when it declares none). */
  states: string[];
  state: string | null;
  rules: LoadedRule[];
  /** Each rule's counters, by rule id; they move only through rule-state.ts. */
  ruleStates: Record<string, RuleState>;
  /** How many timeline steps were scheduled. */
  timelineSteps: number;
}

/** The scenario of one workspace; null before any is loaded. */
export const scenarioStore = defineStore('scenario', () => ({
  loaded: null as LoadedScenario | null,
}));

/** The workspace's scenario, without creating the store (every request asks). */
export function loadedScenario(workspace: Workspace): LoadedScenario | null {
  return scenarioStore.peek(workspace)?.loaded ?? null;
}
