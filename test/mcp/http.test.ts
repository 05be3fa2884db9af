import { writeFileSync } from 'node:fs';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTROL_OPERATIONS } from '../../src/generated/control-operations.js';
import { startMock, TEST_CLOCK, type StartedMock } from '../helpers/mock.js';
import { ERAS, eraName, expectToolError, httpClient, jsonOf, playAgentSession } from '../helpers/mcp.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

/** What `tools/list` may weigh at most, in characters of its JSON: 4,000 tokens at four characters a token. */
const TOOLS_LIST_MAX_CHARS = 16_000;

describe.each(ERAS)('the MCP server over Streamable HTTP at /mcp, protocol %s', (era) => {
  let mock: StartedMock;
  let url: string;
  let client: Client;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    mock = await startMock();
    url = await mock.server.listen(0);
    client = await httpClient(url, era);
    receiver = await WebhookReceiver.start();
  });
  afterAll(async () => {
    await client.close();
    await receiver.close();
    await mock.close();
  });

  describe('tools/list', () => {
    it(`reaches every operation of control.yaml through a tool, in under ${TOOLS_LIST_MAX_CHARS} characters (${eraName(era)})`, async () => {
      const { tools } = await client.listTools();
      const reachable = new Set(tools.flatMap((tool) => ((tool.inputSchema.properties as Record<string, { enum?: string[] }> | undefined)?.operation?.enum ?? [])));
      const missing = Object.keys(CONTROL_OPERATIONS).filter((operationId) => !reachable.has(operationId));
      expect(missing, 'operations of control.yaml no tool reaches').toEqual([]);
      expect(tools.map((tool) => tool.name)).toEqual(['workspaces', 'clock', 'inspect', 'limits', 'webhooks', 'world', 'scenarios', 'call_api', 'explain_request', 'find_requests', 'coverage_gaps', 'break_one_thing', 'webhook_deliveries']);
      expect(JSON.stringify({ tools }).length).toBeLessThanOrEqual(TOOLS_LIST_MAX_CHARS);
      // Agents' model APIs refuse a combinator at the top of a tool's input schema.
      for (const tool of tools) expect(Object.keys(tool.inputSchema).filter((keyword) => ['anyOf', 'oneOf', 'allOf'].includes(keyword)), tool.name).toEqual([]);
    });

    it("takes each operation's body schema from control.yaml", async () => {
      const { tools } = await client.listTools();
      const clock = tools.find((tool) => tool.name === 'clock');
      const body = (clock?.inputSchema.properties as Record<string, { anyOf: Array<{ title: string; properties: object }> }>).body;
      expect(body?.anyOf.find((schema) => schema.title === 'advanceClock')?.properties).toEqual({ by: { type: 'string' }, ms: { type: 'integer' } });
    });
  });

  describe('tools/call', () => {
    it('answers a control operation with its body', async () => {
      const clock = jsonOf<{ now: string; frozen: boolean }>(await client.callTool({ name: 'clock', arguments: { operation: 'getClock' } }));
      expect(clock).toMatchObject({ now: TEST_CLOCK, frozen: true });
    });

    it("answers the control plane's refusal as a tool error carrying the envelope's code and message", async () => {
      const refused = expectToolError(await client.callTool({ name: 'clock', arguments: { operation: 'advanceClock', body: { by: 'P1Y' } } }), '400 VALIDATION_ERROR');
      expect(refused.headline).toContain('without years or months');
      expect(refused.body).toMatchObject({ error: { code: 'VALIDATION_ERROR', param: 'by' } });
    });

    it("answers the tool's own refusals as tool errors, never protocol errors", async () => {
      expect(expectToolError(await client.callTool({ name: 'clock', arguments: { operation: 'getJournal' } }), 'VALIDATION_ERROR').body).toMatchObject({ error: { code: 'VALIDATION_ERROR' } });
      expectToolError(await client.callTool({ name: 'webhooks', arguments: { operation: 'redeliverDelivery', params: { id: 'wh_1' } } }), 'VALIDATION_ERROR');
      expectToolError(await client.callTool({ name: 'clock', arguments: { operation: 'getClock', body: {} } }), 'VALIDATION_ERROR');
      expectToolError(await client.callTool({ name: 'break_one_thing', arguments: { what: 'velocity-cap' } }), 'VALIDATION_ERROR');
      expect(expectToolError(await client.callTool({ name: 'clock', arguments: { operation: 'advanceclok' } }), 'VALIDATION_ERROR').headline).toMatch(/; got 'advanceclok'; did you mean advanceClock\?$/);
      expectToolError(await client.callTool({ name: 'clock', arguments: { operation: 'getClock', workspace: 'ws_nobody' } }), '401 UNAUTHORIZED');
    });

    it('calls every tool', async () => {
      const { workspaceId } = jsonOf<{ workspaceId: string }>(await client.callTool({ name: 'workspaces', arguments: { operation: 'createWorkspace', body: { clock: { start: TEST_CLOCK, frozen: true } } } }));
      const workspace = workspaceId;
      const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: { workspace, ...args } });
      const connections = jsonOf<{ body: { connections: Array<{ id: string; platform: string }> } }>(await call('call_api', { method: 'GET', path: '/v1/connections' })).body.connections;
      const bluesky = connections.find((connection) => connection.platform === 'bluesky')?.id ?? '';
      const hook = jsonOf<{ body: { id: string } }>(await call('call_api', { method: 'POST', path: '/v1/webhooks', body: { name: 'all', url: receiver.url, events: ['post.published', 'account.expired'] } })).body;

      expect(jsonOf(await call('limits', { operation: 'getLimits' }))).toMatchObject({ plan: 'payg' });
      expect(jsonOf(await call('world', { operation: 'receiveInboundReview', body: { recommendation: 'positive' } }))).toHaveProperty('review');
      expect(jsonOf(await call('scenarios', { operation: 'listRules' }))).toEqual({ data: [] });
      expect(jsonOf<{ events: Array<{ event: string }> }>(await call('inspect', { operation: 'streamEvents' })).events.map((event) => event.event)).toContain('review.new');
      expect(jsonOf(await call('webhooks', { operation: 'setWebhookFaults', params: { id: hook.id }, body: {} }))).toBeDefined();

      // Break each thing, and see the next request get the answer it causes.
      jsonOf(await call('break_one_thing', { what: 'expire-session', accountId: bluesky }));
      expectToolError(await call('call_api', { method: 'POST', path: '/v1/posts', body: { text: 'Hello', destinations: [{ connectionId: bluesky }] } }), '400 ACCOUNT_RECONNECT_REQUIRED');
      expect(jsonOf<{ why: string[] }>(await call('explain_request', {})).why.join(' ')).toContain('ACCOUNT_RECONNECT_REQUIRED');
      jsonOf(await call('break_one_thing', { what: 'fail-webhook', webhookId: hook.id, count: 1, status: 503 }));
      jsonOf(await call('break_one_thing', { what: 'network-down', platform: 'instagram' }));
      const instagram = connections.find((connection) => connection.platform === 'instagram')?.id ?? '';
      expectToolError(await call('call_api', { method: 'GET', path: `/v1/connections/${instagram}/stats` }), '502 PLATFORM_ERROR');
      expect(jsonOf<{ why: string[] }>(await call('explain_request', {})).why.join(' ')).toContain("rule 'network-down-instagram'");
      expect(jsonOf<{ deliveries: Array<{ event: string }> }>(await call('webhook_deliveries', { all: true })).deliveries.map((delivery) => delivery.event)).toContain('account.expired');
      jsonOf(await call('break_one_thing', { what: 'exhaust-rate-budget' }));
      expectToolError(await call('call_api', { method: 'GET', path: '/v1/connections' }), '429 RATE_LIMITED');

      const found = jsonOf<{ count: number; data: Array<{ errorCode: string }> }>(await call('find_requests', { errorCode: 'PLATFORM_ERROR' }));
      expect(found).toMatchObject({ count: 1, data: [{ errorCode: 'PLATFORM_ERROR' }] });
      expect(jsonOf<{ count: number }>(await call('find_requests', { field: 'destinations[0].connectionId' })).count).toBe(1);
      expect(jsonOf<{ neverCalled: string[] }>(await call('coverage_gaps', { operations: ['getConnectionStats', 'deletePost'] })).neverCalled).toEqual(['deletePost']);
    });

    it('plays the scripted agent session in six tool calls after setup', async () => {
      const transcript = await playAgentSession(client, receiver.url);
      expect(transcript.session.map((step) => step.tool)).toEqual(['call_api', 'explain_request', 'clock', 'call_api', 'webhook_deliveries', 'coverage_gaps']);
      expect(receiver.requests.map((request) => request.json.event)).toContain('post.published');
      // docs/mcp.md's transcript comes from this run: SOCIAL_GATEWAY_MOCK_MCP_TRANSCRIPT=file writes it.
      const file = process.env.SOCIAL_GATEWAY_MOCK_MCP_TRANSCRIPT;
      if (file !== undefined && era === 'legacy') writeFileSync(file, `${JSON.stringify(transcript, null, 2)}\n`);
    });
  });

  describe('resources', () => {
    it('lists the contracts, the docs, the scenario library and its schema, and the journal and state templates', async () => {
      const { resources } = await client.listResources();
      const uris = resources.map((resource) => resource.uri);
      expect(uris).toEqual(expect.arrayContaining([
        'social-gateway-mock://contract/openapi.yaml',
        'social-gateway-mock://contract/control.yaml',
        'social-gateway-mock://docs/scenarios.md',
        'social-gateway-mock://scenarios/network-outage.yaml',
        'social-gateway-mock://scenarios/scenario.schema.json',
      ]));
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual(['social-gateway-mock://workspaces/{workspace}/journal/{seq}', 'social-gateway-mock://workspaces/{workspace}/state']);
    });

    it('reads a contract, and a journal entry and the state of a workspace', async () => {
      const contract = await client.readResource({ uri: 'social-gateway-mock://contract/control.yaml' });
      expect(contract.contents[0]).toMatchObject({ mimeType: 'application/yaml' });
      expect((contract.contents[0] as { text: string }).text).toContain('operationId: advanceClock');
      const { workspaceId } = jsonOf<{ workspaceId: string }>(await client.callTool({ name: 'workspaces', arguments: { operation: 'createWorkspace', body: { fixtures: false } } }));
      expectToolError(await client.callTool({ name: 'call_api', arguments: { workspace: workspaceId, method: 'GET', path: '/v1/posts/post_none' } }), '404 NOT_FOUND');
      const entry = await client.readResource({ uri: `social-gateway-mock://workspaces/${workspaceId}/journal/1` });
      expect(JSON.parse((entry.contents[0] as { text: string }).text)).toMatchObject({ seq: 1, status: 404, errorCode: 'NOT_FOUND', error: { message: expect.any(String) } });
      const state = await client.readResource({ uri: `social-gateway-mock://workspaces/${workspaceId}/state` });
      expect(JSON.parse((state.contents[0] as { text: string }).text)).toMatchObject({ format: 'social-gateway-mock/workspace', workspace: { id: workspaceId } });
    });
  });
});
