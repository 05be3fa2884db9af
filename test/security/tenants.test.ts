import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { sameCredential } from '../../src/lib/credentials.js';
import { expectApiError, expectStatus, startMock, useMock } from '../helpers/mock.js';
import { cliIo } from '../helpers/cli-io.js';

/**
 * A shared server (--control-token): a workspace's key is enough for every control call on that
 * workspace, and reaches nothing else; the token reaches everything (docs/decisions/0024).
 */
const TOKEN = 'owner-token-0123456789abcdef';

interface Tenant {
  workspaceId: string;
  apiKey: string;
}

describe('a shared server (--control-token and --max-workspaces)', () => {
  const mock = useMock({ controlToken: TOKEN, maxWorkspaces: 20 });
  let alice: Tenant;
  let bob: Tenant;
  const asKey = (method: 'get' | 'post' | 'put' | 'delete', path: string, key: string) => request(mock.server.app)[method](path).set('x-api-key', key);
  const asOwner = (method: 'get' | 'post' | 'put' | 'delete', path: string) => request(mock.server.app)[method](path).set('x-control-token', TOKEN);

  beforeAll(async () => {
    // Anyone who reaches the server may make a workspace while --max-workspaces bounds them.
    const made = await Promise.all([1, 2].map(() => request(mock.server.app).post('/__control/workspaces').send({ fixtures: false })));
    for (const res of made) expectStatus(res, 201);
    [alice, bob] = made.map((res) => res.body as Tenant) as [Tenant, Tenant];
  });

  describe("with a workspace's own key", () => {
    it('moves its clock, adds a rule, reads its journal, limits, scenarios and coverage, and resets it', async () => {
      expectStatus(await asKey('post', '/__control/clock/advance', alice.apiKey).send({ by: 'PT1H' }), 200);
      expectStatus(await asKey('post', '/__control/rules', alice.apiKey).send({ id: 'mine', match: { operationId: 'listPosts' }, then: { latencyMs: 0 } }), 201);
      expectStatus(await asKey('get', '/__control/rules', alice.apiKey), 200);
      expectStatus(await asKey('get', '/__control/journal', alice.apiKey), 200);
      expectStatus(await asKey('get', '/__control/limits', alice.apiKey), 200);
      expectStatus(await asKey('get', '/__control/scenarios', alice.apiKey), 200);
      expectStatus(await asKey('get', '/__control/coverage?scope=workspace', alice.apiKey), 200);
      expectStatus(await asKey('post', '/__control/reset', alice.apiKey), 200);
      // Bob's world did not move: his clock is where it started.
      const clocks = await Promise.all([alice, bob].map(async (tenant) => (await asKey('get', '/__control/clock', tenant.apiKey)).body.now as string));
      expect(clocks[0]).toBe(clocks[1]);
    });

    it('reads its state with its keys and webhook secrets masked; the token holder sees them', async () => {
      const hook = await request(mock.server.app).post('/v1/webhooks').set('x-api-key', alice.apiKey).send({ name: 'CRM', url: 'https://hooks.example/x', events: ['post.published'], secret: 'whsec_0123456789abcdef' });
      expectStatus(hook, 201);
      const masked = await asKey('get', '/__control/state', alice.apiKey);
      expectStatus(masked, 200);
      expect(JSON.stringify(masked.body)).not.toContain(alice.apiKey);
      expect(JSON.stringify(masked.body)).not.toContain('whsec_0123456789abcdef');
      expect(masked.body.workspace.apiKeys).toEqual([]);
      const full = await asOwner('get', '/__control/state').set('x-api-key', alice.apiKey);
      expectStatus(full, 200);
      expect(full.body.workspace.apiKeys).toContain(alice.apiKey);
      expect(JSON.stringify(full.body)).toContain('whsec_0123456789abcdef');
    });

    it('forks its own workspace, and deletes that fork and its own workspace', async () => {
      const own = await request(mock.server.app).post('/__control/workspaces').send({});
      expectStatus(own, 201);
      const fork = await asKey('post', '/__control/workspaces', own.body.apiKey).send({ from: own.body.workspaceId });
      expectStatus(fork, 201);
      expectStatus(await asKey('delete', `/__control/workspaces/${fork.body.workspaceId}`, fork.body.apiKey), 200);
      expectStatus(await asKey('delete', `/__control/workspaces/${own.body.workspaceId}`, own.body.apiKey), 200);
    });

    it.each([
      ['lists every workspace', 'get', '/__control/workspaces', undefined],
      ['mints a key', 'post', '/__control/keys', {}],
      ['restores a state', 'put', '/__control/state', {}],
      ['reads the server-wide coverage', 'get', '/__control/coverage', undefined],
      ['reads the server-wide coverage by name', 'get', '/__control/coverage?scope=server', undefined],
    ] as const)('is refused with 403 when it %s', async (_what, method, path, body) => {
      const call = asKey(method, path, alice.apiKey);
      expectApiError(await (body === undefined ? call : call.send(body)), 403, 'FORBIDDEN');
    });

    it("is refused every call on another workspace, and the other workspace is untouched", async () => {
      const before = (await asOwner('get', '/__control/state').set('x-api-key', bob.apiKey)).body.workspace.clock;
      expectApiError(await asKey('delete', `/__control/workspaces/${bob.workspaceId}`, alice.apiKey), 403, 'FORBIDDEN');
      expectApiError(await asKey('post', '/__control/workspaces', alice.apiKey).send({ from: bob.workspaceId }), 403, 'FORBIDDEN');
      expectApiError(await asKey('post', '/__control/clock/advance', alice.apiKey).set('x-workspace-id', bob.workspaceId).send({ by: 'PT5H' }), 403, 'FORBIDDEN');
      expectApiError(await asKey('get', '/__control/journal', alice.apiKey).set('x-workspace-id', bob.workspaceId), 403, 'FORBIDDEN');
      // A key that names no workspace cannot take another's id either: the id alone is no credential.
      expectApiError(await request(mock.server.app).post('/__control/reset').set('x-workspace-id', bob.workspaceId), 401, 'UNAUTHORIZED');
      const after = (await asOwner('get', '/__control/state').set('x-api-key', bob.apiKey)).body.workspace.clock;
      expect(after).toEqual(before);
      expectStatus(await asOwner('get', '/__control/workspaces'), 200);
    });

    it('with a read-only key, reads but does not write', async () => {
      const minted = await asOwner('post', '/__control/keys').set('x-api-key', alice.apiKey).send({ scope: 'read' });
      expectStatus(minted, 201);
      expectStatus(await asKey('get', '/__control/clock', minted.body.apiKey), 200);
      expectApiError(await asKey('post', '/__control/reset', minted.body.apiKey), 403, 'FORBIDDEN');
    });
  });

  describe('with no credential', () => {
    it('answers the health check, and refuses every workspace call with 401', async () => {
      expectStatus(await request(mock.server.app).get('/__control/health'), 200);
      expectApiError(await request(mock.server.app).get('/__control/journal'), 401, 'UNAUTHORIZED');
      expectApiError(await request(mock.server.app).post('/__control/reset'), 401, 'UNAUTHORIZED');
      expectApiError(await request(mock.server.app).get('/__control/workspaces'), 401, 'UNAUTHORIZED');
    });

    it('cannot fork a workspace, even the default one', async () => {
      expectApiError(await request(mock.server.app).post('/__control/workspaces').send({ from: 'default' }), 403, 'FORBIDDEN');
    });
  });

  describe('with a wrong token', () => {
    it('is refused with 401 even where no credential is needed', async () => {
      expectApiError(await request(mock.server.app).get('/__control/health').set('x-control-token', `${TOKEN}x`), 401, 'UNAUTHORIZED');
      expectApiError(await request(mock.server.app).post('/__control/workspaces').set('x-control-token', 'short').send({}), 401, 'UNAUTHORIZED');
    });
  });

  describe('with the token', () => {
    it('reaches every workspace: by key, by id, and the whole server', async () => {
      expectStatus(await asOwner('post', '/__control/clock/advance').set('x-workspace-id', bob.workspaceId).send({ by: 'PT1M' }), 200);
      const listed = await asOwner('get', '/__control/workspaces');
      expectStatus(listed, 200);
      expect(listed.body.data.map((entry: { workspaceId: string }) => entry.workspaceId)).toEqual(expect.arrayContaining([alice.workspaceId, bob.workspaceId]));
      expectStatus(await asOwner('get', '/__control/coverage'), 200);
    });
  });
});

describe('a server with a control token and no --max-workspaces', () => {
  it('lets only the token holder create workspaces', async () => {
    const mock = await startMock({ controlToken: TOKEN });
    try {
      const refused = await request(mock.server.app).post('/__control/workspaces').send({});
      expectApiError(refused, 403, 'FORBIDDEN');
      expect(refused.body.error.message).toContain('--max-workspaces');
      expectStatus(await request(mock.server.app).post('/__control/workspaces').set('x-control-token', TOKEN).send({}), 201);
      expect((await request(mock.server.app).get('/__control/health')).body.workspaces).toBe(2);
    } finally {
      await mock.close();
    }
  });

  it('refuses an empty token at start', async () => {
    await expect(startMock({ controlToken: '' })).rejects.toThrow(/empty/);
  });
});

describe('a server without a control token (the laptop)', () => {
  const mock = useMock();

  it('lets any local client do anything, as before: list, pick by id, read keys in the state', async () => {
    const made = await mock.control('post', '/__control/workspaces').send({ fixtures: false });
    expectStatus(made, 201);
    expectStatus(await mock.control('get', '/__control/workspaces'), 200);
    expectStatus(await mock.control('post', '/__control/clock/advance').set('x-workspace-id', made.body.workspaceId).send({ by: 'PT1M' }), 200);
    const state = await mock.control('get', '/__control/state', made.body.apiKey);
    expect(state.body.workspace.apiKeys).toEqual([made.body.apiKey]);
    expectStatus(await mock.control('delete', `/__control/workspaces/${made.body.workspaceId}`), 200);
  });
});

describe('--cors', () => {
  const origin = 'http://app.localhost:5173';
  const mock = useMock({ cors: [origin] });

  it('opens /v1 to the named origin', async () => {
    const preflight = await request(mock.server.app).options('/v1/posts').set('Origin', origin).set('Access-Control-Request-Method', 'POST');
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(origin);
    const read = await mock.call('get', '/v1/connections').set('Origin', origin);
    expect(read.headers['access-control-allow-origin']).toBe(origin);
  });

  it('never opens the control plane: no CORS headers, and a write from that origin is refused before it runs', async () => {
    const read = await mock.control('get', '/__control/clock').set('Origin', origin);
    expect(read.headers['access-control-allow-origin']).toBeUndefined();
    const before = (await mock.control('get', '/__control/clock')).body.now;
    const write = await mock.control('post', '/__control/clock/advance').set('Origin', origin).send({ by: 'PT1H' });
    expectApiError(write, 403, 'FORBIDDEN', 'Origin');
    expect(write.body.error.message).toContain('--cors opens only the API');
    expect((await mock.control('get', '/__control/clock')).body.now).toBe(before);
  });
});

describe('the control token', () => {
  it('matches only itself, whatever the length of what is sent', () => {
    expect(sameCredential(TOKEN, TOKEN)).toBe(true);
    for (const sent of ['', 'o', TOKEN.slice(0, -1), `${TOKEN}x`, TOKEN.toUpperCase(), 'x'.repeat(10_000)]) expect(sameCredential(sent, TOKEN)).toBe(false);
  });

  it('on the command line: empty is refused with exit 2, short is warned about, and the help names the environment variable', async () => {
    const empty = cliIo();
    expect(await main(['--control-token', ' ', '--port', '0'], empty.streams)).toEqual({ exitCode: 2 });
    expect(empty.err.join('\n')).toMatch(/--control-token is empty.*SOCIAL_GATEWAY_MOCK_CONTROL_TOKEN/);

    const short = cliIo({ SOCIAL_GATEWAY_MOCK_CONTROL_TOKEN: 'abc' });
    const running = await main(['--port', '0'], short.streams);
    if (running.exitCode !== undefined) throw new Error(short.err.join('\n'));
    try {
      expect(short.err.join('\n')).toMatch(/warning: the control token has 3 characters/);
      expect((await fetch(`${running.url}/__control/journal`)).status).toBe(401);
      expect((await fetch(`${running.url}/__control/journal`, { headers: { 'x-control-token': 'abc' } })).status).toBe(200);
    } finally {
      await running.stop();
    }

    const help = cliIo();
    await main(['--help'], help.streams);
    expect(help.out.join('\n')).toContain('SOCIAL_GATEWAY_MOCK_CONTROL_TOKEN');
  });
});

describe("control.yaml's x-access", () => {
  it('names who may call every operation, and the server reads it', async () => {
    const { loadSpec } = await import('../../src/http/spec.js');
    const { OperationIndex, CONTROL_ACCESS } = await import('../../src/http/operations.js');
    const index = new OperationIndex(loadSpec('control.yaml').document);
    const missing = index.operations.filter((operation) => operation.access === undefined || !CONTROL_ACCESS.includes(operation.access)).map((operation) => operation.operationId);
    expect(missing).toEqual([]);
    expect(index.operations.filter((operation) => operation.access === 'server').map((operation) => operation.operationId).sort()).toEqual(['createApiKey', 'listWorkspaces', 'putState']);
  });
});
