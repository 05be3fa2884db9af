import { VERSION } from '../version.js';
import type { ShutdownSource } from './lifecycle.js';
import { CONFIG_FILE, ENV_PREFIX, flagHelp, InputError, resolveOptions, UsageError, type CliIo } from './options.js';
import { didYouMean } from '../lib/did-you-mean.js';
import { shellWord, type PositionalHint } from './parse-flags.js';
import { maskPrintedLine } from './printed-line.js';
import { startServer, type RunningServer } from './serve.js';

export { resolveOptions, type CliIo } from './options.js';

/** An exit code (help, version, bad input, a finished `run`), or the server `serve` started. */
export type CliResult = { exitCode: number } | ({ exitCode?: undefined } & RunningServer);

/** Nothing asks to stop: for callers that stop the server themselves. */
const NEVER: ShutdownSource = { onShutdown: () => () => undefined };

export function helpText(): string {
  return [
    `social-gateway-mock ${VERSION}: a stateful mock of the Social Publishing Gateway API`,
    '',
    'Usage: social-gateway-mock [serve] [options]                serve until stopped (Ctrl-C, SIGTERM)',
    '       social-gateway-mock run [options] -- <command…>       serve while a command runs, exit with its status',
    '       social-gateway-mock proxy --upstream <url> [options]  forward /v1 to a real service, checked against openapi.yaml',
    '       social-gateway-mock drift <DIR> [--json]              what a proxy --record folder shows that openapi.yaml does not say',
    '       social-gateway-mock scenario from-recording <DIR>     print a scenario replaying a proxy --record folder',
    '       social-gateway-mock mcp [--url <URL>] [options]       an MCP server on stdio for coding agents (docs/mcp.md)',
    '',
    ...flagHelp(),
    '',
    `Every option can also come from ${ENV_PREFIX}<NAME> (SOCIAL_GATEWAY_MOCK_PORT=4011) or from the config file`,
    `(${CONFIG_FILE}, same names as keys). Flags win over the environment, which wins over the file.`,
    "`social-gateway-mock run --help` tells what the command's environment holds; `proxy --help`, `drift --help`,",
    '`scenario --help` and `mcp --help` tell their own options (docs/proxy.md, docs/mcp.md).',
  ].join('\n');
}

const COMMANDS = ['serve', 'run', 'proxy', 'drift', 'scenario', 'mcp'];

/**
 * A word among the plain server's flags. First on the line it was meant as a command: a typo of
 * one, or the test command of someone who has not met `run --` yet; later, a stray value.
 */
function serveHint(argv: string[], explicitServe: boolean): PositionalHint {
  return (word, index) => {
    if (index > 0 || explicitServe) return `'${word}' is neither an option nor an option's value (serve takes no arguments; options start with --)`;
    const near = didYouMean(word, COMMANDS);
    if (near !== '') return `unknown command '${word}'${near}`;
    return `unknown command '${word}'; the commands are ${COMMANDS.join(', ')}. To serve while a command runs: social-gateway-mock run -- ${argv.map(shellWord).join(' ')}`;
  };
}

function usageFailure(error: unknown, io: CliIo): { exitCode: number } {
  if (!(error instanceof UsageError)) throw error;
  io.err(`social-gateway-mock: ${error.message}`);
  if (!(error instanceof InputError)) io.err('Run with --help to see the options.');
  return { exitCode: 2 };
}

/**
 * The command line: `serve` (the default) or `run`. Answers an exit code, or, for
 * `serve`, the running server, whose `stop` the caller calls at the shutdown it chooses.
 * `shutdown` tells `run` (and `proxy -- <command>`) when to stop its command early.
 */
export async function main(argv: string[], given: CliIo, shutdown: ShutdownSource = NEVER): Promise<CliResult> {
  // A URL given with its credentials or a secret in its query (--upstream, a webhook, an error quoting a flag) is never printed with them.
  const io: CliIo = { ...given, out: (line) => given.out(maskPrintedLine(line)), err: (line) => given.err(maskPrintedLine(line)) };
  const [first, ...rest] = argv;
  try {
    if (first === 'run') {
      // Loaded only for `run`: execa costs about 80 ms of every start of the plain server otherwise.
      const { runCommand } = await import('./run.js');
      return { exitCode: await runCommand(rest, io, shutdown) };
    }
    if (first === 'drift') {
      // Loaded only for `drift`: the server's start does not pay for the comparer.
      const { driftCommand } = await import('./drift-command.js');
      return { exitCode: driftCommand(rest, io) };
    }
    if (first === 'proxy') {
      // Loaded only for `proxy`: the plain server's start does not pay for the proxy's command line.
      const { proxyCommand } = await import('./proxy-command.js');
      return await proxyCommand(rest, io, shutdown);
    }
    if (first === 'mcp') {
      // Loaded only for `mcp`: the server's start does not pay for the MCP SDK.
      const { mcpCommand } = await import('./mcp-command.js');
      return { exitCode: await mcpCommand(rest, io, shutdown) };
    }
    if (first === 'scenario') {
      // Loaded only for `scenario`: the server's start does not pay for the recording reader.
      const { scenarioCommand } = await import('./scenario-command.js');
      return { exitCode: scenarioCommand(rest, io) };
    }
    const resolved = first === 'serve' ? resolveOptions(rest, io, {}, serveHint(rest, true)) : resolveOptions(argv, io, {}, serveHint(argv, false));
    if (resolved === 'help') {
      io.out(helpText());
      return { exitCode: 0 };
    }
    if (resolved === 'version') {
      io.out(VERSION);
      return { exitCode: 0 };
    }
    return await startServer(resolved, io, { banner: io.out, confirm: false });
  } catch (error) {
    return usageFailure(error, io);
  }
}
