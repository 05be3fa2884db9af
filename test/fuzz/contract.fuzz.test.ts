import { Agent } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_HTTP_LIMITS } from '../../src/http/transport.js';
import { loadSpec } from '../../src/http/spec.js';
import { budgetWindows } from '../../src/limits/request-budget.js';
import { CONTROL_BODY_LIMIT_BYTES } from '../../src/server.js';
import type { Workspace } from '../../src/workspaces/workspace.js';
import { startMock, type TestMock } from '../helpers/mock.js';
import { ContractOracle, type Verdict } from './oracle.js';
import { knownErrorCodes, operationModels, type OperationModel } from './operations.js';
import { fuzzRequest, type FuzzRequest } from './requests.js';
import { SchemaArbitraries } from './schema-arbitraries.js';
import { idsOf, snapshot, unchangedSince } from './state.js';
import { send, toWire, type WireRequest, type WireResponse } from './wire.js';

/*
 * Schema-driven fuzzing of every operation of openapi.yaml and control.yaml.
 *
 * For each operation, fast-check generates requests from the contract (valid ones,
 * then up to two mutations each: wrong types, missing and extra fields, bounds,
 * huge and hostile strings, nulls, arrays for objects, prototype keys, wrong content
 * types, broken JSON, bad queries, ids of another workspace, bad keys, wrong
 * methods) and sends each to a fresh workspace of one in-process server. The
 * operations are read from the contracts and the route tables at run time, so the
 * areas other branches build are fuzzed as soon as they are merged.
 *
 * Runs: FUZZ_RUNS per operation (default 30), seed FUZZ_SEED (default 9009), the
 * property of operation number i using seed FUZZ_SEED + i. The rate limit stays on
 * (its step and headers are under test too); each run starts with the workspace's
 * windows emptied, so the fuzz's own volume never turns into 429s.
 */

const RUNS = Number(process.env.FUZZ_RUNS ?? 30);
const SEED = Number(process.env.FUZZ_SEED ?? 9009);
const BODY_LIMIT_BYTES = 1024 * 1024;

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

const api = loadSpec('openapi.yaml');
const control = loadSpec('control.yaml');
const operations: OperationModel[] = [
  ...operationModels(api.document, 'api'),
  ...operationModels(control.document, 'control'),
];
// The control plane answers its own codes and, through the API's services it runs, the API's.
const knownCodes = { api: knownErrorCodes(api.document), control: new Set([...knownErrorCodes(api.document), ...knownErrorCodes(control.document)]) };
const generators = { api: new SchemaArbitraries({ document: api.document }), control: new SchemaArbitraries({ document: control.document }) };
const oracles = {
  api: new ContractOracle(api.document, { maxUrlBytes: DEFAULT_HTTP_LIMITS.maxUrlBytes, bodyLimitBytes: BODY_LIMIT_BYTES }),
  control: new ContractOracle(control.document, { maxUrlBytes: DEFAULT_HTTP_LIMITS.maxUrlBytes, bodyLimitBytes: CONTROL_BODY_LIMIT_BYTES }),
};
const prototypeNames = Object.getOwnPropertyNames(Object.prototype).sort().join(',');

/** What the fuzz saw, printed at the end and recorded in docs/reliability.md. */
const stats = { requests: 0, byClass: new Map<string, number>(), verdicts: new Map<string, number>(), mutations: new Map<string, number>(), started: 0 };
function count(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

let mock: TestMock;
let baseUrl: string;
let agent: Agent;
let foreign: Workspace;
/** The other workspace never changes (that is checked after every run), so its ids and snapshot are read once. */
let foreignIds: string[];
let foreignSnapshot: string;

async function newWorkspace(): Promise<{ workspace: Workspace; apiKey: string }> {
  const res = await send(agent, baseUrl, { method: 'POST', target: '/__control/workspaces', headers: { 'Content-Type': 'application/json' }, body: Buffer.from('{}'), pathParams: {}, foreignPathParams: [] });
  expect(res.status, res.text).toBe(201);
  const created = JSON.parse(res.text) as { workspaceId: string; apiKey: string };
  const workspace = mock.server.registry.get(created.workspaceId);
  if (!workspace) throw new Error(`workspace ${created.workspaceId} is not in the registry`);
  return { workspace, apiKey: created.apiKey };
}

beforeAll(async () => {
  stats.started = performance.now();
  mock = await startMock();
  baseUrl = await mock.server.listen(0);
  agent = new Agent({ keepAlive: true, maxSockets: 1 });
  foreign = (await newWorkspace()).workspace;
  foreignIds = idsOf(foreign);
  foreignSnapshot = snapshot(foreign);
});

afterAll(async () => {
  agent.destroy();
  await mock.close();
  const seconds = ((performance.now() - stats.started) / 1000).toFixed(1);
  const line = (map: Map<string, number>) => [...map].sort((a, b) => b[1] - a[1]).map(([key, n]) => `${key} ${n}`).join(', ');
  console.log(
    [
      `fuzz: ${stats.requests} requests, ${operations.length} operations x ${RUNS} runs, seed ${SEED}, ${seconds} s`,
      `  statuses: ${line(stats.byClass)}`,
      `  verdicts: ${line(stats.verdicts)}`,
      `  mutations: ${line(stats.mutations)}`,
    ].join('\n'),
  );
});

interface ErrorBody {
  error?: unknown;
  code?: unknown;
  details?: unknown;
}

/** Every check on one exchange; `context` names the operation, mutations and answer in any failure. */
function checkExchange(op: OperationModel, request: FuzzRequest, wire: WireRequest, verdict: Verdict, res: WireResponse): void {
  const context = `${op.operationId} [${request.mutations.join(' + ') || 'valid'}] ${wire.method} ${wire.target.slice(0, 300)} (${verdict.kind}${verdict.kind !== 'accept' ? `: ${verdict.reason}` : ''}) → ${res.status} ${res.text.slice(0, 400)}`;

  // Never a 5xx (every operation is implemented, so not even 501).
  expect(res.status, `server error: ${context}`).toBeLessThan(500);

  if (res.status >= 400) {
    expect(String(res.headers['content-type']), `error not in JSON: ${context}`).toMatch(/^application\/json/);
    const body = JSON.parse(res.text) as ErrorBody;
    let code: string;
    if (res.status === 429 && body.code === 'RATE_LIMITED') {
      expect(Object.keys(body).sort(), context).toEqual(['code', 'details', 'error']);
      expect(typeof body.error, context).toBe('string');
      code = body.code;
    } else {
      expect(Object.keys(body), `not the nested envelope: ${context}`).toEqual(['error']);
      const error = body.error as Record<string, unknown>;
      expect(typeof error.code, context).toBe('string');
      expect(typeof error.message, context).toBe('string');
      for (const key of Object.keys(error)) expect(['code', 'message', 'param', 'details'], `unexpected field ${key}: ${context}`).toContain(key);
      if (error.param !== undefined) expect(typeof error.param, context).toBe('string');
      code = error.code as string;
    }
    expect(knownCodes[op.contract].has(code), `error code ${code} is not one the contract knows: ${context}`).toBe(true);
    if (STATUS_OF_CODE[code] !== undefined) expect(res.status, `${code} with the wrong status: ${context}`).toBe(STATUS_OF_CODE[code]);
  }

  // What the HTTP server answers itself (431, a target that is not HTTP) comes before any workspace: no budget headers.
  const transport = res.status === 431 || (verdict.kind === 'reject' && verdict.transport === true);
  if (op.contract === 'api' && !transport) {
    for (const header of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) expect(String(res.headers[header]), `${header} missing: ${context}`).toMatch(/^\d+$/);
  }

  // Strict where the contract is: a request it refuses is refused, before any 501.
  if (verdict.kind === 'reject') {
    if (verdict.statuses !== undefined) expect(verdict.statuses, `expected ${verdict.statuses.join(' or ')}: ${context}`).toContain(res.status);
    else expect(res.status >= 400 && res.status < 500, `accepted a request the contract refuses: ${context}`).toBe(true);
  }

  // An id of another workspace never finds anything here.
  if (wire.foreignPathParams.length > 0) expect(res.status >= 200 && res.status < 300, `another workspace's id was found: ${context}`).toBe(false);
}

describe.each(operations.map((op, index) => [`${op.contract === 'api' ? '' : 'control '}${op.operationId} (${op.method} ${op.path})`, op, index] as const))('%s', (_name, op, index) => {
  it(`answers every generated request within the contract (${RUNS} runs)`, { timeout: 300_000 }, async () => {
    const { workspace, apiKey } = await newWorkspace();
    const arbitraries = generators[op.contract];
    // Re-read after a success only: nothing else adds or removes records.
    let ownIds = idsOf(workspace);
    await fc.assert(
      fc.asyncProperty(fuzzRequest(op, arbitraries), async (request) => {
        // Each run starts from a frozen clock (a fuzzed /clock/resume must not let timers
        // change state mid-run) and an empty request budget (see the header comment).
        workspace.clock.freeze();
        workspace.scheduler.arm();
        for (const window of Object.values(budgetWindows(workspace))) window.clear();

        const wire = toWire(op, request, { own: ownIds, foreign: foreignIds }, apiKey);
        const verdict = oracles[op.contract].judge(op, request, wire);
        const idempotencyKey = Object.entries(wire.headers).find(([name]) => name.toLowerCase() === 'idempotency-key')?.[1];
        const before = snapshot(workspace);
        const violations = mock.server.violations.length;

        const res = await send(agent, baseUrl, wire);

        stats.requests++;
        count(stats.byClass, String(res.status));
        count(stats.verdicts, verdict.kind);
        for (const mutation of request.mutations) count(stats.mutations, mutation);

        checkExchange(op, request, wire, verdict, res);
        const context = `${op.operationId} [${request.mutations.join(' + ') || 'valid'}] → ${res.status} ${res.text.slice(0, 300)}`;
        expect(mock.server.violations.slice(violations), `responses off the contract: ${context}`).toEqual([]);
        // A refused request changes nothing: not this workspace, not another. Nor does any read, answered or not.
        if (res.status >= 400 && res.status < 500) expect(unchangedSince(before, workspace, idempotencyKey), `a ${res.status} changed the workspace: ${context}`).toEqual({ same: true });
        if (wire.method === 'GET' || wire.method === 'HEAD') expect(unchangedSince(before, workspace), `a ${wire.method} changed the workspace: ${context}`).toEqual({ same: true });
        expect(snapshot(foreign) === foreignSnapshot, `another workspace changed: ${context}`).toBe(true);
        if (res.status < 300) ownIds = idsOf(workspace);
        // Nothing reached Object.prototype, whatever the body, query or keys held.
        expect(({} as Record<string, unknown>).polluted, context).toBeUndefined();
        expect(Object.getOwnPropertyNames(Object.prototype).sort().join(','), context).toBe(prototypeNames);
      }),
      { seed: SEED + index, numRuns: RUNS, endOnFailure: true },
    );
  });
});
