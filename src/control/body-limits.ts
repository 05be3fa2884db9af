import type { RouteDefinition } from '../http/route.js';
import { MAX_STORED_DEPTH } from '../lib/nesting.js';

/**
 * A snapshot to restore (PUT /__control/state) holds a whole world: the one control body far
 * larger than --body-limit, and nested deeper (bodies kept inside the world's own structure).
 */
export const STATE_BODY_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * A scenario's YAML (262,144 characters at most, by the contract: a size the yaml package parses
 * in tens of milliseconds, decision 0043) fits whatever escaping JSON gives it (six bytes for `\uXXXX`).
 */
export const SCENARIO_BODY_LIMIT_BYTES = 2 * 1024 * 1024;

/**
 * The control operations whose bodies may be larger than --body-limit or deeper than
 * MAX_JSON_DEPTH: read by their routes (workspaces.ts, scenarios.ts, state.ts), and by the
 * fuzz's oracle, which must expect what they take.
 */
export const CONTROL_BODY_LIMITS = {
  createWorkspace: { bodyLimitBytes: SCENARIO_BODY_LIMIT_BYTES },
  loadScenario: { bodyLimitBytes: SCENARIO_BODY_LIMIT_BYTES },
  putState: { bodyLimitBytes: STATE_BODY_LIMIT_BYTES, bodyDepth: MAX_STORED_DEPTH },
} satisfies Record<string, Pick<RouteDefinition, 'bodyLimitBytes' | 'bodyDepth'>>;
