import { describe, expect, it } from 'vitest';
import { expectApiError, expectStatus, useMock } from '../helpers/mock.js';
import { TEXT_WRITE_MAX } from '../../src/http/respond.js';
import { asText, workspaceWith } from '../helpers/scenarios.js';

// close() also fails on any response the mock counted as breaking its own contract: a drifted recorded answer must not be one.
const mock = useMock();

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
      // As recorded: no charset added.
      expect(res.headers['content-type']).toBe('text/html');
      expect(await lastEntry(key)).toMatchObject({ status: 418, effect: 'respond', injected: true });
    });

    it('sends a hostile text exactly, under its UTF-8 length, short and past the bound where it goes out as bytes, and answers after', async () => {
      const { key } = await workspaceWith(mock, 'seed: 4');
      // NUL, a lone surrogate (sent on as U+FFFD, three bytes), an astral character, then 100 KB and past the bound.
      const hostile = 'a\u0000b\ud800c\u{1F600}';
      for (const text of [hostile, hostile + 'x'.repeat(100 * 1024), hostile + 'y'.repeat(TEXT_WRITE_MAX)]) {
        const rule = { id: `text-${text.length}`, match: { operationId: 'listConnections' }, then: { respond: { status: 418, headers: { 'content-type': 'text/plain' }, text } }, times: 1 };
        expectStatus(await mock.control('post', '/__control/rules', key).send(rule), 201);
        const res = await asText(mock.call('get', '/v1/connections', key));
        const sent = text.replace('\ud800', '\ufffd');
        expect(res.status).toBe(418);
        expect(res.body === sent, `${text.length} characters`).toBe(true);
        expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(sent));
        expect(await lastEntry(key)).toMatchObject({ status: 418, effect: 'respond', matchedRule: rule.id });
      }
      expectStatus(await mock.call('get', '/v1/connections', key), 200);
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

  it('is a rule like any other at run time (POST /__control/rules)', async () => {
    const { key } = await workspaceWith(mock, 'seed: 4');
    expectStatus(await mock.control('post', '/__control/rules', key).send({ id: 'once', match: { operationId: 'listConnections' }, then: { respond: { status: 429, headers: { 'retry-after': '9' }, json: { error: 'Too many', code: 'RATE_LIMITED', details: { currentCount: 61, limit: 60, retryAfterSeconds: 9 } } } }, times: 1 }), 201);
    const res = await mock.call('get', '/v1/connections', key);
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBe('9');
    expect(await lastEntry(key)).toMatchObject({ status: 429, errorCode: 'RATE_LIMITED', effect: 'respond', matchedRule: 'once' });
    expectStatus(await mock.call('get', '/v1/connections', key), 200);
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

describe('a respond the parser refuses', () => {
  // Each refusal at its line and column is in test/unit/scenario-parse.test.ts; here, how the control plane answers one.
  it('answers 400 INVALID_SCENARIO with the location and changes nothing', async () => {
    const yaml = 'rules:\n  - id: a\n    match: { operationId: getPost }\n    then:\n      respond: { status: 200, json: {}, text: x }\n';
    const res = await mock.control('post', '/__control/scenarios').send({ yaml });
    expectApiError(res, 400, 'INVALID_SCENARIO');
    expect(res.body.error.details).toMatchObject({ line: 5, column: 47, field: 'rules[0].then.respond.text' });
    expect((await mock.control('get', '/__control/rules')).body.data).toEqual([]);
  });
});
