import { serveStdio, StdioServerTransport, type StdioServerHandle } from '@modelcontextprotocol/server/stdio';
import { loadSpec } from '../http/spec.js';
import { createMcpServer, type McpServerParts } from '../mcp/mcp-server.js';
import { packageResources } from '../mcp/resources.js';
import { KeyRing, type McpSession } from '../mcp/session.js';
import { MockTarget } from '../mcp/target.js';
import { VERSION } from '../version.js';
import type { ShutdownSource } from './lifecycle.js';
import { flagHelp, InputError, resolveOptions, UsageError, type CliIo, type FlagTable } from './options.js';
import { startServer } from './serve.js';
import { maskPrintedLine } from './printed-line.js';

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
    'agent closes the connection. That mock takes a free port unless --port (or SOCIAL_GATEWAY_MOCK_PORT, or the',
    'config file) names one, so a mock already serving on 4010 does not stop the agent from starting.',
    'When the mock cannot start, the agent is answered an MCP error that says why, and the command exits 2.',
    'Every running mock also serves the same tools over Streamable HTTP at /mcp.',
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

/** What the agent drives, or why there is nothing to drive. */
type Target = { session: McpSession; stopMock?: () => Promise<number> } | { exitCode: number; failure?: string };

/**
 * The mock the session drives: the one --url names, or one started in this process, on a free
 * port unless a port was asked for (a developer's mock on 4010 must not stop the agent's start).
 * A failure is said on stderr, as every command says it, and kept for the agent.
 */
async function mcpTarget(argv: string[], io: CliIo): Promise<Target> {
  const said: string[] = [];
  // Kept as printed: masked (user info, secret-named query values), since the agent's client may log it.
  const told: CliIo = { ...io, err: (line) => (said.push(maskPrintedLine(line).replace(/^social-gateway-mock: /, '')), io.err(line)) };
  const failed = (exitCode: number): Target => ({ exitCode, failure: said.join(' ') });
  try {
    const resolved = resolveOptions(argv, told, MCP_FLAGS);
    if (resolved === 'help' || resolved === 'version') {
      io.out(resolved === 'help' ? mcpHelp() : VERSION);
      return { exitCode: 0 };
    }
    const url = resolved.extra.url;
    if (url !== undefined && (typeof url !== 'string' || !/^https?:\/\/[^/]/.test(url))) throw new UsageError(`--url must be the mock's http(s) URL, such as http://127.0.0.1:4010; got '${String(url)}'`);
    const { controlToken, apiKey } = resolved.server;
    if (url !== undefined) return { session: { target: new MockTarget(url), credentials: { controlToken, apiKey }, defaultApiKey: apiKey, keys: new KeyRing() } };
    // stdout is the protocol's: the banner and every warning go to stderr.
    const started = await startServer({ ...resolved, port: resolved.portFrom === undefined ? 0 : resolved.port }, { ...told, out: told.err }, { banner: io.err, confirm: true });
    if ('exitCode' in started) return failed(started.exitCode);
    return { session: { target: new MockTarget(started.url), credentials: { controlToken }, defaultApiKey: started.apiKey, keys: new KeyRing() }, stopMock: started.stop };
  } catch (error) {
    if (!(error instanceof UsageError)) {
      told.err(`social-gateway-mock: ${error instanceof Error ? error.message : String(error)}`);
      return failed(1);
    }
    told.err(`social-gateway-mock: ${error.message}`);
    if (!(error instanceof InputError)) io.err('Run with --help to see the options.');
    return failed(2);
  }
}

/** JSON-RPC's "internal error": the server could not do what it exists for. */
const INTERNAL_ERROR = -32603;

/**
 * A start that failed, told to the agent: its first request (initialize) is answered with an MCP
 * error that says what happened, then the connection closes. An agent that saw only the pipe
 * close would show "Connection closed" and nothing of why.
 */
async function answerStartFailure(failure: string, shutdown: ShutdownSource): Promise<void> {
  const transport = new StdioServerTransport();
  const message = `social-gateway-mock could not start: ${failure}`;
  await new Promise<void>((resolve) => {
    transport.onclose = resolve;
    shutdown.onShutdown(() => resolve());
    transport.onmessage = (request) => {
      if (!('id' in request) || !('method' in request)) return;
      void transport.send({ jsonrpc: '2.0', id: request.id, error: { code: INTERNAL_ERROR, message } }).finally(resolve);
    };
    void transport.start();
  });
  await transport.close();
}

/**
 * `social-gateway-mock mcp`: serves MCP on stdio until the agent closes it (or the process is
 * asked to stop), over a mock it started or the one --url names. Answers the exit status.
 */
export async function mcpCommand(argv: string[], io: CliIo, shutdown: ShutdownSource): Promise<number> {
  const target = await mcpTarget(argv, io);
  if ('exitCode' in target) {
    // A terminal is a person, who has read stderr already; a pipe is an agent waiting for an answer.
    if (target.failure !== undefined && process.stdin.isTTY !== true) await answerStartFailure(target.failure, shutdown);
    return target.exitCode;
  }
  const { session, stopMock } = target;
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
