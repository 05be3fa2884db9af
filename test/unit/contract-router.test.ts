import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { ContractChecker } from '../../src/http/contract.js';
import { createContractRouter } from '../../src/http/contract-router.js';
import { toApiError } from '../../src/http/error-mapping.js';
import { OperationIndex } from '../../src/http/operations.js';
import { Responder } from '../../src/http/respond.js';
import { loadSpec } from '../../src/http/spec.js';
import type { Workspace } from '../../src/workspaces/workspace.js';
import '../../src/http/context.js';

/**
 * The router on its own, with the real contract and no routes at all: what an
 * operation added to openapi.yaml answers before anyone implements it.
 */
function bareApi() {
  const spec = loadSpec('openapi.yaml');
  const responder = new Responder({
    checkers: { api: new ContractChecker(spec.document, 'openapi'), control: new ContractChecker(loadSpec('control.yaml').document, 'control') },
    // No rate-limit step here, so its headers are missing; the contract check is tested elsewhere.
    strictResponses: false,
    onViolation: () => undefined,
  });
  const workspace = { id: 'ws_test', nowIso: () => '2026-03-02T09:00:00.000Z' } as unknown as Workspace;
  const app = express();
  app.use((req, _res, next) => {
    req.ctx = { startedAt: 0, params: {} };
    next();
  });
  app.use(
    '/v1',
    createContractRouter({ contract: 'api', spec, index: new OperationIndex(spec.document), routes: new Map(), authenticate: () => workspace, bodyLimit: '1mb', responder }),
  );
  app.use((error: unknown, req: express.Request, res: express.Response, _next: express.NextFunction) => responder.sendError(req, res, toApiError(error, req)));
  return app;
}

describe('an operation of the contract without a route', () => {
  it('answers 501 NOT_IMPLEMENTED in the envelope, naming the operation', async () => {
    const res = await request(bareApi()).get('/v1/automations');
    expect(res.status).toBe(501);
    expect(res.body).toEqual({ error: { code: 'NOT_IMPLEMENTED', message: expect.stringContaining('listAutomations') } });
  });

  it('still validates the request first', async () => {
    const res = await request(bareApi()).get('/v1/automations?limit=0');
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', param: 'limit' });
  });
});
