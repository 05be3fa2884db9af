import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express, { type NextFunction, type Request, type Response } from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { toApiError } from '../../src/http/error-mapping.js';
import { Idempotency } from '../../src/http/idempotency.js';
import { Responder } from '../../src/http/respond.js';
import type { Workspace } from '../../src/workspaces/workspace.js';
import { expectApiError, expectStatus, startMock, useMock } from '../helpers/mock.js';
import { worldOf } from '../helpers/fixture-world.js';

/*
 * Concurrent requests. Node runs one handler at a time, so two requests race only
 * where a handler awaits: none of this build's /v1 handlers do, so the idempotency
 * race is proven on the real Idempotency step with a handler that waits on a gate
 * the test opens. The real operations (replies, automations) are raced as well.
 */

const mock = useMock();

/** A promise and the function that settles it. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/**
 * The idempotency step in front of a handler that waits on `wait` before answering
 * 201 with how many times it has acted: the shape of any handler that awaits.
 */
function slowApp(workspace: Workspace, wait: () => Promise<void>) {
  const responder = new Responder({ checkers: {} as never, strictResponses: false, onViolation: () => undefined });
  const idempotency = new Idempotency(new Set(['slowOperation']), responder);
  let acted = 0;
  const app = express();
  app.use(express.json());
  app.use((req: Request, _res: Response, next: NextFunction) => {
    req.ctx = { startedAt: 0, params: {}, workspace, operation: { operationId: 'slowOperation', method: 'POST', path: '/slow', tags: [], summary: '', bodyMediaTypes: ['application/json'] } };
    next();
  });
  app.use(idempotency.step());
  app.post('/slow', async (req: Request, res: Response) => {
    acted++;
    const n = acted;
    await wait();
    responder.send(req, res, { status: 201, body: { acted: n } });
  });
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    responder.sendError(req, res, toApiError(error));
  });
  return { app, acted: () => acted };
}

async function freshWorkspace(): Promise<Workspace> {
  const res = await mock.control('post', '/__control/workspaces').send({ fixtures: false });
  return mock.server.registry.get(res.body.workspaceId as string) as Workspace;
}

describe('Idempotency-Key under concurrency', () => {
  describe('when requests with one key arrive while the first still runs', () => {
    it('acts once: the others get 409 IDEMPOTENCY_KEY_IN_USE, later ones the stored answer', async () => {
      const { opened, open } = gate();
      const { app, acted } = slowApp(await freshWorkspace(), () => opened);
      const agent = request(app);
      const first = agent.post('/slow').set('Idempotency-Key', 'k-1').send({ n: 1 }).then((res) => res);
      // Wait until the first is inside the handler, holding the key.
      while (acted() === 0) await new Promise((resolve) => setImmediate(resolve));
      const racing = await Promise.all(Array.from({ length: 5 }, () => agent.post('/slow').set('Idempotency-Key', 'k-1').send({ n: 1 })));
      for (const res of racing) expectApiError(res, 409, 'IDEMPOTENCY_KEY_IN_USE', 'Idempotency-Key');
      open();
      const answered = await first;
      expectStatus(answered, 201);
      expect(answered.body).toEqual({ acted: 1 });
      const replay = await agent.post('/slow').set('Idempotency-Key', 'k-1').send({ n: 1 });
      expectStatus(replay, 201);
      expect(replay.body).toEqual({ acted: 1 });
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expectApiError(await agent.post('/slow').set('Idempotency-Key', 'k-1').send({ n: 2 }), 422, 'IDEMPOTENCY_KEY_REUSED', 'Idempotency-Key');
      expect(acted()).toBe(1);
    });
  });

  describe('when a running entry was left by a process that stopped (read back from --data)', () => {
    it('runs the request instead of answering 409 for 24 hours', async () => {
      const workspace = await freshWorkspace();
      const { app, acted } = slowApp(workspace, async () => undefined);
      // What a kill -9 mid-request leaves in the file: an entry nobody will finish.
      await request(app).post('/slow').set('Idempotency-Key', 'warm-up').send({});
      const stores = workspace.data.stores as { idempotency: { entries: Record<string, unknown> } };
      const finished = structuredClone(stores.idempotency.entries['warm-up']) as { fingerprint: string };
      stores.idempotency.entries['left-over'] = { ...finished, state: 'running', createdAtMs: workspace.now() };
      delete (stores.idempotency.entries['left-over'] as { status?: number }).status;
      const res = await request(app).post('/slow').set('Idempotency-Key', 'left-over').send({});
      expectStatus(res, 201);
      expect(acted()).toBe(2);
    });
  });

  describe('when the key is __proto__', () => {
    it('stores and replays it like any key, leaving the store a plain object', async () => {
      const workspace = await freshWorkspace();
      const { app, acted } = slowApp(workspace, async () => undefined);
      expectStatus(await request(app).post('/slow').set('Idempotency-Key', '__proto__').send({}), 201);
      const replay = await request(app).post('/slow').set('Idempotency-Key', '__proto__').send({});
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(acted()).toBe(1);
      const entries = (workspace.data.stores as { idempotency: { entries: object } }).idempotency.entries;
      expect(Object.getPrototypeOf(entries)).toBe(Object.prototype);
      expect(Object.keys(entries)).toEqual(['__proto__']);
    });
  });
});

describe('POST /v1/profiles under concurrency', () => {
  describe('when ten requests ask for the same name at once', () => {
    it('creates it once and answers 409 CONFLICT to the nine others', async () => {
      const results = await Promise.all(Array.from({ length: 10 }, () => mock.call('post', '/v1/profiles').send({ name: 'Raced name' })));
      expect(results.filter((res) => res.status === 201)).toHaveLength(1);
      for (const res of results.filter((candidate) => candidate.status !== 201)) expectApiError(res, 409, 'CONFLICT', 'name');
    });
  });

  describe('with --data, when twenty writes arrive at once', () => {
    it('acknowledges each only once it is in the file, sharing writes between them', async () => {
      const file = join(mkdtempSync(join(tmpdir(), 'sgw-races-')), 'state.json');
      const persisted = await startMock({ dataFile: file });
      const names = Array.from({ length: 20 }, (_, i) => `Concurrent ${i}`);
      const results = await Promise.all(names.map((name) => persisted.call('post', '/v1/profiles').send({ name })));
      for (const res of results) expectStatus(res, 201);
      const stored = JSON.stringify(JSON.parse(readFileSync(file, 'utf8')));
      for (const name of names) expect(stored).toContain(`"${name}"`);
      await persisted.close();
    });
  });
});

describe('races on real operations', () => {
  it('POST /v1/comments/{id}/replies with one Idempotency-Key eight times at once acts once', async () => {
    const world = worldOf(mock);
    const { destination } = world.destination('bluesky', (post, d) => d.status === 'published' && world.comments(d.id).length > 0);
    const comment = world.comments(destination.id)[0] as { id: string };
    const before = world.comments(destination.id).length;
    const results = await Promise.all(Array.from({ length: 8 }, () => mock.call('post', `/v1/comments/${comment.id}/replies`).set('Idempotency-Key', 'race-reply').send({ text: 'Only once' })));
    const answered = results.filter((res) => res.status !== 409);
    for (const res of results.filter((candidate) => candidate.status === 409)) expectApiError(res, 409, 'IDEMPOTENCY_KEY_IN_USE');
    // Every answer that is not "in use" is the same answer: the first, stored and replayed.
    expect(new Set(answered.map((res) => `${res.status} ${res.text}`)).size).toBe(1);
    expectStatus(answered[0] as request.Response, 201);
    expect(world.comments(destination.id)).toHaveLength(before + 1);
  });

  it('concurrent PATCHes of one automation leave it equal to one of them, never a mix', async () => {
    const list = await mock.call('get', '/v1/automations?limit=1');
    const automation = (list.body.data as Array<{ id: string }>)[0];
    if (!automation) throw new Error('the fixture world has no automation');
    const bodies = Array.from({ length: 6 }, (_, i) => ({ name: `Order ${i}`, message: `Message ${i}`, keywords: [`keyword${i}`], enabled: i % 2 === 0 }));
    const results = await Promise.all(bodies.map((body) => mock.call('patch', `/v1/automations/${automation.id}`).send(body)));
    results.forEach((res, i) => {
      expectStatus(res, 200);
      expect(res.body).toMatchObject(bodies[i] as object);
    });
    const final = await mock.call('get', `/v1/automations/${automation.id}`);
    const fields = { name: final.body.name, message: final.body.message, keywords: final.body.keywords, enabled: final.body.enabled };
    expect(bodies).toContainEqual(fields);
  });
});
