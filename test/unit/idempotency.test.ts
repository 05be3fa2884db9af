import { Containment } from '../../src/lib/containment.js';
import type { Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { ContractChecker } from '../../src/http/contract.js';
import { Idempotency, IDEMPOTENCY_WINDOW_MS } from '../../src/http/idempotency.js';
import type { Operation } from '../../src/http/operations.js';
import { Responder } from '../../src/http/respond.js';
import type { Reply } from '../../src/http/route.js';
import { loadSpec } from '../../src/http/spec.js';
import { Database } from '../../src/store/database.js';
import { WorkspaceRegistry } from '../../src/workspaces/registry.js';
import type { Workspace } from '../../src/workspaces/workspace.js';

/*
 * The Idempotency step on its own, for the answers no endpoint of the mock gives
 * yet (5xx, 429): a fake request runs through step(), a reply goes out through
 * the responder, and a repeat shows whether the answer was kept.
 */

async function newWorkspace(): Promise<Workspace> {
  const registry = new WorkspaceRegistry({
    database: await Database.open(),
    seed: 1,
    defaultApiKey: 'sgw_test_default',
    defaults: { plan: 'payg', clockStartMs: 1_000_000, clockFrozen: true, fixtures: false },
    populate: () => undefined,
    runtime: { realTime: () => 0, journalSize: 10, jobHandlers: new Map(), eventSubscribers: [], containment: new Containment(), onChange: () => undefined, onJobError: () => undefined },
  });
  return registry.defaultWorkspace;
}

const document = loadSpec('openapi.yaml').document;
const checker = new ContractChecker(document, 'openapi');

function harness(workspace: Workspace) {
  const responder = new Responder({ checkers: { api: checker, control: checker }, strictResponses: false, onViolation: () => undefined });
  const idempotency = new Idempotency(new Set(['createPost']), responder);
  const step = idempotency.step();

  interface Sent {
    status: number;
    body: unknown;
    headers: Record<string, string>;
  }

  /** One request through the step: `handler` is what the route would answer, called only when the step lets it through. */
  function request(key: string, body: unknown, handler: () => Reply): { ranHandler: boolean; sent: Sent } {
    const req = {
      ctx: { startedAt: 0, params: {}, workspace, operation: { operationId: 'createPost' } as Operation, contract: 'api' },
      headers: { 'idempotency-key': key },
      baseUrl: '/v1',
      path: '/posts',
      body,
    } as unknown as Request;
    const sent: Sent = { status: 0, body: undefined, headers: {} };
    const res = {
      setHeader: (name: string, value: string) => {
        sent.headers[name] = value;
      },
      getHeaders: () => sent.headers,
      hasHeader: (name: string) => name in sent.headers,
      set statusCode(code: number) {
        sent.status = code;
      },
      end(text?: string) {
        if (text !== undefined) sent.body = JSON.parse(text);
      },
    } as unknown as Response;
    let ranHandler = false;
    step(req, res, () => {
      ranHandler = true;
      responder.send(req, res, handler());
    });
    return { ranHandler, sent };
  }
  return { request };
}

describe('Idempotency', () => {
  it.each([
    [201, true],
    [200, true],
    [400, true],
    [404, true],
    [409, true],
    [422, true],
    [429, false],
    [500, false],
    [502, false],
    [503, false],
  ])('after a %i answer, keeps it: %s', async (status, kept) => {
    const { request } = harness(await newWorkspace());
    const first = request('k1', { text: 'a' }, () => ({ status, body: { n: 1 } }));
    expect(first.ranHandler).toBe(true);
    const second = request('k1', { text: 'a' }, () => ({ status: 201, body: { n: 2 } }));
    if (kept) {
      expect(second.ranHandler).toBe(false);
      expect(second.sent).toMatchObject({ status, body: { n: 1 }, headers: { 'Idempotent-Replayed': 'true' } });
    } else {
      // Not kept: the retry runs again and its own answer goes out.
      expect(second.ranHandler).toBe(true);
      expect(second.sent).toMatchObject({ status: 201, body: { n: 2 } });
      expect(second.sent.headers['Idempotent-Replayed']).toBeUndefined();
    }
  });

  it('refuses the same key with another body (422), and keeps it for 24 hours of virtual time', async () => {
    const workspace = await newWorkspace();
    const { request } = harness(workspace);
    request('k2', { text: 'a' }, () => ({ status: 201, body: { n: 1 } }));
    expect(() => request('k2', { text: 'b' }, () => ({ status: 201, body: { n: 2 } }))).toThrow(expect.objectContaining({ status: 422, code: 'IDEMPOTENCY_KEY_REUSED' }));
    await workspace.scheduler.advanceTo(workspace.now() + IDEMPOTENCY_WINDOW_MS - 1);
    expect(request('k2', { text: 'a' }, () => ({ status: 201, body: { n: 3 } })).ranHandler).toBe(false);
    await workspace.scheduler.advanceTo(workspace.now() + 1);
    const after = request('k2', { text: 'b' }, () => ({ status: 201, body: { n: 4 } }));
    expect(after.ranHandler).toBe(true);
    expect(after.sent.body).toEqual({ n: 4 });
  });

  it('answers 409 IDEMPOTENCY_KEY_IN_USE while the first request with the key is still running', async () => {
    const { request } = harness(await newWorkspace());
    let inner: unknown;
    request('k3', { text: 'a' }, () => {
      try {
        request('k3', { text: 'a' }, () => ({ status: 201 }));
      } catch (error) {
        inner = error;
      }
      return { status: 201, body: {} };
    });
    expect(inner).toMatchObject({ status: 409, code: 'IDEMPOTENCY_KEY_IN_USE' });
  });
});
