import type { Response } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { declaredOperations } from '../../src/http/declared-responses.js';
import { loadSpec } from '../../src/http/spec.js';
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
