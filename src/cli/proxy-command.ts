import { accessSync, constants, mkdirSync, readFileSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { RUN_ENVIRONMENT } from '../lib/run-environment.js';
import { VERSION } from '../version.js';
import { DEFAULT_UPSTREAM_TIMEOUT_MS, type ProxyOptions } from '../proxy/proxy-router.js';
import type { ShutdownSource } from './lifecycle.js';
import { FLAGS, flagHelp, resolveOptions, UsageError, type CliIo, type FlagTable } from './options.js';
import { commandAfterDashes } from './parse-flags.js';
import { startServer, type RunningServer } from './serve.js';

/** The proxy's own flags; the server's (port, host, control token, coverage report…) come with them. */
export const PROXY_FLAGS = {
  upstream: { type: 'string', help: 'Required. The real service every /v1 request goes to (http or https; a path there prefixes each request path).' },
  strict: { type: 'boolean', help: 'Answer an upstream response that breaks openapi.yaml with 502 CONTRACT_VIOLATION naming the fields, instead of passing it on.' },
  record: { type: 'string', help: 'Write each exchange, redacted, as one JSON file into this folder (for scenario from-recording and drift).' },
  'upstream-ca': { type: 'string', help: "Also trust the certificates (PEM) in this file for an https upstream, such as a staging service behind a private CA." },
  'upstream-timeout': { type: 'string', help: `Milliseconds the upstream has to answer completely; past it, 502 PLATFORM_ERROR (default ${DEFAULT_UPSTREAM_TIMEOUT_MS}).` },
  'upstream-key': { type: 'string', help: `The real service's key, handed to the command after -- as ${RUN_ENVIRONMENT.apiKey} (where run puts the mock's), so a suite written for run sends it upstream unchanged. The proxy itself never adds it to a request. Best given as SOCIAL_GATEWAY_MOCK_UPSTREAM_KEY, out of sight of ps.` },
} as const satisfies FlagTable;

/** The server's flags that mean something to a proxy; the rest (a seed, a plan, a clock) only shape its own empty workspace. */
const SERVER_FLAGS_FOR_PROXY = ['host', 'port', 'control-token', 'cors', 'allowed-hosts', 'redact', 'log-level', 'journal-size', 'coverage-report', 'coverage-min', 'coverage-ops', 'coverage-from', 'ready-file', 'config', 'help', 'version'] as const;

export function proxyHelp(): string {
  const serverFlags = Object.fromEntries(SERVER_FLAGS_FOR_PROXY.map((name) => [name, FLAGS[name]])) as FlagTable;
  return [
    'Usage: social-gateway-mock proxy --upstream <url> [options] [-- <command…>]',
    '',
    'Forwards every /v1 request to the upstream with its headers and body, and answers what the',
    "upstream answered, byte for byte. Requests and answers are checked against openapi.yaml: what",
    'they break is named in the X-Contract-Violations header, the journal (GET /__control/journal,',
    "the dashboard's Requests view) and the coverage report written at exit. Secrets are redacted",
    'in recordings, the journal, the event stream and the logs.',
    '',
    `With a command after --, the proxy serves while it runs (as \`run\` does, on a free port unless --port is given),`,
    `with ${RUN_ENVIRONMENT.url} (the proxy's root; the API is under /v1), ${RUN_ENVIRONMENT.proxyUpstream}`,
    `(the upstream) and, with --upstream-key, ${RUN_ENVIRONMENT.apiKey} in its environment, then stops and exits`,
    "with the command's status. The vitest kit and `run` see they are behind the proxy: run starts no server,",
    "and the kit gives each test the proxy's URL and the key, and skips a test where it reaches for the mock's",
    'own world (mock.control, its workspace): the real service has none.',
    '',
    'Proxy options:',
    ...flagHelp(PROXY_FLAGS),
    '',
    "Server options (the server's, as they apply to a proxy):",
    ...flagHelp(serverFlags),
    '',
    "The server's other flags (--seed, --plan, --clock, …) are accepted, as a shared config file may hold",
    "them, and shape only the proxy's own, empty workspace; --scenario is refused: /v1 goes upstream.",
    '',
    'Example: social-gateway-mock proxy --upstream https://api.example.com --record recording --coverage-report proxy.md',
    '         SOCIAL_GATEWAY_MOCK_UPSTREAM_KEY=… social-gateway-mock proxy --upstream https://api.example.com --record recording -- npm test',
  ].join('\n');
}

function upstreamUrl(raw: string | boolean | undefined): string {
  if (typeof raw !== 'string' || raw.trim() === '') throw new UsageError('proxy needs --upstream <url>, the service to forward to, such as --upstream https://api.example.com');
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new UsageError(`--upstream must be an http or https URL; got '${raw}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--upstream must be an http or https URL; got '${raw}'`);
  if (url.search !== '' || url.hash !== '') throw new UsageError(`--upstream takes no query or fragment; got '${raw}'`);
  if (url.username !== '' || url.password !== '') throw new UsageError('--upstream must not carry credentials: the caller\'s own headers go upstream');
  return url.href.replace(/\/+$/, '');
}

function timeout(raw: string | boolean | undefined): number {
  if (raw === undefined) return DEFAULT_UPSTREAM_TIMEOUT_MS;
  if (typeof raw !== 'string' || !/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > 3_600_000) {
    throw new UsageError(`--upstream-timeout must be a whole number of milliseconds from 1 to 3600000; got '${String(raw)}'`);
  }
  return Number(raw);
}

/** Made now: a folder that cannot be written fails the start, not every exchange after it. */
function recordFolder(path: string): string {
  try {
    mkdirSync(path, { recursive: true });
    accessSync(path, constants.W_OK);
  } catch (error) {
    throw new UsageError(`cannot record into --record ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return path;
}

function readCa(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read --upstream-ca ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!text.includes('-----BEGIN CERTIFICATE-----')) throw new UsageError(`--upstream-ca ${path} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  return text;
}

/**
 * `social-gateway-mock proxy --upstream URL [flags] [-- <command…>]`: an exit code (help, bad
 * input, or the command's status when one is given, as `run` answers it), or the running proxy.
 */
export async function proxyCommand(argv: string[], io: CliIo, shutdown: ShutdownSource): Promise<{ exitCode: number } | RunningServer> {
  const separator = argv.indexOf('--');
  const flags = separator === -1 ? argv : argv.slice(0, separator);
  const command = separator === -1 ? [] : argv.slice(separator + 1);
  if (separator !== -1 && command.length === 0) throw new UsageError('proxy needs the command after --, such as: social-gateway-mock proxy --upstream https://api.example.com --record rec -- npm test');
  const resolved = resolveOptions(flags, io, PROXY_FLAGS, commandAfterDashes('proxy', flags, separator !== -1, { ...FLAGS, ...PROXY_FLAGS }));
  if (resolved === 'help') {
    io.out(proxyHelp());
    return { exitCode: 0 };
  }
  if (resolved === 'version') {
    io.out(VERSION);
    return { exitCode: 0 };
  }
  // The mock's own world answers nothing of /v1 here: a scenario would be loaded and never meet a request.
  if (resolved.server.scenario !== undefined) throw new UsageError('--scenario has no effect on a proxy: /v1 goes to the upstream, not to scenario rules');
  const record = resolved.extra.record;
  const ca = resolved.extra['upstream-ca'];
  const proxy: ProxyOptions = {
    upstream: upstreamUrl(resolved.extra.upstream),
    strict: resolved.extra.strict === true,
    upstreamTimeoutMs: timeout(resolved.extra['upstream-timeout']),
    ...(typeof record === 'string' && record !== '' && { recordDir: recordFolder(resolvePath(io.cwd, record)) }),
    ...(typeof ca === 'string' && { upstreamCa: readCa(resolvePath(io.cwd, ca)) }),
  };
  const key = upstreamKey(resolved.extra['upstream-key']);
  // No fixture world: the default workspace only keeps the proxy's journal.
  const options = { ...resolved, server: { ...resolved.server, fixtures: false, proxy } };
  if (command.length === 0) return startServer(options, io, { banner: io.out, confirm: false });
  // Loaded only with a command, as for `run`: execa costs about 80 ms of a start.
  const { runWhileServing } = await import('./run.js');
  // As `run`: a port only when one was asked for, so two recording jobs on one machine never collide.
  const started = await startServer({ ...options, port: resolved.portFrom === undefined ? 0 : resolved.port }, io, { banner: io.err, confirm: true, picksFreePort: true });
  if ('exitCode' in started) return started;
  return { exitCode: await runWhileServing(started, command, commandEnvironment(started.url, proxy.upstream, key), io, shutdown) };
}

/**
 * What the command is told: the proxy's root where `run` puts the mock's, and the real key where
 * `run` puts the mock's key, so a suite written for `run` runs unchanged; and the upstream, which
 * tells the vitest kit and a nested `run` that there is no mock world here (no control URL: the
 * proxy's control plane holds no workspace the upstream knows).
 */
function commandEnvironment(url: string, upstream: string, key: string | undefined): Record<string, string> {
  return { [RUN_ENVIRONMENT.url]: url, [RUN_ENVIRONMENT.proxyUpstream]: upstream, ...(key !== undefined && { [RUN_ENVIRONMENT.apiKey]: key }) };
}

/** --upstream-key: sent as a header value by the suite, so it must be one. */
function upstreamKey(raw: string | boolean | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !/^[\x21-\x7e]+$/.test(raw)) throw new UsageError('--upstream-key must be the real service\'s key: printable characters without spaces (best given as SOCIAL_GATEWAY_MOCK_UPSTREAM_KEY)');
  return raw;
}
