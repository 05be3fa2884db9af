import { describe, expect, it } from 'vitest';
import { expectApiError, expectStatus, useMock } from '../helpers/mock.js';
import { advance, workspaceWith } from '../helpers/scenarios.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

const mock = useMock();

interface OperationCoverage {
  operationId: string;
  calls: number;
  noResponse: number;
  exercised: boolean;
  statuses: Array<{ status: number; count: number; declared: boolean }>;
  missingStatuses: number[];
  errorCodes: Array<{ code: string; count: number; declared: boolean }>;
}

function operation(report: { byOperation: OperationCoverage[] }, id: string): OperationCoverage | undefined {
  return report.byOperation.find((entry) => entry.operationId === id);
}

describe('GET /__control/coverage', () => {
  // First in the file: the server has seen no traffic before it.
  it('counts exactly what was called, against what openapi.yaml declares', async () => {
    const empty = await mock.control('get', '/__control/coverage');
    expectStatus(empty, 200);
    expect(empty.body.operations).toEqual({ exercised: 0, total: 56, percent: 0 });

    await mock.call('get', '/v1/connections');
    await mock.call('get', '/v1/connections');
    await mock.call('get', '/v1/connections', null);
    await mock.call('get', '/v1/accounts?limit=0');
    await mock.call('get', '/v1/accounts/no-such-account');
    await mock.call('post', '/v1/profiles').send({ name: 'Counted' });
    await mock.call('get', '/v1/webhooks');
    await mock.control('get', '/__control/clock');

    const { body } = await mock.control('get', '/__control/coverage');
    expect(body.scope).toBe('server');
    expect(body.operations).toEqual({ exercised: 5, total: 56, percent: 8.9 });
    expect(body.statuses.exercised).toBe(6);
    expect(body.errorCodes.exercised).toBe(3);
    expect(operation(body, 'listConnections')).toEqual({
      operationId: 'listConnections',
      method: 'GET',
      path: '/v1/connections',
      calls: 3,
      noResponse: 0,
      injected: 0,
      exercised: true,
      statuses: [
        { status: 200, count: 2, declared: true },
        { status: 401, count: 1, declared: true },
      ],
      missingStatuses: [400, 429],
      errorCodes: [{ code: 'UNAUTHORIZED', count: 1, declared: true }],
      // Only the codes listConnections can answer (its x-error-codes), not every code of the shared responses.
      missingErrorCodes: ['RATE_LIMITED', 'VALIDATION_ERROR'],
    });
    expect(operation(body, 'listAccounts')).toMatchObject({ calls: 1, statuses: [{ status: 400, count: 1, declared: true }], errorCodes: [{ code: 'VALIDATION_ERROR', count: 1, declared: true }] });
    expect(operation(body, 'getAccount')).toMatchObject({ calls: 1, exercised: true, errorCodes: [{ code: 'NOT_FOUND', count: 1, declared: true }] });
    expect(operation(body, 'createProfile')).toMatchObject({ calls: 1, exercised: true, statuses: [{ status: 201, count: 1, declared: true }], errorCodes: [] });
    // A 501 is the mock's gap, not the contract's: it is shown but does not count.
    expect(operation(body, 'listWebhooks')).toMatchObject({ calls: 1, exercised: true, statuses: [{ status: 200, count: 1, declared: true }], errorCodes: [] });
    expect(body.byOperation.filter((entry: OperationCoverage) => entry.calls > 0).map((entry: OperationCoverage) => entry.operationId).sort()).toEqual(['createProfile', 'getAccount', 'listAccounts', 'listConnections', 'listWebhooks']);
    // The call without a key has no workspace: it counts for the server only.
    expect(body.workspaces).toEqual([{ workspaceId: 'ws_default', calls: 6, operationsExercised: 5 }]);
  });

  it('renders the same report as Markdown tables', async () => {
    const res = await mock.control('get', '/__control/coverage?format=markdown');
    expectStatus(res, 200);
    expect(res.headers['content-type']).toMatch(/^text\/markdown/);
    expect(res.text).toContain('| Operations | 5 | 56 | 8.9% |');
    expect(res.text).toContain('| `listConnections` | `GET /v1/connections` | 3 | 200 ×2, 401 ×1 | 400, 429 | UNAUTHORIZED ×1 |');
    expect(res.text).toContain('`listWebhooks` | `GET /v1/webhooks` | 1 | 200 ×1 |');
    expect((await mock.control('get', '/__control/coverage?format=table')).text).toBe(res.text);
  });

  it('counts per workspace, with the rules that fired (and those that did not) and the events delivered', async () => {
    const yaml = [
      'rules:',
      '  - { id: slow, match: { operationId: listProfiles, every: 2 }, then: { latencyMs: 1 } }',
      '  - { id: gone, match: { operationId: getAccount }, then: { drop: true } }',
      '  - { id: never, match: { operationId: deleteProfile }, then: { reset: true } }',
      'timeline:',
      '  - { at: PT1M, do: emit, event: webhook.test }',
      '  - { at: PT2M, do: emit, event: webhook.test }',
      '  - { at: PT3M, do: account.expire, account: twitter }',
    ].join('\n');
    const { key, id } = await workspaceWith(mock, yaml);
    // Only what a receiver took counts: account.expired is delivered, webhook.test emitted to nobody
    // until the test endpoint sends one, post events go to a receiver that always fails.
    const receiver = await WebhookReceiver.start();
    const failing = await WebhookReceiver.start();
    failing.answerAlways(500);
    const hook = await mock.call('post', '/v1/webhooks', key).send({ name: 'CI', url: receiver.url, events: ['account.expired'] });
    expectStatus(hook, 201);
    expectStatus(await mock.call('post', '/v1/webhooks', key).send({ name: 'Broken', url: failing.url, events: ['post.published', 'post.platform.published'] }), 201);
    expectStatus(await mock.call('post', `/v1/webhooks/${hook.body.id}/test`, key), 200);
    for (let i = 0; i < 4; i++) await mock.call('get', '/v1/profiles', key);
    await expect(mock.call('get', '/v1/accounts/any', key)).rejects.toThrow();
    await advance(mock, key, 'PT5M');

    await expect.poll(async () => operation((await mock.control('get', '/__control/coverage?scope=workspace', key)).body, 'getAccount')?.noResponse).toBe(1);
    const { body } = await mock.control('get', '/__control/coverage?scope=workspace', key);
    expect(body).toMatchObject({ scope: 'workspace', workspaceId: id, operations: { exercised: 3 } });
    expect(operation(body, 'getAccount')).toMatchObject({ calls: 1, noResponse: 1, exercised: false, statuses: [] });
    expect(body.rules).toEqual([
      { workspaceId: id, scenario: 'inline', ruleId: 'gone', fired: 1 },
      { workspaceId: id, scenario: 'inline', ruleId: 'never', fired: 0 },
      { workspaceId: id, scenario: 'inline', ruleId: 'slow', fired: 2 },
    ]);
    expect(body.webhookEvents).toMatchObject({ exercised: 2, total: 22 });
    expect(body.webhookEvents.events.filter((e: { event: string; count: number }) => e.count > 0)).toEqual([
      { event: 'account.expired', count: 1 },
      { event: 'webhook.test', count: 1 },
    ]);
    expect(receiver.events()).toEqual(['webhook.test', 'account.expired']);
    expect(failing.requests.length).toBeGreaterThan(0);
    await receiver.close();
    await failing.close();
    expect(body.workspaces).toEqual([{ workspaceId: id, calls: 8, operationsExercised: 3 }]);

    // Coverage describes the traffic over the server's life: a reset does not undo it.
    await mock.control('post', '/__control/reset', key);
    await mock.call('get', '/v1/profiles', key);
    const after = (await mock.control('get', '/__control/coverage?scope=workspace', key)).body;
    expect(operation(after, 'listProfiles')?.calls).toBe(5);
    expect(after.rules.find((rule: { ruleId: string }) => rule.ruleId === 'slow').fired).toBe(2);
  });

  it('refuses an unknown format', async () => {
    expectApiError(await mock.control('get', '/__control/coverage?format=pdf'), 400, 'VALIDATION_ERROR', 'format');
  });

  describe('limited to a client\'s own operations (operations=)', () => {
    it('counts and rates only those, in the contract\'s order, and says so', async () => {
      await mock.call('get', '/v1/connections');
      const res = await mock.control('get', '/__control/coverage?operations=getPost,listConnections');
      expectStatus(res, 200);
      const body = res.body;
      expect(body.limitedTo).toEqual(['listConnections', 'getPost']);
      expect(body.byOperation.map((entry: OperationCoverage) => entry.operationId)).toEqual(['listConnections', 'getPost']);
      expect(body.operations.total).toBe(2);
      expect(operation(body, 'getPost')?.missingStatuses).toContain(404);
      expect((await mock.control('get', '/__control/coverage')).body.limitedTo).toBeUndefined();
    });

    it('names the operation a mistyped operationId most likely meant', async () => {
      const res = await mock.control('get', '/__control/coverage?operations=listConnections,createpots,noSuchThing');
      expectApiError(res, 400, 'VALIDATION_ERROR', 'operations');
      expect(res.body.error.message).toBe('Not operationIds of openapi.yaml: createpots; did you mean createPost?; noSuchThing.');
    });

    it.each([
      ['an operation openapi.yaml lacks', 'listConnections,noSuchThing'],
      ['a list that is not operationIds', 'list connections'],
    ])('refuses %s', async (_what, operations) => {
      expectApiError(await mock.control('get', `/__control/coverage?operations=${encodeURIComponent(operations)}`), 400, 'VALIDATION_ERROR', 'operations');
    });
  });
});

describe('GET /__control/coverage after workspaces are deleted', () => {
  const server = useMock();

  // The kit makes a workspace per test file and deletes it after: the report used to say
  // "0 workspaces with traffic" after ten of them, though their calls were counted.
  it('counts every workspace that had traffic, and keeps their calls', async () => {
    for (let i = 0; i < 10; i++) {
      const created = await server.control('post', '/__control/workspaces').send({ fixtures: false });
      expectStatus(created, 201);
      const { workspaceId, apiKey } = created.body as { workspaceId: string; apiKey: string };
      expectStatus(await server.call('get', '/v1/profiles', apiKey), 200);
      expectStatus(await server.call('get', '/v1/webhooks', apiKey), 200);
      expectStatus(await server.control('delete', `/__control/workspaces/${workspaceId}`), 200);
    }
    const { body } = await server.control('get', '/__control/coverage');
    expect(body.workspaces).toEqual([]);
    expect(body.workspacesWithTraffic).toBe(10);
    expect(body.endedWorkspaces).toEqual({ count: 10, calls: 20 });
    expect(operation(body, 'listProfiles')?.calls).toBe(10);
    expect(operation(body, 'listWebhooks')?.calls).toBe(10);

    // A live workspace with traffic counts too; one without any does not.
    expectStatus(await server.call('get', '/v1/profiles'), 200);
    expectStatus(await server.control('post', '/__control/workspaces').send({ fixtures: false }), 201);
    const markdown = (await server.control('get', '/__control/coverage?format=markdown')).text;
    expect(markdown).toContain('Whole server: 11 workspaces had traffic (10 of them since deleted or evicted, their calls still counted).');
    expect(markdown).toContain('| 10 ended workspaces, together | 20 | |');
  });
});

describe('GET /__control/journal', () => {
  // A small journal, so that a test can run it over many times.
  const small = useMock({ journalSize: 25 });

  it('never grows past its bound under load, keeping the most recent requests', async () => {
    const { key } = await workspaceWith(small, 'rules:\n  - { id: every-tenth, match: { operationId: listProfiles, every: 10 }, then: { error: { status: 429, code: RATE_LIMITED } } }\n');
    for (let batch = 0; batch < 4; batch++) {
      await Promise.all(Array.from({ length: 30 }, (_, i) => small.call('get', i % 2 === 0 ? '/v1/profiles' : '/v1/connections', key)));
      const { body } = await small.control('get', '/__control/journal?limit=10000', key);
      expect(body.size).toBeLessThanOrEqual(25);
      expect(body.data.length).toBeLessThanOrEqual(25);
    }
    const { body } = await small.control('get', '/__control/journal?limit=10000', key);
    expect(body).toMatchObject({ size: 25, capacity: 25 });
    expect(body.data.map((entry: { seq: number }) => entry.seq)).toEqual(Array.from({ length: 25 }, (_, i) => 96 + i));
  });

  it('filters by method, status, operation, rule and position', async () => {
    const { key } = await workspaceWith(small, 'rules:\n  - { id: second, match: { operationId: listProfiles, nth: 2 }, then: { error: { status: 429, code: RATE_LIMITED } } }\n');
    await small.call('get', '/v1/profiles', key);
    await small.call('get', '/v1/profiles', key);
    await small.call('post', '/v1/profiles', key).send({ name: 'Journaled' });
    await small.call('get', '/v1/connections', key);
    const paths = async (query: string) => ((await small.control('get', `/__control/journal?${query}`, key)).body.data as Array<{ seq: number; path: string; status: number }>).map((e) => `${e.seq} ${e.status}`);
    expect(await paths('method=POST')).toEqual(['3 201']);
    expect(await paths('status=429')).toEqual(['2 429']);
    expect(await paths('matchedRule=second')).toEqual(['2 429']);
    expect(await paths('operationId=listProfiles&after=1')).toEqual(['2 429']);
    expect(await paths('limit=2')).toEqual(['3 201', '4 200']);
    const { body } = await small.control('get', '/__control/journal?status=429', key);
    expect(body.data[0]).toMatchObject({ method: 'GET', path: '/v1/profiles', operationId: 'listProfiles', errorCode: 'RATE_LIMITED', matchedRule: 'second', effect: 'error' });
    expectStatus(await small.control('get', '/__control/journal?status=0', key), 200);
    expectApiError(await small.control('get', '/__control/journal?method=FETCH', key), 400, 'VALIDATION_ERROR', 'method');
  });

  it('refuses an operationId filter that is no operation, naming the nearest, rather than match nothing', async () => {
    const res = await small.control('get', '/__control/journal?operationId=listProfile');
    expectApiError(res, 400, 'VALIDATION_ERROR', 'operationId');
    expect(res.body.error.message).toBe("'listProfile' is not an operationId of openapi.yaml or control.yaml; did you mean listProfiles?");
    // The control plane's triggers are journaled under their own operationIds, and filter as well.
    expectStatus(await small.control('get', '/__control/journal?operationId=setPostOutcome'), 200);
  });

  it('keeps what an error answer said: its message, the field it names and its details, secrets hidden', async () => {
    const key = (await small.control('post', '/__control/workspaces').send({ clock: { start: '2026-03-02T10:00:00Z', frozen: true } })).body.apiKey as string;
    const connections = (await small.call('get', '/v1/connections', key)).body.connections as Array<{ id: string; platform: string }>;
    const bluesky = connections.find((connection) => connection.platform === 'bluesky')?.id;
    await small.control('post', '/__control/limits', key).send({ velocity: [{ accountId: bluesky, published: 25 }] });
    expectApiError(await small.call('post', '/v1/posts', key).send({ text: 'Hi', destinations: [{ connectionId: bluesky }] }), 429, 'VELOCITY_LIMITED');
    expectApiError(await small.call('get', '/v1/posts?limit=0', key), 400, 'VALIDATION_ERROR', 'limit');
    await small.control('post', '/__control/limits', key).send({ drain: ['requests'] });
    await small.call('get', '/v1/posts', key);
    const { body } = await small.control('get', '/__control/journal?after=1', key);
    const [velocity, validation, rate] = body.data as Array<{ error?: Record<string, unknown> }>;
    expect(velocity?.error).toEqual({ message: expect.stringContaining('reached its cap of 25 posts'), param: 'destinations[0].connectionId', details: { accountId: bluesky, platform: 'bluesky', window: 'hour', limit: 25, retryAfterSeconds: 3600 } });
    expect(validation?.error).toMatchObject({ param: 'limit', message: expect.any(String) });
    expect(rate?.error).toEqual({ message: expect.stringMatching(/retry/i) });
    // A success carries none.
    expect((body.data as Array<{ status: number; error?: unknown }>).filter((entry) => entry.status < 400).every((entry) => entry.error === undefined)).toBe(true);
  });

  it('keeps the query apart from the path, secret parameters redacted', async () => {
    const key = (await small.control('post', '/__control/workspaces').send({})).body.apiKey as string;
    await small.call('get', '/v1/posts?limit=2&status=published', key);
    await small.call('get', '/v1/connections/oauth/instagram/accounts?tempToken=tmp_s3cret_value_123', key);
    await small.call('get', '/v1/connections', key);
    const { body } = await small.control('get', '/__control/journal', key);
    expect(body.data.map((entry: { path: string; query: string }) => [entry.path, entry.query])).toEqual([
      ['/v1/posts', 'limit=2&status=published'],
      ['/v1/connections/oauth/instagram/accounts', 'tempToken=[REDACTED]'],
      ['/v1/connections', ''],
    ]);
    expect(JSON.stringify(body)).not.toContain('tmp_s3cret_value_123');
  });
});
