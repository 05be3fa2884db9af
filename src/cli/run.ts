import { constants } from 'node:os';
import { execa } from 'execa';
import { RUN_ENVIRONMENT } from '../lib/run-environment.js';
import { scenarioReference } from '../scenarios/library.js';
import { VERSION } from '../version.js';
import { FLAGS, flagHelp, resolveOptions, type CliIo } from './options.js';
import type { ShutdownSource } from './lifecycle.js';
import { commandAfterDashes, parseFlags, type PositionalHint } from './parse-flags.js';
import { startServer, type RunningServer } from './serve.js';

/** Exit statuses of `run` itself, as shells use them. */
const COMMAND_NOT_FOUND = 127;
const COMMAND_NOT_STARTED = 126;

export function runHelp(): string {
  return [
    'Usage: social-gateway-mock run [options] -- <command> [arguments...]',
    '',
    'Starts the server, waits until it answers, runs the command with',
    ...([
      [RUN_ENVIRONMENT.url, "the server's root (http://127.0.0.1:<port>; the API is under /v1)"],
      [RUN_ENVIRONMENT.apiKey, "the default workspace's key"],
      [RUN_ENVIRONMENT.controlUrl, 'the control plane (…/__control)'],
      [RUN_ENVIRONMENT.controlToken, 'the control token, when --control-token is set'],
      [RUN_ENVIRONMENT.scenario, "--scenario's file (absolute) or name: the vitest kit loads it into each test's workspace"],
    ] as const).map(([name, what]) => `  ${name.padEnd(35)}${what}`),
    'in its environment, stops the server (writing --coverage-report), and exits with the',
    "command's status, or 1 when the command passed and coverage is under --coverage-min (or a",
    'scenario rule never fired, with --fail-on-unfired-rules). A rule that fired in no workspace is named either way.',
    'It listens on a free port unless --port is given, so jobs sharing a machine never collide.',
    'The banner goes to stderr, so the command owns stdout. The command runs as given, with',
    "no shell: use `-- sh -c '…'` for pipes or &&.",
    '',
    `Under \`proxy -- <command>\` (${RUN_ENVIRONMENT.proxyUpstream} set), run starts no server: it runs`,
    'the command against the proxy, which records it and reports its coverage.',
    '',
    'Options (the same as the server\'s):',
    ...flagHelp(),
    '',
    'Example: npx social-gateway-mock run --coverage-min 60 --coverage-report coverage.md -- npm test',
  ].join('\n');
}

/** The status a shell would report: the exit code, or 128 + the signal's number. */
function statusOf(result: { exitCode?: number; signal?: string }): number {
  if (result.exitCode !== undefined) return result.exitCode;
  const number = result.signal === undefined ? undefined : constants.signals[result.signal as keyof typeof constants.signals];
  return number === undefined ? 1 : 128 + number;
}

/**
 * `run` under `proxy -- <command>`: the proxy is the server, so `run` starts none (a mock of
 * its own would take the command away from the proxy and record nothing) and runs the command
 * against it. Its flags shape a mock that is not started; they are named, not applied.
 */
async function runBehindProxy(flags: string[], command: string[], upstream: string, io: CliIo, shutdown: ShutdownSource, hint: PositionalHint): Promise<number> {
  const given = parseFlags(flags, FLAGS, hint).values;
  if (given.help || given.version) {
    io.out(given.help ? runHelp() : VERSION);
    return 0;
  }
  if (command.length === 0) {
    io.err('social-gateway-mock: run needs the command after --, such as: social-gateway-mock run -- npm test');
    return 2;
  }
  const names = Object.keys(given).map((name) => `--${name}`);
  const unused = names.length === 0 ? '' : `; ${names.join(', ')} ${names.length === 1 ? 'is' : 'are'} not applied (the proxy serves, records and reports coverage)`;
  io.err(`social-gateway-mock: run is under proxy -- <command> (${RUN_ENVIRONMENT.proxyUpstream}=${upstream}): it starts no server and runs the command against the proxy at ${io.env[RUN_ENVIRONMENT.url]}${unused}`);
  return runToEnd(command, {}, io, shutdown);
}

/** The upstream when this process runs under `proxy -- <command>`. */
function proxyUpstream(env: NodeJS.ProcessEnv): string | undefined {
  const upstream = env[RUN_ENVIRONMENT.proxyUpstream];
  return upstream && env[RUN_ENVIRONMENT.url] ? upstream : undefined;
}

/** `social-gateway-mock run [flags] -- <command…>`: one line for any CI. Answers the exit status. */
export async function runCommand(argv: string[], io: CliIo, shutdown: ShutdownSource): Promise<number> {
  const separator = argv.indexOf('--');
  const flags = separator === -1 ? argv : argv.slice(0, separator);
  const command = separator === -1 ? [] : argv.slice(separator + 1);
  const hint = commandAfterDashes('run', flags, separator !== -1, FLAGS);
  const upstream = proxyUpstream(io.env);
  // Before the options are read: the proxy hands the command its real key as SOCIAL_GATEWAY_MOCK_API_KEY, which is no mock key.
  if (upstream !== undefined) return runBehindProxy(flags, command, upstream, io, shutdown, hint);
  const resolved = resolveOptions(flags, io, {}, hint);
  if (resolved === 'help') {
    io.out(runHelp());
    return 0;
  }
  if (resolved === 'version') {
    io.out(VERSION);
    return 0;
  }
  if (command.length === 0) {
    io.err('social-gateway-mock: run needs the command after --, such as: social-gateway-mock run -- npm test');
    return 2;
  }

  // Two jobs on one machine must not collide: a port only when one was asked for. And a test's
  // clock move runs only what the tests start, unless the fixture world's own work was asked for.
  const server = { ...resolved.server, pending: resolved.server.pending ?? false };
  const started = await startServer({ ...resolved, server, port: resolved.portFrom === undefined ? 0 : resolved.port }, io, { banner: io.err, confirm: true, picksFreePort: true });
  if ('exitCode' in started) return started.exitCode;
  const token = resolved.server.controlToken;
  const { scenario } = resolved.server;
  return runWhileServing(started, command, {
    [RUN_ENVIRONMENT.url]: started.url,
    [RUN_ENVIRONMENT.apiKey]: started.apiKey,
    [RUN_ENVIRONMENT.controlUrl]: `${started.url}/__control`,
    ...(token !== undefined && { [RUN_ENVIRONMENT.controlToken]: token }),
    // The kit's workspaces get the scenario too (each test its own copy); empty, an outer run's is not passed on.
    [RUN_ENVIRONMENT.scenario]: scenario === undefined ? '' : scenarioReference(scenario, resolved.server.cwd ?? io.cwd),
  }, io, shutdown);
}

/**
 * Runs `command` (no shell) with `environment` added to the caller's while `started` serves, then
 * stops the server and answers the command's status, or the coverage gate's when the command
 * passed. A request to stop (Ctrl-C, SIGTERM, the parent gone) is passed to the command with
 * SIGTERM; the server stops once the command has exited, so its coverage counts every request.
 * `run` and `proxy … -- <command>` share it.
 */
export async function runWhileServing(started: RunningServer, command: string[], environment: Record<string, string>, io: CliIo, shutdown: ShutdownSource): Promise<number> {
  const status = await runToEnd(command, environment, io, shutdown);
  const gate = await started.stop();
  // The command's failure is the news; the coverage gate's only when the command passed.
  return status !== 0 ? status : gate;
}

/** Runs `command` (no shell) with `environment` added to the caller's, and answers its status as a shell would. */
async function runToEnd(command: string[], environment: Record<string, string>, io: CliIo, shutdown: ShutdownSource): Promise<number> {
  const [file, ...args] = command as [string, ...string[]];
  const subprocess = execa(file, args, {
    cwd: io.cwd,
    env: { ...io.env, ...environment },
    extendEnv: false,
    stdio: 'inherit',
    reject: false,
    // A command that ignores SIGTERM is killed 5 s later: the job must end.
    forceKillAfterDelay: 5000,
  });
  const unsubscribe = shutdown.onShutdown((reason) => {
    io.err(`social-gateway-mock: ${reason}, stopping the command`);
    subprocess.kill('SIGTERM');
  });
  const result = await subprocess;
  unsubscribe();

  let status = statusOf(result);
  if (result.failed && result.exitCode === undefined && result.signal === undefined) {
    // Never started: not found, or not executable.
    status = result.code === 'ENOENT' ? COMMAND_NOT_FOUND : COMMAND_NOT_STARTED;
    io.err(`social-gateway-mock: cannot run ${file}: ${result.code === 'ENOENT' ? 'command not found' : (result.shortMessage ?? 'failed to start')}`);
  }
  return status;
}
