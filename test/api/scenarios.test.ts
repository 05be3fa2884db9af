import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { packagePath } from '../../src/lib/package-root.js';
import { expectApiError, expectStatus, useMock } from '../helpers/mock.js';
import { accountOn, advance, journalOf, scenarioJobs, scenarioSteps, workspaceWith } from '../helpers/scenarios.js';

const mock = useMock();

const READY_MADE = readdirSync(packagePath('scenarios'))
  .filter((file) => file.endsWith('.yaml'))
  .map((file) => file.replace('.yaml', ''))
  .sort();

describe('GET /__control/scenarios', () => {
  it('lists the ready-made scenarios, and the loaded one with its rules’ counters', async () => {
    const { key } = await workspaceWith(mock, 'rate-limit-exhaustion');
    const res = await mock.control('get', '/__control/scenarios', key);
    expectStatus(res, 200);
    expect(res.body.available.map((s: { name: string }) => s.name)).toEqual(READY_MADE);
    expect(res.body.available.find((s: { name: string }) => s.name === 'network-outage').description).toBe('The short-video network (tiktok) goes down for half an hour, an hour in.');
    expect(res.body.loaded).toEqual({
      name: 'rate-limit-exhaustion',
      description: expect.stringMatching(/^The workspace's request budget runs out/),
      loadedAt: '2026-03-02T09:00:00.000Z',
      states: [],
      state: null,
      rules: [{ id: 'budget-exhausted', description: 'Every call inside the window is over budget.', phase: 'armed', seen: 0, fired: 0, times: null }],
      timelineSteps: 0,
    });
  });

  it('has no loaded scenario in a plain workspace', async () => {
    const { body } = await mock.control('post', '/__control/workspaces').send({});
    expect((await mock.control('get', '/__control/scenarios', body.apiKey)).body.loaded).toBeUndefined();
  });
});

describe('POST /__control/scenarios', () => {
  it('starts the workspace afresh from a ready-made scenario', async () => {
    const { body } = await mock.control('post', '/__control/workspaces').send({});
    await mock.call('post', '/v1/profiles', body.apiKey).send({ name: 'Before the scenario' });
    await advance(mock, body.apiKey, 'PT10H');
    const res = await mock.control('post', '/__control/scenarios', body.apiKey).send({ name: 'network-outage' });
    expectStatus(res, 200);
    expect(res.body).toMatchObject({
      workspaceId: body.workspaceId,
      scenario: { name: 'network-outage', timelineSteps: 1 },
      clock: { now: '2026-03-02T09:00:00.000Z', frozen: true },
    });
    expect(scenarioJobs(mock, body.apiKey)).toEqual(['2026-03-02T10:00:00.000Z']);
    expect(await journalOf(mock, body.apiKey)).toEqual([]);
    expect((await mock.call('get', '/v1/profiles', body.apiKey)).body.data.map((p: { name: string }) => p.name)).not.toContain('Before the scenario');
  });

  it('loads a scenario given as YAML', async () => {
    const { body } = await mock.control('post', '/__control/workspaces').send({});
    const res = await mock.control('post', '/__control/scenarios', body.apiKey).send({ yaml: 'name: tiny\nplan: free\nrules:\n  - { id: slow, then: { latencyMs: 1 } }\n' });
    expectStatus(res, 200);
    expect(res.body.scenario.name).toBe('tiny');
    expect((await mock.control('post', '/__control/reset', body.apiKey)).body).toMatchObject({ plan: 'free', scenario: 'tiny' });
  });

  it('builds each scenario on the workspace’s own start, not on the previous scenario’s choices', async () => {
    const { body } = await mock.control('post', '/__control/workspaces').send({ plan: 'payg' });
    await mock.control('post', '/__control/scenarios', body.apiKey).send({ name: 'rate-limit-exhaustion' });
    expect((await mock.control('post', '/__control/reset', body.apiKey)).body.plan).toBe('free');
    const res = await mock.control('post', '/__control/scenarios', body.apiKey).send({ yaml: 'rules:\n  - { id: slow, then: { latencyMs: 1 } }\n' });
    expectStatus(res, 200);
    expect((await mock.control('post', '/__control/reset', body.apiKey)).body.plan).toBe('payg');
  });

  describe('when the scenario cannot be used', () => {
    it.each([
      [{ name: 'no-such-scenario' }, 'name', /^no scenario named "no-such-scenario" \(ready-made: external-posts-import, flaky-network, /],
      [{ yaml: 'rules:\n  - id: a\n    then: { latencyMs: -5 }\n' }, 'yaml', /^<inline>:3:24: rules\[0\]\.then\.latencyMs: must be >= 0; got -5$/],
      [{ yaml: 'timeline:\n  - { at: PT1H, do: account.expire, account: mastodon }\n' }, 'yaml', /^<inline>:2:46: timeline\[0\]\.account: no account "mastodon" in the workspace/],
    ])('answers 400 INVALID_SCENARIO naming where and why (%j), and changes nothing', async (body, param, message) => {
      const { key } = await workspaceWith(mock, 'open-enumerations');
      await mock.call('get', '/v1/connections', key);
      const before = (await mock.control('get', '/__control/state', key)).text;
      const journal = await journalOf(mock, key);
      const res = await mock.control('post', '/__control/scenarios', key).send(body);
      expectApiError(res, 400, 'INVALID_SCENARIO', param);
      expect(res.body.error.message).toMatch(message);
      if ('yaml' in body) expect(res.body.error.details).toMatchObject({ file: '<inline>', line: expect.any(Number), column: expect.any(Number), field: expect.any(String), reason: expect.any(String) });
      expect((await mock.control('get', '/__control/state', key)).text).toBe(before);
      expect(await journalOf(mock, key)).toEqual(journal);
    });

    it('refuses a body with both a name and YAML', async () => {
      expectApiError(await mock.control('post', '/__control/scenarios').send({ name: 'network-outage', yaml: 'a: 1' }), 400, 'VALIDATION_ERROR');
    });
  });
});

describe('POST /__control/workspaces with a scenario', () => {
  it('creates the workspace from it, the body’s own choices winning', async () => {
    const res = await mock.control('post', '/__control/workspaces').send({ scenario: 'rate-limit-exhaustion', plan: 'payg' });
    expectStatus(res, 201);
    expect(res.body).toMatchObject({ plan: 'payg', seed: 101, scenario: 'rate-limit-exhaustion', clock: { now: '2026-03-02T09:00:00.000Z', frozen: true } });
  });

  it('makes no workspace from a broken scenario', async () => {
    const workspaces = (await mock.control('get', '/__control/health')).body.workspaces;
    const res = await mock.control('post', '/__control/workspaces').send({ scenario: 'rules:\n  - id: a\n    then: {}\n' });
    expectApiError(res, 400, 'INVALID_SCENARIO', 'scenario');
    expect(res.body.error.message).toBe('<inline>:3:11: rules[0].then: must NOT have fewer than 1 properties; got a mapping');
    expect((await mock.control('get', '/__control/health')).body.workspaces).toBe(workspaces);
  });
});

describe('the world a scenario sets up', () => {
  it('changes accounts named by platform or id, and adds posts that went out before it started', async () => {
    const { body } = await mock.control('post', '/__control/workspaces').send({ clock: { start: '2026-03-02T09:00:00Z', frozen: true } });
    const key = body.apiKey as string;
    // Loading starts the workspace afresh from the same seed and id: the fixture ids stay the same.
    const twitter = await accountOn(mock, key, 'twitter');
    const yaml = [
      'accounts:',
      '  - { account: tiktok, status: expired, tokenExpiresAt: -PT1H }',
      `  - { account: ${twitter}, status: revoked, authHealth: healthy, canAutoRenew: false, tokenExpiresAt: null }`,
      'posts:',
      "  - { to: [bluesky, twitter], at: -PT30M, count: 3, spacing: PT5M, text: 'Hello from the scenario' }",
      "  - { to: tiktok, at: '2026-03-02T08:00:00Z', status: failed, media: video, text: Never out, error: { code: PLATFORM_ERROR, message: Upload rejected. } }",
    ].join('\n');
    expectStatus(await mock.control('post', '/__control/scenarios', key).send({ yaml }), 200);
    expect(await accountOn(mock, key, 'twitter')).toBe(twitter);

    const tiktok = await accountOn(mock, key, 'tiktok');
    expect((await mock.call('get', `/v1/accounts/${tiktok}`, key)).body).toMatchObject({ status: 'expired', authHealth: 'action_required', tokenExpiresAt: '2026-03-02T08:00:00.000Z' });
    expect((await mock.call('get', `/v1/accounts/${twitter}`, key)).body).toMatchObject({ status: 'revoked', authHealth: 'healthy', canAutoRenew: false, tokenExpiresAt: null });

    const posts = Object.values((await mock.control('get', '/__control/state', key)).body.workspace.stores.posts.posts as Record<string, Record<string, unknown>>);
    const greetings = posts.filter((post) => post['text'] === 'Hello from the scenario').sort((a, b) => String(a['createdAt']).localeCompare(String(b['createdAt'])));
    expect(greetings.map((post) => post['createdAt'])).toEqual(['2026-03-02T08:30:00.000Z', '2026-03-02T08:35:00.000Z', '2026-03-02T08:40:00.000Z']);
    expect(greetings[0]).toMatchObject({
      status: 'published',
      source: 'api',
      mediaKind: 'text',
      destinations: [
        { platform: 'bluesky', status: 'published', publishedAt: '2026-03-02T08:30:00.000Z', externalPostId: expect.stringMatching(/^at:\/\//), errorCode: null },
        { platform: 'twitter', connectionId: twitter, status: 'published', externalUrl: expect.stringMatching(/^https:\/\/x\.example\//) },
      ],
    });
    const failed = posts.find((post) => post['text'] === 'Never out');
    expect(failed).toMatchObject({
      status: 'failed',
      createdAt: '2026-03-02T08:00:00.000Z',
      mediaUrls: [expect.stringMatching(/\.mp4$/)],
      destinations: [{ platform: 'tiktok', status: 'failed', errorCode: 'PLATFORM_ERROR', errorMessage: 'Upload rejected.', externalPostId: null, publishedAt: null }],
    });
  });

  it('refuses a post a network could never have taken, naming its line', async () => {
    const res = await mock.control('post', '/__control/workspaces').send({ scenario: 'posts:\n  - { to: [twitter, youtube], at: -PT1H }\n' });
    expectApiError(res, 400, 'INVALID_SCENARIO', 'scenario');
    expect(res.body.error.message).toBe('<inline>:2:21: posts[0].to[1]: youtube needs media of kind video (the post has text): add "media: video"');
  });
});

describe('the timeline', () => {
  it('runs its steps in time order across kinds on advance, each at its own instant, ties in file order', async () => {
    const yaml = [
      'states: [calm, storm]',
      'timeline:',
      '  - { at: PT3H, do: network.restore, platform: tiktok }',
      '  - { at: PT1H, do: account.expire, account: twitter }',
      '  - { at: PT2H, do: state, to: storm }',
      '  - { at: PT1H, do: emit, event: webhook.test, data: { note: tie } }',
      '  - { at: PT2H, do: network.outage, platform: tiktok }',
      '  - { at: PT30M, do: account.revoke, account: pinterest }',
      '  - { at: PT5H, do: emit, event: review.new }',
    ].join('\n');
    const { key } = await workspaceWith(mock, yaml, { clock: { start: '2026-03-02T09:00:00Z', frozen: true } });
    const moved = await advance(mock, key, 'PT4H');
    expect(scenarioSteps(moved.ran as Array<{ kind: string; label: string; dueAt: string; ok: boolean }>).map(({ kind, label, dueAt, ok }) => ({ kind, label, dueAt, ok }))).toEqual([
      { kind: 'scenario.account.revoke', label: 'inline: pinterest account is revoked', dueAt: '2026-03-02T09:30:00.000Z', ok: true },
      { kind: 'scenario.account.expire', label: 'inline: twitter account expires', dueAt: '2026-03-02T10:00:00.000Z', ok: true },
      { kind: 'scenario.emit', label: 'inline: emit webhook.test', dueAt: '2026-03-02T10:00:00.000Z', ok: true },
      { kind: 'scenario.state', label: 'inline: scenario state → storm', dueAt: '2026-03-02T11:00:00.000Z', ok: true },
      { kind: 'scenario.network.outage', label: 'inline: tiktok goes down', dueAt: '2026-03-02T11:00:00.000Z', ok: true },
      { kind: 'scenario.network.restore', label: 'inline: tiktok answers again', dueAt: '2026-03-02T12:00:00.000Z', ok: true },
    ]);
    expect(moved.now).toBe('2026-03-02T13:00:00.000Z');
    // Each step saw the clock at its own due time, not at the end of the advance.
    const twitter = (await mock.call('get', `/v1/accounts/${await accountOn(mock, key, 'twitter')}`, key)).body;
    expect(twitter).toMatchObject({ status: 'expired', authHealth: 'action_required', canAutoRenew: false, tokenExpiresAt: '2026-03-02T10:00:00.000Z', updatedAt: '2026-03-02T10:00:00.000Z' });
    const pinterest = (await mock.call('get', `/v1/accounts/${await accountOn(mock, key, 'pinterest')}`, key)).body;
    expect(pinterest).toMatchObject({ status: 'revoked', updatedAt: '2026-03-02T09:30:00.000Z' });
    expect((await mock.control('get', '/__control/scenarios', key)).body.loaded.state).toBe('storm');
    expect(scenarioJobs(mock, key)).toEqual(['2026-03-02T14:00:00.000Z']);
    // The fixture world's own posts publish and tokens renew meanwhile; only the scenario's events are asserted.
    const emitted = mock.server.registry.byApiKey(key)?.events.recent().map((event) => event.event) ?? [];
    const count = (name: string) => emitted.filter((event) => event === name).length;
    // The scenario's twitter expiry and the fixture world's own expired account; the scenario's one emit.
    expect({ expired: count('account.expired'), test: count('webhook.test') }).toEqual({ expired: 2, test: 1 });
  });
});

describe('two workspaces on one server', () => {
  it('never affect each other: clocks, scenarios, rules, timelines and counters stay apart', async () => {
    const a = await workspaceWith(mock, 'rate-limit-exhaustion');
    const b = await workspaceWith(mock, 'network-outage', { clock: { start: '2030-06-01T00:00:00Z', frozen: true } });
    // Interleaved traffic: only A's rule answers A, and B never sees it.
    expect((await mock.call('get', '/v1/connections', a.key)).status).toBe(429);
    expect((await mock.call('get', '/v1/connections', b.key)).status).toBe(200);
    expect((await mock.call('get', '/v1/connections', a.key)).status).toBe(429);

    const movedB = await advance(mock, b.key, 'PT1H');
    expect(scenarioSteps(movedB.ran as Array<{ kind: string }>).map((job) => job.kind)).toEqual(['scenario.network.outage']);
    expect((await mock.control('get', '/__control/clock', a.key)).body).toMatchObject({ now: '2026-03-02T09:00:00.000Z', frozen: true });
    expect(scenarioJobs(mock, a.key)).toEqual([]);
    expect((await mock.control('get', '/__control/clock', b.key)).body.now).toBe('2030-06-01T01:00:00.000Z');

    // B's outage is B's: A's tiktok reads are not touched.
    const tiktokA = await accountOn(mock, a.key, 'tiktok');
    const tiktokB = await accountOn(mock, b.key, 'tiktok');
    expectApiError(await mock.call('get', `/v1/connections/${tiktokB}/stats`, b.key), 502, 'PLATFORM_ERROR');
    await advance(mock, a.key, 'PT30S');
    expect((await mock.call('get', `/v1/connections/${tiktokA}/stats`, a.key)).status).not.toBe(502);

    const rulesA = (await mock.control('get', '/__control/scenarios', a.key)).body.loaded.rules;
    expect(rulesA).toEqual([expect.objectContaining({ id: 'budget-exhausted', seen: 2, fired: 2 })]);
    expect((await mock.control('get', '/__control/scenarios', b.key)).body.loaded).toMatchObject({ name: 'network-outage', rules: [] });
    expect((await journalOf(mock, a.key)).map((line) => line.status)).toEqual([429, 429, 200]);
    expect((await journalOf(mock, b.key)).map((line) => line.status)).toEqual([200, 502]);
  });
});
