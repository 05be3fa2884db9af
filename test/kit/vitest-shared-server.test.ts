import { afterAll, beforeAll, expect } from 'vitest';
import { createControlClient } from '../../src/client/control-client.js';
import { test } from '../../src/kit/vitest.js';
import { DEFAULT_WORKSPACE_ID } from '../../src/workspaces/registry.js';
import { useMock } from '../helpers/mock.js';

// A team's shared server (--control-token and --max-workspaces) that a CI job reaches by its URL
// alone, without the owner's token: the kit makes each test's workspace, drives it with the
// workspace's own key, and deletes it with that key (docs/decisions/0024).
const shared = useMock({ controlToken: 'owner-token-0123456789', maxWorkspaces: 10, fixtures: false }, { listen: true });
const seen: string[] = [];
beforeAll(() => {
  process.env.SOCIAL_GATEWAY_MOCK_CONTROL_URL = `${shared.url}/__control`;
  delete process.env.SOCIAL_GATEWAY_MOCK_CONTROL_TOKEN;
});
afterAll(async () => {
  delete process.env.SOCIAL_GATEWAY_MOCK_CONTROL_URL;
  // Every test's workspace is gone: only the default one is left.
  const owner = createControlClient({ baseUrl: shared.url, controlToken: 'owner-token-0123456789' });
  expect((await owner.listWorkspaces()).data.map((workspace) => workspace.workspaceId)).toEqual([DEFAULT_WORKSPACE_ID]);
  expect(seen).toHaveLength(2);
});

test('a job without the token gets a workspace and drives it with its key', async ({ mock }) => {
  seen.push(mock.workspaceId);
  expect((await fetch(`${mock.baseUrl}/connections`, { headers: { 'x-api-key': mock.apiKey } })).status).toBe(200);
  const moved = await mock.control.advanceClock({ by: 'PT1H' });
  expect(Date.parse(moved.now) - Date.parse(mock.created.clock.now)).toBe(3600_000);
  expect((await mock.control.getJournal()).data.map((entry) => entry.operationId)).toEqual(['listConnections']);
});

test('and reaches no other workspace', async ({ mock }) => {
  seen.push(mock.workspaceId);
  await expect(mock.control.listWorkspaces()).rejects.toMatchObject({ status: 403, code: 'FORBIDDEN' });
  await expect(mock.control.deleteWorkspace(DEFAULT_WORKSPACE_ID)).rejects.toMatchObject({ status: 403 });
});
