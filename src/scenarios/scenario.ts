import type { PlanName } from '../store/plans.js';
import type { Moment } from './moments.js';

/*
 * A scenario once its file has been read and checked (src/scenarios/parse.ts). The
 * format is documented in docs/scenarios.md and scenarios/scenario.schema.json; every
 * part keeps its `at` (its path in the file) so a problem found later, when the
 * scenario meets a workspace, still points at a line.
 */

/** A path into the scenario file: `['rules', 0, 'match', 'account']`. */
export type FieldPath = ReadonlyArray<string | number>;

/** Changes to one existing account of the world. */
export interface WorldAccountSpec {
  at: FieldPath;
  /** An account id, or a platform id meaning the first account on that network. */
  account: string;
  status?: string;
  authHealth?: 'healthy' | 'action_required';
  canAutoRenew?: boolean;
  /** Undefined: unchanged; null: never expires. */
  tokenExpiresAt?: Moment | null;
}

/** Posts that went out before the scenario starts. */
export interface WorldPostSpec {
  at: FieldPath;
  to: string[];
  text?: string;
  status: 'published' | 'failed';
  when: Moment;
  count: number;
  spacingMs: number;
  media?: 'image' | 'video';
  error?: { code: string; message: string };
}

export interface ErrorEffect {
  status: number;
  code: string;
  message?: string;
  param?: string;
  details?: Record<string, unknown>;
  headers?: Record<string, string>;
}

/** The open enumerations an answer can be made to carry unseen values of. */
export interface UnknownValues {
  platform?: string;
  accountStatus?: string;
  automationKind?: string;
}

/** A request header that must equal a value or match a regular expression; `name` is lower case. */
export interface HeaderMatcher {
  name: string;
  equals?: string;
  matches?: string;
}

/**
 * The request's query, exactly: it holds these parameter names and no other. A string is the
 * value of a parameter sent once; a list, the values of one sent that many times, in order;
 * null, a parameter sent with any value (what a recording redacted). `{}`: no query at all.
 */
export type QueryMatcher = Record<string, string | string[] | null>;

/** A field of the JSON body, by JSON Pointer, that must equal a value or (as text) match a regular expression. */
export interface BodyMatcher {
  pointer: string;
  equals?: unknown;
  matches?: string;
}

export interface MatchSpec {
  operationIds?: string[];
  methods?: string[];
  path?: string;
  accounts?: string[];
  platforms?: string[];
  /** Path parameters by their contract name: the request's value must be one of these. */
  params?: Record<string, string[]>;
  headers?: HeaderMatcher[];
  /** The request's query parameters, exactly (see QueryMatcher). */
  query?: QueryMatcher;
  body?: BodyMatcher[];
  nth?: number;
  every?: number;
  window?: { from?: Moment; until?: Moment };
  probability?: number;
  state?: string;
}

/** The statuses an off-contract fault answers, as proxies and crashed servers do. */
export const FAULT_STATUSES = [500, 502, 503, 504] as const;
export type FaultStatus = (typeof FAULT_STATUSES)[number];

/** The bodies an off-contract fault can carry. */
export const FAULT_BODIES = ['html', 'empty', 'json'] as const;
export type FaultBody = (typeof FAULT_BODIES)[number];

/** An answer no contract declares (a load balancer's 502 page, an empty 503). */
export interface FaultEffect {
  status: FaultStatus;
  body: FaultBody;
  retryAfter?: number;
  code?: string;
  message?: string;
  headers?: Record<string, string>;
}

/**
 * An answer given whole, as a recording of the real service holds it (src/proxy/recording.ts's
 * RecordedResponse): `json` is sent as JSON, `text` as is, neither an empty body.
 */
export interface RespondEffect {
  status: number;
  headers?: Record<string, string>;
  json?: unknown;
  text?: string;
}

export interface ThenSpec {
  error?: ErrorEffect;
  respond?: RespondEffect;
  latencyMs?: number;
  drop?: true;
  /** `true`: no answer at all; with `afterBytes`, the answer's first bytes, then the reset. */
  reset?: true | { afterBytes: number };
  malformed?: { body: string };
  fault?: FaultEffect;
  /** The answer cut after `afterBytes` bytes of body (half of it when absent), then a close. */
  truncated?: { afterBytes?: number };
  /** The answer's body sent `chunkBytes` at a time, `intervalMs` real milliseconds apart. */
  drip?: { chunkBytes: number; intervalMs: number };
  unknownValues?: UnknownValues;
  state?: string;
}

export interface RuleSpec {
  at: FieldPath;
  id: string;
  description?: string;
  match: MatchSpec;
  then: ThenSpec;
  times: number | null;
  /** The operations of openapi.yaml the rule can reach (checked at load). */
  operations: string[];
}

export interface StepSpec {
  at: FieldPath;
  when: Moment;
  /** The step kind (`emit`, `account.expire`, …). */
  do: string;
  /** Everything else the step's entry holds. */
  params: Record<string, unknown>;
}

export interface Scenario {
  name: string;
  description: string | null;
  seed?: number;
  plan?: PlanName;
  fixtures?: boolean;
  clock: { startMs?: number; frozen?: boolean };
  states: string[];
  accounts: WorldAccountSpec[];
  posts: WorldPostSpec[];
  rules: RuleSpec[];
  timeline: StepSpec[];
}
