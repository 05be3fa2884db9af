import { constants } from 'node:os';
import { execa } from 'execa';
import { RUN_ENVIRONMENT } from '../lib/run-environment.js';
import { VERSION } from '../version.js';
import { flagHelp, resolveOptions, type CliIo } from './options.js';
import type { ShutdownSource } from './lifecycle.js';
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
      [RUN_ENVIRONMENT.url, "the server's root (http://127.0.0.1:4010; the API is under /v1)"],
      [RUN_ENVIRONMENT.apiKey, "the default workspace's key"],
      [RUN_ENVIRONMENT.controlUrl, 'the control plane (…/__control)'],
      [RUN_ENVIRONMENT.controlToken, 'the control token, when --control-token is set'],
    ] as const).map(([name, what]) => `  ${name.padEnd(35)}${what}`),
    'in its environment, stops the server (writing --coverage-report), and exits with the',
    "command's status, or 1 when the command passed and coverage is under --coverage-min.",
    'The banner goes to stderr, so the command owns stdout. The command runs as given, with',
    "no shell: use `-- sh -c '…'` for pipes or &&.",
    '',
    'Options (the same as the server\'s):',
    ...flagHelp(),
    '',
    'Example: npx social-gateway-mock run --port 0 --coverage-min 60 --coverage-report coverage.md -- npm test',
  ].join('\n');
}

/** The status a shell would report: the exit code, or 128 + the signal's number. */
function statusOf(result: { exitCode?: number; signal?: string }): number {
  if (result.exitCode !== undefined) return result.exitCode;
  const number = result.signal === undefined ? undefined : constants.signals[result.signal as keyof typeof constants.signals];
  return number === undefined ? 1 : 128 + number;
}

/** `social-gateway-mock run [flags] -- <command…>`: one line for any CI. Answers the exit status. */
export async function runCommand(argv: string[], io: CliIo, shutdown: ShutdownSource): Promise<number> {
  const separator = argv.indexOf('--');
  const flags = separator === -1 ? argv : argv.slice(0, separator);
  const command = separator === -1 ? [] : argv.slice(separator + 1);
  const resolved = resolveOptions(flags, io);
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

  const started = await startServer(resolved, io, { banner: io.err, confirm: true });
  if ('exitCode' in started) return started.exitCode;
  const token = resolved.server.controlToken;
  return runWhileServing(started, command, {
    [RUN_ENVIRONMENT.url]: started.url,
    [RUN_ENVIRONMENT.apiKey]: started.apiKey,
    [RUN_ENVIRONMENT.controlUrl]: `${started.url}/__control`,
    ...(token !== undefined && { [RUN_ENVIRONMENT.controlToken]: token }),
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
  const gate = await started.stop();
  // The command's failure is the news; the coverage gate's only when the command passed.
  return status !== 0 ? status : gate;
}
