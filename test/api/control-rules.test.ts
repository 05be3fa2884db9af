import { describe, expect, it } from 'vitest';
import { expectApiError, expectStatus, useMock } from '../helpers/mock.js';
import { accountOn, addRule, advance, freshWorkspace, journalOf, workspaceWith } from '../helpers/scenarios.js';

const mock = useMock();

/** Declared by every operation, so a rule may answer it anywhere; the message tells it from a real one. */
const SCRIPTED = { error: { status: 400, code: 'VALIDATION_ERROR', message: 'Scripted.' } };

/** A fresh workspace of the fixture world, without a scenario. */
async function rulesOf(key: string) {
  const res = await mock.control('get', '/__control/rules', key);
  expectStatus(res, 200);
  return res.body.data as Array<{ id: string; source: string; scenario: string | null; phase: string; seen: number; fired: number; remaining: number | null }>;
}

/** Whether the request was answered by the scripted error rather than for real. */
function scripted(res: { status: number; body: { error?: { message?: string } } }): boolean {
  return res.status === 400 && res.body.error?.message === 'Scripted.';
}

async function intercepted(key: string): Promise<Array<string | null>> {
  return (await journalOf(mock, key)).map((line) => line.matchedRule);
}

describe('POST /__control/rules', () => {
  describe('with a valid rule', () => {
    it('answers 201 with a generated id, and the next matching request meets the rule', async () => {
      const key = await freshWorkspace(mock);
      const first = await addRule(mock, key, { match: { operationId: 'listAccounts' }, then: SCRIPTED });
      const second = await addRule(mock, key, { match: { operationId: 'listProfiles' }, then: SCRIPTED });
      expect([first.id, second.id]).toEqual(['rule-1', 'rule-2']);
      expect(first).toMatchObject({ source: 'runtime', phase: 'armed', seen: 0, fired: 0, times: null, remaining: null });
      expect(scripted(await mock.call('get', '/v1/accounts', key))).toBe(true);
      expectStatus(await mock.call('get', '/v1/connections', key), 200);
      expect(await intercepted(key)).toEqual(['rule-1', null]);
    });

    it('keeps the id it is given', async () => {
      const key = await freshWorkspace(mock);
      expect((await addRule(mock, key, { id: 'fail-accounts', match: { operationId: 'listAccounts' }, then: SCRIPTED })).id).toBe('fail-accounts');
      expect(scripted(await mock.call('get', '/v1/accounts', key))).toBe(true);
      expect(await intercepted(key)).toEqual(['fail-accounts']);
    });

    it('counts a relative window from the moment the rule is added', async () => {
      const key = await freshWorkspace(mock);
      await advance(mock, key, 'PT5H');
      await addRule(mock, key, { match: { operationId: 'listAccounts', window: { from: 'PT1H' } }, then: SCRIPTED });
      expectStatus(await mock.call('get', '/v1/accounts', key), 200);
      await advance(mock, key, 'PT1H');
      expect(scripted(await mock.call('get', '/v1/accounts', key))).toBe(true);
    });

    it('is tried before the scenario rules', async () => {
      const { key } = await workspaceWith(mock, 'rules:\n  - id: from-file\n    match: { operationId: listAccounts }\n    then: { latencyMs: 0 }\n');
      await addRule(mock, key, { id: 'added', match: { operationId: 'listAccounts' }, then: SCRIPTED });
      expect(scripted(await mock.call('get', '/v1/accounts', key))).toBe(true);
      expect(await intercepted(key)).toEqual(['added']);
    });
  });

  describe('with times', () => {
    it('fires N times, then is listed as exhausted and lets requests pass', async () => {
      const key = await freshWorkspace(mock);
      await addRule(mock, key, { id: 'twice', match: { operationId: 'listAccounts' }, then: SCRIPTED, times: 2 });
      expect(scripted(await mock.call('get', '/v1/accounts', key))).toBe(true);
      expect((await rulesOf(key))[0]).toMatchObject({ id: 'twice', phase: 'armed', fired: 1, remaining: 1 });
      expect(scripted(await mock.call('get', '/v1/accounts', key))).toBe(true);
      expectStatus(await mock.call('get', '/v1/accounts', key), 200);
      expect((await rulesOf(key))[0]).toMatchObject({ id: 'twice', phase: 'exhausted', seen: 2, fired: 2, remaining: 0 });
      expect(await intercepted(key)).toEqual(['twice', 'twice', null]);
    });
  });

  describe('with an id another active rule has', () => {
    it('answers 409 CONFLICT for a run-time rule id, and adds nothing', async () => {
      const key = await freshWorkspace(mock);
      await addRule(mock, key, { id: 'mine', then: SCRIPTED });
      expectApiError(await mock.control('post', '/__control/rules', key).send({ id: 'mine', then: { latencyMs: 0 } }), 409, 'CONFLICT', 'id');
      expect((await rulesOf(key)).map((rule) => rule.id)).toEqual(['mine']);
    });

    it("answers 409 CONFLICT for a scenario rule's id", async () => {
      const { key } = await workspaceWith(mock, 'rules:\n  - id: from-file\n    then: { latencyMs: 0 }\n');
      expectApiError(await mock.control('post', '/__control/rules', key).send({ id: 'from-file', then: SCRIPTED }), 409, 'CONFLICT', 'id');
    });
  });

  describe('with a rule that cannot be used', () => {
    it.each([
      ['an unknown effect', { then: { colour: 'red' } }, 'then.colour'],
      ['an unknown operation', { match: { operationId: 'teleport' }, then: SCRIPTED }, 'match.operationId'],
      ['an undeclared error status', { match: { operationId: 'listAccounts' }, then: { error: { status: 418, code: 'TEAPOT' } } }, 'then.error.status'],
      // listConnections is not paged: its x-error-codes hold no INVALID_CURSOR, so no rule may answer it.
      ['an error code the operation does not declare', { match: { operationId: 'listConnections' }, then: { error: { status: 400, code: 'INVALID_CURSOR' } } }, 'then.error.code'],
      ['a state without a scenario', { match: { state: 'storm' }, then: SCRIPTED }, 'match.state'],
      ['an unknown account', { match: { account: 'acct_nope' }, then: SCRIPTED }, 'match.account'],
      ['a bad header expression', { match: { headers: [{ name: 'X-Client', matches: '(' }] }, then: SCRIPTED }, 'match.headers[0].matches'],
      ['a bad body expression', { match: { body: [{ pointer: '/text', matches: '[a-' }] }, then: SCRIPTED }, 'match.body[0].matches'],
      ['a pointer that is not one', { match: { body: [{ pointer: 'text', equals: 'a' }] }, then: SCRIPTED }, 'match.body[0].pointer'],
      ['a path parameter no operation has', { match: { params: { shoeSize: '42' } }, then: SCRIPTED }, 'match'],
      ['a body matcher on operations without a body', { match: { method: 'GET', body: [{ pointer: '/a', equals: 1 }] }, then: SCRIPTED }, 'match'],
    ])('answers 400 INVALID_SCENARIO naming the field (%s), and changes nothing', async (_case, rule, field) => {
      const key = await freshWorkspace(mock);
      await addRule(mock, key, { id: 'kept', then: { latencyMs: 0 } });
      const res = await mock.control('post', '/__control/rules', key).send(rule);
      expectApiError(res, 400, 'INVALID_SCENARIO', field);
      expect(res.body.error.details).toMatchObject({ field });
      expect((await rulesOf(key)).map((active) => active.id)).toEqual(['kept']);
    });

    it('answers 400 VALIDATION_ERROR for a field the body itself cannot have', async () => {
      const key = await freshWorkspace(mock);
      expectApiError(await mock.control('post', '/__control/rules', key).send({ then: SCRIPTED, times: 0 }), 400, 'VALIDATION_ERROR', 'times');
      expect(await rulesOf(key)).toEqual([]);
    });
  });
});

describe('rule matchers added at run time', () => {
  describe('params', () => {
    it('matches a path parameter by the name the contract gives it', async () => {
      const key = await freshWorkspace(mock);
      const tiktok = await accountOn(mock, key, 'tiktok');
      const reddit = await accountOn(mock, key, 'reddit');
      await addRule(mock, key, { match: { params: { id: tiktok } }, then: SCRIPTED });
      expect(scripted(await mock.call('get', `/v1/accounts/${tiktok}`, key))).toBe(true);
      expectStatus(await mock.call('get', `/v1/accounts/${reddit}`, key), 200);
      expectStatus(await mock.call('get', '/v1/accounts', key), 200);
    });

    it('takes a list of values', async () => {
      const key = await freshWorkspace(mock);
      const [tiktok, reddit, bluesky] = await Promise.all(['tiktok', 'reddit', 'bluesky'].map((platform) => accountOn(mock, key, platform)));
      await addRule(mock, key, { match: { operationId: 'getAccount', params: { id: [tiktok, reddit] } }, then: SCRIPTED });
      expect(scripted(await mock.call('get', `/v1/accounts/${reddit}`, key))).toBe(true);
      expectStatus(await mock.call('get', `/v1/accounts/${bluesky}`, key), 200);
    });
  });

  describe('headers', () => {
    it('matches a header by its name in any case, equal to a value', async () => {
      const key = await freshWorkspace(mock);
      await addRule(mock, key, { match: { headers: [{ name: 'x-CLIENT-version', equals: '2.0.0' }] }, then: SCRIPTED });
      expect(scripted(await mock.call('get', '/v1/accounts', key).set('X-Client-Version', '2.0.0'))).toBe(true);
      expectStatus(await mock.call('get', '/v1/accounts', key).set('X-Client-Version', '2.0.1'), 200);
      expectStatus(await mock.call('get', '/v1/accounts', key), 200);
    });

    it('matches a header against a regular expression', async () => {
      const key = await freshWorkspace(mock);
      await addRule(mock, key, { match: { headers: [{ name: 'User-Agent', matches: '^my-sdk/1\\.' }] }, then: SCRIPTED });
      expect(scripted(await mock.call('get', '/v1/accounts', key).set('User-Agent', 'my-sdk/1.4 node'))).toBe(true);
      expectStatus(await mock.call('get', '/v1/accounts', key).set('User-Agent', 'my-sdk/2.0'), 200);
    });
  });

  describe('query', () => {
    it('matches the query exactly: the same parameters, no other, repeated ones in order, null for any value', async () => {
      const key = await freshWorkspace(mock);
      await addRule(mock, key, { match: { operationId: 'listPosts', query: { status: 'published', limit: '5' } }, then: SCRIPTED });
      await addRule(mock, key, { match: { operationId: 'listPosts', query: {} }, then: { error: { status: 400, code: 'INVALID_CURSOR' } } });
      expect(scripted(await mock.call('get', '/v1/posts?limit=5&status=published', key))).toBe(true);
      expectStatus(await mock.call('get', '/v1/posts?limit=5&status=published&cursor=abc', key), 400);
      expectStatus(await mock.call('get', '/v1/posts?limit=6&status=published', key), 200);
      expectApiError(await mock.call('get', '/v1/posts', key), 400, 'INVALID_CURSOR');
    });

    it('refuses a query value that is neither text, a list of text nor null, naming it', async () => {
      const key = await freshWorkspace(mock);
      const res = await mock.control('post', '/__control/rules', key).send({ match: { query: { limit: 5 } }, then: SCRIPTED });
      expectApiError(res, 400, 'INVALID_SCENARIO', 'match.query.limit');
    });
  });

  describe('body', () => {
    it('matches a body field by JSON Pointer, equal to a value', async () => {
      const key = await freshWorkspace(mock);
      const twitter = await accountOn(mock, key, 'twitter');
      const bluesky = await accountOn(mock, key, 'bluesky');
      await addRule(mock, key, { match: { operationId: 'createPost', body: [{ pointer: '/destinations/0/connectionId', equals: twitter }] }, then: { error: { status: 429, code: 'VELOCITY_LIMITED' } } });
      expectApiError(await mock.call('post', '/v1/posts', key).send({ text: 'Hello', destinations: [{ connectionId: twitter }] }), 429, 'VELOCITY_LIMITED');
      // The pointer names the first destination only.
      expect((await mock.call('post', '/v1/posts', key).send({ text: 'Hello', destinations: [{ connectionId: bluesky }, { connectionId: twitter }] })).status).not.toBe(429);
    });

    it('matches a body field against a regular expression', async () => {
      const key = await freshWorkspace(mock);
      const bluesky = await accountOn(mock, key, 'bluesky');
      await addRule(mock, key, { match: { operationId: 'createPost', body: [{ pointer: '/text', matches: '^launch day' }] }, then: SCRIPTED });
      expect(scripted(await mock.call('post', '/v1/posts', key).send({ text: 'launch day is here', destinations: [{ connectionId: bluesky }] }))).toBe(true);
      expect(scripted(await mock.call('post', '/v1/posts', key).send({ text: 'not a launch day', destinations: [{ connectionId: bluesky }] }))).toBe(false);
    });

    it('never matches a field the body lacks', async () => {
      const key = await freshWorkspace(mock);
      const bluesky = await accountOn(mock, key, 'bluesky');
      await addRule(mock, key, { match: { operationId: 'createPost', body: [{ pointer: '/scheduledFor', matches: '.' }] }, then: SCRIPTED });
      expect(scripted(await mock.call('post', '/v1/posts', key).send({ text: 'Now', destinations: [{ connectionId: bluesky }] }))).toBe(false);
    });
  });

  describe('in a scenario file', () => {
    it('match params, headers and body the same way', async () => {
      const yaml = [
        'rules:',
        '  - id: by-header',
        '    match: { headers: [{ name: x-tenant, equals: blue }] }',
        '    then: { error: { status: 400, code: VALIDATION_ERROR, message: Scripted. } }',
        '  - id: by-body',
        '    match: { body: [{ pointer: /text, equals: boom }] }',
        '    then: { error: { status: 400, code: VALIDATION_ERROR, message: Scripted. } }',
        '  - id: by-param',
        "    match: { params: { platform: bluesky } }",
        '    then: { error: { status: 400, code: VALIDATION_ERROR, message: Scripted. } }',
      ].join('\n');
      const { key } = await workspaceWith(mock, yaml);
      const bluesky = await accountOn(mock, key, 'bluesky');
      expect(scripted(await mock.call('get', '/v1/accounts', key).set('X-Tenant', 'blue'))).toBe(true);
      expect(scripted(await mock.call('post', '/v1/posts', key).send({ text: 'boom', destinations: [{ connectionId: bluesky }] }))).toBe(true);
      expect(scripted(await mock.call('post', '/v1/connections/bluesky/connect', key).send({ identifier: 'a.bsky.social', appPassword: 'abcd-efgh-ijkl-mnop' }))).toBe(true);
      expect(await intercepted(key)).toEqual(['by-header', 'by-body', 'by-param']);
    });

    it('refuses a bad expression at its line and column', async () => {
      const res = await mock.control('post', '/__control/workspaces').send({ scenario: 'rules:\n  - id: r\n    match: { headers: [{ name: x-a, matches: "(" }] }\n    then: { latencyMs: 0 }\n' });
      expectApiError(res, 400, 'INVALID_SCENARIO', 'scenario');
      expect(res.body.error.details).toMatchObject({ line: 3, field: 'rules[0].match.headers[0].matches' });
    });
  });
});

describe('GET /__control/rules', () => {
  describe('in a workspace with a scenario and run-time rules', () => {
    it('lists the run-time rules, then the scenario rules, each with its source and hit counts', async () => {
      const { key } = await workspaceWith(mock, 'name: mine\nrules:\n  - id: from-file\n    match: { operationId: listConnections }\n    then: { latencyMs: 0 }\n');
      await addRule(mock, key, { id: 'added', match: { operationId: 'listAccounts', nth: 2 }, then: SCRIPTED });
      await mock.call('get', '/v1/connections', key);
      await mock.call('get', '/v1/accounts', key);
      expect(await rulesOf(key)).toEqual([
        expect.objectContaining({ id: 'added', source: 'runtime', scenario: null, seen: 1, fired: 0, phase: 'armed' }),
        expect.objectContaining({ id: 'from-file', source: 'scenario', scenario: 'mine', seen: 1, fired: 1, phase: 'armed' }),
      ]);
    });
  });

  describe('in a workspace without rules', () => {
    it('answers an empty list', async () => {
      expect(await rulesOf(await freshWorkspace(mock))).toEqual([]);
    });
  });
});

describe('DELETE /__control/rules/{id}', () => {
  describe('for a run-time rule', () => {
    it('removes it, answering its final counters; the next request passes', async () => {
      const key = await freshWorkspace(mock);
      await addRule(mock, key, { id: 'gone-soon', match: { operationId: 'listAccounts' }, then: SCRIPTED });
      await mock.call('get', '/v1/accounts', key);
      const res = await mock.control('delete', '/__control/rules/gone-soon', key);
      expectStatus(res, 200);
      expect(res.body).toMatchObject({ id: 'gone-soon', source: 'runtime', fired: 1 });
      expectStatus(await mock.call('get', '/v1/accounts', key), 200);
      expect(await rulesOf(key)).toEqual([]);
    });
  });

  describe("for a scenario's rule", () => {
    it('removes it until the workspace is reset', async () => {
      const { key } = await workspaceWith(mock, 'rules:\n  - id: from-file\n    match: { operationId: listAccounts }\n    then: { error: { status: 400, code: VALIDATION_ERROR, message: Scripted. } }\n');
      expectStatus(await mock.control('delete', '/__control/rules/from-file', key), 200);
      expectStatus(await mock.call('get', '/v1/accounts', key), 200);
      expectStatus(await mock.control('post', '/__control/reset', key), 200);
      expect(scripted(await mock.call('get', '/v1/accounts', key))).toBe(true);
    });
  });

  describe('for an id no active rule has', () => {
    it('answers 404 NOT_FOUND', async () => {
      expectApiError(await mock.control('delete', '/__control/rules/nothing', await freshWorkspace(mock)), 404, 'NOT_FOUND', 'id');
    });
  });
});

describe('run-time rules across the workspace lifecycle', () => {
  describe('POST /__control/reset', () => {
    it('removes them: the workspace starts without them', async () => {
      const key = await freshWorkspace(mock);
      await addRule(mock, key, { match: { operationId: 'listAccounts' }, then: SCRIPTED });
      expectStatus(await mock.control('post', '/__control/reset', key), 200);
      expect(await rulesOf(key)).toEqual([]);
      expectStatus(await mock.call('get', '/v1/accounts', key), 200);
    });
  });

  describe('POST /__control/scenarios', () => {
    it('removes them: loading starts the workspace afresh', async () => {
      const key = await freshWorkspace(mock);
      await addRule(mock, key, { match: { operationId: 'listAccounts' }, then: SCRIPTED });
      expectStatus(await mock.control('post', '/__control/scenarios', key).send({ name: 'open-enumerations' }), 200);
      expect((await rulesOf(key)).every((rule) => rule.source === 'scenario')).toBe(true);
    });
  });

  describe('a snapshot and its restore', () => {
    it('keep them with their counters', async () => {
      const key = await freshWorkspace(mock);
      await addRule(mock, key, { id: 'thrice', match: { operationId: 'listAccounts' }, then: SCRIPTED, times: 3 });
      await mock.call('get', '/v1/accounts', key);
      const snapshot = (await mock.control('get', '/__control/state', key)).body;
      await mock.control('delete', '/__control/rules/thrice', key);
      expectStatus(await mock.control('put', '/__control/state', key).send(snapshot), 200);
      expect(await rulesOf(key)).toEqual([expect.objectContaining({ id: 'thrice', fired: 1, remaining: 2 })]);
      expect(scripted(await mock.call('get', '/v1/accounts', key))).toBe(true);
    });

    it('refuses a snapshot whose run-time rules are broken, and changes nothing', async () => {
      const key = await freshWorkspace(mock);
      await addRule(mock, key, { id: 'kept', then: { latencyMs: 0 } });
      const snapshot = (await mock.control('get', '/__control/state', key)).body;
      snapshot.workspace.stores.rules.rules = 'not a list';
      expectApiError(await mock.control('put', '/__control/state', key).send(snapshot), 400, 'VALIDATION_ERROR', 'workspace.stores.rules');
      expect((await rulesOf(key)).map((rule) => rule.id)).toEqual(['kept']);
    });
  });

  describe('coverage', () => {
    it('lists a run-time rule under the name runtime, with how often it fired', async () => {
      const key = await freshWorkspace(mock);
      await addRule(mock, key, { id: 'covered', match: { operationId: 'listAccounts' }, then: SCRIPTED });
      await mock.call('get', '/v1/accounts', key);
      const report = (await mock.control('get', '/__control/coverage?scope=workspace', key)).body;
      expect(report.rules).toEqual([expect.objectContaining({ scenario: 'runtime', ruleId: 'covered', fired: 1 })]);
    });
  });
});
