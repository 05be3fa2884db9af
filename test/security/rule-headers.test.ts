import { describe, expect, it } from 'vitest';
import { expectApiError, expectStatus, useMock } from '../helpers/mock.js';
import { freshWorkspace } from '../helpers/scenarios.js';

/*
 * Issue 35, item 7: what a rule is accepted with can be served. A response header Node refuses
 * to send (a value past U+00FF or holding a NUL, a name that is no HTTP token) used to be taken
 * at load, and then every request the rule matched answered 500. Each is now refused when the
 * rule is added or the scenario loaded, naming the header, and the workspace serves as before.
 */

const mock = useMock();

const MATCH = { operationId: 'listConnections' };

const EFFECTS: Array<[string, (headers: Record<string, string>) => Record<string, unknown>]> = [
  ['respond', (headers) => ({ respond: { status: 200, headers, json: { data: [] } } })],
  ['error', (headers) => ({ error: { status: 400, code: 'VALIDATION_ERROR', headers } })],
  ['fault', (headers) => ({ fault: { status: 503, headers } })],
];

const BAD_VALUES: Array<[string, string]> = [
  ['a character past U+00FF', '\u0100'],
  ['a NUL', 'a\u0000b'],
];

describe('a rule header Node refuses to send', () => {
  for (const [effect, then] of EFFECTS) {
    for (const [what, value] of BAD_VALUES) {
      it(`is refused when the rule is added (${effect}, a value with ${what}), naming the header, and the workspace still answers`, async () => {
        const key = await freshWorkspace(mock);
        const res = await mock.control('post', '/__control/rules', key).send({ match: MATCH, then: then({ 'x-trace': value }) });
        expectApiError(res, 400, 'INVALID_SCENARIO', `then.${effect}.headers.x-trace`);
        expect(res.body.error.message).toContain('x-trace');
        expect((await mock.control('get', '/__control/rules', key)).body.data).toEqual([]);
        expectStatus(await mock.call('get', '/v1/connections', key), 200);
      });
    }
  }

  it.each([['error'], ['fault']])('is refused by its name too (%s: a name with a space)', async (effect) => {
    const key = await freshWorkspace(mock);
    const then = EFFECTS.find(([name]) => name === effect)?.[1]({ 'x trace': 'v' });
    const res = await mock.control('post', '/__control/rules', key).send({ match: MATCH, then });
    expectApiError(res, 400, 'INVALID_SCENARIO', `then.${effect}.headers.x trace`);
    expect(res.body.error.message).toContain('not a header name');
  });

  it('is refused when a scenario is loaded, at the header\'s line', async () => {
    const yaml = ['rules:', '  - id: recorded', '    match: { operationId: listConnections }', '    then:', '      respond:', '        status: 200', '        headers:', '          x-trace: "a\\0b"', ''].join('\n');
    const res = await mock.control('post', '/__control/workspaces').send({ scenario: yaml });
    expectApiError(res, 400, 'INVALID_SCENARIO');
    expect(res.body.error.details).toMatchObject({ line: 8, field: 'rules[0].then.respond.headers.x-trace' });
  });

  it('still lets through what Node sends: a tab inside a value', async () => {
    const key = await freshWorkspace(mock);
    const res = await mock.control('post', '/__control/rules', key).send({ match: MATCH, then: { respond: { status: 200, headers: { 'x-trace': 'a\tb' }, json: { data: [] } } } });
    expectStatus(res, 201);
    const answer = await mock.call('get', '/v1/connections', key);
    expectStatus(answer, 200);
    expect(answer.headers['x-trace']).toBe('a\tb');
  });
});
