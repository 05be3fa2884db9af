import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { cliIo } from '../helpers/cli-io.js';
import { expectToolError, jsonOf, playAgentSession, stdioClient } from '../helpers/mcp.js';
import { useMock } from '../helpers/mock.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

async function mcp(args: string[]) {
  const { streams, out, err } = cliIo();
  const result = await main(['mcp', ...args], streams);
  return { exitCode: result.exitCode, out: out.join('\n'), err: err.join('\n') };
}

describe('social-gateway-mock mcp', () => {
  describe('--help', () => {
    it('tells the command, its --url and the server flags', async () => {
      const { exitCode, out } = await mcp(['--help']);
      expect(exitCode).toBe(0);
      expect(out).toContain('Usage: social-gateway-mock mcp [--url <URL>]');
      expect(out).toContain('--url');
      expect(out).toContain('--control-token');
    });
  });

  describe('when --url is not an http URL', () => {
    it('exits 2 naming the flag', async () => {
      const { exitCode, err } = await mcp(['--url', 'localhost:4010']);
      expect(exitCode).toBe(2);
      expect(err).toContain('--url must be');
    });
  });

  describe('over stdio, with a mock of its own', () => {
    let client: Client;
    let stderr: () => string;
    let receiver: WebhookReceiver;
    beforeAll(async () => {
      ({ client, stderr } = await stdioClient(['--port', '0', '--seed', '1']));
      receiver = await WebhookReceiver.start();
    }, 60_000);
    afterAll(async () => {
      await client.close();
      await receiver.close();
    });

    it('lists the tools and resources, keeping stdout for the protocol (the banner goes to stderr)', async () => {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('explain_request');
      const { resources } = await client.listResources();
      expect(resources.map((resource) => resource.uri)).toContain('social-gateway-mock://contract/openapi.yaml');
      expect(stderr()).toContain('is listening');
    });

    it('plays the scripted agent session in six tool calls after setup', async () => {
      const { session } = await playAgentSession(client, receiver.url);
      expect(session).toHaveLength(6);
      expect(receiver.requests.map((request) => request.json.event)).toContain('post.published');
    });
  });

  describe('over stdio, attached to a running mock with --url', () => {
    const token = 'mcp-attach-control-token-0123456789';
    const mock = useMock({ controlToken: token }, { listen: true });

    it('drives that mock with the control token it is given', async () => {
      const { client } = await stdioClient(['--url', mock.url, '--control-token', token]);
      const listed = jsonOf<{ data: Array<{ workspaceId: string }> }>(await client.callTool({ name: 'workspaces', arguments: { operation: 'listWorkspaces' } }));
      expect(listed.data.map((workspace) => workspace.workspaceId)).toContain(mock.server.registry.defaultWorkspace.id);
      await client.close();
    });

    it('is refused what the control plane refuses without it', async () => {
      const { client } = await stdioClient(['--url', mock.url]);
      expectToolError(await client.callTool({ name: 'workspaces', arguments: { operation: 'listWorkspaces' } }), '401 UNAUTHORIZED');
      await client.close();
    });
  });
});
