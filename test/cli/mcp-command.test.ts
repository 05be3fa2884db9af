import { createServer, type Server } from 'node:net';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { cliIo } from '../helpers/cli-io.js';
import { expectToolError, jsonOf, playAgentSession, stdioClient } from '../helpers/mcp.js';
import { useMock } from '../helpers/mock.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { refusedUrl } from '../proxy/helpers.js';

/** Holds a port as another program would; EADDRINUSE means something else holds it already, which serves as well. */
async function holdPort(port: number): Promise<{ port: number; release: () => Promise<void> }> {
  const server: Server = createServer();
  const held = await new Promise<number | undefined>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => (error.code === 'EADDRINUSE' ? resolve(undefined) : reject(error)));
    server.listen(port, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
  });
  return { port: held ?? port, release: () => (held === undefined ? Promise.resolve() : new Promise((resolve) => server.close(() => resolve()))) };
}

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
    it('answers the agent an MCP error naming the flag', async () => {
      await expect(stdioClient(['--url', 'localhost:4010'])).rejects.toThrow("social-gateway-mock could not start: --url must be the mock's http(s) URL, such as http://127.0.0.1:4010; got 'localhost:4010'");
    }, 60_000);
  });

  describe('over stdio as docs/mcp.md configures it, while another program holds port 4010', () => {
    let held: Awaited<ReturnType<typeof holdPort>>;
    beforeAll(async () => {
      held = await holdPort(4010);
    });
    afterAll(() => held.release());

    it('starts its own mock on a free port and tells the agent where', async () => {
      // The configs' args exactly: ["social-gateway-mock", "mcp"], no port.
      const { client, stderr } = await stdioClient([]);
      try {
        const url = /API {8}(http:\/\/127\.0\.0\.1:(\d+))\/v1/.exec(stderr())?.[1];
        expect(url, stderr()).toBeDefined();
        expect(url).not.toBe('http://127.0.0.1:4010');
        expect(client.getInstructions()).toContain(`The mock serves its API at ${url as string}/v1`);
        const health = jsonOf<{ status: string }>(await client.callTool({ name: 'workspaces', arguments: { operation: 'getHealth' } }));
        expect(health.status).toBe('ok');
      } finally {
        await client.close();
      }
    }, 60_000);
  });

  describe('when its mock cannot start', () => {
    it('answers the agent an MCP error that says why (a port that is asked for and taken)', async () => {
      const held = await holdPort(0);
      try {
        await expect(stdioClient(['--port', String(held.port)])).rejects.toThrow(
          `social-gateway-mock could not start: cannot listen on 127.0.0.1:${held.port}: port ${held.port} is in use by another program (perhaps another social-gateway-mock); choose another with --port <number>, or --port 0 for any free one (printed in the banner)`,
        );
      } finally {
        await held.release();
      }
    }, 60_000);

    it('answers the agent an MCP error that says why (a scenario that is not there)', async () => {
      await expect(stdioClient(['--scenario', 'no-such-scenario.yaml'])).rejects.toThrow(/^social-gateway-mock could not start: .*no-such-scenario\.yaml/);
    }, 60_000);
  });

  describe('attached with --url to a mock that does not answer', () => {
    it('answers each tool call MOCK_UNREACHABLE, naming the URL', async () => {
      const url = await refusedUrl();
      const { client } = await stdioClient(['--url', url]);
      try {
        const { headline, body } = expectToolError(await client.callTool({ name: 'workspaces', arguments: { operation: 'getHealth' } }), 'MOCK_UNREACHABLE');
        expect(headline).toBe(`MOCK_UNREACHABLE: The mock at ${url} did not answer: fetch failed (ECONNREFUSED). Is it running there?`);
        expect(body).toMatchObject({ error: { details: { url } } });
      } finally {
        await client.close();
      }
    }, 60_000);
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
