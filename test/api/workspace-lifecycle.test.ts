import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMockServer } from '../../src/server.js';
import type { Workspace } from '../../src/workspaces/workspace.js';
import { expectApiError, expectStatus, startMock, TEST_CLOCK, useMock } from '../helpers/mock.js';
import { SseClient } from '../helpers/sse-client.js';
import { exampleData } from '../helpers/webhook-contract.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

const T0 = Date.parse(TEST_CLOCK);
const MINUTE = 60_000;

/** The wall clock the server reads (its `realTime`): tests move it, nothing sleeps. */
let wall = T0;
const mock = useMock({ fixtures: false, realTime: () => wall });
let receiver: WebhookReceiver;
beforeEach(async () => {
  receiver = await WebhookReceiver.start();
});
afterEach(() => receiver.close());

interface Created {
  workspaceId: string;
  apiKey: string;
  workspace: Workspace;
}

/** A workspace, empty unless asked for the fixture world. */
async function create(body: Record<string, unknown> = {}): Promise<Created> {
  const res = await mock.control('post', '/__control/workspaces').send({ fixtures: false, ...body });
  expectStatus(res, 201);
  const workspace = mock.server.registry.get(res.body.workspaceId as string);
  if (!workspace) throw new Error('the registry does not hold the new workspace');
  return { workspaceId: res.body.workspaceId, apiKey: res.body.apiKey, workspace };
}

async function listed(id: string) {
  const res = await mock.control('get', '/__control/workspaces');
  expectStatus(res, 200);
  return (res.body.data as Array<Record<string, unknown>>).find((row) => row.workspaceId === id);
}

/**
 * A workspace whose clock runs with the (injected) wall clock, a webhook to the receiver,
 * and one delivery that failed: its retry is a scheduler job a minute ahead, with a real
 * timer set for it.
 */
async function withRetryPending(): Promise<Created> {
  const created = await create({ clock: { frozen: false } });
  const hook = await mock.call('post', '/v1/webhooks', created.apiKey).send({ name: 'CRM', url: receiver.url, events: ['post.published'] });
  expectStatus(hook, 201);
  receiver.answer(500);
  created.workspace.events.emit('post.published', exampleData('post.published'));
  expectStatus(await mock.control('post', '/__control/clock/advance', created.apiKey).send({ ms: 0 }), 200);
  expect(receiver.requests).toHaveLength(1);
  expect(await listed(created.workspaceId)).toMatchObject({ pendingJobs: 1, timerArmed: true });
  return created;
}

describe('DELETE /__control/workspaces/{id}', () => {
  it('answers 401 to its keys afterwards, on the API and the control plane', async () => {
    const { workspaceId, apiKey } = await create();
    expectStatus(await mock.call('get', '/v1/connections', apiKey), 200);
    const res = await mock.control('delete', `/__control/workspaces/${workspaceId}`);
    expectStatus(res, 200);
    expect(res.body).toEqual({ workspaceId, deleted: true, released: { pendingJobs: 0, eventStreams: 0 } });
    expectApiError(await mock.call('get', '/v1/connections', apiKey), 401, 'UNAUTHORIZED');
    expectApiError(await mock.control('get', '/__control/clock', apiKey), 401, 'UNAUTHORIZED');
  });

  it('releases it: the registry and the database forget it, and the list leaves it out', async () => {
    const { workspaceId } = await create();
    expectStatus(await mock.control('delete', `/__control/workspaces/${workspaceId}`), 200);
    expect(mock.server.registry.get(workspaceId)).toBeUndefined();
    expect(mock.server.registry.all().map((workspace) => workspace.id)).not.toContain(workspaceId);
    expect(mock.server.database.data.workspaces[workspaceId]).toBeUndefined();
    expect(await listed(workspaceId)).toBeUndefined();
  });

  it('fires none of its jobs afterwards and sends no webhook retry, though their time comes', async () => {
    const { workspaceId, workspace } = await withRetryPending();
    const res = await mock.control('delete', `/__control/workspaces/${workspaceId}`);
    expect(res.body.released).toEqual({ pendingJobs: 1, eventStreams: 0 });
    expect(workspace.scheduler.armed).toBe(false);
    wall += 2 * MINUTE;
    // What the real timer would have called when the retry fell due.
    expect(await workspace.scheduler.runDue()).toEqual([]);
    expect(await workspace.scheduler.advanceTo(workspace.now() + 60 * MINUTE)).toEqual([]);
    expect(receiver.requests).toHaveLength(1);
  });

  it('(the same retry, in a workspace that is kept, is sent when its time comes)', async () => {
    const { workspace } = await withRetryPending();
    wall += 2 * MINUTE;
    const ran = await workspace.scheduler.runDue();
    expect(ran).toHaveLength(1);
    await workspace.scheduler.settle();
    expect(receiver.requests).toHaveLength(2);
  });

  it('sends none of the deliveries queued behind one still on the wire', async () => {
    const { workspaceId, apiKey, workspace } = await create();
    expectStatus(await mock.call('post', '/v1/webhooks', apiKey).send({ name: 'CRM', url: receiver.url, events: ['post.published'] }), 201);
    receiver.answer('hang');
    // Attempts to one webhook go out one at a time: the first is on the wire, two wait behind it.
    for (let i = 0; i < 3; i++) workspace.events.emit('post.published', exampleData('post.published'));
    await receiver.waitFor(1);
    expectStatus(await mock.control('delete', `/__control/workspaces/${workspaceId}`), 200);
    receiver.releaseHanging();
    await workspace.scheduler.settle();
    expect(receiver.requests).toHaveLength(1);
  });

  it("keeps its traffic in the server's coverage, no longer listed on its own", async () => {
    const { workspaceId, apiKey } = await create();
    expectStatus(await mock.call('get', '/v1/profiles', apiKey), 200);
    const before = mock.server.coverage.report();
    expect(before.workspaces.map((row) => row.workspaceId)).toContain(workspaceId);
    expectStatus(await mock.control('delete', `/__control/workspaces/${workspaceId}`), 200);
    const after = mock.server.coverage.report();
    expect(after.workspaces.map((row) => row.workspaceId)).not.toContain(workspaceId);
    expect(after.byOperation).toEqual(before.byOperation);
  });

  it('counts a delivery that lands after the delete with the ended workspaces, bringing back no tally of its own', async () => {
    const { workspaceId, apiKey, workspace } = await create();
    expectStatus(await mock.call('post', '/v1/webhooks', apiKey).send({ name: 'CRM', url: receiver.url, events: ['post.published'] }), 201);
    receiver.answer('hang');
    workspace.events.emit('post.published', exampleData('post.published'));
    await receiver.waitFor(1);
    const published = () => mock.server.coverage.report().webhookEvents.events.find((row) => row.event === 'post.published')?.count ?? 0;
    const before = published();
    expectStatus(await mock.control('delete', `/__control/workspaces/${workspaceId}`), 200);
    receiver.releaseHanging();
    await workspace.scheduler.settle();
    expect(published()).toBe(before + 1);
    expect(mock.server.coverage.report().workspaces.map((row) => row.workspaceId)).not.toContain(workspaceId);
  });

  it('closes its open event streams', async () => {
    const url = await mock.server.listen();
    const { workspaceId, apiKey } = await create();
    const stream = await SseClient.open(`${url}/__control/events`, { 'x-api-key': apiKey });
    await stream.waitFor(1);
    expect(await listed(workspaceId)).toMatchObject({ eventStreams: 1 });
    const res = await mock.control('delete', `/__control/workspaces/${workspaceId}`);
    expect(res.body.released).toEqual({ pendingJobs: 0, eventStreams: 1 });
    await stream.ended();
    expect(stream.response.readableEnded).toBe(true);
  });

  it('answers 404 for an unknown id, and for one already deleted', async () => {
    expectApiError(await mock.control('delete', '/__control/workspaces/ws_000000000000'), 404, 'NOT_FOUND', 'id');
    const { workspaceId } = await create();
    expectStatus(await mock.control('delete', `/__control/workspaces/${workspaceId}`), 200);
    expectApiError(await mock.control('delete', `/__control/workspaces/${workspaceId}`), 404, 'NOT_FOUND', 'id');
  });

  it('keeps the default workspace with 409 CONFLICT', async () => {
    expectApiError(await mock.control('delete', '/__control/workspaces/ws_default'), 409, 'CONFLICT', 'id');
    expectStatus(await mock.call('get', '/v1/connections'), 200);
  });

  it('takes the workspace out of the --data file', async () => {
    const dataFile = join(mkdtempSync(join(tmpdir(), 'sgm-lifecycle-')), 'data.json');
    const persistent = await startMock({ dataFile, fixtures: false });
    try {
      const created = await persistent.control('post', '/__control/workspaces').send({});
      const id = created.body.workspaceId as string;
      expect(Object.keys(JSON.parse(readFileSync(dataFile, 'utf8')).workspaces)).toContain(id);
      expectStatus(await persistent.control('delete', `/__control/workspaces/${id}`), 200);
      expect(Object.keys(JSON.parse(readFileSync(dataFile, 'utf8')).workspaces)).toEqual(['ws_default']);
    } finally {
      await persistent.close();
    }
    const reopened = await createMockServer({ dataFile });
    expect(reopened.registry.all().map((workspace) => workspace.id)).toEqual(['ws_default']);
    await reopened.close();
  });
});

describe('GET /__control/workspaces', () => {
  it('lists every workspace, the default first, with when it was made and used, its size and what it holds open', async () => {
    const { workspaceId, apiKey } = await create({ plan: 'free', clock: { start: '2026-05-01T00:00:00Z', frozen: true } });
    const res = await mock.control('get', '/__control/workspaces');
    expectStatus(res, 200);
    expect(res.body.data[0]).toMatchObject({ workspaceId: 'ws_default', default: true });
    expect(await listed(workspaceId)).toEqual({
      workspaceId,
      default: false,
      plan: 'free',
      createdAt: '2026-05-01T00:00:00.000Z',
      lastUsedAt: '2026-05-01T00:00:00.000Z',
      idleMs: 0,
      sizeBytes: expect.any(Number),
      pendingJobs: 0,
      timerArmed: false,
      deliveriesInFlight: 0,
      eventStreams: 0,
    });

    // Idle is wall time; last used is where its own clock stood.
    wall += 5 * MINUTE;
    expect(await listed(workspaceId)).toMatchObject({ idleMs: 5 * MINUTE });
    expectStatus(await mock.control('post', '/__control/clock/advance', apiKey).send({ by: 'PT1H' }), 200);
    expect(await listed(workspaceId)).toMatchObject({ idleMs: 0, lastUsedAt: '2026-05-01T00:00:00.000Z' });
    expectStatus(await mock.call('get', '/v1/connections', apiKey), 200);
    expect(await listed(workspaceId)).toMatchObject({ lastUsedAt: '2026-05-01T01:00:00.000Z' });
  });

  it('gives a workspace with the fixture world a larger size than an empty one', async () => {
    const empty = await create({ fixtures: false });
    const full = await create({ fixtures: true });
    const emptySize = (await listed(empty.workspaceId))?.sizeBytes as number;
    const fullSize = (await listed(full.workspaceId))?.sizeBytes as number;
    expect(emptySize).toBeGreaterThan(0);
    expect(fullSize).toBeGreaterThan(emptySize * 10);
    expect(fullSize).toBe(JSON.stringify(mock.server.registry.settle(full.workspace)).length);
    // A running clock is read for the size, not written back into the data.
    const running = await create({ clock: { frozen: false } });
    const stored = running.workspace.data.clock;
    wall += MINUTE;
    await listed(running.workspaceId);
    expect(running.workspace.data.clock).toBe(stored);
  });
});

describe('POST /__control/workspaces { from }', () => {
  /** Reads that show a world: bodies without the list cursors, which each workspace signs with its own secret. */
  async function reads(apiKey: string) {
    const paths = ['/v1/posts?limit=100', '/v1/accounts?limit=100', '/v1/connections', '/v1/profiles?limit=100', '/v1/webhooks'];
    const bodies: Record<string, unknown> = {};
    for (const path of paths) {
      const res = await mock.call('get', path, apiKey);
      expectStatus(res, 200);
      const { nextCursor: _cursor, ...body } = res.body as Record<string, unknown>;
      bodies[path] = body;
    }
    const clock = await mock.control('get', '/__control/clock', apiKey);
    bodies.clock = clock.body;
    return bodies;
  }

  async function fork(from: string) {
    const res = await mock.control('post', '/__control/workspaces').send({ from });
    expectStatus(res, 201);
    return res.body as { workspaceId: string; apiKey: string; clock: { now: string } };
  }

  it('copies the whole world, clock and pending jobs included, under its own id and key', async () => {
    const source = await create({ fixtures: true, seed: 11, clock: { frozen: true } });
    expectStatus(await mock.control('post', '/__control/clock/advance', source.apiKey).send({ by: 'PT3H' }), 200);
    expectStatus(await mock.call('post', '/v1/profiles', source.apiKey).send({ name: 'Expensive setup' }), 201);
    const before = await reads(source.apiKey);

    const forked = await fork(source.workspaceId);
    expect(forked.workspaceId).not.toBe(source.workspaceId);
    expect(forked.apiKey).not.toBe(source.apiKey);
    expect(forked.clock.now).toBe(mock.server.registry.get(source.workspaceId)?.nowIso());
    expect(await reads(forked.apiKey)).toEqual(before);
    // The source is untouched by being forked.
    expect(await reads(source.apiKey)).toEqual(before);
  });

  it('is independent afterwards: writes, time and jobs of one never reach the other', async () => {
    const source = await create({ fixtures: true, clock: { frozen: true } });
    const forked = await fork(source.workspaceId);
    const sourceBefore = await reads(source.apiKey);

    expectStatus(await mock.call('post', '/v1/profiles', forked.apiKey).send({ name: 'Only in the fork' }), 201);
    const moved = await mock.control('post', '/__control/clock/advance', forked.apiKey).send({ by: 'P30D' });
    expectStatus(moved, 200);
    expect(moved.body.ran.length).toBeGreaterThan(0);

    expect(await reads(source.apiKey)).toEqual(sourceBefore);
    const names = (await mock.call('get', '/v1/profiles?limit=100', forked.apiKey)).body.data.map((profile: { name: string }) => profile.name);
    expect(names).toContain('Only in the fork');

    // Deleting the source leaves the fork whole.
    expectStatus(await mock.control('delete', `/__control/workspaces/${source.workspaceId}`), 200);
    expectStatus(await mock.call('get', '/v1/profiles?limit=100', forked.apiKey), 200);
  });

  it('answers 404 naming from for an unknown workspace, and 400 when other fields come with it', async () => {
    expectApiError(await mock.control('post', '/__control/workspaces').send({ from: 'ws_000000000000' }), 404, 'NOT_FOUND', 'from');
    const source = await create();
    expectApiError(await mock.control('post', '/__control/workspaces').send({ from: source.workspaceId, plan: 'free' }), 400, 'VALIDATION_ERROR', 'from');
  });
});

describe('--workspace-ttl', () => {
  const TTL = 30 * MINUTE;
  let clockMs = T0;
  const ttlMock = useMock({ fixtures: false, realTime: () => clockMs, workspaceTtlMs: TTL });

  async function make() {
    const res = await ttlMock.control('post', '/__control/workspaces').send({ fixtures: false });
    expectStatus(res, 201);
    return res.body as { workspaceId: string; apiKey: string };
  }

  it('evicts a workspace idle longer than the TTL, by wall time, and never the default one', async () => {
    const idle = await make();
    const busy = await make();
    clockMs += 20 * MINUTE;
    expectStatus(await ttlMock.call('get', '/v1/connections', busy.apiKey), 200);
    clockMs += 10 * MINUTE;
    // Exactly the TTL idle: still kept.
    expect(ttlMock.server.registry.evictIdle()).toEqual([]);
    clockMs += 1;
    expect(ttlMock.server.registry.evictIdle()).toEqual([idle.workspaceId]);
    expectApiError(await ttlMock.call('get', '/v1/connections', idle.apiKey), 401, 'UNAUTHORIZED');
    expectStatus(await ttlMock.call('get', '/v1/connections', busy.apiKey), 200);

    clockMs += 365 * 24 * 60 * MINUTE;
    expect(ttlMock.server.registry.evictIdle()).toEqual([busy.workspaceId]);
    expectStatus(await ttlMock.call('get', '/v1/connections'), 200);
    expect(ttlMock.server.registry.all().map((workspace) => workspace.id)).toEqual(['ws_default']);
  });

  it('refuses the key of a workspace past its TTL at once, before any sweep', async () => {
    const idle = await make();
    clockMs += TTL + 1;
    expectApiError(await ttlMock.call('get', '/v1/connections', idle.apiKey), 401, 'UNAUTHORIZED');
    expect(ttlMock.server.registry.get(idle.workspaceId)).toBeUndefined();
  });

  it('keeps a workspace answering a request past the TTL, and counts its idleness from the answer\'s end', async () => {
    const url = await ttlMock.server.listen();
    const watched = await make();
    // An open event stream is a request still being answered (so is an advance waiting on slow receivers).
    const stream = await SseClient.open(`${url}/__control/events`, { 'x-api-key': watched.apiKey });
    await stream.waitFor(1);
    clockMs += TTL + 1;
    expect(ttlMock.server.registry.evictIdle()).not.toContain(watched.workspaceId);
    stream.close();
    const streamsOf = async () => ((await ttlMock.control('get', '/__control/workspaces')).body.data as Array<{ workspaceId: string; eventStreams: number }>).find((row) => row.workspaceId === watched.workspaceId)?.eventStreams;
    for (let turn = 0; turn < 100 && (await streamsOf()) !== 0; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(await streamsOf()).toBe(0);
    // Idle from the end of the answer, not from its start.
    expect(ttlMock.server.registry.evictIdle()).not.toContain(watched.workspaceId);
    clockMs += TTL + 1;
    expect(ttlMock.server.registry.evictIdle()).toContain(watched.workspaceId);
  });

  it('counts idleness from the last request, not from the virtual clock', async () => {
    const used = await make();
    // Virtual time racing ahead is no use of the workspace's wall time.
    expectStatus(await ttlMock.control('post', '/__control/clock/advance', used.apiKey).send({ by: 'P365D' }), 200);
    clockMs += TTL;
    expect(ttlMock.server.registry.evictIdle()).toEqual([]);
    clockMs += 1;
    expect(ttlMock.server.registry.evictIdle()).toEqual([used.workspaceId]);
  });
});

describe('--max-workspaces', () => {
  let clockMs = T0;

  it('refuses a workspace past the limit with 503 WORKSPACE_LIMIT_REACHED naming it, and makes room once one is deleted', async () => {
    const limited = await startMock({ fixtures: false, realTime: () => clockMs, maxWorkspaces: 3 });
    try {
      const first = await limited.control('post', '/__control/workspaces').send({});
      expectStatus(first, 201);
      expectStatus(await limited.control('post', '/__control/workspaces').send({}), 201);
      const refused = await limited.control('post', '/__control/workspaces').send({});
      expectApiError(refused, 503, 'WORKSPACE_LIMIT_REACHED');
      expect(refused.body.error.message).toContain('--max-workspaces 3');
      expect(refused.body.error.details).toEqual({ maxWorkspaces: 3, workspaces: 3 });
      expectApiError(await limited.control('post', '/__control/workspaces').send({ from: first.body.workspaceId }), 503, 'WORKSPACE_LIMIT_REACHED');
      expect(limited.server.registry.all()).toHaveLength(3);

      expectStatus(await limited.control('delete', `/__control/workspaces/${first.body.workspaceId}`), 200);
      expectStatus(await limited.control('post', '/__control/workspaces').send({}), 201);
    } finally {
      await limited.close();
    }
  });

  it('evicts the longest idle workspace instead with --on-max-workspaces evict', async () => {
    const evicting = await startMock({ fixtures: false, realTime: () => clockMs, maxWorkspaces: 3, onMaxWorkspaces: 'evict' });
    try {
      const older = (await evicting.control('post', '/__control/workspaces').send({})).body as { workspaceId: string; apiKey: string };
      clockMs += 6 * MINUTE;
      const newer = (await evicting.control('post', '/__control/workspaces').send({})).body as { workspaceId: string; apiKey: string };
      clockMs += 6 * MINUTE;
      // The older one is used last: the newer is now the longest idle.
      expectStatus(await evicting.call('get', '/v1/connections', older.apiKey), 200);
      clockMs += 6 * MINUTE;
      const third = await evicting.control('post', '/__control/workspaces').send({});
      expectStatus(third, 201);
      expectApiError(await evicting.call('get', '/v1/connections', newer.apiKey), 401, 'UNAUTHORIZED');
      expectStatus(await evicting.call('get', '/v1/connections', older.apiKey), 200);
      expect(evicting.server.registry.all().map((workspace) => workspace.id)).toEqual(['ws_default', older.workspaceId, third.body.workspaceId]);
    } finally {
      await evicting.close();
    }
  });

  it('still refuses when the default workspace is the only one it could evict', async () => {
    const single = await startMock({ fixtures: false, maxWorkspaces: 1, onMaxWorkspaces: 'evict' });
    try {
      expectApiError(await single.control('post', '/__control/workspaces').send({}), 503, 'WORKSPACE_LIMIT_REACHED');
      expectStatus(await single.call('get', '/v1/connections'), 200);
    } finally {
      await single.close();
    }
  });
});
