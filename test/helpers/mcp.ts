import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { expect } from 'vitest';
import { packagePath } from '../../src/lib/package-root.js';

/** The protocol eras the SDK's client speaks: the 2025 handshake (what most agents speak today) and 2026-07-28. */
export const ERAS = ['legacy', { pin: '2026-07-28' }] as const;
export type Era = (typeof ERAS)[number];

export function eraName(era: Era): string {
  return era === 'legacy' ? '2025 (initialize)' : era.pin;
}

/** The SDK's own client over Streamable HTTP at the mock's /mcp, with these headers. */
export async function httpClient(url: string, era: Era = 'legacy', headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'social-gateway-mock-tests', version: '1.0.0' }, { versionNegotiation: { mode: era } });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } }));
  return client;
}

/** The SDK's own client over stdio, spawning `social-gateway-mock mcp` from the source (as test/helpers/process.ts does). */
export async function stdioClient(args: string[], era: Era = 'legacy'): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', 'src/bin.ts', 'mcp', ...args],
    cwd: packagePath(),
    env: { ...(process.env as Record<string, string>), NODE_ENV: 'test' },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: 'social-gateway-mock-tests', version: '1.0.0' }, { versionNegotiation: { mode: era } });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

/** A tool's text, whole. */
export function textOf(result: unknown): string {
  const content = (result as CallToolResult).content;
  return content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

/** A successful tool call's JSON answer; fails with the tool's text when it was an error. */
export function jsonOf<T = Record<string, unknown>>(result: unknown): T {
  const text = textOf(result);
  expect((result as CallToolResult).isError ?? false, text).toBe(false);
  return JSON.parse(text) as T;
}

/** A tool error: its first line opens with the status (when any) and the envelope's code; the rest is the envelope. */
export function expectToolError(result: unknown, code: string): { headline: string; body: unknown } {
  const text = textOf(result);
  expect((result as CallToolResult).isError, text).toBe(true);
  const [headline = '', ...rest] = text.split('\n');
  expect(headline).toMatch(new RegExp(`^(\\d{3} )?${code}: `));
  return { headline, body: JSON.parse(rest.join('\n')) as unknown };
}

/** One call of the scripted agent session, as docs/mcp.md shows it. */
export interface TranscriptStep {
  tool: string;
  arguments: Record<string, unknown>;
  isError: boolean;
  text: string;
}

/** Calls a tool and keeps the exchange for the transcript. */
export function recorder(client: Client): { call(tool: string, args: Record<string, unknown>): Promise<CallToolResult>; steps: TranscriptStep[] } {
  const steps: TranscriptStep[] = [];
  return {
    steps,
    async call(tool, args) {
      const result = (await client.callTool({ name: tool, arguments: args })) as CallToolResult;
      steps.push({ tool, arguments: args, isError: result.isError ?? false, text: textOf(result) });
      return result;
    },
  };
}

/**
 * The scripted session, no model involved. Setup: a workspace, its webhook, an account's
 * hourly velocity filled. Then, in six tool calls: a post refused 429, why, the clock moved,
 * the post again, its post.published webhook delivered, the coverage read.
 */
export async function playAgentSession(client: Client, receiverUrl: string): Promise<{ setup: TranscriptStep[]; session: TranscriptStep[] }> {
  const setup = recorder(client);
  const { workspaceId } = jsonOf<{ workspaceId: string }>(await setup.call('workspaces', { operation: 'createWorkspace', body: { clock: { start: '2026-03-02T10:00:00Z', frozen: true } } }));
  const connections = jsonOf<{ body: { connections: Array<{ id: string; platform: string }> } }>(await setup.call('call_api', { workspace: workspaceId, method: 'GET', path: '/v1/connections' }));
  const account = connections.body.connections.find((connection) => connection.platform === 'bluesky')?.id;
  expect(account).toBeDefined();
  jsonOf(await setup.call('call_api', { workspace: workspaceId, method: 'POST', path: '/v1/webhooks', body: { name: 'agent', url: receiverUrl, events: ['post.published'] } }));
  jsonOf(await setup.call('break_one_thing', { workspace: workspaceId, what: 'velocity-cap', accountId: account }));

  const session = recorder(client);
  const post = { text: 'Fresh beans today.', destinations: [{ connectionId: account }] };
  const refused = expectToolError(await session.call('call_api', { workspace: workspaceId, method: 'POST', path: '/v1/posts', body: post }), '429 VELOCITY_LIMITED');
  expect(refused.body).toMatchObject({ status: 429, headers: { 'retry-after': '3600' } });
  const why = jsonOf<{ entry: { status: number; errorCode: string }; why: string[]; next: string[] }>(await session.call('explain_request', { workspace: workspaceId }));
  expect(why.entry).toMatchObject({ status: 429, errorCode: 'VELOCITY_LIMITED' });
  expect(why.why.join(' ')).toContain(`The posting velocity cap of account ${account} (bluesky) was reached: 25 published posts per rolling hour.`);
  expect(why.next.join(' ')).toContain('PT3600S');
  jsonOf(await session.call('clock', { workspace: workspaceId, operation: 'advanceClock', body: { by: 'PT3600S' } }));
  const created = jsonOf<{ status: number; body: { id: string; status: string } }>(await session.call('call_api', { workspace: workspaceId, method: 'POST', path: '/v1/posts', body: post }));
  expect(created.status).toBe(201);
  const delivered = jsonOf<{ deliveries: Array<{ event: string; status: string }> }>(await session.call('webhook_deliveries', { workspace: workspaceId, advance: 'PT5S', event: 'post.published' }));
  expect(delivered.deliveries).toEqual([expect.objectContaining({ event: 'post.published', status: 'succeeded' })]);
  const coverage = jsonOf<{ gaps: Array<{ operationId: string }>; neverCalled: string[] }>(await session.call('coverage_gaps', { workspace: workspaceId, operations: ['createPost', 'listConnections', 'createWebhook', 'getPost'] }));
  expect(coverage.neverCalled).toEqual(['getPost']);
  expect(session.steps.length).toBeLessThanOrEqual(6);
  return { setup: setup.steps, session: session.steps };
}
