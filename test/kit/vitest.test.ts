import { describe, expect } from 'vitest';
import type { ControlEventStream } from '../../src/client/event-stream.js';
import { createMockTest, test, type MockServerInfo, type MockWorkspace } from '../../src/kit/vitest.js';

/** What the tests of this file saw, in the order they ran (vitest runs a file's tests in order). */
const seen: Array<{ mock: MockWorkspace; server: MockServerInfo }> = [];
let firstStream: ControlEventStream | undefined;

async function profileNames(mock: MockWorkspace): Promise<string[]> {
  const res = await fetch(`${mock.baseUrl}/profiles`, { headers: { 'x-api-key': mock.apiKey } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: Array<{ name: string }> }).data.map((profile) => profile.name);
}

describe('social-gateway-mock/vitest', () => {
  test('gives the first test a workspace of its own, on a server the kit started', async ({ mock, mockServer }) => {
    seen.push({ mock, server: mockServer });
    expect(mockServer.external).toBe(false);
    expect(mock.url).toBe(mockServer.url);
    expect(mock.baseUrl).toBe(`${mockServer.url}/v1`);
    expect(mock.apiKey).toMatch(/^sgw_/);
    expect(mock.created).toMatchObject({ workspaceId: mock.workspaceId, apiKey: mock.apiKey, seed: 1, clock: { frozen: true } });

    // Change this workspace: a profile, two hours of virtual time, an open event stream.
    const res = await fetch(`${mock.baseUrl}/profiles`, {
      method: 'POST',
      headers: { 'x-api-key': mock.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Only in the first test' }),
    });
    expect(res.status).toBe(201);
    await mock.control.advanceClock({ by: 'PT2H' });
    firstStream = await mock.control.streamEvents();
    expect(await profileNames(mock)).toContain('Only in the first test');
  });

  test('gives the next test another, untouched workspace on the same server', async ({ mock, mockServer }) => {
    const [first] = seen;
    if (!first) throw new Error('the first test did not run');
    // The same server, started once for the worker.
    expect(mockServer).toBe(first.server);
    expect(mock.url).toBe(first.mock.url);
    // Another workspace, with another key.
    expect(mock.workspaceId).not.toBe(first.mock.workspaceId);
    expect(mock.apiKey).not.toBe(first.mock.apiKey);
    // Nothing of the first test is here: not its profile, not its clock.
    expect(await profileNames(mock)).not.toContain('Only in the first test');
    expect((await mock.control.getClock()).now).toBe(mock.created.clock.now);
    // The same seed, so the same fixture world and start: the tests do not depend on their order.
    expect(mock.created.clock.now).toBe(first.mock.created.clock.now);
    // The first workspace was deleted after its test: its key answers 401, the server no longer lists it...
    const answer = await fetch(`${first.mock.baseUrl}/profiles`, { headers: { 'x-api-key': first.mock.apiKey } });
    expect(answer.status).toBe(401);
    const listed = (await mockServer.control.listWorkspaces()).data.map((row) => row.workspaceId);
    expect(listed).toContain(mock.workspaceId);
    expect(listed).not.toContain(first.mock.workspaceId);
    // ...and the stream its test opened was closed after it.
    expect(firstStream?.closed).toBe(true);
  });

  test('lets a test delete its own workspace: the kit takes it as already done', async ({ mock, mockServer }) => {
    await mockServer.control.deleteWorkspace(mock.workspaceId);
    const answer = await fetch(`${mock.baseUrl}/profiles`, { headers: { 'x-api-key': mock.apiKey } });
    expect(answer.status).toBe(401);
  });

  test('(and the next test still gets a workspace, the server holding only the default one and its own)', async ({ mock, mockServer }) => {
    const listed = (await mockServer.control.listWorkspaces()).data.map((row) => row.workspaceId);
    expect(listed).toEqual(['ws_default', mock.workspaceId]);
  });

  describe('with mockOptions overridden for a suite', () => {
    test.override({ mockOptions: { plan: 'free', seed: 9, fixtures: false, clock: { start: '2026-03-02T09:00:00Z', frozen: true } } });

    test('makes the workspace as told', async ({ mock }) => {
      expect(mock.created).toMatchObject({ plan: 'free', seed: 9, clock: { now: '2026-03-02T09:00:00.000Z', frozen: true } });
      expect(await profileNames(mock)).toEqual([]);
      expect((await mock.control.getWallet()).plan).toBe('free');
    });
  });
});

// At the top level of the file: vitest refuses a worker-scoped fixture defined inside a describe.
const scenarioTest = createMockTest({ scenario: 'network-outage', clock: { start: '2026-03-02T09:00:00Z' } });

describe('createMockTest(options)', () => {
  scenarioTest('makes every workspace from the options, the clock still frozen by default', async ({ mock }) => {
    expect(mock.created).toMatchObject({ scenario: 'network-outage', clock: { now: '2026-03-02T09:00:00.000Z', frozen: true } });
    expect((await mock.control.listScenarios()).loaded?.name).toBe('network-outage');
  });
});
