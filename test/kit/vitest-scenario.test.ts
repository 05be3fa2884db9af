import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { createMockTest, ruleReportLines, test, type MockRuleReport } from '../../src/kit/vitest.js';
import { useMock } from '../helpers/mock.js';

// What `social-gateway-mock run --scenario FILE -- vitest run` hands the test command (isolated in
// vitest.config.ts, so the kit's worker-scoped server is this file's own): the kit
// loads that scenario into every test's own workspace (each with fresh counters), and
// `createMockTest({ scenario: FILE })` does the same for one file. Each test file runs in a
// process of its own, so the variables set here reach no other file.

const dir = mkdtempSync(join(tmpdir(), 'kit-scenario-'));
const RUN_SCENARIO = join(dir, 'recorded.yaml');
const FILE_SCENARIO = join(dir, 'chosen.yaml');
writeFileSync(
  RUN_SCENARIO,
  [
    'name: recorded',
    'rules:',
    '  - id: first-read',
    '    match: { operationId: listConnections, query: {} }',
    '    then: { respond: { status: 200, json: { connections: [{ id: upstream-1, platform: bluesky, status: active, authHealth: healthy }] } } }',
    '    times: 1',
    '  - id: second-read',
    '    match: { operationId: listConnections, query: {} }',
    '    then: { respond: { status: 200, json: { connections: [] } } }',
    '    times: 1',
  ].join('\n'),
);
writeFileSync(
  FILE_SCENARIO,
  ['name: chosen', 'rules:', '  - id: refuse-posts', '    match: { operationId: listPosts }', '    then: { error: { status: 400, code: VALIDATION_ERROR, message: Chosen. } }', '  - id: never-asked', '    match: { operationId: listMedia }', '    then: { latencyMs: 0 }'].join('\n'),
);

const external = useMock({ fixtures: false }, { listen: true });
beforeAll(() => {
  process.env.SOCIAL_GATEWAY_MOCK_CONTROL_URL = `${external.url}/__control`;
  process.env.SOCIAL_GATEWAY_MOCK_RUN_SCENARIO = RUN_SCENARIO;
});
afterAll(() => {
  delete process.env.SOCIAL_GATEWAY_MOCK_CONTROL_URL;
  delete process.env.SOCIAL_GATEWAY_MOCK_RUN_SCENARIO;
});

const connections = async (mock: { baseUrl: string; apiKey: string }) => {
  const res = await fetch(`${mock.baseUrl}/connections`, { headers: { 'x-api-key': mock.apiKey } });
  return ((await res.json()) as { connections: Array<{ id: string }> }).connections.map((connection) => connection.id);
};

describe("run --scenario's scenario", () => {
  // Two tests, each in its own workspace: each replays the recording from its start, whichever runs first.
  test.for(['one test', 'another test'])('reaches %s in a workspace of its own, its repeated reads in recorded order', async (_name, { mock }) => {
    expect(mock.created.scenario).toBe('recorded');
    expect(await connections(mock)).toEqual(['upstream-1']);
    expect(await connections(mock)).toEqual([]);
    const { data } = await mock.control.listRules();
    expect(data.map((rule) => [rule.id, rule.fired])).toEqual([
      ['first-read', 1],
      ['second-read', 1],
    ]);
  });
});

// vitest defines the kit's worker- and file-scoped fixtures at a file's top level only.
const chosen = createMockTest({ scenario: FILE_SCENARIO });

describe('createMockTest({ scenario: FILE })', () => {
  chosen('loads the file it names into the test’s workspace, over the one run passed on', async ({ mock }) => {
    expect(mock.created.scenario).toBe('chosen');
    const res = await fetch(`${mock.baseUrl}/posts`, { headers: { 'x-api-key': mock.apiKey } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe('Chosen.');
  });
});

describe('a test that deletes its own workspace', () => {
  test('still ends cleanly: its rules went with the workspace, uncounted', async ({ mock, mockServer }) => {
    expect(mock.created.scenario).toBe('recorded');
    await mockServer.control.deleteWorkspace(mock.workspaceId);
    expect((await fetch(`${mock.baseUrl}/connections`, { headers: { 'x-api-key': mock.apiKey } })).status).toBe(401);
  });
});

describe('the report when a file ends', () => {
  const report = (chosenByFile: boolean, fired: Array<[string, number]>): MockRuleReport => ({ scenarios: new Map([['recorded', { chosenByFile, tests: 3, fired: new Map(fired) }]]) });

  test('names each rule of a scenario the file chose that fired in none of its tests', () => {
    expect(ruleReportLines(report(true, [['a', 2], ['b', 0], ['c', 0]]), 'test/a.test.ts')).toEqual([
      'social-gateway-mock/vitest: test/a.test.ts: rule b of scenario recorded never fired (in 3 tests)',
      'social-gateway-mock/vitest: test/a.test.ts: rule c of scenario recorded never fired (in 3 tests)',
    ]);
  });

  test("says so when none of run --scenario's rules fired in the file, and stays quiet when some did", () => {
    expect(ruleReportLines(report(false, [['a', 0], ['b', 0]]), 'test/a.test.ts')).toEqual([
      'social-gateway-mock/vitest: test/a.test.ts: none of the 2 rules of scenario recorded (run --scenario) fired in its 3 tests: nothing was replayed here',
    ]);
    expect(ruleReportLines(report(false, [['a', 1], ['b', 0]]), 'test/a.test.ts')).toEqual([]);
  });
});
