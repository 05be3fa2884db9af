import { mkdirSync, writeFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { basename, dirname, extname, relative, resolve as resolvePath } from 'node:path';
import { Document, isMap, type YAMLMap } from 'yaml';
import { OperationIndex } from '../http/operations.js';
import { loadSpec } from '../http/spec.js';
import { packagePath } from '../lib/package-root.js';
import { readRecording, RecordingError, type RecordedExchange, type RecordedResponse } from '../proxy/recording.js';
import { redactExchange } from '../proxy/redact-exchange.js';
import { REDACTED, Redactor } from '../redaction/redactor.js';
import { BODYLESS_STATUSES, FRAMING_HEADERS, SCHEMA_FILE } from '../scenarios/parse.js';
import type { FaultEffect, RespondEffect } from '../scenarios/scenario.js';
import type { CliIo } from './options.js';
import { parseFlags } from './parse-flags.js';
import { UsageError } from './options.js';

export function scenarioHelp(): string {
  return [
    'Usage: social-gateway-mock scenario from-recording <DIR> [--out FILE]',
    '',
    'Prints to stdout (or writes to --out FILE) a scenario that replays a recording (a folder written by proxy --record):',
    'one rule per exchange, in arrival order, each firing once (the same request answered the same',
    "again adds to its rule's times), matching what the request asked (the",
    "operation, the path parameters, the whole query, the JSON body's top-level fields; not headers),",
    'and answering the recorded status, headers and body (respond); identical requests get their',
    'answers in recorded order. An exchange the upstream never answered replays the 502 the proxy gave (fault).',
    'The scenario starts an empty workspace (fixtures: false) on a clock frozen at the first',
    "exchange's time, named after --out's file (else the folder). Load it like any scenario file;",
    "under run, the vitest kit loads it into each test's own workspace:",
    '',
    '  social-gateway-mock scenario from-recording recording/ --out scenarios/replay.yaml',
    '  social-gateway-mock --scenario scenarios/replay.yaml',
    '  social-gateway-mock run --scenario scenarios/replay.yaml --fail-on-unfired-rules -- npx vitest run',
    '',
    "The file's first line points editors at the package's scenario schema, from the file's own",
    'folder (--out), or from where the command runs when it prints (as `> replay.yaml` puts it there).',
    '',
    'Exit status: 0 when done; 2 when the folder is not a recording or holds nothing to replay.',
  ].join('\n');
}

/** Response headers the replay leaves to the mock: its framing, and Date, which its virtual clock sets. */
const UNREPLAYED_HEADERS = new Set([...FRAMING_HEADERS, 'date']);

/** Statuses a respond can answer; anything else in a recording is not an HTTP answer to replay. */
const MIN_STATUS = 200;
const MAX_STATUS = 599;

/** The schema's limits on what a rule holds. */
const MAX_RULE_ID = 64;
const MAX_PARAM_VALUE = 256;
const MAX_FAULT_MESSAGE = 1000;
const MAX_RULE_DESCRIPTION = 1000;
const MAX_HEADER_VALUE = 8192;
const FAULT_CODE = /^[A-Z][A-Z0-9_]*$/;
const MAX_QUERY_PARAMS = 50;
const MAX_QUERY_NAME = 256;
const MAX_QUERY_VALUE = 2048;
const MAX_QUERY_REPEATS = 100;
const MAX_BODY_MATCHERS = 20;
/** The most rules a scenario holds (the schema's `rules.maxItems`). */
const MAX_RULES = 200;
const MAX_POINTER_NAME = 250;

type Rule = { id: string; description: string; match: Record<string, unknown>; then: { respond: RespondEffect } | { fault: Partial<FaultEffect> }; times: number };
type Converted = { rule: Rule } | { skipped: string } | { repeats: string };

/**
 * `social-gateway-mock scenario from-recording DIR`: a recording as a scenario, on stdout.
 * Answers the exit status.
 */
export function scenarioCommand(argv: string[], io: CliIo): number {
  const parsed = parseFlags(argv, { help: { type: 'boolean', short: 'h' }, out: { type: 'string', short: 'o' } });
  const [sub, dir, ...extra] = parsed.positionals;
  if (parsed.values.help) {
    io.out(scenarioHelp());
    return 0;
  }
  if (sub === undefined) throw new UsageError('scenario needs a command: scenario from-recording <DIR>');
  if (sub !== 'from-recording') throw new UsageError(`unknown scenario command '${sub}' (expected: from-recording)`);
  if (dir === undefined) throw new UsageError('scenario from-recording needs the recording folder: scenario from-recording <DIR>');
  if (extra.length > 0) throw new UsageError(`scenario from-recording takes one folder; got also '${extra.join(' ')}'`);
  let exchanges: RecordedExchange[];
  try {
    exchanges = readRecording(dir);
  } catch (error) {
    if (!(error instanceof RecordingError)) throw error;
    io.err(`social-gateway-mock: ${error.message}`);
    return 2;
  }
  const out = parsed.values.out === undefined ? undefined : resolvePath(io.cwd, parsed.values.out);
  // The editor reads $schema from the file's own folder: --out's, or where `> my.yaml` puts it.
  let yaml: string | undefined;
  try {
    yaml = scenarioFromRecording(exchanges, { dir, schemaPath: schemaPathFrom(out === undefined ? io.cwd : dirname(out)), ...(out !== undefined && { name: out }) });
  } catch (error) {
    if (!(error instanceof RecordingError)) throw error;
    io.err(`social-gateway-mock: ${error.message}`);
    return 2;
  }
  if (yaml === undefined) {
    io.err(`social-gateway-mock: ${dir}: none of its ${exchanges.length} exchanges reached an operation of openapi.yaml, so there is nothing to replay`);
    return 2;
  }
  if (out === undefined) {
    io.out(yaml.trimEnd());
    return 0;
  }
  try {
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, `${yaml.trimEnd()}\n`);
  } catch (error) {
    io.err(`social-gateway-mock: cannot write --out ${out}: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
  io.err(`social-gateway-mock: wrote ${out}`);
  return 0;
}

/** A scenario name (lowercase letters, digits, dashes) from a file or folder path: `scenarios/Recorded.yaml` → `recorded`. */
function scenarioName(path: string): string {
  const name = basename(path, extname(path))
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .slice(0, 64)
    .replace(/-+$/, '');
  return name === '' ? 'recorded' : name;
}

/** The package's scenario schema as a path from the folder the scenario file is in. */
function schemaPathFrom(folder: string): string {
  const path = relative(folder, packagePath('scenarios', SCHEMA_FILE)).split('\\').join('/');
  return path.startsWith('.') || path.startsWith('/') ? path : `./${path}`;
}

/**
 * The scenario YAML replaying `exchanges` (in arrival order), or undefined when none can be
 * replayed. Pure: the folder is named, not read.
 */
export function scenarioFromRecording(recorded: readonly RecordedExchange[], where: { dir: string; schemaPath: string; name?: string }): string | undefined {
  const index = new OperationIndex(loadSpec('openapi.yaml').document);
  // Redacted again as the proxy redacts now: a recording written before decision 0030, or by hand, may hold what a scenario file must not.
  const redactor = new Redactor();
  const exchanges = recorded.map((exchange) => {
    const found = index.match(exchange.request.method.toUpperCase(), exchange.request.path);
    return redactExchange(redactor, exchange, found.kind === 'found' ? found.params : {});
  });
  const converted = foldRepeats(exchanges.map((exchange) => ({ exchange, result: convert(exchange, index) })));
  const rules = converted.flatMap(({ result }) => ('rule' in result ? [result.rule] : []));
  if (rules.length === 0) return undefined;
  if (rules.length > MAX_RULES) {
    // A file that would not load is no answer: say so now, with the way out, rather than at the replay.
    throw new RecordingError(
      `${where.dir}: its exchanges make ${rules.length} rules, over the ${MAX_RULES} a scenario holds (scenarios/scenario.schema.json): replay it in parts, each a folder of at most ${MAX_RULES} exchanges (the files sort in arrival order; move the later ones to another folder), or record a shorter session`,
    );
  }
  const start = clockStart(exchanges);
  const skipped = converted.filter(({ result }) => 'skipped' in result).length;
  const replayed = converted.length - skipped;
  const document = new Document({
    // Named in the file, so the name holds wherever the YAML goes (the kit sends it whole to each test's workspace).
    name: scenarioName(where.name ?? where.dir),
    description: [
      `Replays the recording in ${where.dir}: ${replayed} of its ${exchanges.length} exchanges${replayed > rules.length ? ` (in ${rules.length} rules)` : ''}${start ? `, from ${start}` : ''}${skipped > 0 ? ` (${skipped} left out, see the comments)` : ''}.`,
      'Each rule answers its recorded response once to the same request (operation, path ids, the whole query,',
      "the body's top-level fields); identical requests get theirs in arrival order. Once used up, or for a",
      'request the recording does not hold, the mock answers for itself (from an empty workspace).',
    ].join('\n'),
    // The mock's own rate limit must not refuse a replay the real service answered: payg allows 600 a minute.
    plan: 'payg',
    // The recorded answers stand alone; a fixture world would only answer what the recording does not hold.
    fixtures: false,
    ...(start !== undefined && { clock: { start, frozen: true } }),
    rules,
  });
  document.commentBefore = ` yaml-language-server: $schema=${where.schemaPath}`;
  const ruleNodes = document.getIn(['rules'], true) as { items: YAMLMap[] };
  let pending: string[] = [];
  let ruleAt = 0;
  for (const { exchange, result } of converted) {
    if ('repeats' in result) continue;
    if ('skipped' in result) {
      pending.push(` exchange ${exchange.seq}, ${exchange.request.method} ${exchange.request.path}: left out, ${result.skipped}`);
      continue;
    }
    const node = ruleNodes.items[ruleAt++];
    if (!node) continue;
    if (pending.length > 0) node.commentBefore = pending.join('\n');
    pending = [];
    // One line per matcher set reads best; the answer stays in block style, as bodies are long.
    const match = node.get('match', true);
    if (isMap(match)) match.flow = true;
  }
  if (pending.length > 0) document.comment = pending.join('\n');
  return document.toString({ lineWidth: 0 });
}

/**
 * The same request answered the same again (status and body; headers such as X-RateLimit-Remaining
 * or a request id differ every time) adds to the times of the rule before it for that request
 * rather than making another: tests that each ask what another test asked (a list of connections)
 * are answered by one rule that fires in each of their workspaces, not by a second copy that no
 * workspace reaches and the end of `run` would name as never fired. A request answered otherwise
 * than before keeps a rule of its own, after, so repeats still replay in recorded order.
 */
function foldRepeats<T extends { result: Converted }>(converted: T[]): T[] {
  const lastFor = new Map<string, Rule>();
  return converted.map((entry) => {
    if (!('rule' in entry.result)) return entry;
    const { rule } = entry.result;
    const key = JSON.stringify(rule.match);
    const before = lastFor.get(key);
    if (before && isDeepStrictEqual(answerOf(before), answerOf(rule))) {
      before.times++;
      before.description = `${before.description.replace(/ \(and \d+ more times?, the same\)$/, '')} (and ${before.times - 1} more time${before.times === 2 ? '' : 's'}, the same)`;
      return { ...entry, result: { repeats: before.id } };
    }
    lastFor.set(key, rule);
    return entry;
  });
}

/** What a rule answers, without the headers that change with every answer. */
function answerOf(rule: Rule): unknown {
  if ('fault' in rule.then) return rule.then;
  const { headers: _headers, ...answer } = rule.then.respond;
  return answer;
}

/**
 * Where the replay's clock stands: the service's own time when the recording began (the first
 * answer's Date header), as the recorded bodies' times are relative to it, or else the moment
 * the first request reached the proxy.
 */
function clockStart(exchanges: readonly RecordedExchange[]): string | undefined {
  const answered = exchanges.find((exchange) => exchange.response !== null);
  const dateHeader = Object.entries(answered?.response?.headers ?? {}).find(([name]) => name.toLowerCase() === 'date')?.[1];
  for (const candidate of [dateHeader, exchanges[0]?.startedAt]) {
    const ms = candidate === undefined ? NaN : Date.parse(candidate);
    if (!Number.isNaN(ms)) return new Date(ms).toISOString();
  }
  return undefined;
}

function convert(exchange: RecordedExchange, index: OperationIndex): Converted {
  const { request } = exchange;
  const method = request.method.toUpperCase();
  // The scenario guard sees a HEAD request as its GET operation, so a rule for it would also answer GETs.
  if (method === 'HEAD') return { skipped: 'a HEAD request cannot be told apart from its GET by a rule' };
  const found = index.match(method, request.path);
  // The path decides, as it does when the mock routes the replayed request; the recorded operationId is what the proxy saw.
  if (found.kind !== 'found') return { skipped: 'it reached no operation of openapi.yaml, and rules answer only operations (the mock answers 404 or 405 itself)' };
  const { operation, params } = found;
  const kept = Object.entries(params).filter(([, value]) => !value.includes(REDACTED) && value.length <= MAX_PARAM_VALUE);
  const body = bodyMatchers(request.json);
  // What was asked, not where in the suite: the operation, its path's ids, the query exactly, the body's fields (decision 0047).
  const match: Record<string, unknown> = {
    operationId: operation.operationId,
    ...(kept.length > 0 && { params: Object.fromEntries(kept) }),
    query: queryMatcher(request.query),
    ...(body.length > 0 && { body }),
  };
  const id = `rec-${String(exchange.seq).padStart(6, '0')}-${operation.operationId}`.slice(0, MAX_RULE_ID);
  // Only a summary for people reading the YAML: a long query is cut to what a rule's description holds.
  const line = `${method} ${request.path}${request.query ? `?${request.query}` : ''}`.slice(0, MAX_RULE_DESCRIPTION - 100);
  if (exchange.response === null) {
    const fault: Partial<FaultEffect> = { status: 502, body: 'json' };
    const error = exchange.upstreamError;
    if (error && FAULT_CODE.test(error.code)) fault.code = error.code;
    if (error?.message) fault.message = error.message.slice(0, MAX_FAULT_MESSAGE);
    return { rule: { id, description: `${line}: no answer from the upstream (${error?.code ?? 'no error recorded'}); the proxy's 502 replayed`, match, then: { fault }, times: 1 } };
  }
  const { status } = exchange.response;
  if (status < MIN_STATUS || status > MAX_STATUS) return { skipped: `status ${status} is not an answer a rule can give (${MIN_STATUS} to ${MAX_STATUS})` };
  return { rule: { id, description: `${line} answered ${status} at ${exchange.startedAt}`, match, then: { respond: respondOf(exchange.response) }, times: 1 } };
}

/**
 * The recorded query as a `query` matcher: every parameter, with its value (a list when sent
 * several times); a value the recording redacted, or one longer than a rule holds, as null (any).
 */
function queryMatcher(query: string): Record<string, string | string[] | null> {
  const search = new URLSearchParams(query);
  const matcher: Record<string, string | string[] | null> = {};
  for (const name of new Set(search.keys())) {
    if (name.length > MAX_QUERY_NAME || Object.keys(matcher).length >= MAX_QUERY_PARAMS) continue;
    const values = search.getAll(name);
    matcher[name] = values.some((value) => value.includes(REDACTED) || value.length > MAX_QUERY_VALUE) || values.length > MAX_QUERY_REPEATS ? null : values.length === 1 ? (values[0] as string) : values;
  }
  return matcher;
}

/**
 * The recorded JSON body's top-level fields as `body` matchers, each equal whole (nested objects
 * and lists too); a field holding a redacted value is left out, as is any past what a rule holds.
 * A field the replayed request adds does not stop the match (WireMock's ignoreExtraElements).
 */
function bodyMatchers(json: unknown): Array<{ pointer: string; equals: unknown }> {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return [];
  return Object.entries(json)
    .filter(([name, value]) => name.length <= MAX_POINTER_NAME && !JSON.stringify(value).includes(REDACTED))
    .slice(0, MAX_BODY_MATCHERS)
    .map(([name, value]) => ({ pointer: `/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`, equals: value }));
}

function respondOf(response: RecordedResponse): RespondEffect {
  // A header the schema would refuse (a value over 8 KiB, a line break) is dropped rather than make the whole scenario fail to load.
  const headers = Object.fromEntries(Object.entries(response.headers).filter(([name, value]) => !UNREPLAYED_HEADERS.has(name.toLowerCase()) && !/[\r\n]/.test(value) && value.length <= MAX_HEADER_VALUE));
  const bodyless = BODYLESS_STATUSES.includes(response.status);
  return {
    status: response.status,
    ...(Object.keys(headers).length > 0 && { headers }),
    ...(!bodyless && response.json !== undefined ? { json: response.json } : !bodyless && response.text ? { text: response.text } : {}),
  };
}
