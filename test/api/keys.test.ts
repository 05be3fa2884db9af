import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadSpec } from '../../src/http/spec.js';
import { DEFAULT_API_KEY } from '../../src/server.js';
import { operationModels, requestTarget } from '../fuzz/operations.js';
import { expectApiError, expectStatus, startMock, useMock } from '../helpers/mock.js';

/*
 * Scoped keys (issue 19, decision 0013): a read key answers every GET of openapi.yaml as a
 * full key does and is refused every other operation with 403 FORBIDDEN; a revoked key is
 * a key no workspace has; every key of a workspace draws on its one budget. The
 * operations come from the contract, so one added later is held to the same rule.
 */

const operations = operationModels(loadSpec('openapi.yaml').document, 'api');
const writes = operations.filter((op) => op.method !== 'GET');
const reads = operations.filter((op) => op.method === 'GET');

const mock = useMock();

/** A fresh workspace with the fixture world, and its first (full) key. */
async function workspace(body: Record<string, unknown> = {}): Promise<string> {
  const res = await mock.control('post', '/__control/workspaces').send(body);
  expectStatus(res, 201);
  return res.body.apiKey as string;
}

async function mint(key: string, scope?: 'full' | 'read'): Promise<string> {
  const res = await mock.control('post', '/__control/keys', key).send(scope === undefined ? {} : { scope });
  expectStatus(res, 201);
  expect(res.body.scope).toBe(scope ?? 'full');
  return res.body.apiKey as string;
}

/** The first id of each kind of record the workspace lists, for the paths' `{id}`s. */
async function idsOf(key: string): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (const [kind, path] of [
    ['accounts', '/v1/accounts'],
    ['connections', '/v1/accounts'],
    ['profiles', '/v1/profiles'],
    ['posts', '/v1/posts'],
    ['webhooks', '/v1/webhooks'],
    ['automations', '/v1/automations'],
  ] as const) {
    const res = await mock.call('get', `${path}?limit=1`, key);
    expectStatus(res, 200);
    const first = (res.body.data as Array<{ id: string }>)[0];
    if (first) ids.set(kind, first.id);
  }
  return ids;
}

describe('POST /__control/keys', () => {
  it('mints a full key when no scope is given', async () => {
    const key = await workspace({ fixtures: false });
    const res = await mock.control('post', '/__control/keys', key);
    expectStatus(res, 201);
    expect(res.body.scope).toBe('full');
    expectStatus(await mock.call('post', '/v1/profiles', res.body.apiKey as string).send({ name: 'Written with a minted key' }), 201);
  });

  it('refuses a scope the contract does not know', async () => {
    expectApiError(await mock.control('post', '/__control/keys').send({ scope: 'admin' }), 400, 'VALIDATION_ERROR');
  });
});

describe('a read key', () => {
  let full: string;
  let read: string;
  let ids: Map<string, string>;
  let accounts: Array<{ id: string; platform: string }>;
  beforeAll(async () => {
    full = await workspace();
    read = await mint(full, 'read');
    expectStatus(await mock.call('post', '/v1/webhooks', full).send({ name: 'Status page', url: 'https://hooks.example.com/in', events: ['post.published'] }), 201);
    ids = await idsOf(full);
    accounts = (await mock.call('get', '/v1/accounts?limit=100', full)).body.data;
  });

  /** The operation's path, its ids those of the workspace's records (an account of the network the path names). */
  const target = (op: (typeof operations)[number]) => {
    const platform = ['tiktok', 'pinterest', 'bluesky', 'instagram'].find((name) => op.path.includes(`/${name}/`)) ?? (op.path.endsWith('/reviews') ? 'facebook' : op.path.startsWith('/v1/inbox/') ? 'instagram' : undefined);
    const account = platform === undefined ? ids.get('accounts') : accounts.find((row) => row.platform === platform)?.id;
    const byKind = (kind: string) => (kind === 'accounts' || kind === 'connections' ? account : ids.get(kind));
    return requestTarget(op, (_param, kind) => byKind(kind) ?? 'x', (param) => (param.name === 'accountId' ? (account as string) : ((param.schema.enum?.[0] as string | undefined) ?? 'x')));
  };

  it('is refused every write of openapi.yaml with 403 FORBIDDEN, and the workspace is unchanged', async () => {
    expect(writes.length).toBeGreaterThanOrEqual(30);
    const before = JSON.stringify((await mock.control('get', '/__control/state', full)).body.workspace.stores);
    for (const op of writes) {
      const path = target(op) as string;
      const res = await mock.call(op.method.toLowerCase() as 'post', path, read).send({});
      expectApiError(res, 403, 'FORBIDDEN');
      expect(res.body.error.details, op.operationId).toEqual({ scope: 'read', operationId: op.operationId });
    }
    const after = JSON.stringify((await mock.control('get', '/__control/state', full)).body.workspace.stores);
    expect(after).toBe(before);
  });

  it('gets every read of openapi.yaml answered exactly as a full key does', async () => {
    expect(reads.length).toBeGreaterThanOrEqual(20);
    const succeeded: string[] = [];
    for (const op of reads) {
      const path = target(op) as string;
      const byFull = await mock.call('get', path, full);
      const byRead = await mock.call('get', path, read);
      expect(byRead.status, `${op.operationId} ${path}`).toBe(byFull.status);
      expect(byRead.body, `${op.operationId} ${path}`).toEqual(byFull.body);
      expect(byRead.status, `${op.operationId} ${path}`).not.toBe(403);
      if (byRead.status === 200) succeeded.push(op.operationId);
    }
    // The others need a sign-in session, a pending token or a destination the walk does not make; they answer both keys alike.
    expect(reads.map((op) => op.operationId).filter((id) => !succeeded.includes(id))).toEqual(['listConnectCandidates', 'listPendingInstagramAccounts', 'listComments']);
  });

  it('is answered 404 on a path that is no operation, since there is nothing there to forbid', async () => {
    expectApiError(await mock.call('post', '/v1/nowhere', read).send({}), 404, 'NOT_FOUND');
  });

  it('works on the control plane, which is the tests’ side, not the client’s', async () => {
    expectStatus(await mock.control('post', '/__control/clock/advance', read).send({ ms: 0 }), 200);
  });

  it('is journaled with its 403, like any other answer', async () => {
    await mock.call('delete', `/v1/posts/${ids.get('posts')}`, read);
    const journal = await mock.control('get', '/__control/journal?operationId=deletePost', full);
    expect(journal.body.data.at(-1)).toMatchObject({ status: 403, errorCode: 'FORBIDDEN' });
  });
});

describe('the budget', () => {
  it('is shared by full and read keys, and counts a read key’s refused writes', async () => {
    const full = await workspace({ plan: 'free', fixtures: false, clock: { start: '2026-03-02T09:00:00Z', frozen: true } });
    const read = await mint(full, 'read');
    const first = await mock.call('get', '/v1/connections', full);
    expect(first.headers['x-ratelimit-remaining']).toBe('59');
    const refused = await mock.call('post', '/v1/profiles', read).send({ name: 'x' });
    expectApiError(refused, 403, 'FORBIDDEN');
    expect(refused.headers['x-ratelimit-remaining']).toBe('58');
    expect((await mock.call('get', '/v1/connections', read)).headers['x-ratelimit-remaining']).toBe('57');
    for (let i = 0; i < 57; i++) await mock.call(i % 2 === 0 ? 'get' : 'post', i % 2 === 0 ? '/v1/connections' : '/v1/profiles', read).send({});
    // The budget is used up for both keys; the 429 comes before the scope's 403.
    expect((await mock.call('post', '/v1/profiles', read).send({ name: 'x' })).status).toBe(429);
    expect((await mock.call('get', '/v1/connections', full)).status).toBe(429);
  });
});

describe('DELETE /__control/keys/{key}', () => {
  it('revokes a key: the API answers it 401 from then on, and the other keys still work', async () => {
    const full = await workspace({ fixtures: false });
    const second = await mint(full);
    const read = await mint(full, 'read');
    const res = await mock.control('delete', `/__control/keys/${read}`, full);
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ apiKey: read, scope: 'read' });
    expectApiError(await mock.call('get', '/v1/connections', read), 401, 'UNAUTHORIZED');
    expectApiError(await mock.control('get', '/__control/clock', read), 401, 'UNAUTHORIZED');
    // The workspace's first key goes too, while another full key is left.
    expectStatus(await mock.control('delete', `/__control/keys/${full}`, second), 200);
    expectApiError(await mock.call('get', '/v1/connections', full), 401, 'UNAUTHORIZED');
    expectStatus(await mock.call('get', '/v1/connections', second), 200);
  });

  it('answers 404 for an unknown key, a revoked one, and a key of another workspace', async () => {
    const mine = await workspace({ fixtures: false });
    const theirs = await workspace({ fixtures: false });
    expectApiError(await mock.control('delete', '/__control/keys/sgw_test_nobody', mine), 404, 'NOT_FOUND', 'key');
    expectApiError(await mock.control('delete', `/__control/keys/${theirs}`, mine), 404, 'NOT_FOUND', 'key');
    const extra = await mint(mine);
    expectStatus(await mock.control('delete', `/__control/keys/${extra}`, mine), 200);
    expectApiError(await mock.control('delete', `/__control/keys/${extra}`, mine), 404, 'NOT_FOUND', 'key');
    expectStatus(await mock.call('get', '/v1/connections', theirs), 200);
  });

  it('keeps the workspace’s last full key with 409 CONFLICT, read keys notwithstanding', async () => {
    const full = await workspace({ fixtures: false });
    const read = await mint(full, 'read');
    expectApiError(await mock.control('delete', `/__control/keys/${full}`, full), 409, 'CONFLICT', 'key');
    expectStatus(await mock.call('get', '/v1/connections', full), 200);
    // A read key can always go.
    expectStatus(await mock.control('delete', `/__control/keys/${read}`, full), 200);
  });

  it("keeps the server's default key with 409 CONFLICT, even beside another full key", async () => {
    await mint(DEFAULT_API_KEY);
    expectApiError(await mock.control('delete', `/__control/keys/${DEFAULT_API_KEY}`), 409, 'CONFLICT', 'key');
    expectStatus(await mock.call('get', '/v1/connections'), 200);
  });
});

describe('scopes across snapshots, resets and restarts', () => {
  it('keeps them through a reset and a snapshot restored over the workspace', async () => {
    const full = await workspace({ fixtures: false });
    const read = await mint(full, 'read');
    const snapshot = (await mock.control('get', '/__control/state', full)).body;
    expect(snapshot.workspace.keyScopes).toEqual({ [read]: 'read' });
    expectStatus(await mock.control('post', '/__control/reset', full), 200);
    expectApiError(await mock.call('post', '/v1/profiles', read).send({ name: 'x' }), 403, 'FORBIDDEN');
    expectStatus(await mock.control('put', '/__control/state', full).send(snapshot), 200);
    expectApiError(await mock.call('post', '/v1/profiles', read).send({ name: 'x' }), 403, 'FORBIDDEN');
  });

  it("restores a snapshot into another workspace with that workspace's keys and scopes, not the snapshot's", async () => {
    const source = await workspace({ fixtures: false });
    const sourceRead = await mint(source, 'read');
    const snapshot = (await mock.control('get', '/__control/state', source)).body;
    const target = await workspace({ fixtures: false });
    expectStatus(await mock.control('put', '/__control/state', target).send(snapshot), 200);
    const restored = (await mock.control('get', '/__control/state', target)).body.workspace;
    expect(restored.keyScopes).toBeUndefined();
    expect(restored.apiKeys).toEqual([target]);
    expectStatus(await mock.call('post', '/v1/profiles', target).send({ name: 'Still a full key' }), 201);
    // The source's read key still belongs to the source only.
    expectApiError(await mock.call('post', '/v1/profiles', sourceRead).send({ name: 'x' }), 403, 'FORBIDDEN');
  });

  it('keeps them in the --data file across a restart', async () => {
    const dataFile = join(mkdtempSync(join(tmpdir(), 'sgw-keys-')), 'state.json');
    const first = await startMock({ dataFile });
    const read = (await first.control('post', '/__control/keys').send({ scope: 'read' })).body.apiKey as string;
    const revoked = (await first.control('post', '/__control/keys').send({})).body.apiKey as string;
    expectStatus(await first.control('delete', `/__control/keys/${revoked}`), 200);
    await first.close();
    const second = await startMock({ dataFile });
    try {
      expectApiError(await second.call('post', '/v1/profiles', read).send({ name: 'x' }), 403, 'FORBIDDEN');
      expectStatus(await second.call('get', '/v1/profiles', read), 200);
      expectApiError(await second.call('get', '/v1/profiles', revoked), 401, 'UNAUTHORIZED');
    } finally {
      await second.close();
    }
  });
});
