import { clockStartProblem } from '../clock/virtual-clock.js';
import { readFileSync } from 'node:fs';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { validateHeaderName, validateHeaderValue } from 'node:http';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { LineCounter, isMap, isNode, isScalar, visit, type Document } from 'yaml';
import { declaredOperations, type DeclaredOperation } from '../http/declared-responses.js';
import { OperationIndex } from '../http/operations.js';
import { loadSpec } from '../http/spec.js';
import { didYouMean } from '../lib/did-you-mean.js';
import { nestedDeeperThan, tooDeepReason, yamlEntries } from '../lib/nesting.js';
import { parseYamlDocument, readYamlDocument } from '../lib/yaml-document.js';
import { packagePath } from '../lib/package-root.js';
import { PLATFORM_IDS } from '../platforms/catalog.js';
import type { ScenarioSource } from '../store/database.js';
import { AUTOMATION_KINDS } from '../api/automations/store.js';
import { parseIsoDuration } from '../clock/duration.js';
import type { PlanName } from '../store/plans.js';
import { expressionProblem, MAX_PATTERNS_LENGTH, pathCanReach, pathProblem } from './matching.js';
import { parseDateTime, parseMoment, type Moment } from './moments.js';
import { accountSourcesOf, canNameAccount, type AccountSources } from './request-facts.js';
import type { ErrorEffect, FaultBody, FaultEffect, FieldPath, MatchSpec, RespondEffect, RuleSpec, Scenario, StepSpec, ThenSpec, WorldAccountSpec, WorldPostSpec } from './scenario.js';

/** A scenario file that cannot be used, with where and why. */
export class ScenarioError extends Error {
  override name = 'ScenarioError';

  constructor(
    readonly file: string,
    readonly line: number | null,
    readonly column: number | null,
    /** The field at fault, as `rules[0].then.error.status`; empty for the whole file. */
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${file}${line !== null ? `:${line}:${column}` : ''}: ${field ? `${field}: ` : ''}${reason}`);
  }

  /** The parts a control-plane answer carries in `details`. */
  get details(): Record<string, unknown> {
    return { file: this.file, line: this.line, column: this.column, field: this.field, reason: this.reason };
  }
}

/** A checked scenario and a way to point at its lines when a later check fails. */
export interface ParsedScenario {
  scenario: Scenario;
  source: ScenarioSource;
  fail(at: FieldPath, reason: string): never;
}

export const SCHEMA_FILE = 'scenario.schema.json';
const RATE_LIMIT_DETAILS = ['currentCount', 'limit', 'retryAfterSeconds'] as const;
const KNOWN_ACCOUNT_STATUSES = ['active', 'expired', 'revoked', 'error'];

let validator: ValidateFunction | undefined;

/** scenarios/scenario.schema.json, compiled once per process. */
export function schemaValidator(): ValidateFunction {
  if (!validator) {
    const schema = JSON.parse(readFileSync(packagePath('scenarios', SCHEMA_FILE), 'utf8')) as object;
    const ajv = new Ajv({ allErrors: true, verbose: true, discriminator: true, strict: false });
    validator = ajv.compile(schema);
  }
  return validator;
}

/**
 * The checker's one-time costs, each in a turn of the event loop of its own: its schema compiled,
 * the contract's facts gathered, then `source` read as a request's scenario is, so that no
 * request waits behind all of them at once (decision 0057). Never rejects: a checker that cannot
 * start fails the first scenario that needs it, with that scenario's answer.
 */
export async function warmUpChecker(source: ScenarioSource): Promise<void> {
  try {
    schemaValidator();
    await nextTurn();
    facts();
    await readScenario(source);
  } catch {
    // The first scenario read meets the same failure, and answers it.
  }
}

interface ApiFacts {
  declared: Map<string, DeclaredOperation>;
  sources: Map<string, AccountSources>;
  /** The operations that take a request body. */
  withBody: Set<string>;
}

let apiFacts: ApiFacts | undefined;

function facts(): ApiFacts {
  if (!apiFacts) {
    const document = loadSpec('openapi.yaml').document;
    const withBody = new Set(new OperationIndex(document).operations.filter((operation) => operation.bodyMediaTypes.length > 0).map((operation) => operation.operationId));
    apiFacts = { declared: declaredOperations(document), sources: accountSourcesOf(document), withBody };
  }
  return apiFacts;
}

/** Fails a check at a field of the scenario, naming where it sits when the scenario has lines. */
interface Locator {
  fail(at: FieldPath, reason: string, onKey?: boolean): never;
}

/** Where each value sits in the YAML, for errors that name a line and column. */
class SourceMap implements Locator {
  constructor(
    private readonly file: string,
    private readonly document: Document,
    private readonly lines: LineCounter,
  ) {}

  fail(at: FieldPath, reason: string, onKey = false): never {
    const { line, column } = this.position(at, onKey);
    throw new ScenarioError(this.file, line, column, formatPath(at), reason);
  }

  /** The value's position (or, for an unknown field, its key's); the nearest existing parent otherwise. */
  private position(at: FieldPath, onKey: boolean): { line: number | null; column: number | null } {
    if (onKey && at.length > 0) {
      const parent = this.document.getIn(at.slice(0, -1), true);
      if (isMap(parent)) {
        const pair = parent.items.find((item) => isScalar(item.key) && item.key.value === at[at.length - 1]);
        if (pair && isNode(pair.key) && pair.key.range) return this.at(pair.key.range[0]);
      }
    }
    for (let length = at.length; length >= 0; length--) {
      const node = length === 0 ? this.document.contents : this.document.getIn(at.slice(0, length), true);
      if (isNode(node) && node.range) return this.at(node.range[0]);
    }
    return { line: null, column: null };
  }

  private at(offset: number): { line: number; column: number } {
    const { line, col } = this.lines.linePos(offset);
    return { line, column: col };
  }
}

function formatPath(at: FieldPath): string {
  return at.map((segment, i) => (typeof segment === 'number' ? `[${segment}]` : i === 0 ? segment : `.${segment}`)).join('');
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** The path of an ajv error's value, with list indexes as numbers. */
function pathOf(error: ErrorObject, root: unknown): (string | number)[] {
  const at: (string | number)[] = [];
  let node = root;
  for (const raw of error.instancePath.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    const segment = Array.isArray(node) ? Number(key) : key;
    at.push(segment);
    node = (node as Record<string | number, unknown> | undefined)?.[segment];
  }
  return at;
}

function valueAt(root: unknown, at: FieldPath): unknown {
  let node = root;
  for (const segment of at) node = (node as Record<string | number, unknown> | undefined)?.[segment];
  return node;
}

/** Keywords that only say "some branch failed"; the branch's own error says more. */
const VAGUE = new Set(['anyOf', 'oneOf', 'if', 'not']);
const WEAK = new Set(['type', 'const']);

/** The one error to report: the deepest, and a precise one over a vague one. */
function bestError(errors: ErrorObject[]): ErrorObject {
  // An unknown field outranks a missing one at the same place: "thn" is a typo of the missing "then".
  const rank = (error: ErrorObject) => {
    const depth = error.instancePath.split('/').length + (error.keyword === 'additionalProperties' || error.keyword === 'required' ? 1 : 0);
    return depth * 10 + (VAGUE.has(error.keyword) ? 0 : WEAK.has(error.keyword) ? 1 : error.keyword === 'additionalProperties' ? 3 : 2);
  };
  return errors.reduce((best, error) => (rank(error) > rank(best) ? error : best));
}

function reasonOf(error: ErrorObject, value: unknown): string {
  const params = error.params as Record<string, unknown>;
  const parent = (error.parentSchema ?? {}) as { properties?: Record<string, unknown>; description?: string; oneOf?: Array<{ properties?: { do?: { const?: string } } }> };
  switch (error.keyword) {
    case 'required':
      return `missing required field "${String(params['missingProperty'])}"`;
    case 'additionalProperties':
      return `unknown field "${String(params['additionalProperty'])}" (expected one of: ${Object.keys(parent.properties ?? {}).join(', ')})`;
    case 'enum':
      return `must be one of ${(params['allowedValues'] as unknown[]).map(String).join(', ')}; got ${describe(value)}`;
    case 'const':
      return `must be ${JSON.stringify(params['allowedValue'])}; got ${describe(value)}`;
    case 'type':
      return `must be ${String(params['type'])}; got ${describe(value)}`;
    case 'pattern':
      return parent.description ? `${describe(value)} is not valid here. ${parent.description}` : `${describe(value)} must match ${String(params['pattern'])}`;
    case 'discriminator': {
      const kinds = (parent.oneOf ?? []).map((branch) => branch.properties?.do?.const).filter((kind) => kind !== undefined);
      return params['tagValue'] === undefined ? 'missing required field "do"' : `unknown step kind ${describe(params['tagValue'])} (expected one of: ${kinds.join(', ')})`;
    }
    default:
      return `${error.message ?? 'is invalid'}; got ${describe(value)}`;
  }
}

/**
 * The document as plain data. Aliases are YAML's own: an alias to no anchor, one that
 * refers to itself, or so many that they multiply the data (yaml refuses those) fail
 * here, at the first alias, instead of deep in the checks.
 */
function toPlainData(document: Document, file: string, lines: LineCounter): unknown {
  const refuse = (reason: string): never => {
    let at: { line: number; col: number } | undefined;
    visit(document, {
      Alias(_key, node) {
        if (node.range) at = lines.linePos(node.range[0]);
        return visit.BREAK;
      },
    });
    throw new ScenarioError(file, at?.line ?? null, at?.col ?? null, '', `not valid YAML: ${reason}`);
  };
  let raw: unknown;
  try {
    raw = document.toJS();
  } catch (error) {
    return refuse(error instanceof Error ? error.message : String(error));
  }
  // Aliases can nest what each anchor holds inside another's, deeper than the text itself.
  if (nestedDeeperThan(raw)) {
    try {
      JSON.stringify(raw);
    } catch (error) {
      if (error instanceof TypeError) return refuse('an alias refers to the node that holds it');
    }
    throw new ScenarioError(file, null, null, '', tooDeepReason('the scenario (with its aliases)'));
  }
  return raw;
}

/** Reads a scenario: YAML, then the JSON Schema, then the checks a schema cannot make. */
export function parseScenario(source: ScenarioSource): ParsedScenario {
  const lines = new LineCounter();
  // Checked on the parser's tokens, before building the document recurses once per level.
  const steps = scenarioSteps(source, parseYamlDocument(source.yaml, lines), lines);
  let step = steps.next();
  while (!step.done) step = steps.next();
  return step.value;
}

/**
 * parseScenario for a scenario a request sent (decision 0057): its YAML tokenized in slices, and
 * the event loop let go between the steps after it (the document made data, the checks) and
 * before the caller builds a workspace from it, so no step holds the other tenants for long.
 */
export async function readScenario(source: ScenarioSource): Promise<ParsedScenario> {
  const lines = new LineCounter();
  const steps = scenarioSteps(source, await readYamlDocument(source.yaml, lines), lines);
  for (;;) {
    await nextTurn();
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** The steps after the YAML is read into `document` (undefined when it nests too deep), pausing between them. */
function* scenarioSteps(source: ScenarioSource, document: Document.Parsed | undefined, lines: LineCounter): Generator<void, ParsedScenario> {
  if (!document) throw new ScenarioError(source.file, null, null, '', tooDeepReason('the scenario'));
  const yamlError = document.errors[0];
  if (yamlError) {
    const at = yamlError.linePos?.[0];
    // The pretty message repeats the position and quotes the line; the position is ours to print.
    const message = (yamlError.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
    throw new ScenarioError(source.file, at?.line ?? null, at?.col ?? null, '', `not valid YAML: ${message}`);
  }
  const raw = toPlainData(document, source.file, lines);
  yield;
  const parsed = checkScenario(raw, new SourceMap(source.file, document, lines), source);
  yield;
  return parsed;
}

/**
 * The most lines and flow entries (`[a, b]`, `{a: 1}`) a scenario sent over the control plane
 * may hold. The yaml package builds a document at several microseconds a line, and its garbage
 * costs as much again, so a scenario of a shared server's request is bounded by its nodes as well
 * as its characters: 2,000 lines parsed in 115 to 200 ms on a machine loaded twelve times over
 * (load 25 on 2 cores), about a tenth of that on a quiet core; 5,000 held the event loop 2.3 s
 * there (docs/reliability.md). Four times a large hand-written scenario; a larger one (a long
 * recording) is given with --scenario.
 */
export const MAX_SENT_SCENARIO_ENTRIES = 2_000;

/** Refuses, before any parsing, a scenario sent over the control plane with more than MAX_SENT_SCENARIO_ENTRIES lines and flow entries. */
export function checkSentScenarioSize(source: ScenarioSource): void {
  const entries = yamlEntries(source.yaml, MAX_SENT_SCENARIO_ENTRIES);
  if (entries > MAX_SENT_SCENARIO_ENTRIES) {
    throw new ScenarioError(source.file, null, null, '', `the scenario holds more than ${MAX_SENT_SCENARIO_ENTRIES} lines and flow entries, the most one sent over the control plane may hold; give a larger one to the server with --scenario`);
  }
}

/** The checks after the YAML: the JSON Schema, then what a schema cannot say. */
function checkScenario(raw: unknown, map: Locator, source: ScenarioSource): ParsedScenario {
  if (raw === null || raw === undefined) throw new ScenarioError(source.file, 1, 1, '', 'the scenario is empty; it needs at least one of accounts, posts, rules or timeline');
  // Not quoted back: a file that is no scenario at all (a binary, a key, a dump) may be anything.
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new ScenarioError(source.file, 1, 1, '', `a scenario is a mapping (name, accounts, posts, rules, timeline…); this holds ${Array.isArray(raw) ? 'a list' : `a ${typeof raw}`}`);
  const validate = schemaValidator();
  if (!validate(raw)) {
    const error = bestError(validate.errors ?? []);
    const at = pathOf(error, raw);
    if (error.keyword === 'additionalProperties') return map.fail([...at, String((error.params as { additionalProperty: string }).additionalProperty)], reasonOf(error, undefined), true);
    if (error.keyword === 'discriminator' && (error.params as { tagValue?: unknown }).tagValue !== undefined) {
      return map.fail([...at, 'do'], reasonOf(error, undefined));
    }
    return map.fail(at, reasonOf(error, valueAt(raw, at)));
  }
  const scenario = new Checker(map, raw as RawScenario, source).check();
  return { scenario, source, fail: (at, reason) => map.fail(at, reason) };
}

// The shapes the schema guarantees; the checker only adds what a schema cannot say.
type OneOrMany<T> = T | T[];
interface RawRule {
  id: string;
  description?: string;
  match?: {
    operationId?: OneOrMany<string>;
    method?: OneOrMany<string>;
    path?: string;
    account?: OneOrMany<string>;
    platform?: OneOrMany<string>;
    params?: Record<string, OneOrMany<string>>;
    headers?: Array<{ name: string; equals?: string; matches?: string }>;
    query?: Record<string, string | string[] | null>;
    body?: Array<{ pointer: string; equals?: unknown; matches?: string }>;
    nth?: number;
    every?: number;
    window?: { from?: string; until?: string };
    probability?: number;
    state?: string;
  };
  then: Omit<ThenSpec, 'error' | 'malformed' | 'fault' | 'truncated' | 'drip'> & {
    /** `status` may be left out when the code says it (decision 0049). */
    error?: Omit<ErrorEffect, 'status'> & { status?: number };
    malformed?: true | { body: string };
    fault?: Omit<FaultEffect, 'body'> & { body?: FaultBody };
    truncated?: true | { afterBytes: number };
    drip?: { chunkBytes?: number; intervalMs?: number };
  };
  times?: number;
}
interface RawScenario {
  name?: string;
  description?: string;
  seed?: number;
  plan?: PlanName;
  fixtures?: boolean;
  clock?: { start?: string; frozen?: boolean };
  states?: string[];
  accounts?: Array<{ account: string; status?: string; authHealth?: 'healthy' | 'action_required'; canAutoRenew?: boolean; tokenExpiresAt?: string | null }>;
  posts?: Array<{ to: OneOrMany<string>; text?: string; status?: 'published' | 'failed'; at: string; count?: number; spacing?: string; media?: 'image' | 'video'; error?: { code: string; message: string } }>;
  rules?: RawRule[];
  timeline?: Array<{ at: string; do: string } & Record<string, unknown>>;
}

function list<T>(value: OneOrMany<T> | undefined): T[] | undefined {
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value : [value];
}

/**
 * The most objects one scenario makes: its world's posts × destinations, plus what its
 * timeline makes (a network.post step's `count`, one per inbound step). Building 2,000
 * takes about 30 ms (docs/security/caps.md), so a load cannot hold the server long; the
 * schema bounds the lists themselves (100 post entries, 500 timeline steps).
 */
export const SCENARIO_MAX_OBJECTS = 2000;

/** The objects a timeline step makes when it runs. */
function stepObjects(step: StepSpec): number {
  if (step.do === 'network.post') return typeof step.params['count'] === 'number' ? step.params['count'] : 1;
  return step.do.startsWith('inbound.') ? 1 : 0;
}

/** Statuses HTTP sends without a body (RFC 9110 15.3.5, 15.3.6, 15.4.5). */
export const BODYLESS_STATUSES: readonly number[] = [204, 205, 304];

/** Headers about the bytes and the connection, not the answer: Node and the mock set them. */
export const FRAMING_HEADERS: readonly string[] = ['content-length', 'transfer-encoding', 'content-encoding', 'connection', 'keep-alive', 'upgrade', 'trailer', 'te', 'proxy-connection'];

/** How a `drip: {}` sends a body: 16 bytes every 100 ms. */
export const DEFAULT_DRIP = { chunkBytes: 16, intervalMs: 100 } as const;

/** A malformed body a client cannot parse: the start of a list, cut off. */
export const DEFAULT_MALFORMED_BODY = '{"data": [{"id": "';

class Checker {
  /** Characters of paths and regular expressions checked so far: compiling them is paid for by length. */
  private patternsLength = 0;

  constructor(
    private readonly map: Locator,
    private readonly raw: RawScenario,
    private readonly source: ScenarioSource,
  ) {}

  check(): Scenario {
    const raw = this.raw;
    const states = raw.states ?? [];
    let startMs: number | undefined;
    if (raw.clock?.start !== undefined) {
      startMs = parseDateTime(raw.clock.start);
      if (startMs === undefined) this.map.fail(['clock', 'start'], `"${raw.clock.start}" is not an ISO 8601 date-time with a zone`);
      const problem = clockStartProblem(startMs);
      if (problem !== undefined) this.map.fail(['clock', 'start'], `"${raw.clock.start}" ${problem}`);
    }
    const scenario: Scenario = {
      name: raw.name ?? this.source.name,
      description: raw.description ?? null,
      ...(raw.seed !== undefined && { seed: raw.seed }),
      ...(raw.plan !== undefined && { plan: raw.plan }),
      ...(raw.fixtures !== undefined && { fixtures: raw.fixtures }),
      clock: { ...(startMs !== undefined && { startMs }), ...(raw.clock?.frozen !== undefined && { frozen: raw.clock.frozen }) },
      states,
      accounts: (raw.accounts ?? []).map((entry, i) => this.account(entry, ['accounts', i])),
      posts: (raw.posts ?? []).map((entry, i) => this.post(entry, ['posts', i])),
      rules: (raw.rules ?? []).map((entry, i) => this.rule(entry, ['rules', i], states)),
      timeline: (raw.timeline ?? []).map((entry, i) => this.step(entry, ['timeline', i], states)),
    };
    scenario.rules.forEach((rule, i) => {
      if (scenario.rules.findIndex((other) => other.id === rule.id) !== i) this.map.fail([...rule.at, 'id'], `duplicate rule id "${rule.id}"`);
    });
    this.checkObjectCap(scenario);
    if (scenario.accounts.length + scenario.posts.length + scenario.rules.length + scenario.timeline.length === 0 && raw.plan === undefined && raw.clock === undefined && raw.seed === undefined) {
      this.map.fail([], 'the scenario does nothing; give it accounts, posts, rules, a timeline, or a plan, clock or seed');
    }
    return scenario;
  }

  /**
   * The schema bounds each list, not their product: 100 post entries × count 500 × 100
   * destinations is five million records from a few kilobytes. The objects are counted
   * here, before anything is built, and the entry that crosses the cap is named.
   */
  private checkObjectCap(scenario: Scenario): void {
    let objects = 0;
    const crossed = (at: FieldPath, what: string) =>
      this.map.fail(at, `the scenario makes ${objects} objects by here (${what}); one scenario makes at most ${SCENARIO_MAX_OBJECTS} (world posts × destinations, and the posts, comments, messages and reviews of its timeline)`);
    for (const post of scenario.posts) {
      objects += post.count * post.to.length;
      if (objects > SCENARIO_MAX_OBJECTS) crossed([...post.at, post.count > 1 ? 'count' : 'to'], `${post.count} post${post.count === 1 ? '' : 's'} × ${post.to.length} destination${post.to.length === 1 ? '' : 's'}`);
    }
    for (const step of scenario.timeline) {
      const made = stepObjects(step);
      objects += made;
      if (objects > SCENARIO_MAX_OBJECTS) crossed(step.do === 'network.post' ? [...step.at, 'count'] : step.at, `${made} by ${step.do}`);
    }
  }

  private moment(text: string, at: FieldPath): Moment {
    const moment = parseMoment(text);
    if (!moment) this.map.fail(at, `"${text}" is neither an ISO 8601 duration (PT2H, -PT30M; no years or months) nor a date-time with a zone`);
    return moment;
  }

  private duration(text: string, at: FieldPath): number {
    const ms = parseIsoDuration(text);
    if (ms === undefined || ms === 0) this.map.fail(at, `"${text}" is not a positive ISO 8601 duration without years or months (PT30M, P1DT2H)`);
    return ms;
  }

  private account(entry: NonNullable<RawScenario['accounts']>[number], at: FieldPath): WorldAccountSpec {
    if (Object.keys(entry).length === 1) this.map.fail(at, 'says which account but not what to change (status, authHealth, canAutoRenew, tokenExpiresAt)');
    return {
      at,
      account: entry.account,
      ...(entry.status !== undefined && { status: entry.status }),
      ...(entry.authHealth !== undefined && { authHealth: entry.authHealth }),
      ...(entry.canAutoRenew !== undefined && { canAutoRenew: entry.canAutoRenew }),
      ...(entry.tokenExpiresAt !== undefined && { tokenExpiresAt: entry.tokenExpiresAt === null ? null : this.moment(entry.tokenExpiresAt, [...at, 'tokenExpiresAt']) }),
    };
  }

  private post(entry: NonNullable<RawScenario['posts']>[number], at: FieldPath): WorldPostSpec {
    const when = this.moment(entry.at, [...at, 'at']);
    if ('relativeMs' in when && when.relativeMs > 0) this.map.fail([...at, 'at'], 'a world post went out before the scenario starts (use a negative duration such as -PT30M)');
    const status = entry.status ?? 'published';
    if (entry.error && status !== 'failed') this.map.fail([...at, 'error'], 'only a failed post has an error');
    return {
      at,
      to: list(entry.to) ?? [],
      ...(entry.text !== undefined && { text: entry.text }),
      status,
      when,
      count: entry.count ?? 1,
      spacingMs: entry.spacing === undefined ? 60_000 : this.duration(entry.spacing, [...at, 'spacing']),
      ...(entry.media !== undefined && { media: entry.media }),
      ...(entry.error !== undefined && { error: entry.error }),
    };
  }

  private rule(entry: RawRule, at: FieldPath, states: string[]): RuleSpec {
    const rawMatch = entry.match ?? {};
    const matchAt = [...at, 'match'];
    if (rawMatch.nth !== undefined && rawMatch.every !== undefined) this.map.fail([...matchAt, 'every'], 'give nth or every, not both');
    const match: MatchSpec = {
      ...(rawMatch.operationId !== undefined && { operationIds: list(rawMatch.operationId) }),
      ...(rawMatch.method !== undefined && { methods: list(rawMatch.method) }),
      ...(rawMatch.path !== undefined && { path: this.path(rawMatch.path, [...matchAt, 'path']) }),
      ...(rawMatch.account !== undefined && { accounts: list(rawMatch.account) }),
      ...(rawMatch.platform !== undefined && { platforms: list(rawMatch.platform) }),
      ...(rawMatch.params !== undefined && { params: Object.fromEntries(Object.entries(rawMatch.params).map(([name, values]) => [name, list(values) ?? []])) }),
      ...(rawMatch.headers !== undefined && { headers: rawMatch.headers.map((header, i) => ({ ...header, name: header.name.toLowerCase(), ...(header.matches !== undefined && { matches: this.regex(header.matches, [...matchAt, 'headers', i, 'matches']) }) })) }),
      ...(rawMatch.query !== undefined && { query: rawMatch.query }),
      ...(rawMatch.body !== undefined && { body: rawMatch.body.map((field, i) => ({ ...field, ...(field.matches !== undefined && { matches: this.regex(field.matches, [...matchAt, 'body', i, 'matches']) }) })) }),
      ...(rawMatch.nth !== undefined && { nth: rawMatch.nth }),
      ...(rawMatch.every !== undefined && { every: rawMatch.every }),
      ...(rawMatch.probability !== undefined && { probability: rawMatch.probability }),
      ...(rawMatch.state !== undefined && { state: this.state(rawMatch.state, states, [...matchAt, 'state']) }),
    };
    if (rawMatch.window) {
      const window: NonNullable<MatchSpec['window']> = {};
      if (rawMatch.window.from !== undefined) window.from = this.moment(rawMatch.window.from, [...matchAt, 'window', 'from']);
      if (rawMatch.window.until !== undefined) window.until = this.moment(rawMatch.window.until, [...matchAt, 'window', 'until']);
      if (window.from && window.until && sameKind(window.from, window.until) && momentValue(window.from) >= momentValue(window.until)) {
        this.map.fail([...matchAt, 'window', 'until'], 'until must be later than from');
      }
      match.window = window;
    }
    const operations = this.reachableOperations(match, matchAt);
    const then = this.then(entry.then, [...at, 'then'], states, operations);
    return { at, id: entry.id, ...(entry.description !== undefined && { description: entry.description }), match, then, times: entry.times ?? null, operations };
  }

  /** A regular expression a matcher gives, checked now so one RE2 cannot run fails at its line. */
  private regex(source: string, at: FieldPath): string {
    this.countPattern(source, at);
    const problem = expressionProblem(source);
    if (problem !== undefined) this.map.fail(at, `not a regular expression the mock can run: ${problem}`);
    return source;
  }

  /** A rule's path, checked now so one too long or too costly to match fails at its line. */
  private path(path: string, at: FieldPath): string {
    this.countPattern(path, at);
    const problem = pathProblem(path);
    if (problem !== undefined) this.map.fail(at, `not a path the mock can match: ${problem}`);
    return path;
  }

  /** Fails, before compiling, at the pattern that takes the scenario's patterns past the length they may have together. */
  private countPattern(pattern: string, at: FieldPath): void {
    this.patternsLength += pattern.length;
    if (this.patternsLength > MAX_PATTERNS_LENGTH) {
      this.map.fail(at, `the paths and regular expressions come to ${this.patternsLength} characters with this one, over the ${MAX_PATTERNS_LENGTH} one scenario or rule may hold in all`);
    }
  }

  /** The operations a rule's operationId, method, path, account, platform, params and body matchers let through. */
  private reachableOperations(match: MatchSpec, at: FieldPath): string[] {
    const { declared, sources } = facts();
    for (const [i, operationId] of (match.operationIds ?? []).entries()) {
      if (!declared.has(operationId)) {
        const field = match.operationIds?.length === 1 && !Array.isArray(valueAt(this.raw, [...at, 'operationId'])) ? [...at, 'operationId'] : [...at, 'operationId', i];
        this.map.fail(field, `"${operationId}" is not an operation of openapi.yaml${didYouMean(operationId, [...declared.keys()])}`);
      }
    }
    const needsAccount = match.accounts !== undefined || match.platforms !== undefined;
    const reachable = [...declared.values()].filter((operation) => {
      if (match.operationIds && !match.operationIds.includes(operation.operationId)) return false;
      if (match.methods && !match.methods.includes(operation.method)) return false;
      if (match.path !== undefined && !pathCanReach(match.path, operation.path)) return false;
      if (needsAccount && !canNameAccount(sources.get(operation.operationId))) return false;
      if (match.params && !Object.keys(match.params).every((name) => operation.path.includes(`{${name}}`))) return false;
      if (match.body && !facts().withBody.has(operation.operationId)) return false;
      return true;
    });
    if (reachable.length === 0) {
      this.map.fail(at, 'matches no operation of openapi.yaml (check operationId, method, path, that the operation names an account when account or platform is given, has the path parameters params names, and takes a body when body is given)');
    }
    return reachable.map((operation) => operation.operationId);
  }

  private then(raw: RawRule['then'], at: FieldPath, states: string[], operations: string[]): ThenSpec {
    // `reset: true` answers nothing; `reset: { afterBytes }` cuts whatever answer goes out.
    const answers = (['error', 'drop', 'reset', 'malformed', 'unknownValues', 'fault', 'respond'] as const).filter((key) => (key === 'reset' ? raw.reset === true : raw[key] !== undefined));
    if (answers.length > 1) this.map.fail([...at, answers[1] as string], `give one of error, drop, reset, malformed, unknownValues, fault or respond, not ${answers.join(' and ')}`);
    const cuts = (['truncated', 'reset'] as const).filter((key) => raw[key] !== undefined && raw[key] !== true).concat(raw.truncated === true ? ['truncated'] : []);
    const noAnswer = raw.drop !== undefined ? 'drop' : raw.reset === true ? 'reset' : undefined;
    if (cuts.length > 1) this.map.fail([...at, 'reset'], 'give truncated or reset with afterBytes, not both: the answer is cut once');
    if (noAnswer !== undefined && (cuts.length > 0 || raw.drip !== undefined)) {
      this.map.fail([...at, raw.drip !== undefined ? 'drip' : 'truncated'], `${noAnswer} sends no answer, so there is nothing to ${raw.drip !== undefined ? 'drip' : 'cut'}`);
    }
    const then: ThenSpec = {
      ...(raw.latencyMs !== undefined && { latencyMs: raw.latencyMs }),
      ...(raw.drop !== undefined && { drop: raw.drop }),
      ...(raw.reset !== undefined && { reset: raw.reset }),
      ...(raw.malformed !== undefined && { malformed: raw.malformed === true ? { body: DEFAULT_MALFORMED_BODY } : raw.malformed }),
      ...(raw.fault !== undefined && { fault: { ...raw.fault, body: raw.fault.body ?? (raw.fault.status === 500 ? 'json' : 'html') } }),
      ...(raw.truncated !== undefined && { truncated: raw.truncated === true ? {} : raw.truncated }),
      ...(raw.drip !== undefined && { drip: { chunkBytes: raw.drip.chunkBytes ?? DEFAULT_DRIP.chunkBytes, intervalMs: raw.drip.intervalMs ?? DEFAULT_DRIP.intervalMs } }),
      ...(raw.state !== undefined && { state: this.state(raw.state, states, [...at, 'state']) }),
      ...(raw.respond !== undefined && { respond: this.respond(raw.respond, [...at, 'respond']) }),
    };
    for (const effect of ['error', 'fault'] as const) this.headersNodeSends(raw[effect]?.headers, [...at, effect, 'headers']);
    if (raw.error) {
      const error: ErrorEffect = { ...raw.error, status: raw.error.status ?? this.impliedStatus(raw.error.code, operations, [...at, 'error']) };
      const { declared } = facts();
      const refusing = operations.filter((operationId) => !declared.get(operationId)?.statuses.has(error.status));
      if (refusing.length > 0) {
        this.map.fail([...at, 'error', 'status'], `${error.status} is not a status openapi.yaml declares for ${refusing.slice(0, 5).join(', ')}${refusing.length > 5 ? ` and ${refusing.length - 5} more` : ''}; narrow the match or pick a declared status`);
      } else {
        // A code the operation cannot answer would break the contract as surely as an undeclared status (decision 0036).
        const cannot = operations.filter((operationId) => !declared.get(operationId)?.statuses.get(error.status)?.includes(error.code));
        if (cannot.length > 0) {
          const codes = declared.get(cannot[0] as string)?.statuses.get(error.status) ?? [];
          this.map.fail(
            [...at, 'error', 'code'],
            `${error.code} is not a code openapi.yaml declares for ${error.status} on ${cannot.slice(0, 5).join(', ')}${cannot.length > 5 ? ` and ${cannot.length - 5} more` : ''} (x-error-codes of ${cannot[0]}: ${codes.join(', ')}); narrow the match or pick a declared code`,
          );
        }
      }
      if (error.code === 'RATE_LIMITED') {
        if (error.status !== 429) this.map.fail([...at, 'error', 'status'], 'RATE_LIMITED is answered with 429');
        for (const [key, value] of Object.entries(error.details ?? {})) {
          if (!(RATE_LIMIT_DETAILS as readonly string[]).includes(key)) this.map.fail([...at, 'error', 'details', key], `RATE_LIMITED details hold only ${RATE_LIMIT_DETAILS.join(', ')}`, true);
          if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) this.map.fail([...at, 'error', 'details', key], `must be a whole number of at least 0; got ${describe(value)}`);
        }
        if (error.param !== undefined) this.map.fail([...at, 'error', 'param'], 'the flat RATE_LIMITED envelope has no param');
      }
      then.error = error;
    }
    if (raw.unknownValues) {
      const values = raw.unknownValues;
      const known: Array<[keyof typeof values, readonly string[]]> = [
        ['platform', PLATFORM_IDS],
        ['accountStatus', KNOWN_ACCOUNT_STATUSES],
        ['automationKind', AUTOMATION_KINDS],
      ];
      for (const [key, values_] of known) {
        const value = values[key];
        if (value !== undefined && values_.includes(value)) this.map.fail([...at, 'unknownValues', key], `"${value}" is a value clients already know; pick one they have never seen`);
      }
      then.unknownValues = values;
    }
    return then;
  }

  /**
   * The status a rule's error code implies: the one status under which every operation the rule
   * reaches declares the code (`VELOCITY_LIMITED` is 429 on createPost). A code answered under
   * several statuses, or under none, needs `status` written out.
   */
  private impliedStatus(code: string, operations: string[], at: FieldPath): number {
    const { declared } = facts();
    const statusesOf = (operationId: string) => [...(declared.get(operationId)?.statuses.entries() ?? [])].filter(([, codes]) => codes.includes(code)).map(([status]) => status);
    const common = operations.map(statusesOf).reduce<number[] | undefined>((shared, statuses) => (shared === undefined ? statuses : shared.filter((status) => statuses.includes(status))), undefined) ?? [];
    if (common.length === 1) return common[0] as number;
    this.map.fail([...at, 'status'], common.length === 0 ? `missing required field "status": no operation the rule reaches declares ${code} under one status, so give it` : `missing required field "status": ${code} is answered with ${common.join(' or ')}; say which`);
  }

  /**
   * A whole answer. Its status may be one the contract does not declare (a recording of the
   * real service holds what it sent, drift included), so only what HTTP itself forbids fails here.
   */
  private respond(raw: RespondEffect, at: FieldPath): RespondEffect {
    if (raw.json !== undefined && raw.text !== undefined) this.map.fail([...at, 'text'], 'give json or text, not both: an answer has one body');
    const body = raw.json !== undefined ? 'json' : raw.text !== undefined ? 'text' : undefined;
    if (body !== undefined && BODYLESS_STATUSES.includes(raw.status)) this.map.fail([...at, body], `a ${raw.status} answer has no body; leave out json and text`);
    for (const name of Object.keys(raw.headers ?? {})) {
      // The mock frames the body it sends: a recorded length or encoding would describe other bytes.
      if (FRAMING_HEADERS.includes(name.toLowerCase())) this.map.fail([...at, 'headers', name], `${name} is set by the mock from the body it sends; leave it out`, true);
    }
    this.headersNodeSends(raw.headers, [...at, 'headers']);
    return raw;
  }

  /**
   * Fails at the first header Node would refuse to send (a name that is no HTTP token, a value
   * with a NUL or a character past U+00FF): taken at load, such a header would make every
   * request the rule answers a 500. Judged by Node's own checks, so nothing accepted here throws there.
   */
  private headersNodeSends(headers: Record<string, string> | undefined, at: FieldPath): void {
    for (const [name, value] of Object.entries(headers ?? {})) {
      try {
        validateHeaderName(name);
      } catch {
        this.map.fail([...at, name], `${JSON.stringify(name)} is not a header name HTTP can carry (letters, digits and !#$%&'*+-.^_\`|~ only)`, true);
      }
      try {
        validateHeaderValue(name, value);
      } catch {
        this.map.fail([...at, name], `the value of ${name} holds a character HTTP cannot carry in a header (a control character such as NUL, or one past U+00FF)`);
      }
    }
  }

  private state(name: string, states: string[], at: FieldPath): string {
    if (!states.includes(name)) this.map.fail(at, states.length === 0 ? `"${name}" is not declared: list the scenario's states under "states"` : `"${name}" is not one of the declared states (${states.join(', ')})`);
    return name;
  }

  private step(entry: { at: string; do: string } & Record<string, unknown>, at: FieldPath, states: string[]): StepSpec {
    const when = this.moment(entry.at, [...at, 'at']);
    if ('relativeMs' in when && when.relativeMs < 0) this.map.fail([...at, 'at'], 'a step runs after the scenario is loaded (PT0S or later)');
    const { at: _at, do: kind, ...params } = entry;
    if (kind === 'state') this.state(String(params['to']), states, [...at, 'to']);
    if (kind === 'network.outage' && typeof params['for'] === 'string') this.duration(params['for'], [...at, 'for']);
    return { at, when, do: kind, params };
  }
}

function sameKind(a: Moment, b: Moment): boolean {
  return ('relativeMs' in a) === ('relativeMs' in b);
}

function momentValue(moment: Moment): number {
  return 'relativeMs' in moment ? moment.relativeMs : moment.absoluteMs;
}

/**
 * Checks one rule given at run time (POST /__control/rules) exactly as a scenario file's rule
 * is checked: as the one rule of a scenario of its own that declares the loaded scenario's
 * states. The rule is already data (the request's JSON), so it is checked as it is, never
 * written out and read back as YAML. A problem throws a ScenarioError whose field is the
 * rule's own (`match.body[0].pointer`), without the wrapper's `rules[0].`.
 */
export function parseRuntimeRule(rule: unknown, states: readonly string[]): ParsedScenario & { rule: RuleSpec } {
  const source: ScenarioSource = { name: 'runtime', file: '<rule>', yaml: '' };
  const fail = (at: FieldPath, reason: string): never => {
    const field = formatPath(at).replace(/^rules\[0\]\.?/, '');
    throw new ScenarioError(source.file, null, null, field === 'rules' ? '' : field, reason);
  };
  const raw = { ...(states.length > 0 && { states: [...states] }), rules: [rule] };
  if (nestedDeeperThan(raw)) throw new ScenarioError(source.file, null, null, '', tooDeepReason('the rule'));
  const parsed = checkScenario(raw, { fail }, source);
  const found = parsed.scenario.rules[0];
  if (!found) throw new ScenarioError(source.file, null, null, '', 'no rule given');
  return { ...parsed, rule: found };
}
