import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { scenarioFromRecording } from '../../src/cli/scenario-command.js';
import { RECORDING_FORMAT, type RecordedExchange } from '../../src/proxy/recording.js';
import { REDACTED } from '../../src/redaction/redactor.js';
import { parseScenario } from '../../src/scenarios/parse.js';

function exchange(seq: number, method: string, path: string, response: RecordedExchange['response']): RecordedExchange {
  return { format: RECORDING_FORMAT, seq, operationId: null, startedAt: '2026-03-02T09:00:00.000Z', durationMs: 1, request: { method, path, query: '', headers: {} }, response };
}

interface Rule {
  id: string;
  match: Record<string, unknown>;
  then: { respond?: Record<string, unknown>; fault?: Record<string, unknown> };
}

/** The scenario for these exchanges, checked as the mock checks a file, and its rules. */
function convert(exchanges: RecordedExchange[]): { yaml: string; rules: Rule[] } {
  const yaml = scenarioFromRecording(exchanges, { dir: 'rec', schemaPath: './scenario.schema.json' });
  if (yaml === undefined) throw new Error('nothing to replay');
  parseScenario({ name: 'replay', file: 'replay.yaml', yaml });
  return { yaml, rules: (parse(yaml) as { rules: Rule[] }).rules };
}

describe('scenarioFromRecording', () => {
  it('leaves a redacted path parameter out of the match rather than matching the placeholder', () => {
    const { rules } = convert([exchange(1, 'DELETE', `/v1/webhooks/${REDACTED}`, { status: 200, headers: {}, json: { deleted: true } })]);
    expect(rules[0]?.match).toEqual({ operationId: 'deleteWebhook', query: {} });
  });

  it('keeps the answer but not the headers the mock sets for its own bytes and clock', () => {
    const { rules } = convert([
      exchange(1, 'GET', '/v1/connections', {
        status: 200,
        headers: { 'content-type': 'application/json', 'content-length': '12', 'content-encoding': 'gzip', 'transfer-encoding': 'chunked', connection: 'keep-alive', 'keep-alive': 'timeout=5', date: 'Mon, 02 Mar 2026 09:00:00 GMT', 'x-request-id': 'r-1' },
        json: { connections: [] },
      }),
    ]);
    expect(rules[0]?.then.respond).toEqual({ status: 200, headers: { 'content-type': 'application/json', 'x-request-id': 'r-1' }, json: { connections: [] } });
  });

  it('keeps within what a rule holds: a long query cut in the description, an oversized header or parameter dropped', () => {
    const long = { ...exchange(1, 'GET', `/v1/posts/${'p'.repeat(300)}`, { status: 404, headers: { 'x-huge': 'h'.repeat(9000), 'x-small': 's' } }), request: { method: 'GET', path: `/v1/posts/${'p'.repeat(300)}`, query: `q=${'x'.repeat(3000)}`, headers: {} } };
    const { rules } = convert([long]);
    // A query value longer than a rule holds still requires the parameter, with any value.
    expect(rules[0]?.match).toEqual({ operationId: 'getPost', query: { q: null } });
    expect(rules[0]?.then.respond).toEqual({ status: 404, headers: { 'x-small': 's' } });
  });

  it('gives a bodyless status no body, and an empty text none either', () => {
    const { rules } = convert([exchange(1, 'DELETE', '/v1/posts/p-1', { status: 204, headers: {}, text: '' }), exchange(2, 'GET', '/v1/posts/p-1', { status: 503, headers: {}, text: '' })]);
    expect(rules.map((rule) => rule.then.respond)).toEqual([{ status: 204 }, { status: 503 }]);
  });

  it('replays an unanswered exchange as the proxy answered it, a 502 with the recorded code and message', () => {
    const unanswered = { ...exchange(1, 'GET', '/v1/posts', null), upstreamError: { code: 'PLATFORM_ERROR', message: 'The upstream refused the connection.' } };
    const noCode = { ...exchange(2, 'GET', '/v1/posts', null), upstreamError: { code: 'upstream timeout', message: 'x'.repeat(2000) } };
    const { rules } = convert([unanswered, noCode]);
    expect(rules[0]?.then).toEqual({ fault: { status: 502, body: 'json', code: 'PLATFORM_ERROR', message: 'The upstream refused the connection.' } });
    // A code the envelope cannot carry is left to the fault's default; a message is cut to what a rule holds.
    expect(rules[1]?.then.fault).toEqual({ status: 502, body: 'json', message: 'x'.repeat(1000) });
  });

  it('leaves out, with a comment, what no rule can answer', () => {
    const { yaml, rules } = convert([
      exchange(1, 'HEAD', '/v1/posts', { status: 200, headers: {} }),
      exchange(2, 'GET', '/v2/elsewhere', { status: 404, headers: {}, json: {} }),
      exchange(3, 'GET', '/v1/posts', { status: 102, headers: {} }),
      exchange(4, 'GET', '/v1/posts', { status: 200, headers: {}, json: { data: [] } }),
    ]);
    expect(rules.map((rule) => rule.id)).toEqual(['rec-000004-listPosts']);
    expect(yaml).toContain('# exchange 1, HEAD /v1/posts: left out, a HEAD request cannot be told apart from its GET by a rule');
    expect(yaml).toContain('# exchange 2, GET /v2/elsewhere: left out, it reached no operation of openapi.yaml');
    expect(yaml).toContain('# exchange 3, GET /v1/posts: left out, status 102 is not an answer a rule can give (200 to 599)');
  });

  it('matches what was asked: the path ids, the whole query (repeated and redacted values too), the body field by field', () => {
    const list = { ...exchange(1, 'GET', '/v1/posts', { status: 200, headers: {}, json: { data: [] } }), request: { method: 'GET', path: '/v1/posts', query: `status=published&platform=x&platform=bluesky&token=${encodeURIComponent(REDACTED)}`, headers: {} } };
    const create = {
      ...exchange(2, 'POST', '/v1/posts', { status: 201, headers: {}, json: { post: { id: 'p-9' } } }),
      request: { method: 'POST', path: '/v1/posts', query: '', headers: { 'idempotency-key': 'k-1' }, json: { text: 'Hello', destinations: [{ connectionId: 'c-1' }], 'a/b~c': 1, secret: { password: REDACTED } } },
    };
    const get = exchange(3, 'GET', '/v1/posts/p-9', { status: 200, headers: {}, json: { post: { id: 'p-9' } } });
    const { rules } = convert([list, create, get]);
    expect(rules.map((rule) => rule.match)).toEqual([
      { operationId: 'listPosts', query: { status: 'published', platform: ['x', 'bluesky'], token: null } },
      // Headers are not matched (an Idempotency-Key differs on every run); a redacted field is left out; ~ and / escaped.
      { operationId: 'createPost', query: {}, body: [{ pointer: '/text', equals: 'Hello' }, { pointer: '/destinations', equals: [{ connectionId: 'c-1' }] }, { pointer: '/a~1b~0c', equals: 1 }] },
      { operationId: 'getPost', params: { id: 'p-9' }, query: {} },
    ]);
  });

  it('folds the same request answered the same again into its rule, times N, and keeps a changed answer apart, in order', () => {
    const list = (seq: number, remaining: string, json: unknown) => exchange(seq, 'GET', '/v1/connections', { status: 200, headers: { 'x-ratelimit-remaining': remaining }, json });
    const { yaml, rules } = convert([list(1, '599', { connections: [] }), list(2, '598', { connections: [] }), list(3, '597', { connections: [{ id: 'c-1' }] }), list(4, '596', { connections: [] })]);
    expect(rules.map((rule) => [rule.id, (rule as { times?: number }).times, rule.then.respond?.['json']])).toEqual([
      ['rec-000001-listConnections', 2, { connections: [] }],
      ['rec-000003-listConnections', 1, { connections: [{ id: 'c-1' }] }],
      ['rec-000004-listConnections', 1, { connections: [] }],
    ]);
    // The first answer's headers are the rule's.
    expect(rules[0]?.then.respond?.['headers']).toEqual({ 'x-ratelimit-remaining': '599' });
    expect(yaml).toContain('Replays the recording in rec: 4 of its 4 exchanges (in 3 rules)');
    expect(yaml).toContain('(and 1 more time, the same)');
  });

  it('names the scenario after the file it is written to, or the recording', () => {
    const one = [exchange(1, 'GET', '/v1/posts', { status: 200, headers: {}, json: { data: [] } })];
    const named = (name?: string) => (parse(scenarioFromRecording(one, { dir: 'recordings/2026-11-25', schemaPath: 'x', ...(name !== undefined && { name }) }) ?? '') as { name: string }).name;
    expect(named('scenarios/Recorded Suite.yaml')).toBe('recorded-suite');
    expect(named()).toBe('2026-11-25');
    expect(named('__.yaml')).toBe('recorded');
  });

  it('refuses, naming the way out, a recording of more rules than a scenario holds, rather than write a file that would not load', () => {
    const many = Array.from({ length: 201 }, (_, i) => exchange(i + 1, 'GET', `/v1/posts/p-${i}`, { status: 200, headers: {}, json: { post: { id: `p-${i}` } } }));
    expect(() => scenarioFromRecording(many, { dir: 'rec', schemaPath: 'x' })).toThrow(/rec: its exchanges make 201 rules, over the 200 a scenario holds .*replay it in parts/);
    expect(convert(many.slice(0, 200)).rules).toHaveLength(200);
  });

  it('answers nothing when no exchange can be replayed', () => {
    expect(scenarioFromRecording([exchange(1, 'GET', '/v2/elsewhere', { status: 404, headers: {} })], { dir: 'rec', schemaPath: 'x' })).toBeUndefined();
  });
});
