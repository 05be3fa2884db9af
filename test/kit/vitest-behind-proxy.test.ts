import { afterAll, beforeAll, expect } from 'vitest';
import { test } from '../../src/kit/vitest.js';
import { DEFAULT_API_KEY } from '../../src/server.js';
import { listening, proxyTo, type Listening } from '../proxy/helpers.js';

// What `social-gateway-mock proxy --upstream URL --upstream-key KEY -- vitest run` hands the test
// command: the kit must send every test's requests through the proxy with that key, and neither
// start a server of its own nor make workspaces (the real service has none). A test that reaches
// for the mock's own world is skipped; that skip is shown by test/recipes/proxy.test.ts, where
// the suite is a user's. Each test file runs in a process of its own, so the variables set here
// reach no other file.
let upstream: Listening;
let proxy: Listening;
beforeAll(async () => {
  upstream = await listening({});
  proxy = await proxyTo(upstream.url);
  process.env.SOCIAL_GATEWAY_MOCK_URL = proxy.url;
  process.env.SOCIAL_GATEWAY_MOCK_PROXY_UPSTREAM = upstream.url;
  process.env.SOCIAL_GATEWAY_MOCK_API_KEY = DEFAULT_API_KEY;
  // Left by an outer `run`, it must not win over the proxy: the kit would make workspaces on a mock the suite never calls.
  process.env.SOCIAL_GATEWAY_MOCK_CONTROL_URL = `${upstream.url}/__control`;
});
afterAll(async () => {
  for (const name of ['SOCIAL_GATEWAY_MOCK_URL', 'SOCIAL_GATEWAY_MOCK_PROXY_UPSTREAM', 'SOCIAL_GATEWAY_MOCK_API_KEY', 'SOCIAL_GATEWAY_MOCK_CONTROL_URL']) delete process.env[name];
  await proxy.close();
  await upstream.close();
});

test("gives the test the proxy's URL and the upstream's key, and its calls go through the proxy to the upstream", async ({ mock, mockServer }) => {
  expect(mockServer).toMatchObject({ url: proxy.url, external: true, upstream: upstream.url });
  expect(mock).toMatchObject({ url: proxy.url, baseUrl: `${proxy.url}/v1`, apiKey: DEFAULT_API_KEY, upstream: upstream.url });
  const res = await fetch(`${mock.baseUrl}/connections`, { headers: { 'x-api-key': mock.apiKey } });
  expect(res.status).toBe(200);
  // Both journals saw the one call, and nothing else happened on either: no workspace was made.
  const journal = (server: Listening) => server.server.registry.defaultWorkspace.journal.entries().map((entry) => entry.operationId);
  expect(journal(proxy)).toEqual(['listConnections']);
  expect(journal(upstream)).toEqual(['listConnections']);
  expect(upstream.server.registry.size).toBe(1);
});

test("refuses mockServer.control, naming the call and the real service, since the proxy's control plane controls nothing upstream", ({ mockServer }) => {
  expect(() => mockServer.control.createWorkspace({})).toThrow(`mockServer.control.createWorkspace needs the mock's own world (a workspace, its clock, rules and control plane); behind social-gateway-mock proxy the API is the real service at ${upstream.url}, which has none`);
  // Returned from an async function, the stand-in is not taken for a promise.
  expect((mockServer.control as unknown as { then?: unknown }).then).toBeUndefined();
});
