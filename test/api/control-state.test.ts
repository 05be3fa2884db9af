import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSpec } from '../../src/http/spec.js';
import { operationModels, requestTarget } from '../fuzz/operations.js';
import { expectApiError, expectStatus, startMock, useMock } from '../helpers/mock.js';
import { accountOn, advance, journalOf, scenarioJobs, scenarioSteps, workspaceWith } from '../helpers/scenarios.js';

const mock = useMock();

const START = '2026-03-02T09:00:00.000Z';

async function newWorkspace(body: Record<string, unknown> = {}): Promise<string> {
  const res = await mock.control('post', '/__control/workspaces').send({ clock: { start: START, frozen: true }, ...body });
  expectStatus(res, 201);
  return res.body.apiKey as string;
}

/** What a client reads of the world: the answers that must repeat after a restore. */
async function answers(key: string) {
  const paths = ['/v1/connections', '/v1/accounts?limit=100', '/v1/profiles?limit=100'];
  const texts = [];
  for (const path of paths) texts.push((await mock.call('get', path, key)).text);
  texts.push((await mock.control('get', '/__control/clock', key)).text);
  return texts;
}

const TIMELINE = [
  'rules:',
  '  - id: once',
  '    match: { operationId: listProfiles }',
  '    then: { error: { status: 429, code: RATE_LIMITED } }',
  '    times: 1',
  'timeline:',
  '  - { at: PT1H, do: emit, event: webhook.test, data: { note: one } }',
  '  - { at: PT2H, do: account.expire, account: twitter }',
].join('\n');

describe('GET /__control/state', () => {
  it('answers the same snapshot twice and changes nothing', async () => {
    const key = await newWorkspace();
    const before = await answers(key);
    const first = await mock.control('get', '/__control/state', key);
    expectStatus(first, 200);
    expect(first.body).toMatchObject({ format: 'social-gateway-mock/workspace', version: 1, takenAt: START });
    const second = await mock.control('get', '/__control/state', key);
    expect(second.text).toBe(first.text);
    expect(await answers(key)).toEqual(before);
  });
});

describe('PUT /__control/state', () => {
  it('restores a snapshot: the same answers as when it was taken', async () => {
    const key = await newWorkspace();
    const snapshot = (await mock.control('get', '/__control/state', key)).body;
    const before = await answers(key);
    expectStatus(await mock.call('post', '/v1/profiles', key).send({ name: 'Added later' }), 201);
    await advance(mock, key, 'PT5H');
    expect(await answers(key)).not.toEqual(before);

    const restored = await mock.control('put', '/__control/state', key).send(snapshot);
    expectStatus(restored, 200);
    expect(restored.body).toMatchObject({ plan: 'payg', scenario: null, clock: { now: START } });
    expect(await answers(key)).toEqual(before);
    expect((await mock.control('get', '/__control/state', key)).body).toEqual(snapshot);
  });

  it('restores what every read of the API answers, caches and indexes included', async () => {
    const key = await newWorkspace();
    const hook = await mock.call('post', '/v1/webhooks', key).send({ name: 'Before', url: 'http://127.0.0.1:9/hook', events: ['post.published'] });
    expectStatus(hook, 201);
    const world = (await mock.control('get', '/__control/state', key)).body.workspace.stores;
    const accounts = Object.values(world.accounts.accounts as Record<string, { id: string; platform: string }>);
    const instagram = accounts.find((account) => account.platform === 'instagram')?.id as string;
    // Each path id is a record of the kind the segment before it names; required query ids are accounts.
    const ids: Record<string, string> = {
      accounts: instagram,
      connections: instagram,
      posts: Object.keys(world.posts.posts as Record<string, unknown>)[0] as string,
      automations: Object.keys(world.automations.automations as Record<string, unknown>)[0] as string,
      webhooks: hook.body.id as string,
    };
    const reads = operationModels(loadSpec('openapi.yaml').document, 'api')
      .filter((op) => op.method === 'GET')
      .flatMap((op) => requestTarget(op, (param, kind) => (param === 'platform' ? 'instagram' : ids[kind]), (p) => (p.name === 'accountId' ? instagram : '')) ?? []);
    expect(reads.length).toBeGreaterThan(20);
    const answersNow = () => Promise.all(reads.map(async (path) => `${path} ${(await mock.call('get', path, key)).text}`));

    const snapshot = (await mock.control('get', '/__control/state', key)).body;
    const before = await answersNow();
    // Writes that reach the posts index, the velocity ledger, the media store, webhooks and the clock.
    const bluesky = accounts.find((account) => account.platform === 'bluesky')?.id;
    expectStatus(await mock.call('post', '/v1/posts', key).send({ text: 'After the snapshot', destinations: [{ connectionId: bluesky }] }), 201);
    expectStatus(await mock.call('post', '/v1/media/presign', key).send({ filename: 'a.jpg', contentType: 'image/jpeg' }), 200);
    expectStatus(await mock.call('post', '/v1/webhooks', key).send({ name: 'After', url: 'http://127.0.0.1:9/hook', events: ['post.published'] }), 201);
    await advance(mock, key, 'PT3H');
    expect(await answersNow()).not.toEqual(before);

    expectStatus(await mock.control('put', '/__control/state', key).send(snapshot), 200);
    expect(await answersNow()).toEqual(before);
  });

  it('repeats the same writes after each restore (same ids, same answers)', async () => {
    const key = await newWorkspace();
    const snapshot = (await mock.control('get', '/__control/state', key)).body;
    const first = await mock.call('post', '/v1/profiles', key).send({ name: 'Replayed' });
    await mock.control('put', '/__control/state', key).send(snapshot);
    const second = await mock.call('post', '/v1/profiles', key).send({ name: 'Replayed' });
    expectStatus(second, 201);
    expect(second.text).toBe(first.text);
  });

  it('rebuilds the scheduler, the clock and the scenario’s counters from the snapshot', async () => {
    const { key } = await workspaceWith(mock, TIMELINE, { clock: { start: START, frozen: true } });
    const snapshot = (await mock.control('get', '/__control/state', key)).body;
    const twitter = await accountOn(mock, key, 'twitter');

    const firstRun = await advance(mock, key, 'PT3H');
    expect(scenarioSteps(firstRun.ran as Array<{ kind: string }>).map((job) => job.kind)).toEqual(['scenario.emit', 'scenario.account.expire']);
    expect((await mock.call('get', '/v1/profiles', key)).status).toBe(429);
    expect((await mock.call('get', '/v1/profiles', key)).status).toBe(200);
    expect((await mock.call('get', `/v1/accounts/${twitter}`, key)).body.status).toBe('expired');

    await mock.control('put', '/__control/state', key).send(snapshot);
    expect((await mock.control('get', '/__control/clock', key)).body).toMatchObject({ now: START, frozen: true });
    expect(scenarioJobs(mock, key)).toEqual(['2026-03-02T10:00:00.000Z', '2026-03-02T11:00:00.000Z']);
    expect((await mock.call('get', `/v1/accounts/${twitter}`, key)).body.status).toBe('active');
    // The rule's single shot is back.
    expect((await mock.call('get', '/v1/profiles', key)).status).toBe(429);
    const secondRun = await advance(mock, key, 'PT3H');
    expect(secondRun.ran.map(({ kind, label, dueAt }) => ({ kind, label, dueAt }))).toEqual(firstRun.ran.map(({ kind, label, dueAt }) => ({ kind, label, dueAt })));
    expect((await mock.call('get', `/v1/accounts/${twitter}`, key)).body.status).toBe('expired');
  });

  it('keeps the journal going across a restore', async () => {
    const key = await newWorkspace();
    const snapshot = (await mock.control('get', '/__control/state', key)).body;
    await mock.call('get', '/v1/connections', key);
    await mock.control('put', '/__control/state', key).send(snapshot);
    await mock.call('get', '/v1/profiles', key);
    expect((await journalOf(mock, key)).map((line) => line.path)).toEqual(['/v1/connections', '/v1/profiles']);
  });

  it('seeds another workspace, which keeps its own id and keys', async () => {
    const source = await newWorkspace({ seed: 77 });
    const target = await newWorkspace({ seed: 78 });
    const targetId = (await mock.control('get', '/__control/state', target)).body.workspace.id;
    const snapshot = (await mock.control('get', '/__control/state', source)).body;
    const res = await mock.control('put', '/__control/state', target).send(snapshot);
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ workspaceId: targetId, seed: 77 });
    expect((await mock.call('get', '/v1/connections', target)).text).toBe((await mock.call('get', '/v1/connections', source)).text);
    // Writes stay in the workspace that made them.
    await mock.call('post', '/v1/profiles', target).send({ name: 'Only in the target' });
    expect((await mock.call('get', '/v1/profiles', source)).body.data.map((p: { name: string }) => p.name)).not.toContain('Only in the target');
  });

  describe('when the snapshot is not one of ours, or broken', () => {
    const broken: Array<[string, (snapshot: Record<string, unknown> & { workspace: Record<string, unknown> }) => unknown, number, string, string]> = [
      ['a foreign document', () => ({ users: [] }), 400, 'VALIDATION_ERROR', 'format'],
      ['another format', (s) => ({ ...s, format: 'other-tool/v2' }), 400, 'VALIDATION_ERROR', 'format'],
      ['another version', (s) => ({ ...s, version: 2 }), 400, 'VALIDATION_ERROR', 'version'],
      ['a store that is not an object', (s) => ({ ...s, workspace: { ...s.workspace, stores: { accounts: 'gone' } } }), 400, 'VALIDATION_ERROR', 'workspace.stores.accounts'],
      ['a missing clock', (s) => ({ ...s, workspace: { ...s.workspace, clock: undefined } }), 400, 'VALIDATION_ERROR', 'workspace.clock'],
      [
        'a job this build cannot run',
        (s) => ({ ...s, workspace: { ...s.workspace, jobs: { j1: { id: 'j1', seq: 0, dueAt: 1, kind: 'teleport', label: 'x', data: {} } } } }),
        400,
        'VALIDATION_ERROR',
        'workspace.jobs.j1.kind',
      ],
      [
        'a job filed under another id',
        (s) => ({ ...s, workspace: { ...s.workspace, jobs: { j1: { id: 'j2', seq: 0, dueAt: 1, kind: 'scenario.emit', label: 'x', data: {} } } } }),
        400,
        'VALIDATION_ERROR',
        'workspace.jobs.j1.id',
      ],
      [
        'a broken scenario',
        (s) => ({ ...s, workspace: { ...s.workspace, stores: { ...(s.workspace['stores'] as object), scenario: { loaded: { rules: 'many' } } } } }),
        400,
        'VALIDATION_ERROR',
        'workspace.stores.scenario',
      ],
    ];

    it.each(broken)('answers 400 for %s and changes nothing', async (_what, corrupt, status, code, param) => {
      const key = await newWorkspace();
      const snapshot = (await mock.control('get', '/__control/state', key)).body;
      await mock.call('post', '/v1/profiles', key).send({ name: 'Kept' });
      const before = (await mock.control('get', '/__control/state', key)).text;
      const res = await mock.control('put', '/__control/state', key).send(corrupt(snapshot) as object);
      expectApiError(res, status, code, param);
      expect((await mock.control('get', '/__control/state', key)).text).toBe(before);
    });

    it('answers 400 for a snapshot cut in half', async () => {
      const key = await newWorkspace();
      const text = (await mock.control('get', '/__control/state', key)).text;
      const res = await mock.control('put', '/__control/state', key).set('Content-Type', 'application/json').send(text.slice(0, text.length / 2));
      expectApiError(res, 400, 'VALIDATION_ERROR', 'body');
    });
  });
});

describe('POST /__control/reset', () => {
  it('brings the workspace back to its start: data, clock, scheduler, scenario counters and journal', async () => {
    const { key } = await workspaceWith(mock, TIMELINE, { clock: { start: START, frozen: true } });
    const before = await answers(key);
    await mock.call('post', '/v1/profiles', key).send({ name: 'Temporary' });
    await advance(mock, key, 'PT3H');
    const res = await mock.control('post', '/__control/reset', key);
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ scenario: 'inline', clock: { now: START } });
    expect(scenarioJobs(mock, key)).toHaveLength(2);
    expect(await journalOf(mock, key)).toEqual([]);
    // The same answers, the rule's single 429 included: its counters started afresh.
    expect(await answers(key)).toEqual(before);
    expect((await mock.control('get', '/__control/scenarios', key)).body.loaded.rules).toMatchObject([{ id: 'once', seen: 1, fired: 1, phase: 'exhausted' }]);
  });

  it('keeps a workspace made without fixtures empty', async () => {
    const key = await newWorkspace({ fixtures: false, plan: 'free' });
    await mock.call('post', '/v1/profiles', key).send({ name: 'Only one' });
    const res = await mock.control('post', '/__control/reset', key);
    expect(res.body).toMatchObject({ plan: 'free', scenario: null });
    expect((await mock.call('get', '/v1/profiles', key)).body.data).toEqual([]);
  });
});

describe('a scenario for the default workspace with --data', () => {
  it('keeps the saved world and counters when restarted with the same scenario, and starts afresh with another', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sgw-scenario-data-')), 'state.json');
    const first = await startMock({ dataFile: file, scenario: 'rate-limit-exhaustion' });
    expect((await first.call('get', '/v1/connections')).status).toBe(429);
    await first.close();

    const again = await startMock({ dataFile: file, scenario: 'rate-limit-exhaustion' });
    expect((await again.control('get', '/__control/scenarios')).body.loaded.rules[0]).toMatchObject({ seen: 1, fired: 1 });
    await again.close();

    const other = await startMock({ dataFile: file, scenario: 'network-outage' });
    expect((await other.control('get', '/__control/scenarios')).body.loaded).toMatchObject({ name: 'network-outage', timelineSteps: 1 });
    expect(other.server.registry.defaultWorkspace.scheduler.pending().filter((job) => job.kind.startsWith('scenario.')).map((job) => new Date(job.dueAt).toISOString())).toEqual(['2026-03-02T10:00:00.000Z']);
    await other.close();
  });
});
