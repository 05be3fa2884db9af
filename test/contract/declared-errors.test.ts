import type { Response } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContractChecker } from '../../src/http/contract.js';
import { declaredOperations } from '../../src/http/declared-responses.js';
import { HTTP_METHODS, loadSpec } from '../../src/http/spec.js';
import { valueAtPointer } from '../../src/lib/json-pointer.js';
import { worldOf } from '../helpers/fixture-world.js';
import { expectApiError, useMock } from '../helpers/mock.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { ERROR_REQUESTS, errorContext, PIPELINE_REQUESTS, pipelineContext, requestKind, type PipelineContext } from './error-requests.js';
import { bodyExamples, OPERATIONS, walkEveryOperation } from './every-operation.js';

/*
 * Every error code an operation declares in its `x-error-codes` (decision 0036) is one it
 * answers: a request drives each declared (operation, code) pair and gets that status and
 * code. The other way round, that every code a handler answers is declared, is held by
 * every test of the suite: under --strict-responses an undeclared code is a
 * CONTRACT_VIOLATION. Then, since one server has seen every declared outcome (the
 * walk's successes and these errors), its coverage report reads 100%.
 */

const BODY_LIMIT_BYTES = 16 * 1024;
const mock = useMock({ bodyLimit: `${BODY_LIMIT_BYTES}b` }, { listen: true });
const declared = declaredOperations(loadSpec('openapi.yaml').document);

/** Every declared error code, as `operationId CODE`, with the status it is declared under. */
const PAIRS = [...declared.values()].flatMap((operation) =>
  [...operation.statuses].flatMap(([status, codes]) => codes.map((code) => ({ operationId: operation.operationId, code, status, pair: `${operation.operationId} ${code}` }))),
);

let pipeline: PipelineContext;
beforeAll(async () => {
  pipeline = await pipelineContext(mock, BODY_LIMIT_BYTES);
});

describe('x-error-codes in openapi.yaml', () => {
  const document = loadSpec('openapi.yaml').document;
  const operations = Object.values(document.paths).flatMap((item) =>
    HTTP_METHODS.flatMap((method) => {
      const op = item[method] as { operationId?: string; responses?: Record<string, { $ref?: string }>; 'x-error-codes'?: Record<string, string[]> } | undefined;
      return op?.operationId ? [{ operationId: op.operationId, responses: op.responses ?? {}, codes: op['x-error-codes'] }] : [];
    }),
  );
  const resolve = (response: { $ref?: string }) => (response.$ref ? valueAtPointer(document, response.$ref) : response) as { description?: string; 'x-mock-only'?: boolean; content?: unknown };

  it('is given by every operation', () => {
    expect(operations.filter((operation) => operation.codes === undefined).map((operation) => operation.operationId)).toEqual([]);
  });

  it("lists exactly the operation's error statuses (the mock's own 500 and 503 aside), none of them empty", () => {
    for (const { operationId, responses, codes } of operations) {
      const statuses = Object.entries(responses)
        .filter(([status, response]) => Number(status) >= 400 && resolve(response)['x-mock-only'] !== true)
        .map(([status]) => status);
      expect(Object.keys(codes ?? {}).sort(), operationId).toEqual(statuses.sort());
      for (const [status, list] of Object.entries(codes ?? {})) expect(list.length, `${operationId} ${status}`).toBeGreaterThan(0);
    }
  });

  it('names only codes the response of that status describes', () => {
    const strangers: string[] = [];
    for (const { operationId, responses, codes } of operations) {
      for (const [status, list] of Object.entries(codes ?? {})) {
        const response = responses[status];
        const text = response ? JSON.stringify(resolve(response)) : '';
        for (const code of list) if (!new RegExp(`\\b${code}\\b`).test(text)) strangers.push(`${operationId} ${status} ${code}`);
      }
    }
    expect(strangers, 'codes the shared response neither describes nor shows').toEqual([]);
  });
});

describe('an answer with a code its operation does not declare', () => {
  const checker = new ContractChecker(loadSpec('openapi.yaml').document, 'openapi');
  const listConnections = { operationId: 'listConnections', method: 'GET', path: '/v1/connections', tags: [], summary: '', bodyMediaTypes: [] };
  const headers = { 'x-ratelimit-limit': '600', 'x-ratelimit-remaining': '599', 'x-ratelimit-reset': '1772442060' };
  const error = (code: string) => ({ error: { code, message: 'Refused.' } });

  it('breaks the contract, though the shared response lists the code', () => {
    expect(checker.check(listConnections, 400, error('VALIDATION_ERROR'), headers)).toBeUndefined();
    expect(checker.check(listConnections, 400, error('INVALID_CURSOR'), headers)?.problems).toEqual(['error code INVALID_CURSOR is not one listConnections declares for 400 (x-error-codes: VALIDATION_ERROR)']);
    expect(checker.check(listConnections, 400, error('TEXT_TOO_LONG'), headers)?.problems).toHaveLength(1);
  });

  it("leaves the mock's own answers alone (CONTRACT_VIOLATION is no code of the service)", () => {
    expect(checker.check(listConnections, 500, { error: { code: 'CONTRACT_VIOLATION', message: 'Broken.', details: { operationId: 'listConnections', status: 200, problems: ['x'] } } }, headers)).toBeUndefined();
  });
});

describe('the error codes each operation declares', () => {
  it('are its own, not every code of the shared responses', () => {
    expect(declared.get('listConnections')?.statuses.get(400)).toEqual(['VALIDATION_ERROR']);
    expect(declared.get('listPosts')?.statuses.get(400)).toEqual(['INVALID_CURSOR', 'INVALID_RANGE', 'VALIDATION_ERROR']);
    expect(PAIRS.length).toBeGreaterThan(300);
  });

  it('each have a request that answers them', () => {
    expect(PAIRS.filter(({ operationId, code }) => requestKind(operationId, code) === undefined).map(({ pair }) => pair), 'declared codes no request answers').toEqual([]);
  });

  it('leave no request of its own that nothing declares', () => {
    const pairs = new Set(PAIRS.map(({ pair }) => pair));
    expect(Object.keys(ERROR_REQUESTS).filter((pair) => !pairs.has(pair)), 'requests for codes no operation declares').toEqual([]);
  });

  describe.each(PAIRS.map(({ pair, status }) => [pair, status] as const))('%s', (pair, status) => {
    it(`is answered ${status} with that code`, async () => {
      const [operationId, code] = pair.split(' ') as [string, string];
      const own = ERROR_REQUESTS[pair];
      if (own) {
        const c = await errorContext(mock);
        const res = await own(c);
        expectApiError(res, status, code);
        // The answer came from the operation the entry is named after.
        expect(c.w.workspace.journal.entries().at(-1)?.operationId).toBe(operationId);
        return;
      }
      const op = OPERATIONS.find((candidate) => candidate.operationId === operationId);
      const driver = PIPELINE_REQUESTS[code];
      if (!op || !driver?.applies(op)) throw new Error(`${pair}: no request answers it`);
      const res: Response = await driver.send(op, pipeline);
      // RATE_LIMITED is the flat envelope of the reference's rate-limit page.
      if (code === 'RATE_LIMITED') expect({ status: res.status, code: res.body.code }, JSON.stringify(res.body)).toEqual({ status, code });
      else expectApiError(res, status, code);
    });
  });
});

describe('a suite that drives every declared outcome', () => {
  let receiver: WebhookReceiver;
  afterAll(() => receiver?.close());

  it('reads 100% of operations, statuses and error codes in the coverage report', async () => {
    receiver = await WebhookReceiver.start();
    const workspace = await mock.control('post', '/__control/workspaces').send({});
    expect(workspace.status).toBe(201);
    const apiKey = workspace.body.apiKey as string;
    await walkEveryOperation({ apiUrl: mock.url, mockUrl: mock.url, apiKey, hookUrl: `${receiver.url}/hook` });
    // The walk opens a conversation (201); opening it again finds it (200), the other success declared.
    const instagram = worldOf(mock, apiKey).account('instagram').id;
    const [example] = bodyExamples('createConversation');
    expect((await mock.call('post', `/v1/accounts/${instagram}/conversations`, apiKey).send(example?.value as object)).status).toBe(200);
    const { body } = await mock.control('get', '/__control/coverage');
    const gaps = (body.byOperation as Array<{ operationId: string; missingStatuses: number[]; missingErrorCodes: string[] }>)
      .filter((operation) => operation.missingStatuses.length > 0 || operation.missingErrorCodes.length > 0)
      .map(({ operationId, missingStatuses, missingErrorCodes }) => `${operationId}: ${[...missingStatuses, ...missingErrorCodes].join(', ')}`);
    expect(gaps, 'declared outcomes no request drove').toEqual([]);
    expect({ operations: body.operations.percent, statuses: body.statuses.percent, errorCodes: body.errorCodes.percent }).toEqual({ operations: 100, statuses: 100, errorCodes: 100 });
    expect(body.errorCodes.total).toBe(PAIRS.length);
  });
});
