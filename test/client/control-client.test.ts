import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTROL_ROUTES, ControlClient, ControlError, createControlClient } from '../../src/client/control-client.js';
import { packagePath } from '../../src/lib/package-root.js';
import { VERSION } from '../../src/version.js';
import { TEST_CLOCK, useMock } from '../helpers/mock.js';

const mock = useMock({}, { listen: true });
/** The client of the server's default workspace. */
let control: ControlClient;

beforeAll(() => {
  control = createControlClient({ baseUrl: mock.url });
});
afterAll(() => control.close());

/** A client of a workspace of its own, fixture world included unless told otherwise. */
async function freshWorkspace(body: Parameters<ControlClient['createWorkspace']>[0] = {}): Promise<ControlClient> {
  const created = await control.createWorkspace(body);
  return control.forWorkspace(created.apiKey);
}

/**
 * An API call with the client's key; answers the status and the parsed body, read ad hoc in
 * assertions as supertest's `res.body` is (the API's own types are not what is tested here).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function api(client: ControlClient, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${mock.url}/v1${path}`, {
    method,
    headers: { 'x-api-key': client.apiKey ?? 'sgw_test_default', ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: await response.json() };
}

/** Runs `act` and answers the ControlError it throws (failing when it throws none). */
async function controlError(act: () => Promise<unknown>): Promise<ControlError> {
  const error = await act().then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ControlError);
  return error as ControlError;
}

async function firstActiveAccount(client: ControlClient, platform?: string): Promise<{ id: string; platform: string }> {
  const accounts = (await api(client, 'GET', '/accounts?limit=50')).body.data as Array<{ id: string; platform: string; status: string }>;
  const account = accounts.find((candidate) => candidate.status === 'active' && (platform === undefined || candidate.platform === platform));
  if (!account) throw new Error(`no active ${platform ?? ''} account in the fixture world`);
  return account;
}

describe('the method table', () => {
  const contract = parse(readFileSync(packagePath('control.yaml'), 'utf8')) as { paths: Record<string, Record<string, { operationId?: string }>> };
  const declared = Object.fromEntries(
    Object.entries(contract.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, operation]) => typeof operation === 'object' && operation !== null && typeof operation.operationId === 'string')
        .map(([method, operation]) => [operation.operationId as string, { method: method.toUpperCase(), path }]),
    ),
  );

  it('has every operation of control.yaml, at its method and path, and nothing else', () => {
    expect(Object.keys(declared).length).toBeGreaterThan(20);
    expect(CONTROL_ROUTES).toEqual(declared);
  });

  it('has a method named after each operationId', () => {
    const methods = Object.keys(declared).filter((operationId) => typeof (ControlClient.prototype as unknown as Record<string, unknown>)[operationId] === 'function');
    expect(methods.sort()).toEqual(Object.keys(declared).sort());
  });
});

describe('getHealth', () => {
  it('answers the version and counts the workspaces', async () => {
    const before = await control.getHealth();
    expect(before).toMatchObject({ status: 'ok', version: VERSION });
    await control.createWorkspace({ fixtures: false });
    expect((await control.getHealth()).workspaces).toBe(before.workspaces + 1);
  });

  it('takes the control URL as it is, /__control and trailing slash included', async () => {
    const client = createControlClient({ baseUrl: `${mock.url}/__control/` });
    expect(client.baseUrl).toBe(mock.url);
    expect((await client.getHealth()).status).toBe('ok');
  });
});

describe('createWorkspace and forWorkspace', () => {
  it('gives an isolated world with its own key, seed and clock', async () => {
    const created = await control.createWorkspace({ fixtures: false, seed: 42, clock: { start: '2026-04-01T00:00:00Z', frozen: true } });
    expect(created).toMatchObject({ plan: 'payg', seed: 42, scenario: null, clock: { now: '2026-04-01T00:00:00.000Z', frozen: true } });
    expect(created.apiKey).toMatch(/^sgw_/);
    expect(created.apiKey).not.toBe('sgw_test_default');

    const workspace = control.forWorkspace(created.apiKey);
    expect(workspace.apiKey).toBe(created.apiKey);
    expect((await workspace.getClock()).now).toBe('2026-04-01T00:00:00.000Z');
    // Its world is empty; the default workspace still has its fixture posts.
    expect((await api(workspace, 'GET', '/posts')).body.data).toEqual([]);
    expect((await api(control, 'GET', '/posts')).body.data.length).toBeGreaterThan(0);
    // What it is asked stays in its own journal.
    expect((await workspace.getJournal()).data.map((entry) => entry.operationId)).toEqual(['listPosts']);
    expect((await control.getJournal({ operationId: 'listPosts' })).data).toHaveLength(1);
  });

  it('throws the envelope of a refused body', async () => {
    const error = await controlError(() => control.createWorkspace({ seed: -1 }));
    expect(error).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', param: 'seed', operationId: 'createWorkspace' });
    expect(error.body).toMatchObject({ error: { code: 'VALIDATION_ERROR', message: expect.any(String) } });
    expect(error.message).toMatch(/^createWorkspace answered 400 VALIDATION_ERROR: /);
  });

  it('starts a workspace from a scenario', async () => {
    const created = await control.createWorkspace({ scenario: 'network-outage' });
    expect(created.scenario).toBe('network-outage');
    expect((await control.forWorkspace(created.apiKey).listScenarios()).loaded?.name).toBe('network-outage');
  });
});

describe('the clock', () => {
  it('reads the frozen start', async () => {
    const workspace = await freshWorkspace();
    expect(await workspace.getClock()).toMatchObject({ now: TEST_CLOCK, frozen: true, pendingJobs: expect.any(Number) });
  });

  it('advanceClock moves time and runs the jobs that fall due: a new post publishes', async () => {
    const workspace = await freshWorkspace();
    const account = await firstActiveAccount(workspace, 'bluesky');
    const post = await api(workspace, 'POST', '/posts', { text: 'Spring blend is back.', destinations: [{ connectionId: account.id }] });
    expect(post.status).toBe(201);

    const moved = await workspace.advanceClock({ by: 'PT1M' });
    expect(moved).toMatchObject({ from: TEST_CLOCK, now: '2026-03-02T09:01:00.000Z', clock: { now: '2026-03-02T09:01:00.000Z' } });
    expect(moved.ran.map((job) => job.kind)).toEqual(expect.arrayContaining(['post.start', 'post.publish-destination']));
    expect((await api(workspace, 'GET', `/posts/${post.body.post.id}`)).body.post.status).toBe('published');

    expect((await workspace.advanceClock({ ms: 60_000 })).now).toBe('2026-03-02T09:02:00.000Z');
  });

  it('setClock moves to an instant, and refuses one in the past with the field named', async () => {
    const workspace = await freshWorkspace({ fixtures: false });
    expect((await workspace.setClock({ to: '2026-03-03T00:00:00Z' })).now).toBe('2026-03-03T00:00:00.000Z');
    const error = await controlError(() => workspace.setClock({ to: '2026-03-02T00:00:00Z' }));
    expect(error).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', param: 'to' });
    expect((await workspace.getClock()).now).toBe('2026-03-03T00:00:00.000Z');
  });

  it('resumeClock lets time run and freezeClock stops it', async () => {
    const workspace = await freshWorkspace({ fixtures: false });
    expect((await workspace.resumeClock()).frozen).toBe(false);
    expect((await workspace.getClock()).frozen).toBe(false);
    const frozen = await workspace.freezeClock();
    expect(frozen.frozen).toBe(true);
    expect((await workspace.getClock()).now).toBe(frozen.now);
  });
});

describe('keys, journal and limits', () => {
  it('createApiKey mints a second key into the same workspace', async () => {
    const workspace = await freshWorkspace({ fixtures: false });
    const minted = await workspace.createApiKey();
    expect(minted.apiKey).toMatch(/^sgw_/);
    expect(minted.apiKey).not.toBe(workspace.apiKey);
    expect((await api(control.forWorkspace(minted.apiKey), 'GET', '/connections')).status).toBe(200);
    // The call made with the new key is in the first key's journal.
    const journal = await workspace.getJournal({ operationId: 'listConnections' });
    expect(journal.data.map((entry) => [entry.method, entry.path, entry.status])).toEqual([['GET', '/v1/connections', 200]]);
    expect(journal.capacity).toBe(1000);
  });

  it('getJournal filters by status and limit', async () => {
    const workspace = await freshWorkspace({ fixtures: false });
    await api(workspace, 'GET', '/connections');
    await api(workspace, 'GET', '/posts/nope');
    await api(workspace, 'GET', '/profiles');
    expect((await workspace.getJournal({ status: 404 })).data.map((entry) => entry.operationId)).toEqual(['getPost']);
    expect((await workspace.getJournal({ limit: 1 })).data.map((entry) => entry.operationId)).toEqual(['listProfiles']);
  });

  it('updateLimits drains a budget so the next call is refused, and refills it', async () => {
    const workspace = await freshWorkspace({ fixtures: false });
    const drained = await workspace.updateLimits({ drain: ['requests'] });
    expect(drained.budgets.requests).toMatchObject({ limit: 600, remaining: 0 });
    expect((await api(workspace, 'GET', '/connections')).status).toBe(429);
    expect((await workspace.getLimits()).budgets.requests.remaining).toBe(0);

    await workspace.updateLimits({ refill: ['requests'] });
    expect((await api(workspace, 'GET', '/connections')).status).toBe(200);
    const free = await workspace.updateLimits({ plan: 'free' });
    expect(free).toMatchObject({ plan: 'free', budgets: { requests: { limit: 60 } } });
  });

  it('updateLimits pre-loads an account velocity, and names an unknown account', async () => {
    const workspace = await freshWorkspace();
    const account = await firstActiveAccount(workspace);
    const limits = await workspace.updateLimits({ velocity: [{ accountId: account.id, published: 25 }] });
    expect(limits.velocity.find((entry) => entry.accountId === account.id)?.hour).toMatchObject({ count: 25, limit: 25 });
    const error = await controlError(() => workspace.updateLimits({ velocity: [{ accountId: 'acct_missing', published: 1 }] }));
    expect(error).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });
});

describe('events and inbound activity', () => {
  it('streamEvents delivers what the inbound calls emit, the same events they answer', async () => {
    const workspace = await freshWorkspace();
    const events = await workspace.streamEvents();

    const comment = await workspace.receiveInboundComment({ text: 'Where can I buy this?' });
    expect(comment.comment.text).toBe('Where can I buy this?');
    const message = await workspace.receiveInboundMessage({ text: 'Do you ship abroad?' });
    expect(message).toMatchObject({ started: true, message: { text: 'Do you ship abroad?' } });
    const reply = await workspace.receiveInboundStoryReply({ text: 'Love this story' });
    const review = await workspace.receiveInboundReview({ recommendation: 'positive', text: 'Great coffee' });
    expect(review.review).toMatchObject({ recommendation: 'positive', text: 'Great coffee' });

    const answered = [comment, message, reply, review].flatMap((result) => result.events);
    expect(answered.map((event) => event.event)).toEqual([
      'comment.received',
      'conversation.started',
      'message.received',
      'conversation.started',
      'message.received',
      'review.new',
    ]);
    const streamed = await events.take(answered.length);
    expect(streamed).toEqual(answered);
    const first = streamed[0];
    // The event's name narrows its data to the contract's payload.
    if (first?.event !== 'comment.received') throw new Error('expected comment.received first');
    expect(first.data.comment.text).toBe('Where can I buy this?');

    // The API shows what the inbound calls made.
    const conversations = (await api(workspace, 'GET', `/inbox/conversations?accountId=${message.accountId}`)).body.convos as Array<{ id: string }>;
    expect(conversations.map((conversation) => conversation.id)).toContain(message.conversation.id);
    const reviews = (await api(workspace, 'GET', `/accounts/${review.accountId}/reviews`)).body.data as Array<{ id: string }>;
    expect(reviews.map((entry) => entry.id)).toContain(review.review.id);

    events.close();
    expect(events.closed).toBe(true);
    await expect(events.next()).rejects.toThrow(/ended/);
  });

  it('streamEvents with replay sends the kept events first, and a for await loop reads them', async () => {
    const workspace = await freshWorkspace();
    const review = await workspace.receiveInboundReview({});
    const events = await workspace.streamEvents({ replay: true });
    const seen: string[] = [];
    for await (const event of events) {
      seen.push(event.id);
      if (event.id === review.events[0]?.id) break;
    }
    expect(seen.at(-1)).toBe(review.events[0]?.id);
    // Leaving the loop closed the stream.
    expect(events.closed).toBe(true);
  });

  it('close() ends every stream the client opened', async () => {
    const workspace = await freshWorkspace({ fixtures: false });
    const streams = [await workspace.streamEvents(), await workspace.streamEvents()];
    workspace.close();
    expect(streams.map((stream) => stream.closed)).toEqual([true, true]);
  });

  it('inbound calls name what is missing', async () => {
    const workspace = await freshWorkspace({ fixtures: false });
    const error = await controlError(() => workspace.receiveInboundComment({ destinationId: 'dst_missing' }));
    expect(error).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });
});

describe('webhooks, accounts and the wallet', () => {
  it('setWebhookFaults sets and clears a webhook faults, and 404s an unknown webhook', async () => {
    const workspace = await freshWorkspace({ fixtures: false });
    const webhook = await api(workspace, 'POST', '/webhooks', { name: 'crm', url: 'https://hooks.example.com/gateway', events: ['post.published'] });
    expect(webhook.status).toBe(201);
    const faults = await workspace.setWebhookFaults(webhook.body.id, { failStatus: 503, failCount: 2 });
    expect(faults).toEqual({ webhookId: webhook.body.id, faults: { duplicate: false, outOfOrder: false, delayMs: 0, failStatus: 503, failError: null, failCount: 2 } });
    expect((await workspace.setWebhookFaults(webhook.body.id, {})).faults.failStatus).toBeNull();
    const error = await controlError(() => workspace.setWebhookFaults('wh_missing', {}));
    expect(error).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });

  it('the triggers: failWebhookDeliveries, setPostOutcome, emitEvent and redeliverDelivery, typed by control.yaml', async () => {
    const workspace = await freshWorkspace({ fixtures: false });
    const webhook = await api(workspace, 'POST', '/webhooks', { name: 'crm', url: 'https://hooks.example.com/gateway', events: ['post.failed'] });
    const failing = await workspace.failWebhookDeliveries(webhook.body.id, { count: 1, timeout: true });
    expect(failing.faults).toMatchObject({ failStatus: null, failError: 'timeout', failCount: 1 });

    const connected = await api(workspace, 'POST', '/connections/bluesky/connect', { identifier: 'studio-north.bsky.social', appPassword: 'abcd-efgh-ijkl-mnop' });
    const post = await api(workspace, 'POST', '/posts', { text: 'Fresh beans today.', destinations: [{ connectionId: connected.body.connection.id }] });
    const decided = await workspace.setPostOutcome(post.body.post.id, { result: 'failed', errorCode: 'PLATFORM_ERROR' });
    expect(decided.destinations[0]?.outcome).toMatchObject({ result: 'failed', errorCode: 'PLATFORM_ERROR' });

    const emitted = await workspace.emitEvent({ event: 'post.failed', objectId: post.body.post.id, overrides: { post: { status: 'failed' } } });
    expect(emitted.event).toMatchObject({ event: 'post.failed', data: { post: { id: post.body.post.id, status: 'failed' } } });
    expect(emitted.deliveries).toEqual([{ webhookId: webhook.body.id, deliveryId: expect.any(String) }]);
    // Redelivered without an API key; a forced failure, so nothing leaves the machine.
    await workspace.failWebhookDeliveries(webhook.body.id, { count: 1, status: 500 });
    const again = await workspace.redeliverDelivery(webhook.body.id, emitted.deliveries[0]?.deliveryId ?? '');
    expect(again.attempts.map((attempt) => [attempt.attempt, attempt.responseStatus])).toEqual([
      [1, null],
      [2, 500],
    ]);
    const error = await controlError(() => workspace.emitEvent({ event: 'review.new', objectId: post.body.post.id }));
    expect(error).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', param: 'objectId' });
  });

  it('setAccountStatus expires an account as the network would', async () => {
    const workspace = await freshWorkspace();
    const account = await firstActiveAccount(workspace);
    const events = await workspace.streamEvents();
    const changed = await workspace.setAccountStatus(account.id, { status: 'expired' });
    expect(changed).toMatchObject({ id: account.id, status: 'expired', authHealth: 'action_required' });
    expect((await api(workspace, 'GET', `/accounts/${account.id}`)).body.status).toBe('expired');
    expect((await events.next()).event).toBe('account.expired');
    events.close();
  });

  it('getWallet and setWallet read and set the balance a connect pays from', async () => {
    const workspace = await freshWorkspace({ fixtures: false });
    const wallet = await workspace.getWallet();
    expect(wallet).toMatchObject({ plan: 'payg', currency: 'USD', balanceCents: expect.any(Number) });
    expect((await workspace.setWallet({ balanceCents: 400 })).balanceCents).toBe(400);
    expect((await workspace.getWallet()).balanceCents).toBe(400);
  });
});

describe('state and scenarios', () => {
  it('resetWorkspace returns the workspace to its start', async () => {
    const workspace = await freshWorkspace({ fixtures: false });
    await api(workspace, 'POST', '/profiles', { name: 'Studio North' });
    await workspace.advanceClock({ by: 'PT3H' });
    const summary = await workspace.resetWorkspace();
    expect(summary.clock.now).toBe(TEST_CLOCK);
    expect((await api(workspace, 'GET', '/profiles')).body.data.map((profile: { name: string }) => profile.name)).not.toContain('Studio North');
  });

  it('putState restores what getState took, into the same or another workspace', async () => {
    const workspace = await freshWorkspace({ fixtures: false });
    const snapshot = await workspace.getState();
    expect(snapshot).toMatchObject({ format: 'social-gateway-mock/workspace', version: 1, takenAt: TEST_CLOCK });
    await api(workspace, 'POST', '/profiles', { name: 'Later' });
    await workspace.putState(snapshot);
    expect((await api(workspace, 'GET', '/profiles')).body.data.map((profile: { name: string }) => profile.name)).not.toContain('Later');

    await api(workspace, 'POST', '/profiles', { name: 'Carried over' });
    const other = await freshWorkspace({ fixtures: false });
    await other.putState(await workspace.getState());
    expect((await api(other, 'GET', '/profiles')).body.data.map((profile: { name: string }) => profile.name)).toContain('Carried over');

    const error = await controlError(() => other.putState({ ...snapshot, version: 2 as 1 }));
    expect(error).toMatchObject({ status: 400 });
  });

  it('listScenarios and loadScenario load a ready-made scenario, and throw INVALID_SCENARIO for a bad one', async () => {
    const workspace = await freshWorkspace({ fixtures: false });
    const list = await workspace.listScenarios();
    expect(list.available.map((scenario) => scenario.name)).toContain('rate-limit-exhaustion');
    expect(list.loaded).toBeUndefined();

    const loaded = await workspace.loadScenario({ name: 'rate-limit-exhaustion' });
    expect(loaded.scenario.name).toBe('rate-limit-exhaustion');
    expect((await workspace.listScenarios()).loaded?.name).toBe('rate-limit-exhaustion');

    const error = await controlError(() => workspace.loadScenario({ name: 'no-such-scenario' }));
    expect(error).toMatchObject({ status: 400, code: 'INVALID_SCENARIO', param: 'name' });
  });

  it('addRule, listRules and removeRule break one call now, count its hits, and throw INVALID_SCENARIO naming the field', async () => {
    const workspace = await freshWorkspace({ fixtures: false });
    const rule = await workspace.addRule({ match: { operationId: 'listPosts' }, then: { fault: { status: 503, body: 'empty' } }, times: 1 });
    expect(rule).toMatchObject({ id: 'rule-1', source: 'runtime', phase: 'armed', remaining: 1 });
    expect((await fetch(`${mock.url}/v1/posts`, { headers: { 'x-api-key': workspace.apiKey ?? '' } })).status).toBe(503);
    expect((await workspace.listRules()).data).toEqual([expect.objectContaining({ id: 'rule-1', fired: 1, phase: 'exhausted' })]);
    expect(await workspace.removeRule('rule-1')).toMatchObject({ id: 'rule-1', fired: 1 });
    expect((await workspace.listRules()).data).toEqual([]);

    const error = await controlError(() => workspace.addRule({ then: { fault: { status: 418 } } }));
    expect(error).toMatchObject({ status: 400, code: 'INVALID_SCENARIO', param: 'then.fault.status' });
    expect(await controlError(() => workspace.removeRule('rule-1'))).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });
});

describe('getCoverage', () => {
  it('counts the workspace traffic as JSON, or as Markdown tables', async () => {
    const workspace = await freshWorkspace({ fixtures: false });
    await api(workspace, 'GET', '/connections');
    const report = await workspace.getCoverage({ scope: 'workspace' });
    expect(report).toMatchObject({ scope: 'workspace', operations: { exercised: 1 } });
    expect(report.byOperation.find((operation) => operation.operationId === 'listConnections')?.calls).toBe(1);
    expect(await workspace.getCoverage({ scope: 'workspace', format: 'markdown' })).toMatch(/^# Contract coverage/);
  });
});

describe('a server with --control-token', () => {
  const guarded = useMock({ controlToken: 'let-me-in', fixtures: false }, { listen: true });

  it('refuses a client without the token with 401 UNAUTHORIZED, and takes one with it', async () => {
    const error = await controlError(() => createControlClient({ baseUrl: guarded.url }).getClock());
    expect(error).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    const client = createControlClient({ baseUrl: guarded.url, controlToken: 'let-me-in' });
    const { apiKey } = await client.createWorkspace({ fixtures: false });
    // forWorkspace keeps the token.
    expect((await client.forWorkspace(apiKey).getClock()).now).toBe(TEST_CLOCK);
  });
});

describe('listWorkspaces and deleteWorkspace', () => {
  it('lists a new workspace, deletes it, and throws 404 and 409 as the envelope says', async () => {
    const created = await control.createWorkspace({ fixtures: false });
    const listed = await control.listWorkspaces();
    expect(listed.data.map((row) => row.workspaceId)).toEqual(expect.arrayContaining(['ws_default', created.workspaceId]));
    expect(listed.data.find((row) => row.workspaceId === created.workspaceId)).toMatchObject({ default: false, plan: 'payg', pendingJobs: 0 });

    expect(await control.deleteWorkspace(created.workspaceId)).toEqual({ workspaceId: created.workspaceId, deleted: true, released: { pendingJobs: 0, eventStreams: 0 } });
    expect((await control.listWorkspaces()).data.map((row) => row.workspaceId)).not.toContain(created.workspaceId);
    expect((await api(control.forWorkspace(created.apiKey), 'GET', '/posts')).status).toBe(401);
    expect(await controlError(() => control.deleteWorkspace(created.workspaceId))).toMatchObject({ status: 404, code: 'NOT_FOUND', param: 'id', operationId: 'deleteWorkspace' });
    expect(await controlError(() => control.deleteWorkspace('ws_default'))).toMatchObject({ status: 409, code: 'CONFLICT', operationId: 'deleteWorkspace' });
  });

  it('forks a workspace with createWorkspace({ from })', async () => {
    const source = await control.createWorkspace({ fixtures: false, clock: { start: '2026-06-01T00:00:00Z', frozen: true } });
    const fork = await control.createWorkspace({ from: source.workspaceId });
    expect(fork.workspaceId).not.toBe(source.workspaceId);
    expect(fork.clock.now).toBe('2026-06-01T00:00:00.000Z');
    expect(await controlError(() => control.createWorkspace({ from: 'ws_000000000000' }))).toMatchObject({ status: 404, code: 'NOT_FOUND', param: 'from' });
  });
});
