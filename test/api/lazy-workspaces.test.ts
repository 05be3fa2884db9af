import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { MockServerOptions } from '../../src/server.js';
import type { Workspace } from '../../src/workspaces/workspace.js';
import { expectApiError, expectStatus, startMock, TEST_CLOCK, type StartedMock, type TestMock } from '../helpers/mock.js';

/*
 * A workspace made with the fixture world gets its world on first use (decision 0018).
 * Its answers are those of one built at its creation: the reference here is the
 * eager path itself, a workspace reset to its start (a reset builds the world at once,
 * as creation did before), on a second server with the same seed, so ids match (keys are
 * random, decision 0025: the state's are masked).
 */

const T0 = Date.parse(TEST_CLOCK);

/** The wall clock every server of this file reads: tests move it, nothing sleeps. */
let wall = T0;
const mocks: StartedMock[] = [];

async function server(options: MockServerOptions = {}): Promise<StartedMock> {
  const mock = await startMock({ realTime: () => wall, ...options });
  mocks.push(mock);
  return mock;
}

afterEach(async () => {
  for (const mock of mocks.splice(0)) await mock.close();
  wall = T0;
});

interface Created {
  workspaceId: string;
  apiKey: string;
  clock: Record<string, unknown>;
}

async function create(mock: TestMock, body: Record<string, unknown> = {}): Promise<Created> {
  const res = await mock.control('post', '/__control/workspaces').send(body);
  expectStatus(res, 201);
  return res.body as Created;
}

/** Whether the workspace's world has been built (it is among the used ones). */
function built(mock: TestMock, id: string): boolean {
  return mock.server.registry.used().some((workspace) => workspace.id === id);
}

/** The answers that show a world, as bytes: lists of every kind and the whole state. */
async function reads(mock: TestMock, apiKey: string): Promise<Record<string, string>> {
  const bodies: Record<string, string> = {};
  for (const path of ['/v1/accounts?limit=100', '/v1/connections', '/v1/posts?limit=100', '/v1/posts?limit=20&status=published', '/v1/profiles?limit=100']) {
    const res = await mock.call('get', path, apiKey);
    expectStatus(res, 200);
    bodies[path] = res.text;
  }
  const state = await mock.control('get', '/__control/state', apiKey);
  expectStatus(state, 200);
  bodies['/__control/state'] = state.text.replaceAll(apiKey, 'sgw_test_(its key)');
  return bodies;
}

/**
 * The same workspace on a server of its own, built the eager way: made, then reset to
 * its start at its creation instant. Answers the reset's answer (the clock it shows).
 */
async function eagerTwin(options: MockServerOptions, body: Record<string, unknown> = {}): Promise<{ mock: StartedMock; created: Created; clock: unknown; workspace: Workspace }> {
  const mock = await server(options);
  const created = await create(mock, body);
  const reset = await mock.control('post', '/__control/reset', created.apiKey);
  expectStatus(reset, 200);
  const workspace = mock.server.registry.get(created.workspaceId);
  if (!workspace) throw new Error('the twin is missing');
  return { mock, created, clock: reset.body.clock, workspace };
}

/** What a running clock's real timer does while the wall moves to `untilMs`: each job runs when it falls due. */
async function timersUntil(workspace: Workspace, untilMs: number): Promise<number> {
  let ran = 0;
  for (let next = workspace.scheduler.next(); next && next.dueAt <= untilMs; next = workspace.scheduler.next()) {
    wall = next.dueAt;
    ran += (await workspace.scheduler.runDue()).length;
  }
  wall = untilMs;
  return ran;
}

describe('POST /__control/workspaces with the fixture world', () => {
  it('builds nothing: no world, no timer, and the list does not build it', async () => {
    const mock = await server({ clockFrozen: false });
    const timersBefore = process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const created = await Promise.all(Array.from({ length: 20 }, () => create(mock)));
    // Timers of other work may end meanwhile; none is added.
    expect(process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length).toBeLessThanOrEqual(timersBefore);
    for (const { workspaceId } of created) expect(mock.server.registry.facts(workspaceId)?.timerArmed).toBe(false);

    const list = await mock.control('get', '/__control/workspaces');
    expectStatus(list, 200);
    const row = (list.body.data as Array<Record<string, unknown>>).find((entry) => entry.workspaceId === created[0]?.workspaceId);
    expect(row).toMatchObject({ timerArmed: false, deliveriesInFlight: 0 });
    // It holds its identity and keys, not a world.
    expect(row?.sizeBytes).toBeLessThan(2_000);
    expectStatus(await mock.control('get', '/__control/health'), 200);
    for (const { workspaceId } of created) expect(built(mock, workspaceId)).toBe(false);
    expect(mock.server.database.data.workspaces[created[0]?.workspaceId ?? '']?.stores).toEqual({});
  });

  it('is built by its first request, and the list then shows its world', async () => {
    const mock = await server();
    const { workspaceId, apiKey } = await create(mock);
    expectStatus(await mock.call('get', '/v1/connections', apiKey), 200);
    expect(built(mock, workspaceId)).toBe(true);
    const list = await mock.control('get', '/__control/workspaces');
    expect((list.body.data as Array<{ workspaceId: string; sizeBytes: number }>).find((entry) => entry.workspaceId === workspaceId)?.sizeBytes).toBeGreaterThan(20_000);
  });

  it('can be deleted unused: its keys answer 401, and its world was never built', async () => {
    const mock = await server({ clockFrozen: false });
    const { workspaceId, apiKey } = await create(mock);
    const res = await mock.control('delete', `/__control/workspaces/${workspaceId}`);
    expectStatus(res, 200);
    expect(res.body.deleted).toBe(true);
    expect(built(mock, workspaceId)).toBe(false);
    expect(mock.server.registry.ids()).not.toContain(workspaceId);
    expect(mock.server.database.data.workspaces[workspaceId]).toBeUndefined();
    expectApiError(await mock.call('get', '/v1/connections', apiKey), 401, 'UNAUTHORIZED');
    expectApiError(await mock.control('delete', `/__control/workspaces/${workspaceId}`), 404, 'NOT_FOUND', 'id');
  });

  it('is evicted by --workspace-ttl unused, without its world being built', async () => {
    const ttlMs = 60_000;
    const mock = await server({ workspaceTtlMs: ttlMs });
    const { workspaceId, apiKey } = await create(mock);
    wall += ttlMs + 1;
    expect(mock.server.registry.evictIdle()).toEqual([workspaceId]);
    expect(built(mock, workspaceId)).toBe(false);
    expectApiError(await mock.call('get', '/v1/connections', apiKey), 401, 'UNAUTHORIZED');
  });

  it('answers as an eager creation did: the clock shows the jobs its world will start with, whatever the seed', async () => {
    for (const body of [{}, { seed: 7 }, { seed: 123_456, clock: { start: '2026-07-01T12:34:56.789Z' } }]) {
      const lazy = await create(await server(), body);
      const twin = await eagerTwin({}, body);
      expect(lazy.clock).toEqual(twin.clock);
      expect(lazy.clock.pendingJobs).toBeGreaterThan(0);
    }
  });
});

describe('a workspace built on first use', () => {
  it('answers byte for byte as one built at its creation (frozen clock)', async () => {
    const lazy = await server();
    const created = await create(lazy);
    wall += 60_000;
    const twin = await eagerTwin({});
    expect(twin.created.workspaceId).toBe(created.workspaceId);
    expect(await reads(lazy, created.apiKey)).toEqual(await reads(twin.mock, twin.created.apiKey));
  });

  it('answers byte for byte as one built at its creation (running clock), the jobs that fell due meanwhile run first', async () => {
    const lazy = await server({ clockFrozen: false });
    const created = await create(lazy);
    const twin = await eagerTwin({ clockFrozen: false });
    // Publishing steps of the fixture world fall due seconds after creation; the first use comes later.
    const ran = await timersUntil(twin.workspace, T0 + 90_000);
    expect(ran).toBeGreaterThan(0);
    expect(await reads(lazy, created.apiKey)).toEqual(await reads(twin.mock, twin.created.apiKey));
    // Its clock carries on with the wall from where it stood, as its twin's does.
    wall += 5_000;
    const clocks = await Promise.all([lazy.control('get', '/__control/clock', created.apiKey), twin.mock.control('get', '/__control/clock', twin.created.apiKey)]);
    expect(clocks[0]?.body).toEqual(clocks[1]?.body);
    expect(clocks[0]?.body.now).toBe(new Date(T0 + 95_000).toISOString());
  });

  it('never shows a change made in another fresh workspace', async () => {
    const busy = await server();
    const quiet = await server();
    const [changed, other] = [await create(busy), await create(busy)];
    await create(quiet);
    const reference = await create(quiet);

    // Everything a test might do to its own world, on the first one.
    expectStatus(await busy.call('post', '/v1/profiles', changed.apiKey).send({ name: 'Only here' }), 201);
    const posts = await busy.call('get', '/v1/posts?limit=100', changed.apiKey);
    const accounts = await busy.call('get', '/v1/accounts?limit=100', changed.apiKey);
    for (const post of posts.body.data as Array<{ id: string; status: string }>) {
      if (post.status !== 'published') await busy.call('delete', `/v1/posts/${post.id}`, changed.apiKey);
    }
    expectStatus(await busy.call('delete', `/v1/accounts/${(accounts.body.data as Array<{ id: string }>)[0]?.id}`, changed.apiKey), 200);
    expectStatus(await busy.control('post', '/__control/clock/advance', changed.apiKey).send({ by: 'P40D' }), 200);

    expect(reference.workspaceId).toBe(other.workspaceId);
    expect(await reads(busy, other.apiKey)).toEqual(await reads(quiet, reference.apiKey));
  });

  it('is forked as a whole world', async () => {
    const mock = await server();
    const source = await create(mock);
    const fork = await mock.control('post', '/__control/workspaces').send({ from: source.workspaceId });
    expectStatus(fork, 201);
    expect(fork.body.clock).toEqual(source.clock);
    // List cursors are signed per workspace; the records are the same.
    const accounts = await Promise.all([source.apiKey, fork.body.apiKey as string].map((key) => mock.call('get', '/v1/accounts?limit=100', key)));
    expect(accounts[0]?.body.data.length).toBeGreaterThan(0);
    expect(accounts[1]?.body.data).toEqual(accounts[0]?.body.data);
  });
});

describe('--data with a workspace not used yet', () => {
  it('keeps it unbuilt in the file, and builds it after a restart as it would have been built at its creation', async () => {
    const dataFile = join(mkdtempSync(join(tmpdir(), 'sgm-lazy-')), 'data.json');
    const first = await server({ dataFile });
    const created = await create(first);
    await first.close();
    mocks.splice(mocks.indexOf(first), 1);
    const saved = JSON.parse(readFileSync(dataFile, 'utf8')).workspaces[created.workspaceId];
    expect(saved).toMatchObject({ unbuilt: true, apiKeys: [created.apiKey], stores: {}, jobs: {}, idCounter: 0 });

    const reopened = await server({ dataFile });
    expect(reopened.server.registry.ids()).toContain(created.workspaceId);
    expect(built(reopened, created.workspaceId)).toBe(false);
    const twin = await eagerTwin({});
    expect(await reads(reopened, created.apiKey)).toEqual(await reads(twin.mock, twin.created.apiKey));

    await reopened.close();
    mocks.splice(mocks.indexOf(reopened), 1);
    const written = JSON.parse(readFileSync(dataFile, 'utf8')).workspaces[created.workspaceId];
    expect(written.unbuilt).toBeUndefined();
    expect(Object.keys(written.stores)).toContain('accounts');
  });
});
