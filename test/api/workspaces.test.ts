import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMockServer } from '../../src/server.js';
import { DataFileError } from '../../src/store/database.js';
import { expectApiError, expectStatus, startMock, TEST_CLOCK, useMock } from '../helpers/mock.js';

const mock = useMock();

describe('POST /__control/workspaces', () => {
  it('creates an isolated world with its own sgw_ key', async () => {
    const res = await mock.control('post', '/__control/workspaces').send({ plan: 'free' });
    expectStatus(res, 201);
    expect(res.body).toMatchObject({ workspaceId: expect.stringMatching(/^ws_/), apiKey: expect.stringMatching(/^sgw_/), plan: 'free' });
    expectStatus(await mock.call('get', '/v1/connections', res.body.apiKey), 200);
  });

  it('starts empty when asked for no fixtures', async () => {
    const { body } = await mock.control('post', '/__control/workspaces').send({ fixtures: false });
    const res = await mock.call('get', '/v1/connections', body.apiKey);
    expect(res.body.connections).toEqual([]);
  });

  describe('with pending: false', () => {
    async function pendingJobs(workspaceId: string): Promise<number> {
      const { body } = await mock.control('get', '/__control/workspaces');
      return (body.data as Array<{ workspaceId: string; pendingJobs: number }>).find((row) => row.workspaceId === workspaceId)?.pendingJobs ?? -1;
    }

    it('builds the fixture world with no job of its own, and a reset brings that world back', async () => {
      const { body } = await mock.control('post', '/__control/workspaces').send({ pending: false });
      expect(await pendingJobs(body.workspaceId)).toBe(0);
      const statuses = (await mock.call('get', '/v1/posts?limit=100', body.apiKey)).body.data.map((post: { status: string }) => post.status);
      expect(statuses).not.toContain('scheduled');
      expect(statuses).toContain('published');
      await mock.call('post', '/v1/profiles', body.apiKey).send({ name: 'Gone after the reset' });
      expectStatus(await mock.control('post', '/__control/reset', body.apiKey), 200);
      expect(await pendingJobs(body.workspaceId)).toBe(0);
      // The same world, again without its pending work: still nothing scheduled.
      const again = (await mock.call('get', '/v1/posts?limit=100', body.apiKey)).body.data.map((post: { status: string }) => post.status);
      expect(again).toEqual(statuses);
    });

    it('keeps its pending work when left out (the server default is unchanged)', async () => {
      const { body } = await mock.control('post', '/__control/workspaces').send({});
      expect(await pendingJobs(body.workspaceId)).toBeGreaterThan(0);
    });

    it('is refused on a fork, which copies a world as it stands', async () => {
      const { body } = await mock.control('post', '/__control/workspaces').send({});
      expectApiError(await mock.control('post', '/__control/workspaces').send({ from: body.workspaceId, pending: false }), 400, 'VALIDATION_ERROR', 'from');
    });
  });

  it('refuses an unknown plan naming it', async () => {
    expectApiError(await mock.control('post', '/__control/workspaces').send({ plan: 'enterprise' }), 400, 'VALIDATION_ERROR', 'plan');
  });
});

describe('workspace isolation', () => {
  it('never finds another workspace’s ids or accepts its cursors', async () => {
    const { body: other } = await mock.control('post', '/__control/workspaces').send({});
    const mine = (await mock.call('get', '/v1/connections')).body.connections as Array<{ id: string }>;
    const theirs = (await mock.call('get', '/v1/connections', other.apiKey)).body.connections as Array<{ id: string }>;
    expect(theirs).toHaveLength(mine.length);
    expect(theirs.map((c) => c.id)).not.toContain(mine[0]?.id);
    expectApiError(await mock.call('get', `/v1/accounts/${mine[0]?.id}`, other.apiKey), 404, 'NOT_FOUND');

    const page = await mock.call('get', '/v1/accounts?limit=2');
    const res = await mock.call('get', `/v1/accounts?limit=2&cursor=${encodeURIComponent(page.body.nextCursor)}`, other.apiKey);
    expectApiError(res, 400, 'INVALID_CURSOR', 'cursor');
  });

  it('keeps each workspace’s writes to itself', async () => {
    const { body: other } = await mock.control('post', '/__control/workspaces').send({});
    await mock.call('post', '/v1/profiles', other.apiKey).send({ name: 'Only over there' });
    const mine = await mock.call('get', '/v1/profiles?limit=100');
    expect(mine.body.data.map((p: { name: string }) => p.name)).not.toContain('Only over there');
  });

  it('gives each workspace its own clock', async () => {
    const { body: other } = await mock.control('post', '/__control/workspaces').send({});
    await mock.control('post', '/__control/clock/advance', other.apiKey).send({ by: 'PT5H' });
    const theirs = await mock.control('get', '/__control/clock', other.apiKey);
    const mine = await mock.control('get', '/__control/clock');
    expect(Date.parse(theirs.body.now) - Date.parse(mine.body.now)).toBe(5 * 3600_000);
  });
});

describe('determinism', () => {
  it('answers byte-identically from two servers with the same seed and clock', async () => {
    const a = await startMock({ seed: 7 });
    const b = await startMock({ seed: 7 });
    for (const path of ['/v1/connections', '/v1/accounts?limit=4', '/v1/profiles']) {
      const [x, y] = [await a.call('get', path), await b.call('get', path)];
      expectStatus(x, 200);
      expect(x.text).toBe(y.text);
    }
    const next = (await a.call('get', '/v1/accounts?limit=4')).body.nextCursor;
    const [x, y] = [await a.call('get', `/v1/accounts?limit=4&cursor=${next}`), await b.call('get', `/v1/accounts?limit=4&cursor=${next}`)];
    expect(x.text).toBe(y.text);
    await Promise.all([a.close(), b.close()]);
  });

  it('answers differently with another seed', async () => {
    const a = await startMock({ seed: 7 });
    const b = await startMock({ seed: 8 });
    expect((await a.call('get', '/v1/connections')).text).not.toBe((await b.call('get', '/v1/connections')).text);
    await Promise.all([a.close(), b.close()]);
  });
});

describe('--data', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sgw-data-'));

  it('keeps what was written across a restart', async () => {
    const file = join(dir, 'state.json');
    const first = await startMock({ dataFile: file });
    const created = await first.call('post', '/v1/profiles').send({ name: 'Survives restarts' });
    expectStatus(created, 201);
    await first.control('post', '/__control/clock/advance').send({ by: 'PT1H' });
    await first.close();

    const second = await startMock({ dataFile: file });
    const profiles = await second.call('get', '/v1/profiles?limit=100');
    expect(profiles.body.data.map((p: { id: string }) => p.id)).toContain(created.body.id);
    const clock = await second.control('get', '/__control/clock');
    expect(clock.body.now).toBe(new Date(Date.parse(TEST_CLOCK) + 3600_000).toISOString());
    // New ids after a reload never collide with the ones handed out before it.
    const again = await second.call('post', '/v1/profiles').send({ name: 'After reload' });
    expect(again.body.id).not.toBe(created.body.id);
    await second.close();
  });

  it('refuses to start on a corrupt file, naming it and leaving it untouched', async () => {
    const file = join(dir, 'corrupt.json');
    writeFileSync(file, '{"format": "social-gateway-mock", "work');
    await expect(createMockServer({ dataFile: file })).rejects.toThrow(DataFileError);
    await expect(createMockServer({ dataFile: file })).rejects.toThrow(file);
    expect(readFileSync(file, 'utf8')).toBe('{"format": "social-gateway-mock", "work');
  });

  it('refuses a JSON file that is not ours', async () => {
    const file = join(dir, 'foreign.json');
    writeFileSync(file, '{"users": []}');
    await expect(createMockServer({ dataFile: file })).rejects.toThrow(/not a social-gateway-mock data file/);
    expect(readFileSync(file, 'utf8')).toBe('{"users": []}');
  });
});

describe('a control call with x-workspace-id', () => {
  it('acts on the workspace of that id when it sends no key', async () => {
    const { body } = await mock.control('post', '/__control/workspaces').send({ plan: 'free', fixtures: false });
    const limits = await mock.control('get', '/__control/limits').set('x-workspace-id', body.workspaceId);
    expectStatus(limits, 200);
    expect(limits.body.plan).toBe('free');
    expect((await mock.control('get', '/__control/limits')).body.plan).not.toBe('free');
  });

  it('gives way to a key, which names its own workspace', async () => {
    const { body } = await mock.control('post', '/__control/workspaces').send({ plan: 'free', fixtures: false });
    const limits = await mock.control('get', '/__control/limits', 'sgw_test_default').set('x-workspace-id', body.workspaceId);
    expect(limits.body.plan).not.toBe('free');
  });

  it('answers 401 for an id no workspace has', async () => {
    expectApiError(await mock.control('get', '/__control/limits').set('x-workspace-id', 'ws_nowhere'), 401, 'UNAUTHORIZED');
  });
});
