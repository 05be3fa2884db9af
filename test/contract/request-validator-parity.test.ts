/**
 * The mock's own request validator (src/http/request-validator.ts) against the one it
 * replaced: express-openapi-validator 5.6 (EOV), set up exactly as the contract router
 * set it up. The same requests (the fuzz's generated ones, valid ones for every
 * operation of both contracts, and hand-picked edge cases) go through the router's
 * steps up to validation on two servers, one with each validator; both must accept or
 * refuse alike, with the same errors, the same answer, and on acceptance the same
 * `req.query`, `req.body`, `req.params` and headers (coerced values, defaults).
 */
import { Agent, createServer, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mockValidatorOptions, tuneValidator } from '../../bench/lib/validator-tuning.js';
import { bodySteps, requestContract } from '../../src/http/contract-router.js';
import { toApiError } from '../../src/http/error-mapping.js';
import { OperationIndex } from '../../src/http/operations.js';
import { pipeline } from '../../src/http/pipeline.js';
import { RequestValidator } from '../../src/http/request-validator.js';
import { loadSpec, type OpenApiDocument } from '../../src/http/spec.js';
import { FuzzPlan } from '../fuzz/engine.js';
import { operationModels, type OperationModel } from '../fuzz/operations.js';
import { validRequest } from '../fuzz/requests.js';
import { SchemaArbitraries } from '../fuzz/schema-arbitraries.js';
import { send, toWire, type WireRequest } from '../fuzz/wire.js';

const SEED = 20_260_301;
/** Generated requests per operation (both contracts: about 120 operations). */
const ROUNDS = 30;
const API_BODY_LIMIT = '1mb';
const CONTRACTS = [
  { file: 'openapi.yaml', mount: '/v1', contract: 'api', bodyLimit: API_BODY_LIMIT },
  { file: 'control.yaml', mount: '/__control', contract: 'control', bodyLimit: API_BODY_LIMIT },
] as const;

/** EOV as src/http/contract-router.ts configured it until decision 0020. */
function eovValidation(document: OpenApiDocument): RequestHandler[] {
  tuneValidator();
  return OpenApiValidator.middleware(mockValidatorOptions(requestContract(document))) as RequestHandler[];
}

function ownValidation(document: OpenApiDocument): RequestHandler[] {
  const validator = new RequestValidator(requestContract(document));
  return [
    (req, _res, next) => {
      if (req.ctx.operation) validator.validate(req, req.ctx.operation, req.ctx.params);
      next();
    },
  ];
}

/** What one server made of one request. */
type Outcome = Record<string, unknown>;

const show = (value: unknown): string => inspect(value, { depth: null, showHidden: false, breakLength: Infinity });

function accepted(req: Request): Outcome {
  return { kind: 'accepted', query: show(req.query), body: show(req.body), params: show(req.params), headers: show(req.headers) };
}

function refused(error: unknown, req: Request): Outcome {
  const e = error as { status?: number; message?: string; errors?: unknown };
  const api = toApiError(error, { body: req.body as unknown, query: req.query, headers: req.headers });
  return { kind: 'refused', status: e.status, errors: show(e.errors), answer: show({ status: api.status, body: api.body() }), query: show(req.query) };
}

/** A server running the contract router's steps up to validation, then recording what validation left. */
async function harness(validation: (document: OpenApiDocument) => RequestHandler[], outcomes: Map<string, Outcome>): Promise<Server> {
  const record = (req: Request, outcome: Outcome) => outcomes.set(String(req.headers['x-probe']), outcome);
  const app = express();
  for (const { file, mount, bodyLimit } of CONTRACTS) {
    const document = loadSpec(file).document;
    const index = new OperationIndex(document);
    const resolveOperation: RequestHandler = (req, res, next) => {
      req.ctx = { startedAt: 0, params: {} };
      const match = index.match(req.method, req.path === '/' ? req.baseUrl : `${req.baseUrl}${req.path}`);
      if (match.kind !== 'found') {
        record(req, { kind: 'no operation' });
        return void res.end();
      }
      req.ctx.operation = match.operation;
      req.ctx.params = match.params;
      next();
    };
    const handle: RequestHandler = (req, res) => {
      record(req, accepted(req));
      res.end();
    };
    app.use(mount, pipeline([resolveOperation, ...bodySteps(bodyLimit), ...validation(document), handle]));
  }
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    record(req, refused(error, req));
    res.end();
  });
  const server = createServer(app);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

// ----------------------------------------------------------------- the requests

function raw(method: string, target: string, headers: Record<string, string> = {}, body?: string): WireRequest {
  return { method, target, headers, body: body === undefined ? undefined : Buffer.from(body), pathParams: {}, foreignPathParams: [] };
}

const POOLS = { own: ['acc_1', 'post_1'], foreign: ['acc_other'] };

/** The cases a generator may not reach: every query parameter's awkward values, broken escapes, HEAD, repeated and bracketed keys. */
function edgeCases(operations: OperationModel[]): WireRequest[] {
  const cases: WireRequest[] = [];
  for (const op of operations) {
    const base = op.path.replace(/\{\w+\}/g, 'abc');
    const json = { 'Content-Type': 'application/json' };
    const body = op.body ? '{}' : undefined;
    const send = (target: string, headers: Record<string, string> = op.body ? json : {}, text = body, method = op.method) => cases.push(raw(method, target, headers, text));
    for (const parameter of op.parameters.filter((p) => p.in === 'query')) {
      const name = parameter.name;
      for (const value of ['', 'a:b', 'a,b', "a'b", 'a{b}', 'a|b', 'a;b', 'a%3Ab', '%E0%A4%A', '0', '-1', '1.5', '1e309', 'abc', 'true', 'TRUE', '2026-03-01T00:00:00Z', '2026-13-45', 'created_asc', 'x'.repeat(70)]) {
        send(`${base}?${name}=${value}`);
      }
      send(`${base}?${name}`);
      send(`${base}?${name}=1&${name}=2`);
      send(`${base}?${name}[a]=1`);
      send(`${base}?${name}[]=1&${name}[]=2`);
      send(`${base}?${name}=a=b`);
      send(`${base}?${name}=a?b`);
      send(`${base}?${name}=a#b`);
      if (op.method === 'GET') send(`${base}?${name}=abc&unknown=1`, {}, undefined, 'HEAD');
    }
    for (const query of ['unknown=1', '__proto__[x]=1', 'constructor[prototype][x]=1', '[a]=1', 'a[b][c][d][e][f][g]=1', '=1', '&&', '?', '%', 'limit=5?x=1']) send(`${base}?${query}`);
    if (op.path.includes('{')) {
      for (const segment of ['%E0%A4%A', '%25', '%', 'A%2FB', '%2e%2e', "'"]) send(op.path.replace(/\{\w+\}/, segment).replace(/\{\w+\}/g, 'abc'));
      if (op.method === 'GET') send(op.path.replace(/\{\w+\}/g, '%E0%A4%A'), {}, undefined, 'HEAD');
    }
    send(base.toUpperCase());
    if (op.body) {
      send(base, {}, undefined);
      send(base, json, '');
      send(base, json, '{"":1}');
      send(base, json, '{"unknownField":1}');
      send(base, json, 'null');
      send(base, json, '[]');
      send(base, { 'Content-Type': 'application/json; charset=utf-8' }, '{}');
    }
    for (const parameter of op.parameters.filter((p) => p.in === 'header')) {
      for (const value of ['', 'x'.repeat(300), 'a']) send(base, { ...(op.body ? json : {}), [parameter.name]: value });
    }
  }
  return cases;
}

function requests(): WireRequest[] {
  const plan = new FuzzPlan({ bodyLimitBytes: 1024 * 1024 });
  const wires: WireRequest[] = [];
  for (let i = 0; i < plan.operations.length * ROUNDS; i++) {
    const { op, request } = plan.generate(SEED, i);
    wires.push(toWire(op, request, POOLS, 'sgw_test_key'));
  }
  for (const { file, contract } of CONTRACTS) {
    const document = loadSpec(file).document;
    const arbitraries = new SchemaArbitraries({ document });
    const operations = operationModels(document, contract);
    for (const op of operations) {
      for (const request of fc.sample(validRequest(op, arbitraries), { seed: SEED, numRuns: 5 })) wires.push(toWire(op, request, POOLS, 'sgw_test_key'));
    }
    wires.push(...edgeCases(operations));
  }
  return wires;
}

// ----------------------------------------------------------------- the comparison

describe('the request validator against express-openapi-validator', () => {
  const eovOutcomes = new Map<string, Outcome>();
  const ownOutcomes = new Map<string, Outcome>();
  let eov: Server;
  let own: Server;
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });

  beforeAll(async () => {
    [eov, own] = await Promise.all([harness(eovValidation, eovOutcomes), harness(ownValidation, ownOutcomes)]);
  });

  afterAll(async () => {
    agent.destroy();
    await Promise.all([eov, own].map((server) => new Promise((resolve) => server.close(resolve))));
  });

  it('accepts and refuses every request alike, with the same errors and the same request left for the handler', async () => {
    const wires = requests();
    const url = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const differences: string[] = [];
    const kinds = new Map<string, number>();
    for (const [i, wire] of wires.entries()) {
      // The same Host on both, which otherwise names each server's port.
      const probe = { ...wire, headers: { ...wire.headers, Host: 'localhost', 'x-probe': String(i) } };
      await Promise.all([send(agent, url(eov), probe), send(agent, url(own), probe)]);
      const expected = eovOutcomes.get(String(i));
      const actual = ownOutcomes.get(String(i));
      const kind = String(expected?.kind);
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
      if (show(actual) !== show(expected)) differences.push(`${wire.method} ${wire.target.slice(0, 200)}\n  EOV: ${show(expected).slice(0, 600)}\n  own: ${show(actual).slice(0, 600)}`);
    }
    expect(`${differences.length} of ${wires.length} differ\n${differences.slice(0, 10).join('\n')}`).toBe(`0 of ${wires.length} differ\n`);
    // The comparison means something only if both sides of it were exercised.
    expect(kinds.get('accepted')).toBeGreaterThan(500);
    expect(kinds.get('refused')).toBeGreaterThan(1000);
  }, 300_000);
});
