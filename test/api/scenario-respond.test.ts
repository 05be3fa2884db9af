import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseScenario, ScenarioError } from '../../src/scenarios/parse.js';
import { expectApiError, expectStatus, startMock, type TestMock } from '../helpers/mock.js';
import { asText, workspaceWith } from '../helpers/scenarios.js';

let mock: TestMock;
beforeAll(async () => {
  mock = await startMock();
});
// close() also fails on any response the mock counted as breaking its own contract: a drifted recorded answer must not be one.
afterAll(() => mock.close());

interface JournalEntry {
  operationId: string;
  status: number;
  errorCode: string | null;
  effect: string | null;
  injected: boolean;
  matchedRule: string | null;
}

async function lastEntry(key: string): Promise<JournalEntry> {
  const entries = (await mock.control('get', '/__control/journal', key)).body.data as JournalEntry[];
  const last = entries.at(-1);
  if (!last) throw new Error('empty journal');
  return last;
}

async function withRules(rules: string): Promise<string> {
  return (await workspaceWith(mock, `rules:\n${rules}`)).key;
}

describe('a rule with respond', () => {
  describe('when the operation declares the status and the answer fits its schema', () => {
    it('answers it instead of the handler, on-contract, with its error code journaled', async () => {
      const key = await withRules(
        [
          '  - id: gone',
          '    match: { operationId: getPost, params: { id: post-1 } }',
          '    then:',
          '      respond:',
          '        status: 404',
          "        headers: { x-request-id: req-42, x-ratelimit-remaining: '7' }",
          '        json: { error: { code: NOT_FOUND, message: Recorded miss. } }',
        ].join('\n'),
      );
      const res = await mock.call('get', '/v1/posts/post-1', key);
      expectApiError(res, 404, 'NOT_FOUND');
      expect(res.body).toEqual({ error: { code: 'NOT_FOUND', message: 'Recorded miss.' } });
      expect(res.headers['x-request-id']).toBe('req-42');
      // The recorded rate-limit header wins over the mock's own.
      expect(res.headers['x-ratelimit-remaining']).toBe('7');
      expect(await lastEntry(key)).toMatchObject({ operationId: 'getPost', status: 404, errorCode: 'NOT_FOUND', effect: 'respond', injected: false, matchedRule: 'gone' });
    });

    it('does not run the handler: a recorded create creates nothing', async () => {
      const key = await withRules(
        [
          '  - id: made',
          '    match: { operationId: createPost }',
          '    then: { respond: { status: 201, json: { id: recorded-post, status: scheduled } } }',
          '    times: 1',
        ].join('\n'),
      );
      const before = (await mock.call('get', '/v1/posts?limit=100', key)).body.data as unknown[];
      const res = await mock.call('post', '/v1/posts', key).send({ text: 'hello', destinations: [] });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ id: 'recorded-post', status: 'scheduled' });
      const after = (await mock.call('get', '/v1/posts?limit=100', key)).body.data as unknown[];
      expect(after).toHaveLength(before.length);
    });
  });

  describe('when the answer is drift the contract does not describe', () => {
    it('sends a declared status with a body off its schema unchanged, marked injected, not a CONTRACT_VIOLATION', async () => {
      const key = await withRules('  - id: drifted\n    match: { operationId: listConnections }\n    then: { respond: { status: 200, json: { data: not-a-list, extra: true } } }\n');
      const res = await mock.call('get', '/v1/connections', key);
      expectStatus(res, 200);
      expect(res.body).toEqual({ data: 'not-a-list', extra: true });
      expect(await lastEntry(key)).toMatchObject({ status: 200, effect: 'respond', injected: true, errorCode: null });
    });

    it('sends an undeclared status with a text body as is, typed by its Content-Type', async () => {
      const key = await withRules(
        "  - id: teapot\n    match: { operationId: listConnections }\n    then: { respond: { status: 418, headers: { content-type: text/html }, text: '<p>short and stout</p>' } }\n",
      );
      const res = await asText(mock.call('get', '/v1/connections', key));
      expect(res.status).toBe(418);
      expect(res.body).toBe('<p>short and stout</p>');
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(await lastEntry(key)).toMatchObject({ status: 418, effect: 'respond', injected: true });
    });

    it('sends an empty body when given neither json nor text', async () => {
      const key = await withRules('  - id: empty\n    match: { operationId: listConnections }\n    then: { respond: { status: 503, headers: { retry-after: "5" } } }\n');
      const res = await asText(mock.call('get', '/v1/connections', key));
      expect(res.status).toBe(503);
      expect(res.body).toBe('');
      expect(res.headers['retry-after']).toBe('5');
      expect(res.headers['content-length']).toBe('0');
    });
  });

  it('comes with latencyMs and state like the other answers, and is used up by times', async () => {
    const { key } = await workspaceWith(
      mock,
      [
        'states: [a, b]',
        'rules:',
        '  - id: first',
        '    match: { operationId: getPost, state: a }',
        '    then: { respond: { status: 404, json: { error: { code: NOT_FOUND, message: First. } } }, latencyMs: 1, state: b }',
        '    times: 1',
        '  - id: second',
        '    match: { operationId: getPost, state: b }',
        '    then: { respond: { status: 404, json: { error: { code: NOT_FOUND, message: Second. } } } }',
        '    times: 1',
      ].join('\n'),
    );
    const messages = [];
    for (let i = 0; i < 3; i++) messages.push((await mock.call('get', '/v1/posts/none', key)).body.error.message as string);
    expect(messages[0]).toBe('First.');
    expect(messages[1]).toBe('Second.');
    // Both rules used up: the mock's own handler answers.
    expect(messages[2]).not.toMatch(/First|Second/);
    expect((await lastEntry(key)).matchedRule).toBeNull();
  });
});

function problem(yaml: string): ScenarioError {
  try {
    parseScenario({ name: 'broken', file: 'broken.yaml', yaml });
  } catch (error) {
    if (error instanceof ScenarioError) return error;
    throw error;
  }
  throw new Error('expected a ScenarioError');
}

describe('a respond the parser refuses', () => {
  const rule = (then: string) => `rules:\n  - id: a\n    match: { operationId: getPost }\n    then:\n      respond: ${then}\n`;
  it.each([
    ['two bodies', rule('{ status: 200, json: {}, text: x }'), 5, 47, 'rules[0].then.respond.text', /give json or text, not both/],
    ['a body on a 204', rule('{ status: 204, json: {} }'), 5, 37, 'rules[0].then.respond.json', /a 204 answer has no body/],
    ['a framing header', rule("{ status: 200, headers: { Content-Length: '3' }, text: abc }"), 5, 42, 'rules[0].then.respond.headers.Content-Length', /set by the mock from the body it sends/],
    ['a status out of range', rule('{ status: 99 }'), 5, 26, 'rules[0].then.respond.status', /must be >= 200; got 99/],
    ['an unknown field', rule('{ status: 200, body: x }'), 5, 31, 'rules[0].then.respond.body', /unknown field "body" \(expected one of: status, headers, json, text\)/],
    ['a header value on two lines', rule('{ status: 200, headers: { x-a: "1\\r\\nx-b: 2" } }'), 5, 47, 'rules[0].then.respond.headers.x-a', /is not valid here|must match/],
    ['respond with error', 'rules:\n  - id: a\n    match: { operationId: getPost }\n    then: { error: { status: 404, code: NOT_FOUND }, respond: { status: 404 } }\n', 4, 63, 'rules[0].then.respond', /not error and respond/],
  ])('names the line and column of %s', (_what, yaml, line, column, field, reason) => {
    const error = problem(yaml);
    expect({ line: error.line, column: error.column, field: error.field }).toEqual({ line, column, field });
    expect(error.reason).toMatch(reason);
  });

  it('answers 400 INVALID_SCENARIO on the control plane with the location', async () => {
    const res = await mock.control('post', '/__control/scenarios').send({ yaml: rule('{ status: 200, json: {}, text: x }') });
    expectApiError(res, 400, 'INVALID_SCENARIO');
    expect(res.body.error.details).toMatchObject({ line: 5, field: 'rules[0].then.respond.text' });
  });
});
