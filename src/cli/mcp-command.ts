import { serveStdio, type StdioServerHandle } from '@modelcontextprotocol/server/stdio';
import { loadSpec } from '../http/spec.js';
import { createMcpServer, type McpServerParts } from '../mcp/mcp-server.js';
import { packageResources } from '../mcp/resources.js';
import { KeyRing, type McpSession } from '../mcp/session.js';
import { MockTarget } from '../mcp/target.js';
import { VERSION } from '../version.js';
import type { ShutdownSource } from './lifecycle.js';
import { flagHelp, resolveOptions, UsageError, type CliIo, type FlagTable } from './options.js';
import { startServer } from './serve.js';

/** `mcp`'s own flag; the server's flags start the mock it runs in process. */
export const MCP_FLAGS = {
  url: { type: 'string', help: 'Attach to a running mock at this URL (http://127.0.0.1:4010) instead of starting one; --control-token and --api-key are then its credentials.' },
} as const satisfies FlagTable;

export function mcpHelp(): string {
  return [
    'Usage: social-gateway-mock mcp [--url <URL>] [options]',
    '',
    'An MCP server over stdio for coding agents: the control plane as tools (from control.yaml), the',
    "contracts, docs and scenarios as resources (docs/mcp.md). Without --url it starts a mock in this process",
    '(with the options below; its banner goes to stderr, stdout carries the protocol) and stops it when the',
    'agent closes the connection. Every running mock also serves the same tools over Streamable HTTP at /mcp.',
    '',
    ...flagHelp(MCP_FLAGS),
    '',
    "Options of the mock it starts (and --control-token, --api-key for the one --url names):",
    ...flagHelp(),
    '',
    'Example (an agent\'s MCP configuration): { "command": "npx", "args": ["social-gateway-mock", "mcp"] }',
  ].join('\n');
}

/** The contracts and files every MCP server of this process is built from. */
function serverParts(): McpServerParts {
  return { controlDocument: loadSpec('control.yaml').document, resources: packageResources() };
}

/**
 * `social-gateway-mock mcp`: serves MCP on stdio until the agent closes it (or the process is
 * asked to stop), over a mock it started or the one --url names. Answers the exit status.
 */
export async function mcpCommand(argv: string[], io: CliIo, shutdown: ShutdownSource): Promise<number> {
  const resolved = resolveOptions(argv, io, MCP_FLAGS);
  if (resolved === 'help') {
    io.out(mcpHelp());
    return 0;
  }
  if (resolved === 'version') {
    io.out(VERSION);
    return 0;
  }
  const url = resolved.extra.url;
  if (url !== undefined && (typeof url !== 'string' || !/^https?:\/\/[^/]/.test(url))) throw new UsageError(`--url must be the mock's http(s) URL, such as http://127.0.0.1:4010; got '${String(url)}'`);
  const { controlToken, apiKey } = resolved.server;
  let session: McpSession;
  let stopMock: (() => Promise<number>) | undefined;
  if (url !== undefined) {
    session = { target: new MockTarget(url), credentials: { controlToken, apiKey }, defaultApiKey: apiKey, keys: new KeyRing() };
  } else {
    // stdout is the protocol's: the banner and every warning go to stderr.
    const started = await startServer(resolved, { ...io, out: io.err }, { banner: io.err, confirm: true });
    if ('exitCode' in started) return started.exitCode;
    stopMock = started.stop;
    session = { target: new MockTarget(started.url), credentials: { controlToken }, defaultApiKey: started.apiKey, keys: new KeyRing() };
  }
  const parts = serverParts();
  // The agent ends the session by closing stdin (the stdio binding's rule); a signal ends it too.
  const closed = new Promise<string>((resolve) => {
    const onClose = (): void => resolve('the agent closed the connection');
    process.stdin.once('end', onClose);
    process.stdin.once('close', onClose);
    shutdown.onShutdown(resolve);
  });
  const handle: StdioServerHandle = serveStdio(() => createMcpServer(session, parts), {
    onerror: (error) => io.err(`social-gateway-mock: mcp: ${error.message}`),
  });
  io.err(`social-gateway-mock: MCP server on stdio, driving ${session.target.url}`);
  const reason = await closed;
  io.err(`social-gateway-mock: ${reason}, stopping`);
  await handle.close();
  return stopMock ? stopMock() : 0;
}
