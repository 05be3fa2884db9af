import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { ScenarioError } from '../scenarios/parse.js';
import { DataFileError } from '../store/database.js';
import { bannerLines, indexDocument } from '../docs/index-page.js';
import { lastRecordedSeq } from '../proxy/proxy-router.js';
import { createMockServer, DEFAULT_API_KEY, type MockServer } from '../server.js';
import { VERSION } from '../version.js';
import { finishCoverage, scopedOperations } from './coverage-gate.js';
import { isLoopback, SHORT_CONTROL_TOKEN, UsageError, type CliIo, type ResolvedCli } from './options.js';

/** A server the command line started. */
export interface RunningServer {
  server: MockServer;
  /** The server's root, `http://127.0.0.1:4010`. */
  url: string;
  /** The default workspace's key. */
  apiKey: string;
  /** Shuts down, writes --coverage-report and answers the exit code (1 when under --coverage-min). */
  stop(): Promise<number>;
}

function recordingLine(dir: string): string {
  const last = lastRecordedSeq(dir);
  return last === 0 ? dir : `${dir} (appending after exchange ${last} already there)`;
}

/** Written at a temporary name, then renamed: a tool that waits for the file never reads half of it. */
function writeReadyFile(path: string, content: object): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(content, null, 2)}\n`);
  renameSync(temporary, path);
}

/** Fails unless the server answers its health check: what "ready" promises to anyone waiting. */
async function checkAnswers(url: string, controlToken: string | undefined): Promise<void> {
  const response = await fetch(`${url}/__control/health`, { headers: controlToken === undefined ? {} : { 'x-control-token': controlToken } });
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`GET ${url}/__control/health answered ${response.status}`);
}

export interface StartOptions {
  /** Where the banner goes: stdout for `serve`, stderr for `run` (the command owns stdout). */
  banner: (line: string) => void;
  /**
   * Check that the server answers before saying it is ready (`run`, `--ready-file`). A plain
   * `serve` skips it: listening is enough there, and the first fetch loads Node's HTTP client
   * (tens of milliseconds of every start).
   */
  confirm: boolean;
  /** The command picks a free port when none is asked for (`run`, `proxy -- <command>`): a busy port's advice says so. */
  picksFreePort?: boolean;
}

/**
 * Why the server could not listen, in words that name the flag to change: a bare EADDRINUSE
 * leaves a newcomer guessing which port, why, and what to do about it.
 */
function listenProblem(error: unknown, resolved: ResolvedCli, picksFreePort: boolean): string {
  const { host, port, portFrom } = resolved;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const asked = portFrom === undefined ? `port ${port} (the default)` : portFrom === '--port' ? `port ${port}` : `port ${port} (from ${portFrom})`;
  const another = picksFreePort
    ? 'give no port at all, and a free one is picked and passed to the command in SOCIAL_GATEWAY_MOCK_URL; or choose one with --port <number>'
    : 'choose another with --port <number>, or --port 0 for any free one (printed in the banner)';
  if (code === 'EADDRINUSE') return `cannot listen on ${host}:${port}: ${asked} is in use by another program (perhaps another social-gateway-mock); ${another}`;
  if (code === 'EACCES') return `cannot listen on ${host}:${port}: ${asked} needs privileges this process lacks (as ports below 1024 do); ${another}`;
  if (code === 'EADDRNOTAVAIL') return `cannot listen on ${host}:${port}: ${host} is not an address of this machine; choose another with --host (default 127.0.0.1)`;
  return `cannot listen on ${host}:${port}: ${error instanceof Error ? error.message : String(error)}`;
}

/**
 * Starts the server as the options ask, prints the banner, and answers the running server;
 * or an exit code (2) when the options, the data file, the scenario or the port do not
 * allow a start.
 */
export async function startServer(resolved: ResolvedCli, io: CliIo, { banner, confirm, picksFreePort = false }: StartOptions): Promise<RunningServer | { exitCode: number }> {
  let server: MockServer;
  try {
    // The request log's destination is the command's stderr: the one thing the options cannot hold.
    server = await createMockServer({ ...resolved.server, logRequests: resolved.logLevel === 'debug' ? io.err : undefined });
  } catch (error) {
    if (!(error instanceof DataFileError) && !(error instanceof ScenarioError)) throw error;
    io.err(`social-gateway-mock: ${error.message}`);
    return { exitCode: 2 };
  }
  let limitedTo: string[] | undefined;
  try {
    // Checked before listening: a typo in the list fails the job now, not after the suite.
    limitedTo = resolved.coverageScope && scopedOperations(resolved.coverageScope, server.coverage);
  } catch (error) {
    await server.close();
    if (!(error instanceof UsageError)) throw error;
    io.err(`social-gateway-mock: ${error.message}`);
    return { exitCode: 2 };
  }
  const { readyFile } = resolved;
  // A file left by an earlier run must not announce this one before it answers.
  if (readyFile !== undefined) rmSync(readyFile, { force: true });

  let url: string;
  try {
    url = await server.listen(resolved.port, resolved.host);
    if (confirm || readyFile !== undefined) await checkAnswers(url, resolved.server.controlToken);
  } catch (error) {
    await server.close();
    io.err(`social-gateway-mock: ${listenProblem(error, resolved, picksFreePort)}`);
    return { exitCode: 2 };
  }
  if (!isLoopback(resolved.host)) {
    const byName = resolved.server.allowedHosts === true ? '' : ' Callers that use a host name rather than an address need it in --allowed-hosts.';
    io.err(`social-gateway-mock: warning: listening on ${resolved.host}, reachable from other machines.${resolved.server.controlToken ? '' : ' Use --control-token to protect the control plane.'}${byName}`);
  }
  const token = resolved.server.controlToken;
  if (token !== undefined && token.length < SHORT_CONTROL_TOKEN) {
    io.err(`social-gateway-mock: warning: the control token has ${token.length} characters; one of ${SHORT_CONTROL_TOKEN} or more random characters (openssl rand -hex 16) cannot be guessed.`);
  }
  const apiKey = resolved.server.apiKey ?? DEFAULT_API_KEY;
  const { proxy } = resolved.server;
  if (proxy && resolved.logLevel !== 'error' && resolved.logLevel !== 'warn') {
    banner(
      [
        `social-gateway-mock ${VERSION} is proxying to ${proxy.upstream}`,
        `  API        ${url}/v1 → ${proxy.upstream}/v1 (the caller's own key goes upstream)`,
        `  Checks     every request and answer against openapi.yaml: ${proxy.strict ? 'strict, a broken answer becomes 502 CONTRACT_VIOLATION' : 'reported in X-Contract-Violations and the journal'}`,
        `  Timeout    ${proxy.upstreamTimeoutMs} ms for the upstream's whole answer`,
        `  Recording  ${proxy.recordDir === undefined ? 'off (--record DIR)' : recordingLine(proxy.recordDir)}`,
        `  Control    ${url}/__control`,
        `  Dashboard  ${url}/__dashboard`,
      ].join('\n'),
    );
  } else if (resolved.logLevel !== 'error' && resolved.logLevel !== 'warn') {
    banner(
      [
        `social-gateway-mock ${VERSION} is listening`,
        // GET / answers the same map (without the key and the data file behind a control token): one source for both.
        ...bannerLines(indexDocument(url, VERSION, { registry: server.registry, apiKey, dataFile: resolved.server.dataFile, open: true })),
      ].join('\n'),
    );
  }
  if (readyFile !== undefined) {
    try {
      writeReadyFile(readyFile, { url, apiUrl: `${url}/v1`, apiKey, controlUrl: `${url}/__control`, pid: process.pid });
    } catch (error) {
      await server.close();
      io.err(`social-gateway-mock: cannot write --ready-file ${readyFile}: ${error instanceof Error ? error.message : String(error)}`);
      return { exitCode: 2 };
    }
  }
  const stop = async (): Promise<number> => {
    await server.close();
    if (readyFile !== undefined) rmSync(readyFile, { force: true });
    return finishCoverage(server.coverage, resolved, limitedTo, io);
  };
  return { server, url, apiKey, stop };
}
