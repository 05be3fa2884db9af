import { describe, expect, it } from 'vitest';
import { expectApiError, expectStatus, useMock } from '../helpers/mock.js';
import { accountOn, advance, asText, journalOf, workspaceWith } from '../helpers/scenarios.js';

const mock = useMock();

/** A scenario of one rule, in YAML. */
function oneRule(match: string, then: string, extra = ''): string {
  return `rules:\n  - id: the-rule\n    match: ${match}\n    then: ${then}\n${extra}`;
}

/** Declared by every operation, so a rule may answer it anywhere; the message tells it from a real one. */
const SCRIPTED = '{ error: { status: 400, code: VALIDATION_ERROR, message: Scripted. } }';

async function intercepted(key: string): Promise<Array<string | null>> {
  return (await journalOf(mock, key)).map((line) => line.matchedRule);
}

describe('scenario rule matchers', () => {
  describe('operationId', () => {
    it('intercepts only the named operations', async () => {
      const { key } = await workspaceWith(mock, oneRule('{ operationId: getAccount }', SCRIPTED));
      const id = await accountOn(mock, key, 'twitter');
      expectApiError(await mock.call('get', `/v1/accounts/${id}`, key), 400, 'VALIDATION_ERROR');
      expectStatus(await mock.call('get', '/v1/accounts', key), 200);
      expect(await intercepted(key)).toEqual(['the-rule', null]);
    });
  });

  describe('method and path', () => {
    it.each([
      ['a glob', '/v1/accounts/*'],
      ['a template', '/v1/accounts/{id}'],
    ])('matches %s against the request path', async (_kind, path) => {
      const { key } = await workspaceWith(mock, oneRule(`{ method: GET, path: '${path}' }`, SCRIPTED));
      const id = await accountOn(mock, key, 'bluesky');
      expectApiError(await mock.call('get', `/v1/accounts/${id}`, key), 400, 'VALIDATION_ERROR');
      expectStatus(await mock.call('get', '/v1/accounts', key), 200);
      expect((await mock.call('delete', '/v1/profiles/unknown', key)).body.error.message).not.toBe('Scripted.');
    });

    it('never touches an unknown route or the control plane', async () => {
      const { key } = await workspaceWith(mock, oneRule("{ path: '/v1/**' }", '{ drop: true }'));
      expectApiError(await mock.call('get', '/v1/nothing-here', key), 404, 'NOT_FOUND');
      expectStatus(await mock.control('get', '/__control/clock', key), 200);
    });
  });

  describe('account', () => {
    it('reads the account from the path, by platform name', async () => {
      const { key } = await workspaceWith(mock, oneRule('{ account: tiktok }', SCRIPTED));
      const tiktok = await accountOn(mock, key, 'tiktok');
      const reddit = await accountOn(mock, key, 'reddit');
      expectApiError(await mock.call('get', `/v1/accounts/${tiktok}`, key), 400, 'VALIDATION_ERROR');
      expectStatus(await mock.call('get', `/v1/accounts/${reddit}`, key), 200);
    });

    it('reads the account from a body destinations[].connectionId', async () => {
      const { key } = await workspaceWith(mock, oneRule('{ account: twitter, operationId: createPost }', '{ error: { status: 429, code: VELOCITY_LIMITED, details: { window: hour } } }'));
      const twitter = await accountOn(mock, key, 'twitter');
      const bluesky = await accountOn(mock, key, 'bluesky');
      const hit = await mock.call('post', '/v1/posts', key).send({ text: 'Hello', destinations: [{ connectionId: bluesky }, { connectionId: twitter }] });
      expectApiError(hit, 429, 'VELOCITY_LIMITED');
      // Filled as the real cap answers, for the account the rule matched (decision 0049).
      expect(hit.body.error).toMatchObject({ param: 'destinations[1].connectionId', details: { accountId: twitter, platform: 'twitter', window: 'hour', limit: 25 } });
      expect(hit.headers['retry-after']).toBe(String(hit.body.error.details.retryAfterSeconds));
      const miss = await mock.call('post', '/v1/posts', key).send({ text: 'Hello', destinations: [{ connectionId: bluesky }] });
      expect(miss.status).not.toBe(429);
      expect(await intercepted(key)).toEqual(['the-rule', null]);
    });

    it('reads the account from a query accountId', async () => {
      const { key } = await workspaceWith(mock, oneRule('{ account: instagram }', SCRIPTED));
      const instagram = await accountOn(mock, key, 'instagram');
      const facebook = await accountOn(mock, key, 'facebook');
      expect((await mock.call('get', `/v1/inbox/conversations?accountId=${instagram}`, key)).body.error.message).toBe('Scripted.');
      expect((await mock.call('get', `/v1/inbox/conversations?accountId=${facebook}`, key)).status).toBe(200);
    });

    it('refuses a scenario naming an account the workspace lacks, with its line', async () => {
      const res = await mock.control('post', '/__control/workspaces').send({ fixtures: false, scenario: oneRule('{ account: tiktok }', SCRIPTED) });
      expectApiError(res, 400, 'INVALID_SCENARIO', 'scenario');
      expect(res.body.error.message).toMatch(/^<inline>:3:23: rules\[0\]\.match\.account: no account "tiktok": the workspace has no accounts/);
    });
  });

  describe('platform', () => {
    it('matches the network of the request’s account', async () => {
      const { key } = await workspaceWith(mock, oneRule('{ platform: [youtube, pinterest] }', SCRIPTED));
      expectApiError(await mock.call('get', `/v1/accounts/${await accountOn(mock, key, 'youtube')}`, key), 400, 'VALIDATION_ERROR');
      expectApiError(await mock.call('get', `/v1/accounts/${await accountOn(mock, key, 'pinterest')}`, key), 400, 'VALIDATION_ERROR');
      expectStatus(await mock.call('get', `/v1/accounts/${await accountOn(mock, key, 'threads')}`, key), 200);
    });
  });

  describe('nth and every', () => {
    it('nth fires on that matching call only', async () => {
      const { key } = await workspaceWith(mock, oneRule('{ operationId: listProfiles, nth: 2 }', '{ error: { status: 429, code: RATE_LIMITED } }'));
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await mock.call('get', '/v1/profiles', key)).status);
      expect(statuses).toEqual([200, 429, 200, 200]);
    });

    it('every fires on each nth matching call, counting only matching calls', async () => {
      const { key } = await workspaceWith(mock, oneRule('{ operationId: listProfiles, every: 3 }', '{ error: { status: 429, code: RATE_LIMITED } }'));
      const statuses = [];
      for (let i = 0; i < 7; i++) {
        statuses.push((await mock.call('get', '/v1/profiles', key)).status);
        await mock.call('get', '/v1/connections', key);
      }
      expect(statuses).toEqual([200, 200, 429, 200, 200, 429, 200]);
    });
  });

  describe('a window of virtual time', () => {
    it('fires only from its start until its end, relative to the load', async () => {
      const { key } = await workspaceWith(mock, oneRule('{ operationId: listProfiles, window: { from: PT1H, until: PT2H } }', SCRIPTED));
      expectStatus(await mock.call('get', '/v1/profiles', key), 200);
      await advance(mock, key, 'PT1H');
      expectApiError(await mock.call('get', '/v1/profiles', key), 400, 'VALIDATION_ERROR');
      await advance(mock, key, 'PT59M59S');
      expectApiError(await mock.call('get', '/v1/profiles', key), 400, 'VALIDATION_ERROR');
      await advance(mock, key, 'PT1S');
      expectStatus(await mock.call('get', '/v1/profiles', key), 200);
    });

    it('takes absolute instants too', async () => {
      const { key } = await workspaceWith(mock, oneRule("{ operationId: listProfiles, window: { until: '2026-03-02T09:30:00Z' } }", SCRIPTED), { clock: { start: '2026-03-02T09:00:00Z', frozen: true } });
      expectApiError(await mock.call('get', '/v1/profiles', key), 400, 'VALIDATION_ERROR');
      await advance(mock, key, 'PT30M');
      expectStatus(await mock.call('get', '/v1/profiles', key), 200);
    });
  });

  describe('probability', () => {
    const flaky = (seed: number) => `seed: ${seed}\n${oneRule('{ operationId: listProfiles, probability: 0.5 }', '{ error: { status: 429, code: RATE_LIMITED } }')}`;
    async function outcomes(key: string): Promise<number[]> {
      const statuses = [];
      for (let i = 0; i < 40; i++) statuses.push((await mock.call('get', '/v1/profiles', key)).status);
      return statuses;
    }

    it('draws the same outcomes from the same seed, and others from another seed', async () => {
      const first = await outcomes((await workspaceWith(mock, flaky(5))).key);
      const again = await outcomes((await workspaceWith(mock, flaky(5))).key);
      const other = await outcomes((await workspaceWith(mock, flaky(6))).key);
      expect(again).toEqual(first);
      expect(other).not.toEqual(first);
      const limited = first.filter((status) => status === 429).length;
      expect(limited).toBeGreaterThan(10);
      expect(limited).toBeLessThan(30);
    });
  });

  describe('scenario state', () => {
    it('moves through declared states as rules fire, and rules match on them', async () => {
      const yaml = [
        'states: [calm, storm]',
        'rules:',
        '  - id: trigger',
        '    match: { operationId: createProfile, state: calm }',
        '    then: { state: storm }',
        '  - id: storm-reads',
        '    match: { operationId: listProfiles, state: storm }',
        `    then: ${SCRIPTED}`,
        'timeline:',
        '  - { at: PT1H, do: state, to: calm }',
      ].join('\n');
      const { key } = await workspaceWith(mock, yaml);
      expectStatus(await mock.call('get', '/v1/profiles', key), 200);
      // The state-only rule lets the real request through, and moves the scenario.
      expectStatus(await mock.call('post', '/v1/profiles', key).send({ name: 'Storm chasers' }), 201);
      expectApiError(await mock.call('get', '/v1/profiles', key), 400, 'VALIDATION_ERROR');
      expect((await mock.control('get', '/__control/scenarios', key)).body.loaded.state).toBe('storm');
      await advance(mock, key, 'PT1H');
      expectStatus(await mock.call('get', '/v1/profiles', key), 200);
      expect(await journalOf(mock, key)).toMatchObject([
        { matchedRule: null, effect: null },
        { matchedRule: 'trigger', effect: 'state', status: 201 },
        { matchedRule: 'storm-reads', effect: 'error', status: 400 },
        { matchedRule: null, effect: null },
      ]);
    });
  });

  describe('times', () => {
    it('fires that many times, then lets requests pass and says it is exhausted', async () => {
      const { key } = await workspaceWith(mock, oneRule('{ operationId: listProfiles }', '{ error: { status: 429, code: RATE_LIMITED } }', '    times: 2\n'));
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await mock.call('get', '/v1/profiles', key)).status);
      expect(statuses).toEqual([429, 429, 200, 200]);
      const { body } = await mock.control('get', '/__control/scenarios', key);
      expect(body.loaded.rules).toEqual([{ id: 'the-rule', description: null, phase: 'exhausted', seen: 2, fired: 2, times: 2 }]);
    });
  });

  it('tries rules in order: the first that fires answers, later ones never see the request', async () => {
    const yaml = [
      'rules:',
      '  - id: first',
      '    match: { operationId: listProfiles, every: 2 }',
      `    then: ${SCRIPTED}`,
      '  - id: second',
      '    match: { operationId: listProfiles }',
      '    then: { error: { status: 429, code: RATE_LIMITED } }',
    ].join('\n');
    const { key } = await workspaceWith(mock, yaml);
    for (let i = 0; i < 4; i++) await mock.call('get', '/v1/profiles', key);
    expect(await intercepted(key)).toEqual(['second', 'first', 'second', 'first']);
    const { body } = await mock.control('get', '/__control/scenarios', key);
    expect(body.loaded.rules.map((rule: { seen: number; fired: number }) => [rule.seen, rule.fired])).toEqual([
      [4, 2],
      [2, 2],
    ]);
  });
});

describe('scenario rule effects', () => {
  it('answers an error in the nested envelope with its code, message, param, details and headers', async () => {
    const { key } = await workspaceWith(mock, oneRule('{ operationId: createProfile }', "{ error: { status: 409, code: CONFLICT, message: 'Taken.', param: name, details: { hint: 2 }, headers: { X-Scenario: yes } } }"));
    const before = await mock.call('get', '/v1/profiles', key);
    const res = await mock.call('post', '/v1/profiles', key).send({ name: 'New one' });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: { code: 'CONFLICT', message: 'Taken.', param: 'name', details: { hint: 2 } } });
    expect(res.headers['x-scenario']).toBe('yes');
    // The handler never ran: nothing changed.
    expect((await mock.call('get', '/v1/profiles', key)).body).toEqual(before.body);
  });

  it('answers RATE_LIMITED in the flat envelope, Retry-After counting down to the window’s end', async () => {
    const { key } = await workspaceWith(mock, oneRule('{ window: { until: PT30S } }', '{ error: { status: 429, code: RATE_LIMITED, details: { limit: 60 } } }', 'plan: free\n'));
    const first = await mock.call('get', '/v1/connections', key);
    expect(first.status).toBe(429);
    expect(first.body).toEqual({ error: "The workspace's per-minute request budget of 60 is used up; retry after 30 s.", code: 'RATE_LIMITED', details: { currentCount: 60, limit: 60, retryAfterSeconds: 30 } });
    expect(first.headers['x-ratelimit-remaining']).toBe('0');
    expect(first.headers['retry-after']).toBe('30');
    await advance(mock, key, 'PT20S');
    const later = await mock.call('get', '/v1/connections', key);
    expect(later.body.details.retryAfterSeconds).toBe(10);
    expect(later.headers['retry-after']).toBe('10');
    await advance(mock, key, 'PT10S');
    expectStatus(await mock.call('get', '/v1/connections', key), 200);
  });

  it('adds real latency, then answers for real', async () => {
    const { key } = await workspaceWith(mock, oneRule('{ operationId: listProfiles }', '{ latencyMs: 150 }'));
    const started = performance.now();
    expectStatus(await mock.call('get', '/v1/profiles', key), 200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(145);
    const [line] = await mock.control('get', '/__control/journal', key).then((res) => res.body.data as Array<{ durationMs: number; effect: string }>);
    expect(line?.effect).toBe('latency');
    expect(line?.durationMs).toBeGreaterThanOrEqual(145);
  });

  it('combines latency with an error', async () => {
    const { key } = await workspaceWith(mock, oneRule('{ operationId: listProfiles }', `{ latencyMs: 60, error: { status: 429, code: RATE_LIMITED } }`));
    const started = performance.now();
    expect((await mock.call('get', '/v1/profiles', key)).status).toBe(429);
    expect(performance.now() - started).toBeGreaterThanOrEqual(55);
  });

  it.each([
    ['drops', '{ drop: true }', 'drop'],
    ['resets', '{ reset: true }', 'reset'],
  ])('%s the connection without an answer, and journals it as status 0', async (_verb, then, effect) => {
    const { key } = await workspaceWith(mock, oneRule('{ operationId: listProfiles }', then));
    await expect(mock.call('get', '/v1/profiles', key)).rejects.toThrow(/socket hang up|ECONNRESET/);
    await expect.poll(() => journalOf(mock, key)).toMatchObject([{ status: 0, errorCode: null, matchedRule: 'the-rule', effect }]);
  });

  it('answers 200 with a body that is not JSON, without running the handler', async () => {
    const { key } = await workspaceWith(mock, oneRule('{ operationId: createProfile }', '{ malformed: true }'));
    const res = await asText(mock.call('post', '/v1/profiles', key).send({ name: 'Ghost' }));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(() => JSON.parse(res.body as string)).toThrow(SyntaxError);
    expect((await mock.call('get', '/v1/profiles', key)).body.data.map((p: { name: string }) => p.name)).not.toContain('Ghost');
  });

  it('sends the body it is given as the broken one', async () => {
    const { key } = await workspaceWith(mock, oneRule('{ operationId: listProfiles }', "{ malformed: { body: '{\"data\": [1, 2' } }"));
    expect((await asText(mock.call('get', '/v1/profiles', key))).body).toBe('{"data": [1, 2');
  });

  it('answers for real with values of the open enumerations clients have never seen, still inside the contract', async () => {
    const { key } = await workspaceWith(mock, oneRule('{ operationId: [listConnections, getAccount, listAccounts] }', '{ unknownValues: { platform: mastodon, accountStatus: suspended } }'));
    const connections = (await mock.call('get', '/v1/connections', key)).body.connections as Array<{ platform: string; status: string; id: string }>;
    expect(connections).toHaveLength(10);
    expect(new Set(connections.map((c) => c.platform))).toEqual(new Set(['mastodon']));
    expect(new Set(connections.map((c) => c.status))).toEqual(new Set(['suspended']));
    const account = await mock.call('get', `/v1/accounts/${connections[0]?.id}`, key);
    expect(account.body).toMatchObject({ platform: 'mastodon', status: 'suspended' });
    const page = await mock.call('get', '/v1/accounts?limit=3', key);
    expect(page.body.data.map((a: { platform: string }) => a.platform)).toEqual(['mastodon', 'mastodon', 'mastodon']);
    // Only the answer changed: the stored accounts keep their real values.
    expectStatus(await mock.control('get', '/__control/state', key), 200);
    const state = (await mock.control('get', '/__control/state', key)).body.workspace.stores.accounts.accounts as Record<string, { platform: string }>;
    expect(Object.values(state).map((a) => a.platform)).not.toContain('mastodon');
    // Closing the mock (useMock does, after the file) fails on any contract violation: the rewritten answers validated.
  });

  it('rewrites only the answers it matches: ids stay real, and a post to one goes out on its real network', async () => {
    const { key } = await workspaceWith(mock, oneRule('{ operationId: listConnections }', '{ unknownValues: { platform: mastodon } }'));
    const before = (await mock.control('get', '/__control/state', key)).body.workspace.stores.accounts.accounts as Record<string, { platform: string }>;
    const connections = (await mock.call('get', '/v1/connections', key)).body.connections as Array<{ platform: string; id: string }>;
    const bluesky = Object.entries(before).find(([, account]) => account.platform === 'bluesky')?.[0];
    expect(connections.map((c) => c.id)).toContain(bluesky);
    expect(connections.find((c) => c.id === bluesky)?.platform).toBe('mastodon');
    // bluesky's own limit (300) applies, not a made-up network's.
    expectApiError(await mock.call('post', '/v1/posts', key).send({ text: 'x'.repeat(301), destinations: [{ connectionId: bluesky }] }), 400, 'TEXT_TOO_LONG');
    const created = await mock.call('post', '/v1/posts', key).send({ text: 'Hello', destinations: [{ connectionId: bluesky }] });
    expectStatus(created, 201);
    expect(created.body.post.destinations[0].platform).toBe('bluesky');
    expect((await mock.call('get', `/v1/posts/${created.body.post.id}`, key)).body.post.destinations[0].platform).toBe('bluesky');
  });
});
