import { existsSync } from 'node:fs';
import { isIP } from 'node:net';
import { resolve as resolvePath } from 'node:path';
import { DEFAULT_API_KEY, type MockServerOptions } from '../server.js';
import { parseIsoDuration } from '../clock/duration.js';
import { clockStartProblem } from '../clock/virtual-clock.js';
import { parseByteSize } from '../lib/byte-size.js';
import { HostList } from '../lib/host-fence.js';
import { allowedHostProblem, isLoopbackAddress, type AllowedHosts } from '../http/host-check.js';
import { InputFileError, parseInputYaml, readInputText } from '../lib/input-file.js';
import { parseRedactList } from '../redaction/redactor.js';
import { isPlanName, PLAN_NAMES } from '../store/plans.js';
import { MAX_WORKSPACES_POLICIES, type MaxWorkspacesPolicy } from '../workspaces/registry.js';
import { didYouMean } from '../lib/did-you-mean.js';
import { parseFlags, type PositionalHint } from './parse-flags.js';
import { InputError, UsageError } from './usage-error.js';

export const CONFIG_FILE = 'social-gateway-mock.config.yaml';
/** A config file holds a few dozen options: far less than this. */
export const MAX_CONFIG_FILE_BYTES = 1024 * 1024;
export const ENV_PREFIX = 'SOCIAL_GATEWAY_MOCK_';
const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const;
type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * Every flag of the server, its type and its help line: `serve` and `run` share them,
 * and the config file and the environment use the same names.
 */
export const FLAGS = {
  host: { type: 'string', help: 'Address to bind (default 127.0.0.1; anything else is reachable from the network).' },
  port: { type: 'string', help: 'Port to listen on (default 4010; run and proxy -- <command> pick a free one; 0 picks a free one).' },
  'api-key': { type: 'string', help: `Key of the default workspace (default ${DEFAULT_API_KEY}).` },
  seed: { type: 'string', help: 'Seed of every id and fake value (default 1).' },
  data: { type: 'string', help: 'Persist state to this JSON file and reload it on the next start.' },
  plan: { type: 'string', help: `Plan of the default workspace: ${PLAN_NAMES.join(' or ')} (default payg).` },
  clock: { type: 'string', help: 'Virtual start time, ISO 8601 (default: now).' },
  'clock-frozen': { type: 'boolean', help: 'Start the virtual clock frozen; only the control plane moves it.' },
  'strict-responses': { type: 'boolean', help: 'Answer 500 CONTRACT_VIOLATION when a response breaks openapi.yaml.' },
  'rate-limit': { type: 'string', help: "on (default) or off: off still counts and sends X-RateLimit headers but never answers 429 (load tests only)." },
  'pending-work': { type: 'string', help: "on or off: whether the default workspace's fixture world starts with its own pending work (queued and scheduled posts, expiring tokens). Default on; off under run, so a clock move runs only what your tests start." },
  'journal-size': { type: 'string', help: 'Requests kept in each workspace journal (default 1000).' },
  scenario: { type: 'string', help: 'Load a scenario into the default workspace: a YAML file, or the name of one in scenarios/.' },
  'coverage-report': { type: 'string', help: 'On shutdown, write contract coverage to this file (Markdown when it ends in .md, JSON otherwise).' },
  'coverage-min': { type: 'string', help: 'On shutdown, exit 1 when fewer than this percent of operations were exercised (0 to 100).' },
  'fail-on-unfired-rules': { type: 'boolean', help: 'On shutdown, exit 1 when a rule of a loaded scenario fired in no workspace (each is named on stderr either way).' },
  'coverage-ops': { type: 'string', help: 'Limit coverage and its gate to these operationIds: a comma-separated list, or a file of them.' },
  'coverage-from': { type: 'string', help: "Limit coverage and its gate to the operations of this OpenAPI file (your client's subset)." },
  'ready-file': { type: 'string', help: 'Write this file (JSON: url, apiKey, controlUrl, pid) once the server answers; removed at shutdown.' },
  'control-token': { type: 'string', help: "For shared servers: the server owner's token (x-control-token); with it set, a workspace's own key reaches only that workspace on /__control. Best given as SOCIAL_GATEWAY_MOCK_CONTROL_TOKEN, out of sight of ps." },
  cors: { type: 'string', help: "Allow browser apps from these origins (comma-separated, or '*')." },
  'allowed-hosts': { type: 'string', help: "Also answer requests whose Host is one of these names (comma-separated; .example.com for it and its subdomains), or 'all' to answer any Host. Default: localhost, *.localhost and loopback addresses only." },
  'log-level': { type: 'string', help: `${LOG_LEVELS.join(', ')} (default info; debug logs every request).` },
  'body-limit': { type: 'string', help: 'Largest accepted JSON body (default 1mb).' },
  'media-quota': { type: 'string', help: 'Bytes of uploaded media one workspace holds at most, like 256mb or 1gb (default 256mb); an upload past it is refused with 413.' },
  'media-quota-server': { type: 'string', help: 'Bytes of uploaded media all workspaces hold together at most (default 1gb).' },
  'webhook-timeout': { type: 'string', help: 'Milliseconds a webhook receiver has to answer (default 10000; raise it to debug a receiver).' },
  'webhook-allow': { type: 'string', help: 'Send webhooks only to these hosts (comma-separated names, .example.com for a domain, IP addresses and CIDR ranges such as 10.0.0.0/8 or fd00::/8). Default: any host but the server itself.' },
  'webhook-deny': { type: 'string', help: 'Never send webhooks to these hosts (the same forms as --webhook-allow, checked before it), e.g. 169.254.0.0/16 for cloud metadata.' },
  'workspace-ttl': { type: 'string', help: 'Evict workspaces idle longer than this (wall time; ISO 8601 like PT30M, or milliseconds); never the default one. Off by default; for shared servers.' },
  'max-workspaces': { type: 'string', help: 'Hold at most this many workspaces, the default one included; past it a new one is refused with 503 (see --on-max-workspaces).' },
  'on-max-workspaces': { type: 'string', help: `At --max-workspaces: ${MAX_WORKSPACES_POLICIES.join(' or ')} (evict the longest idle workspace; default refuse).` },
  redact: { type: 'string', help: 'Also hide these header, JSON field or query parameter names (comma-separated) in the journal, event stream, logs and recordings, besides the built-in secrets.' },
  config: { type: 'string', help: `Read flags from this YAML file (default ./${CONFIG_FILE} when present).` },
  help: { type: 'boolean', help: 'Show this help.' },
  version: { type: 'boolean', help: 'Show the version.' },
} as const;

type FlagName = keyof typeof FLAGS;
type FlagValues = Partial<Record<FlagName, string | boolean>>;

/** A command's own flags besides the server's (`proxy --upstream`): the same form as FLAGS. */
export type FlagTable = Record<string, { type: 'string' | 'boolean'; help: string }>;

export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export { InputError, UsageError } from './usage-error.js';

/** The flags' help lines, from the table that parses them. */
export function flagHelp(table: FlagTable = FLAGS): string[] {
  return Object.entries(table).map(([name, flag]) => `  --${name}${flag.type === 'string' ? ' <value>' : ''}`.padEnd(30) + flag.help);
}

function readConfigFile(path: string, extra: FlagTable): FlagValues {
  let parsed: unknown;
  try {
    parsed = parseInputYaml(readInputText(path, MAX_CONFIG_FILE_BYTES), path);
  } catch (error) {
    if (!(error instanceof InputFileError)) throw error;
    throw new InputError(`cannot read config file ${error.message}`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) throw new InputError(`config file ${path} must be a mapping of option names to values`);
  const values: FlagValues = {};
  for (const [key, value] of Object.entries(parsed)) {
    if ((!Object.hasOwn(FLAGS, key) && !Object.hasOwn(extra, key)) || key === 'config' || key === 'help' || key === 'version') {
      const names = Object.keys({ ...FLAGS, ...extra }).filter((name) => name !== 'config' && name !== 'help' && name !== 'version');
      throw new UsageError(`config file ${path}: unknown option '${key}'${didYouMean(key, names)}`);
    }
    values[key as FlagName] = typeof value === 'boolean' ? value : String(value);
  }
  return values;
}

function readEnvironment(env: NodeJS.ProcessEnv, extra: FlagTable): FlagValues {
  const values: Record<string, string | boolean> = {};
  for (const [name, flag] of Object.entries({ ...FLAGS, ...extra })) {
    const raw = env[ENV_PREFIX + name.toUpperCase().replace(/-/g, '_')];
    if (raw === undefined || raw === '') continue;
    values[name] = flag.type === 'boolean' ? raw === 'true' || raw === '1' : raw;
  }
  return values as FlagValues;
}

function integer(name: string, raw: string | boolean | undefined, min: number, max: number): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (typeof raw !== 'string' || !/^\d+$/.test(raw) || value < min || value > max) {
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max}; got '${String(raw)}'`);
  }
  return value;
}

/** --workspace-ttl: an ISO 8601 duration (PT30M) or whole milliseconds, above 0. */
function workspaceTtl(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const ms = /^\d+$/.test(raw) ? Number(raw) : parseIsoDuration(raw);
  if (ms === undefined || !Number.isSafeInteger(ms) || ms < 1) {
    throw new UsageError(`--workspace-ttl must be an ISO 8601 duration without years or months (PT30M, P1D) or milliseconds above 0; got '${raw}'`);
  }
  return ms;
}

/** A size such as 512kb, 256mb or 1gb (units of 1024, as --body-limit), in bytes. */
function byteSize(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const bytes = parseByteSize(raw.trim());
  if (bytes === undefined) throw new UsageError(`--${name} must be a size like 512kb, 256mb or 2gb; got '${raw}'`);
  return bytes;
}

function text(raw: string | boolean | undefined): string | undefined {
  return typeof raw === 'string' ? raw : undefined;
}

/**
 * --allowed-hosts: `all` turns the Host check off; otherwise names, to which a --host given as a
 * name is added (a server told to listen on a name expects to be called by it, as Vite does).
 */
function allowedHosts(raw: string | undefined, host: string | undefined): AllowedHosts | undefined {
  if (raw?.trim() === 'all') return true;
  const names = (raw ?? '').split(',').map((name) => name.trim()).filter((name) => name !== '');
  for (const name of names) {
    const problem = allowedHostProblem(name);
    if (problem !== undefined) throw new UsageError(`--allowed-hosts: ${problem}`);
  }
  if (host !== undefined && isIP(host) === 0 && !isLoopback(host)) names.push(host);
  return names.length > 0 ? names : undefined;
}

/** --webhook-allow and --webhook-deny: comma-separated host names, addresses and CIDR ranges, each checked. */
function hostList(flag: 'webhook-allow' | 'webhook-deny', raw: string | undefined): string[] | undefined {
  if (raw === undefined) return undefined;
  const entries = raw.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  if (entries.length === 0) throw new UsageError(`--${flag} needs host names, addresses or CIDR ranges (comma-separated); got '${raw}'`);
  const list = HostList.parse(entries);
  if (typeof list === 'string') throw new UsageError(`--${flag}: ${list}`);
  return entries;
}

/** Which operations the coverage gate counts: a list, a file of operationIds, or a client's own OpenAPI file. */
export type CoverageScope = { kind: 'list'; operationIds: string[] } | { kind: 'file'; path: string } | { kind: 'openapi'; path: string };

export interface ResolvedCli {
  host: string;
  /** The port asked for, or 4010; `run` and `proxy -- <command>` listen on a free one (0) when none was asked for. */
  port: number;
  /** Where the port was asked for (`--port`, the environment variable, the config file); undefined for the default. */
  portFrom: string | undefined;
  logLevel: LogLevel;
  /** Everything the server itself is told, in the shape createMockServer takes. */
  server: MockServerOptions;
  /** Absolute path of --coverage-report. */
  coverageReport: string | undefined;
  coverageMin: number | undefined;
  /** --fail-on-unfired-rules: a scenario rule that never fired fails the shutdown's exit status. */
  failOnUnfiredRules: boolean;
  coverageScope: CoverageScope | undefined;
  /** Absolute path of --ready-file. */
  readyFile: string | undefined;
  /** Values of the command's own flags (resolveOptions' `extra`), from the flags, environment or config file. */
  extra: Record<string, string | boolean | undefined>;
}

/** A word among the flags of a command that takes none: neither a flag nor a flag's value. */
const STRAY_WORD: PositionalHint = (word) => `'${word}' is neither an option nor an option's value (options start with --)`;

/**
 * Flags, then environment, then config file, then defaults; every value checked. `hint` says
 * what a word among the flags should have been (`run`: the command, after `--`).
 */
export function resolveOptions(argv: string[], io: Pick<CliIo, 'env' | 'cwd'>, extra: FlagTable = {}, hint: PositionalHint = STRAY_WORD): ResolvedCli | 'help' | 'version' {
  const flags = parseFlags(argv, { ...FLAGS, ...extra }, hint).values as FlagValues;
  if (flags.help) return 'help';
  if (flags.version) return 'version';
  const env = readEnvironment(io.env, extra);
  const configPath = text(flags.config) ?? text(env.config) ?? (existsSync(`${io.cwd}/${CONFIG_FILE}`) ? `${io.cwd}/${CONFIG_FILE}` : undefined);
  const file = configPath ? readConfigFile(configPath, extra) : {};
  const value = (name: FlagName) => flags[name] ?? env[name] ?? file[name];

  const plan = text(value('plan'));
  if (plan !== undefined && !isPlanName(plan)) throw new UsageError(`--plan must be ${PLAN_NAMES.join(' or ')}; got '${plan}'`);
  const clock = text(value('clock'));
  if (clock !== undefined && (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(clock) || Number.isNaN(Date.parse(clock)))) {
    throw new UsageError(`--clock must be an ISO 8601 date-time with Z or an offset, such as 2026-01-15T09:00:00Z; got '${clock}'`);
  }
  const clockProblem = clock === undefined ? undefined : clockStartProblem(Date.parse(clock));
  if (clockProblem !== undefined) throw new UsageError(`--clock '${clock}' ${clockProblem}`);
  const logLevel = text(value('log-level')) ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}; got '${logLevel}'`);
  const apiKey = text(value('api-key'));
  if (apiKey !== undefined && !/^sgw_[A-Za-z0-9_]{4,120}$/.test(apiKey)) {
    throw new UsageError(`--api-key must start with sgw_ followed by 4 to 120 letters, digits or underscores; got '${apiKey}'`);
  }
  const controlToken = text(value('control-token'));
  if (controlToken !== undefined && controlToken.trim() === '') {
    throw new UsageError(`--control-token is empty, which would protect nothing; give a long random token, best in ${ENV_PREFIX}CONTROL_TOKEN, out of sight of ps`);
  }
  const bodyLimit = text(value('body-limit'));
  if (bodyLimit !== undefined && !/^\d+(b|kb|mb)$/i.test(bodyLimit)) throw new UsageError(`--body-limit must look like 512kb or 2mb; got '${bodyLimit}'`);
  const cors = text(value('cors'))
    ?.split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '');
  const host = text(value('host'));
  const hosts = allowedHosts(text(value('allowed-hosts')), host);
  const rateLimit = text(value('rate-limit'));
  if (rateLimit !== undefined && rateLimit !== 'on' && rateLimit !== 'off') throw new UsageError(`--rate-limit must be on or off; got '${rateLimit}'`);
  const pendingWork = text(value('pending-work'));
  if (pendingWork !== undefined && pendingWork !== 'on' && pendingWork !== 'off') throw new UsageError(`--pending-work must be on or off; got '${pendingWork}'`);

  const coverageMinRaw = value('coverage-min');
  let coverageMin: number | undefined;
  if (coverageMinRaw !== undefined) {
    coverageMin = Number(coverageMinRaw);
    if (typeof coverageMinRaw !== 'string' || !/^\d+(\.\d+)?$/.test(coverageMinRaw) || coverageMin > 100) {
      throw new UsageError(`--coverage-min must be a percentage from 0 to 100; got '${String(coverageMinRaw)}'`);
    }
  }
  const coverageReport = text(value('coverage-report'));
  const coverageScope = resolveCoverageScope(text(value('coverage-ops')), text(value('coverage-from')), io.cwd);
  const readyFile = text(value('ready-file'));
  const scenario = text(value('scenario'));
  const data = text(value('data'));
  const redact = parseRedactList(text(value('redact')));

  const seed = integer('seed', value('seed'), 0, 2_147_483_647);
  const journalSize = integer('journal-size', value('journal-size'), 1, 1_000_000);
  const webhookTimeoutMs = integer('webhook-timeout', value('webhook-timeout'), 1, 3_600_000);
  const webhookAllow = hostList('webhook-allow', text(value('webhook-allow')));
  const webhookDeny = hostList('webhook-deny', text(value('webhook-deny')));
  const workspaceTtlMs = workspaceTtl(text(value('workspace-ttl')));
  const mediaQuotaBytes = byteSize('media-quota', text(value('media-quota')));
  const mediaQuotaServerBytes = byteSize('media-quota-server', text(value('media-quota-server')));
  const maxWorkspaces = integer('max-workspaces', value('max-workspaces'), 1, 10_000_000);
  const onMaxWorkspaces = text(value('on-max-workspaces'));
  if (onMaxWorkspaces !== undefined && !(MAX_WORKSPACES_POLICIES as readonly string[]).includes(onMaxWorkspaces)) {
    throw new UsageError(`--on-max-workspaces must be ${MAX_WORKSPACES_POLICIES.join(' or ')}; got '${onMaxWorkspaces}'`);
  }
  if (onMaxWorkspaces !== undefined && maxWorkspaces === undefined) throw new UsageError('--on-max-workspaces needs --max-workspaces');
  const server: MockServerOptions = {
    ...(seed !== undefined && { seed }),
    ...(apiKey !== undefined && { apiKey }),
    ...(plan !== undefined && { plan }),
    ...(clock !== undefined && { clock }),
    // Only when given: a scenario's own clock setting applies otherwise.
    ...(value('clock-frozen') === true && { clockFrozen: true }),
    ...(scenario !== undefined && { scenario, cwd: io.cwd }),
    strictResponses: value('strict-responses') === true,
    ...(rateLimit !== undefined && { rateLimit: rateLimit === 'on' }),
    ...(pendingWork !== undefined && { pending: pendingWork === 'on' }),
    ...(data !== undefined && { dataFile: resolvePath(io.cwd, data) }),
    ...(journalSize !== undefined && { journalSize }),
    ...(controlToken !== undefined && { controlToken }),
    ...(bodyLimit !== undefined && { bodyLimit }),
    ...(webhookTimeoutMs !== undefined && { webhookTimeoutMs }),
    ...(webhookAllow !== undefined && { webhookAllow }),
    ...(webhookDeny !== undefined && { webhookDeny }),
    ...(workspaceTtlMs !== undefined && { workspaceTtlMs }),
    ...(maxWorkspaces !== undefined && { maxWorkspaces }),
    ...(onMaxWorkspaces !== undefined && { onMaxWorkspaces: onMaxWorkspaces as MaxWorkspacesPolicy }),
    ...(mediaQuotaBytes !== undefined && { mediaQuotaBytes }),
    ...(mediaQuotaServerBytes !== undefined && { mediaQuotaServerBytes }),
    ...(hosts !== undefined && { allowedHosts: hosts }),
    ...(cors !== undefined && { cors }),
    ...(redact.length > 0 && { redact }),
  };
  const extraValues: Record<string, string | boolean | undefined> = {};
  for (const name of Object.keys(extra)) {
    const raw = flags[name as FlagName] ?? env[name as FlagName] ?? file[name as FlagName];
    extraValues[name] = raw;
  }
  const portFrom = flags.port !== undefined ? '--port' : env.port !== undefined ? `${ENV_PREFIX}PORT` : file.port !== undefined ? `the config file ${configPath}` : undefined;
  return {
    host: host ?? '127.0.0.1',
    port: integer('port', value('port'), 0, 65535) ?? 4010,
    portFrom,
    logLevel: logLevel as LogLevel,
    server,
    coverageReport: coverageReport === undefined ? undefined : resolvePath(io.cwd, coverageReport),
    coverageMin,
    failOnUnfiredRules: value('fail-on-unfired-rules') === true,
    coverageScope,
    readyFile: readyFile === undefined ? undefined : resolvePath(io.cwd, readyFile),
    extra: extraValues,
  };
}

/** `--coverage-ops a,b` or `--coverage-ops FILE` (an existing file wins), or `--coverage-from FILE`: never both. */
function resolveCoverageScope(ops: string | undefined, from: string | undefined, cwd: string): CoverageScope | undefined {
  if (ops !== undefined && from !== undefined) throw new UsageError('--coverage-ops and --coverage-from both limit coverage; give one of them');
  if (from !== undefined) return { kind: 'openapi', path: resolvePath(cwd, from) };
  if (ops === undefined) return undefined;
  const asFile = resolvePath(cwd, ops);
  if (existsSync(asFile)) return { kind: 'file', path: asFile };
  const operationIds = ops.split(',').map((id) => id.trim()).filter((id) => id !== '');
  if (operationIds.length === 0) throw new UsageError(`--coverage-ops needs operationIds (createPost,listPosts) or a file of them; got '${ops}'`);
  return { kind: 'list', operationIds };
}

/** Shorter than this, a control token can be guessed by a client that tries: warned about at start. */
export const SHORT_CONTROL_TOKEN = 16;

export function isLoopback(host: string): boolean {
  return host === 'localhost' || isLoopbackAddress(host);
}
