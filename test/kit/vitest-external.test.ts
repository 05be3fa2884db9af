import { afterAll, beforeAll, expect } from 'vitest';
import { createControlClient } from '../../src/client/control-client.js';
import { test } from '../../src/kit/vitest.js';
import { useMock } from '../helpers/mock.js';

// What `social-gateway-mock run -- vitest run` hands the test command: the kit must use that
// server and start none. Each test file runs in a process of its own, so the variables set
// here reach no other file.
const external = useMock({ controlToken: 'ci-token', fixtures: false }, { listen: true });
beforeAll(() => {
  process.env.SOCIAL_GATEWAY_MOCK_CONTROL_URL = `${external.url}/__control`;
  process.env.SOCIAL_GATEWAY_MOCK_CONTROL_TOKEN = 'ci-token';
});
afterAll(() => {
  delete process.env.SOCIAL_GATEWAY_MOCK_CONTROL_URL;
  delete process.env.SOCIAL_GATEWAY_MOCK_CONTROL_TOKEN;
});

test('uses the server SOCIAL_GATEWAY_MOCK_CONTROL_URL names, with the control token', async ({ mock, mockServer }) => {
  expect(mockServer).toMatchObject({ url: external.url, external: true });
  expect(mock.baseUrl).toBe(`${external.url}/v1`);
  // The workspace was made on that server: its registry knows the key.
  const client = createControlClient({ baseUrl: external.url, apiKey: mock.apiKey, controlToken: 'ci-token' });
  expect((await client.getClock()).now).toBe(mock.created.clock.now);
  expect((await fetch(`${mock.baseUrl}/connections`, { headers: { 'x-api-key': mock.apiKey } })).status).toBe(200);
  expect((await mock.control.getJournal()).data.map((entry) => entry.operationId)).toEqual(['listConnections']);
});
