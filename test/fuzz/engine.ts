import { Agent } from 'node:http';
import fc from 'fast-check';
import { CONTROL_BODY_LIMITS } from '../../src/control/body-limits.js';
import { DEFAULT_HTTP_LIMITS } from '../../src/http/transport.js';
import { loadSpec } from '../../src/http/spec.js';
import type { Workspace } from '../../src/workspaces/workspace.js';
import { constraintCase, constraintsOf, type Constraint, type ConstraintCase } from './constraints.js';
import { ContractOracle, type Verdict } from './oracle.js';
import { knownErrorCodes, operationModels, type OperationModel } from './operations.js';
import { fuzzRequest, HOSTILE_STRINGS, type FuzzRequest } from './requests.js';
import { SchemaArbitraries } from './schema-arbitraries.js';
import { idsIn, idsOf, snapshot, unchangedSince } from './state.js';
import { send, toWire, type WireRequest, type WireResponse } from './wire.js';

/*
 * The fuzz engine: `npm run fuzz` (bench/fuzz.ts) and the suite's seeded run
 * (contract.fuzz.test.ts) both drive it. Request number i of a run is a pure function
 * of (seed, i): operation i mod N of both contracts, and either a constraint case (a
 * valid request breaking exactly one constraint the contract declares, the
 * operation's constraints taken in turn) or a fuzzed request (valid, or mutated up to
 * twice: see requests.ts), drawn by fast-check with a seed derived from (seed, i).
 * So a failure replays alone (`npm run fuzz -- --seed S --replay i`).
 *
 * Each of `concurrency` workers sends its requests in order to a workspace of its own
 * (made with POST /__control/workspaces and replaced every `workspaceRequests`), over
 * one keep-alive socket. Every answer is checked (see `checkExchange`); with an
 * in-process server, every `stateEvery`-th request is also checked to leave a
 * refused request's workspace, and any read's, byte-identical.
 */

/** The one status each code comes with (docs/decisions/0001-contract-decisions.md). */
const STATUS_OF_CODE: Record<string, number> = {
  VALIDATION_ERROR: 400,
  INVALID_CURSOR: 400,
  INVALID_RANGE: 400,
  TEXT_TOO_LONG: 400,
  PLATFORM_NOT_SUPPORTED: 400,
  ACCOUNT_RECONNECT_REQUIRED: 400,
  MESSAGING_WINDOW_CLOSED: 400,
  UNAUTHORIZED: 401,
  INSUFFICIENT_WALLET: 402,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  IDEMPOTENCY_KEY_IN_USE: 409,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  URI_TOO_LONG: 414,
  UNSUPPORTED_MEDIA_TYPE: 415,
  IDEMPOTENCY_KEY_REUSED: 422,
  RATE_LIMITED: 429,
  VELOCITY_LIMITED: 429,
  HEADERS_TOO_LARGE: 431,
  PLATFORM_ERROR: 502,
};

/** The status a constraint case must get, where the contract fixes it. */
const STATUS_OF_KIND: Partial<Record<Constraint['kind'], number>> = { apiKey: 401, contentType: 415 };

/** Where the virtual clock of the servers under fuzz starts (the tests' TEST_CLOCK). */
export const FUZZ_CLOCK = '2026-03-02T09:00:00.000Z';
const DAY_MS = 24 * 60 * 60 * 1000;

/** Control operations whose success can leave scenario rules in the workspace: it is replaced after one. */
const RULE_SETTERS = new Set(['addRule', 'loadScenario', 'putState']);

/** The server under fuzz. */
export interface FuzzTarget {
  baseUrl: string;
  /** Where `/v1` requests go, when not to `baseUrl`: a proxy in front of it (`proxy --upstream baseUrl`). */
  apiBaseUrl?: string;
  /** In-process only: the workspace behind an id, for the state checks. */
  workspace?(id: string): Workspace | undefined;
  /** In-process only: how many responses broke the contract so far (strict responses). */
  violations?(): number;
}

export interface FuzzOptions {
  requests: number;
  seed: number;
  /** Workers, each with its own workspace and keep-alive socket. */
  concurrency: number;
  /** Check state on every n-th request (in-process only); 0 never. */
  stateEvery?: number;
  /** Requests a worker sends to one workspace before it deletes it and makes another. */
  workspaceRequests?: number;
  /** Stop after this many failures. */
  maxFailures?: number;
  /** Only these request numbers (replay). */
  only?: number[];
  /** Called after each answer (a replay prints them). */
  onExchange?(index: number, request: string, response: string): void;
  /** Called about once a second. */
  onProgress?(report: FuzzReport): void;
}

export interface Failure {
  index: number;
  operation: string;
  label: string;
  problems: string[];
  request: string;
  response: string;
}

export interface FuzzReport {
  seed: number;
  requests: number;
  planned: number;
  ms: number;
  perOperation: Map<string, number>;
  statuses: Map<string, number>;
  verdicts: Map<string, number>;
  /** Refused requests by what was broken: constraint kinds (`constraint:maxLength`) and mutations (`body.malformed`). */
  invalidByKind: Map<string, number>;
  /** `exercised`: `operationId kind param` of each constraint broken alone at least once; `missed`: the declared ones never. */
  constraints: { declared: number; exercised: Set<string>; aimMissed: number; missed: string[]; namedBy: Map<string, number> };
  stateChecks: number;
  /** Calls to /mcp with hostile strings, beside the planned requests (every MCP_EVERY-th). */
  mcpCalls: number;
  /** Requests sent again after the server reset a reused keep-alive socket. */
  resetsRetried: number;
  /** The five slowest answers. */
  slowest: Array<{ ms: number; index: number; what: string }>;
  failures: Failure[];
}

function constraintKey(op: OperationModel, constraint: Constraint): string {
  return `${op.operationId} ${constraint.kind} ${constraint.param}`;
}

function count(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

/** A 32-bit seed for request `index` of a run seeded `seed` (splitmix-like mixing, so neighbours differ). */
export function requestSeed(seed: number, index: number): number {
  let x = (Math.imul(seed | 0, 0x9e3779b1) ^ Math.imul(index + 1, 0x85ebca6b)) | 0;
  x = Math.imul(x ^ (x >>> 16), 0x7feb352d);
  x = Math.imul(x ^ (x >>> 15), 0x846ca68b);
  return (x ^ (x >>> 16)) | 0;
}

/** Both contracts, their operations, generators and oracles: read once. */
export class FuzzPlan {
  readonly operations: OperationModel[];
  readonly constraints = new Map<OperationModel, Constraint[]>();
  private readonly generators: Record<'api' | 'control', SchemaArbitraries>;
  private readonly oracles: Record<'api' | 'control', ContractOracle>;
  private readonly knownCodes: Record<'api' | 'control', Set<string>>;
  private readonly fuzzArbitraries = new Map<OperationModel, fc.Arbitrary<FuzzRequest>>();
  private readonly caseArbitraries = new Map<Constraint, fc.Arbitrary<ConstraintCase>>();

  /** `bodyLimitBytes`: the server's --body-limit; the control operations that take more say so themselves (CONTROL_BODY_LIMITS). */
  constructor(limits: { bodyLimitBytes: number }) {
    // Dates within 60 days of the clock the fuzz's servers start at: a valid `clock/set` to 2099
    // runs every job of 73 virtual years (219,268 token renewals for ten years: 2 s, a 41 MB answer).
    const dateRange = [Date.parse(FUZZ_CLOCK) - 60 * DAY_MS, Date.parse(FUZZ_CLOCK) + 60 * DAY_MS] as const;
    const api = loadSpec('openapi.yaml');
    const control = loadSpec('control.yaml');
    this.operations = [...operationModels(api.document, 'api'), ...operationModels(control.document, 'control')];
    // And so are clock advances (up to ten years are valid): up to 60 days, the bounds themselves left to `body.boundary`.
    const overrides = { '#/components/schemas/AdvanceClockBody/properties/ms': fc.integer({ min: 0, max: 60 * DAY_MS }) };
    this.generators = { api: new SchemaArbitraries({ document: api.document, dateRange }), control: new SchemaArbitraries({ document: control.document, dateRange, overrides }) };
    this.oracles = {
      api: new ContractOracle(api.document, { maxUrlBytes: DEFAULT_HTTP_LIMITS.maxUrlBytes, bodyLimitBytes: limits.bodyLimitBytes }),
      control: new ContractOracle(control.document, { maxUrlBytes: DEFAULT_HTTP_LIMITS.maxUrlBytes, bodyLimitBytes: limits.bodyLimitBytes, byOperation: CONTROL_BODY_LIMITS }),
    };
    // The control plane answers its own codes and, through the API's services it runs, the API's.
    const apiCodes = knownErrorCodes(api.document);
    this.knownCodes = { api: apiCodes, control: new Set([...apiCodes, ...knownErrorCodes(control.document)]) };
    for (const op of this.operations) this.constraints.set(op, constraintsOf(op, this.generators[op.contract]));
  }

  get declaredConstraints(): number {
    let total = 0;
    for (const list of this.constraints.values()) total += list.length;
    return total;
  }

  /** Request number `index`: its operation and either a fuzzed request or a constraint case. */
  generate(seed: number, index: number): { op: OperationModel; request: FuzzRequest; constraintCase?: ConstraintCase } {
    const op = this.operations[index % this.operations.length] as OperationModel;
    const round = Math.floor(index / this.operations.length);
    const constraints = this.constraints.get(op) ?? [];
    const sampleSeed = requestSeed(seed, index);
    // Two rounds in five are constraint cases, taking the operation's constraints in turn.
    if (round % 5 < 2 && constraints.length > 0) {
      const constraint = constraints[(Math.floor(round / 5) * 2 + (round % 5)) % constraints.length] as Constraint;
      let arbitrary = this.caseArbitraries.get(constraint);
      if (!arbitrary) {
        arbitrary = constraintCase(op, constraint, this.generators[op.contract]);
        this.caseArbitraries.set(constraint, arbitrary);
      }
      const drawn = fc.sample(arbitrary, { seed: sampleSeed, numRuns: 1 })[0] as ConstraintCase;
      return { op, request: drawn.broken, constraintCase: drawn };
    }
    let arbitrary = this.fuzzArbitraries.get(op);
    if (!arbitrary) {
      arbitrary = fuzzRequest(op, this.generators[op.contract]);
      this.fuzzArbitraries.set(op, arbitrary);
    }
    return { op, request: fc.sample(arbitrary, { seed: sampleSeed, numRuns: 1 })[0] as FuzzRequest };
  }

  checkResponse(op: OperationModel, res: WireResponse): string | undefined {
    const contentType = res.headers['content-type'];
    return this.oracles[op.contract].checkResponse(op, res.status, typeof contentType === 'string' ? contentType : undefined, res.text);
  }

  judge(op: OperationModel, request: FuzzRequest, wire: WireRequest): Verdict {
    return this.oracles[op.contract].judge(op, request, wire);
  }

  /** Every check on one answer; the problems found (none when it is within the contract). */
  checkExchange(op: OperationModel, wire: WireRequest, verdict: Verdict, res: WireResponse): string[] {
    const problems: string[] = [];
    // Never a 5xx (every operation is implemented, so not even 501; strict responses make an answer off the contract a 500).
    if (res.status >= 500) problems.push(`server error ${res.status}`);
    if (res.status >= 400) problems.push(...this.checkEnvelope(op, res));

    // What the HTTP server answers itself (431, a target that is not HTTP) comes before any workspace: no budget headers.
    const transport = res.status === 431 || (verdict.kind === 'reject' && verdict.transport === true);
    if (op.contract === 'api' && !transport) {
      for (const header of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) if (!/^\d+$/.test(String(res.headers[header]))) problems.push(`${header} missing`);
    }
    // Strict where the contract is: a request it refuses is refused.
    if (verdict.kind === 'reject') {
      // Headers past the server's limit are refused (431) before anything else is looked at.
      if (verdict.statuses !== undefined && !verdict.statuses.includes(res.status) && res.status !== 431) problems.push(`expected ${verdict.statuses.join(' or ')} (${verdict.reason})`);
      else if (res.status < 400 || res.status >= 500) problems.push(`accepted a request the contract refuses (${verdict.reason})`);
    }
    // An id of another workspace never finds anything here.
    if (wire.foreignPathParams.length > 0 && res.status >= 200 && res.status < 300) problems.push(`another workspace's id was found (${wire.foreignPathParams.join(', ')})`);
    return problems;
  }

  private checkEnvelope(op: OperationModel, res: WireResponse): string[] {
    if (!/^application\/json/.test(String(res.headers['content-type']))) return ['error not in JSON'];
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(res.text) as Record<string, unknown>;
    } catch {
      return ['error body is not JSON'];
    }
    const problems: string[] = [];
    let code: unknown;
    if (res.status === 429 && body.code === 'RATE_LIMITED') {
      if (Object.keys(body).sort().join() !== 'code,details,error' || typeof body.error !== 'string') problems.push('not the flat 429 envelope');
      code = body.code;
    } else {
      const error = body.error as Record<string, unknown> | undefined;
      if (Object.keys(body).join() !== 'error' || typeof error !== 'object' || error === null) return ['not the nested envelope'];
      if (typeof error.code !== 'string' || typeof error.message !== 'string') problems.push('envelope without code or message');
      for (const key of Object.keys(error)) if (!['code', 'message', 'param', 'details'].includes(key)) problems.push(`unexpected envelope field ${key}`);
      if (error.param !== undefined && typeof error.param !== 'string') problems.push('param is not a string');
      code = error.code;
    }
    if (typeof code === 'string') {
      if (!this.knownCodes[op.contract].has(code)) problems.push(`error code ${code} is not one the contract knows`);
      const status = STATUS_OF_CODE[code];
      if (status !== undefined && res.status !== status) problems.push(`${code} with status ${res.status}, not ${status}`);
    }
    return problems;
  }

  /**
   * A constraint case's own check: a 4xx in the envelope naming the broken field, in
   * `param` or else, as a word, in the message (`via` says which).
   */
  checkNamed(constraint: Constraint, res: WireResponse): { problems: string[]; via?: 'param' | 'message' } {
    const status = STATUS_OF_KIND[constraint.kind];
    if (status !== undefined ? res.status !== status : res.status < 400 || res.status >= 500) return { problems: [`broke ${constraint.kind} of ${constraint.param}: expected ${status ?? 'a 4xx'}, got ${res.status}`] };
    // 401 names no field: the key is the whole request's.
    if (constraint.kind === 'apiKey') return { problems: [] };
    let error: { param?: unknown; message?: unknown } | undefined;
    try {
      error = (JSON.parse(res.text) as { error?: { param?: unknown; message?: unknown } }).error;
    } catch {
      return { problems: ['the answer is not JSON'] };
    }
    const param = String(error?.param ?? '');
    const message = String(error?.message ?? '');
    if (constraint.kind === 'additionalProperties') {
      // The unknown field is named: `metadata.typo`, or `typo` at the top.
      const prefix = constraint.path.length > 0 ? `${constraint.param}.` : '';
      if (param.startsWith(prefix) && param.length > prefix.length && !Object.hasOwn(constraint.schema.properties ?? {}, param.slice(prefix.length))) return { problems: [], via: 'param' };
    } else if (param === constraint.param || (constraint.field !== undefined && param === constraint.field)) return { problems: [], via: 'param' };
    // A word of the message: `limit` in "limit must be <= 100", not `id` in "invalid".
    const word = new RegExp(`(^|[^\\w.\\[])${constraint.param.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^\\w])`);
    if (word.test(message)) return { problems: [], via: 'message' };
    return { problems: [`broke ${constraint.kind} of ${constraint.param}: the answer names ${param === '' ? 'no param' : `'${param}'`}`] };
  }
}

/** Every this many requests, the worker also calls /mcp with hostile strings (the MCP server takes text from agents). */
const MCP_EVERY = 25;

/** JSON-RPC requests to /mcp carrying `text` where an agent's text goes: its name, a tool's name and arguments. */
function mcpRequests(text: string): unknown[] {
  return [
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: text, version: text } } },
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'call_api', arguments: { method: 'POST', path: `/v1/webhooks?token=${text}`, body: { name: text, url: 'https://hooks.example/x', events: ['post.published'], secret: text } } } },
    { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: text, arguments: { [text]: text } } },
    { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'find_requests', arguments: { path: text, operationId: text } } },
  ];
}

/** One worker's workspace: its id and key, and the ids its requests aim at. */
interface WorkerWorkspace {
  id: string;
  apiKey: string;
  ids: string[];
  idsStale: boolean;
  /** `sent` when the ids were last read. */
  idsReadAt: number;
  sent: number;
}

async function controlCall(agent: Agent, baseUrl: string, method: string, target: string, apiKey?: string, body?: unknown): Promise<WireResponse> {
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const headers: Record<string, string> = { ...(apiKey !== undefined && { 'x-api-key': apiKey }), ...(payload && { 'Content-Type': 'application/json' }) };
  return send(agent, baseUrl, { method, target, headers, body: payload, pathParams: {}, foreignPathParams: [] });
}

async function createWorkspace(agent: Agent, baseUrl: string): Promise<WorkerWorkspace> {
  const res = await controlCall(agent, baseUrl, 'POST', '/__control/workspaces', undefined, {});
  if (res.status !== 201) throw new Error(`could not create a workspace: ${res.status} ${res.text.slice(0, 300)}`);
  const created = JSON.parse(res.text) as { workspaceId: string; apiKey: string };
  return { id: created.workspaceId, apiKey: created.apiKey, ids: [], idsStale: true, idsReadAt: -Infinity, sent: 0 };
}

/** Ids of the workspace's records, from the server itself when it runs here, else from its state snapshot. */
async function readIds(target: FuzzTarget, agent: Agent, workspace: WorkerWorkspace): Promise<string[]> {
  const inProcess = target.workspace?.(workspace.id);
  if (inProcess) return idsOf(inProcess);
  const res = await controlCall(agent, target.baseUrl, 'GET', '/__control/state', workspace.apiKey);
  if (res.status !== 200) throw new Error(`could not read workspace ${workspace.id}: ${res.status} ${res.text.slice(0, 300)}`);
  return idsIn((JSON.parse(res.text) as { workspace: { stores: Record<string, unknown> } }).workspace.stores);
}

function describeRequest(wire: WireRequest): string {
  const headers = Object.entries(wire.headers)
    .map(([name, value]) => `${name}: ${value.slice(0, 80)}`)
    .join('; ');
  const body = wire.body ? ` body(${wire.body.length} B) ${wire.body.toString('utf8', 0, Math.min(wire.body.length, 300))}` : '';
  return `${wire.method} ${wire.target.slice(0, 300)} [${headers}]${body}`;
}

/** Runs the fuzz against `target`; never throws for what the server answers (that is a failure in the report). */
export async function runFuzz(plan: FuzzPlan, target: FuzzTarget, options: FuzzOptions): Promise<FuzzReport> {
  const started = performance.now();
  const report: FuzzReport = {
    seed: options.seed,
    requests: 0,
    planned: options.only?.length ?? options.requests,
    ms: 0,
    perOperation: new Map(),
    statuses: new Map(),
    verdicts: new Map(),
    invalidByKind: new Map(),
    constraints: { declared: plan.declaredConstraints, exercised: new Set(), aimMissed: 0, missed: [], namedBy: new Map() },
    stateChecks: 0,
    mcpCalls: 0,
    resetsRetried: 0,
    slowest: [],
    failures: [],
  };
  const maxFailures = options.maxFailures ?? 20;
  const workspaceRequests = options.workspaceRequests ?? 2_000;
  const indices = options.only;
  let next = 0;
  const take = (): number | undefined => {
    if (report.failures.length >= maxFailures) return undefined;
    if (indices) return next < indices.length ? indices[next++] : undefined;
    return next < options.requests ? next++ : undefined;
  };

  const progress = options.onProgress ? setInterval(() => options.onProgress?.({ ...report, ms: performance.now() - started }), 1_000) : undefined;
  const setupAgent = new Agent({ keepAlive: true, maxSockets: 2 });
  // The other workspace: its ids are sent as foreign ids, and it must never change.
  const foreign = await createWorkspace(setupAgent, target.baseUrl);
  const foreignIds = await readIds(target, setupAgent, foreign);
  const foreignInProcess = target.workspace?.(foreign.id);
  const foreignSnapshot = foreignInProcess ? snapshot(foreignInProcess) : undefined;
  const prototypeNames = Object.getOwnPropertyNames(Object.prototype).sort().join(',');

  const worker = async (): Promise<void> => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    let workspace = await createWorkspace(agent, target.baseUrl);
    try {
      for (let index = take(); index !== undefined; index = take()) {
        if (workspace.sent >= workspaceRequests) {
          await controlCall(agent, target.baseUrl, 'DELETE', `/__control/workspaces/${workspace.id}`);
          workspace = await createWorkspace(agent, target.baseUrl);
        }
        // Ids are re-read after writes, at most every 25 requests: a snapshot of a fixture world is not free.
        if (workspace.idsStale && workspace.sent - workspace.idsReadAt >= 25) {
          workspace.ids = await readIds(target, agent, workspace);
          workspace.idsStale = false;
          workspace.idsReadAt = workspace.sent;
        }
        workspace.sent++;
        const failure = await exchange(index, workspace, agent);
        if (failure) report.failures.push(failure);
        if (index % MCP_EVERY === 0) {
          const mcpFailure = await mcpExchange(index, workspace, agent);
          if (mcpFailure) report.failures.push(mcpFailure);
        }
      }
    } finally {
      await controlCall(agent, target.baseUrl, 'DELETE', `/__control/workspaces/${workspace.id}`).catch(() => undefined);
      agent.destroy();
    }
  };

  const sendRetryingReset = (agent: Agent, base: string, wire: WireRequest): Promise<WireResponse> =>
    send(agent, base, wire).catch((error: unknown) => {
      // A keep-alive socket the server closed as it was reused (its event loop was held past
      // the 5 s keep-alive, see `slowest`): sent again once on a new socket, as clients do.
      if (!(error instanceof Error && /ECONNRESET|socket hang up/.test(error.message))) throw error;
      report.resetsRetried++;
      return send(agent, base, wire);
    });

  /** Hostile strings to /mcp (no operation of either contract): never a 5xx, and an error of the control plane in its envelope. */
  const mcpExchange = async (index: number, workspace: WorkerWorkspace, agent: Agent): Promise<Failure | undefined> => {
    const text = HOSTILE_STRINGS[Math.floor(index / MCP_EVERY) % HOSTILE_STRINGS.length] as string;
    const body = mcpRequests(text)[Math.floor(index / MCP_EVERY / HOSTILE_STRINGS.length) % 4];
    const payload = Buffer.from(JSON.stringify(body));
    const wire: WireRequest = { method: 'POST', target: '/mcp', headers: { 'x-api-key': workspace.apiKey, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, body: payload, pathParams: {}, foreignPathParams: [] };
    const res = await sendRetryingReset(agent, target.baseUrl, wire).catch((error: unknown): WireResponse => ({ status: 0, headers: {}, text: error instanceof Error ? error.message : String(error) }));
    // Beside the planned requests (`requests` counts those), and in the statuses.
    report.mcpCalls++;
    count(report.statuses, String(res.status));
    const problems = res.status === 0 ? [`no answer: ${res.text}`] : res.status >= 500 ? [`server error ${res.status}`] : [];
    if (res.status >= 400 && res.status < 500 && !/^application\/json/.test(String(res.headers['content-type']))) problems.push('error not in JSON');
    if (problems.length === 0) return undefined;
    return { index, operation: 'mcp', label: 'mcp.hostile', problems, request: describeRequest(wire), response: `${res.status} ${res.text.slice(0, 400)}` };
  };

  const exchange = async (index: number, workspace: WorkerWorkspace, agent: Agent): Promise<Failure | undefined> => {
    const { op, request, constraintCase: drawn } = plan.generate(options.seed, index);
    const pools = { own: workspace.ids, foreign: foreignIds };
    const wire = toWire(op, request, pools, workspace.apiKey);
    const verdict = plan.judge(op, request, wire);
    // A clean constraint case: its valid request is accepted and the broken one refused. Else an ordinary fuzzed request.
    const clean = drawn !== undefined && verdict.kind === 'reject' && plan.judge(op, drawn.valid, toWire(op, drawn.valid, pools, workspace.apiKey)).kind === 'accept';
    if (drawn && !clean) report.constraints.aimMissed++;
    const label = request.mutations.join(' + ') || 'valid';

    const inProcess = target.workspace?.(workspace.id);
    // Not while a webhook attempt of an earlier request is out: it records its outcome whenever the receiver answers.
    const checkState = inProcess !== undefined && options.stateEvery !== undefined && options.stateEvery > 0 && index % options.stateEvery === 0 && inProcess.scheduler.inFlightCount === 0;
    let before: string | undefined;
    if (checkState && inProcess) {
      // From a frozen clock: a fuzzed /clock/resume must not let timers change state mid-check.
      inProcess.clock.freeze();
      inProcess.scheduler.arm();
      before = snapshot(inProcess);
    }
    const violationsBefore = target.violations?.() ?? 0;

    let res: WireResponse;
    const sentAt = performance.now();
    try {
      const base = wire.target.startsWith('/v1') ? (target.apiBaseUrl ?? target.baseUrl) : target.baseUrl;
      res = await sendRetryingReset(agent, base, wire);
    } catch (error) {
      return { index, operation: op.operationId, label, problems: [`no answer: ${error instanceof Error ? error.message : String(error)}`], request: describeRequest(wire), response: '' };
    }
    const took = performance.now() - sentAt;
    options.onExchange?.(index, describeRequest(wire), `${res.status} ${res.text.slice(0, 2_000)}`);
    if (took > (report.slowest[report.slowest.length - 1]?.ms ?? 0) || report.slowest.length < 5) {
      report.slowest.push({ ms: took, index, what: `${op.operationId} [${label}] → ${res.status}, ${Math.round(Buffer.byteLength(res.text) / 1024)} KB` });
      report.slowest.sort((a, b) => b.ms - a.ms).splice(5);
    }

    report.requests++;
    count(report.perOperation, op.operationId);
    count(report.statuses, String(res.status));
    count(report.verdicts, verdict.kind);
    if (verdict.kind === 'reject') {
      if (drawn) count(report.invalidByKind, `constraint:${drawn.constraint.kind}${clean ? '' : ' (with another)'}`);
      else for (const mutation of request.mutations) count(report.invalidByKind, mutation);
    }

    const problems = plan.checkExchange(op, wire, verdict, res);
    // The contract read here too, not only by the server's strict responses.
    if (request.method === op.method) {
      const offContract = plan.checkResponse(op, res);
      if (offContract) problems.push(offContract);
    }
    if (clean && drawn) {
      report.constraints.exercised.add(constraintKey(op, drawn.constraint));
      const named = plan.checkNamed(drawn.constraint, res);
      problems.push(...named.problems);
      if (named.via) count(report.constraints.namedBy, named.via === 'param' ? 'param' : `message (${drawn.constraint.kind})`);
    }
    if ((target.violations?.() ?? 0) > violationsBefore) problems.push('a response broke the contract');
    if (checkState && inProcess && before !== undefined) {
      report.stateChecks++;
      const idempotencyKey = Object.entries(wire.headers).find(([name]) => name.toLowerCase() === 'idempotency-key')?.[1];
      // A refused request changes nothing. Nor does any read, answered or not.
      const changed = (diff: ReturnType<typeof unchangedSince>) => (diff.same ? '' : `: before …${diff.before}… after …${diff.after}…`);
      const refused = res.status >= 400 && res.status < 500 ? unchangedSince(before, inProcess, idempotencyKey) : undefined;
      if (refused && !refused.same) problems.push(`a ${res.status} changed the workspace${changed(refused)}`);
      const read = wire.method === 'GET' || wire.method === 'HEAD' ? unchangedSince(before, inProcess) : undefined;
      if (read && !read.same) problems.push(`a ${wire.method} changed the workspace${changed(read)}`);
      const foreignNow = target.workspace?.(foreign.id);
      if (foreignNow && snapshot(foreignNow) !== foreignSnapshot) problems.push('another workspace changed');
      // Nothing reached Object.prototype, whatever the body, query or keys held.
      if (Object.getOwnPropertyNames(Object.prototype).sort().join(',') !== prototypeNames || ({} as Record<string, unknown>).polluted !== undefined) problems.push('Object.prototype changed');
    }

    if (res.status < 300 && wire.method !== 'GET' && wire.method !== 'HEAD') workspace.idsStale = true;
    // Rules now answer for the workspace (faults, drips, resets on purpose): its later answers would test the rules, not the mock.
    if (res.status < 300 && RULE_SETTERS.has(op.operationId)) workspace.sent = Infinity;
    // A workspace the fuzz made (createWorkspace, a fork) goes at once: a long run must not fill the server with them.
    if (op.operationId === 'createWorkspace' && res.status === 201) {
      const made = (JSON.parse(res.text) as { workspaceId?: string }).workspaceId;
      if (made !== undefined) await controlCall(agent, target.baseUrl, 'DELETE', `/__control/workspaces/${made}`);
    }
    if (problems.length === 0) return undefined;
    return { index, operation: op.operationId, label, problems: [...problems, `oracle: ${verdict.kind}${verdict.kind !== 'accept' ? ` (${verdict.reason})` : ''}`], request: describeRequest(wire), response: `${res.status} ${res.text.slice(0, 400)}` };
  };

  try {
    await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, () => worker()));
  } finally {
    if (progress) clearInterval(progress);
    await controlCall(setupAgent, target.baseUrl, 'DELETE', `/__control/workspaces/${foreign.id}`).catch(() => undefined);
    setupAgent.destroy();
  }
  report.ms = performance.now() - started;
  for (const [op, constraints] of plan.constraints) {
    for (const constraint of constraints) {
      const key = constraintKey(op, constraint);
      if (!report.constraints.exercised.has(key)) report.constraints.missed.push(key);
    }
  }
  return report;
}

/** The report as text: totals, per operation, statuses, refused requests by kind, failures with how to replay them. */
export function formatReport(report: FuzzReport, replay: (index: number) => string): string {
  const line = (map: Map<string, number>, limit = Infinity) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, limit)
      .map(([key, n]) => `${key} ${n}`)
      .join(', ');
  const seconds = report.ms / 1000;
  const lines = [
    `fuzz: ${report.requests} requests in ${seconds.toFixed(1)} s (${Math.round(report.requests / seconds)} req/s), seed ${report.seed}, ${report.perOperation.size} operations`,
    `  statuses: ${line(report.statuses)}`,
    `  oracle: ${line(report.verdicts)}`,
    `  constraints: ${report.constraints.exercised.size} of ${report.constraints.declared} declared were broken alone and answered (${report.constraints.aimMissed} draws missed their aim and ran as plain fuzz); the field named in ${line(report.constraints.namedBy)}`,
    ...(report.constraints.missed.length > 0 ? [`  constraints never broken alone (${report.constraints.missed.length}): ${report.constraints.missed.slice(0, 40).join(', ')}${report.constraints.missed.length > 40 ? ', …' : ''}`] : []),
    `  invalid requests by kind: ${line(report.invalidByKind)}`,
    `  per operation: ${line(report.perOperation)}`,
    `  state checks: ${report.stateChecks}; resets retried: ${report.resetsRetried}; calls to /mcp with hostile strings besides: ${report.mcpCalls}`,
    `  slowest answers: ${report.slowest.map((slow) => `#${slow.index} ${slow.what} ${Math.round(slow.ms)} ms`).join(', ')}`,
  ];
  if (report.failures.length === 0) lines.push('  failures: none');
  for (const failure of report.failures) {
    lines.push(`  FAILURE #${failure.index} ${failure.operation} [${failure.label}]: ${failure.problems.join('; ')}`, `    request:  ${failure.request}`, `    response: ${failure.response}`, `    replay:   ${replay(failure.index)}`);
  }
  return lines.join('\n');
}
