import { readFileSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { loadSpec, type OpenApiDocument } from '../http/spec.js';
import { ContractComparer, type Finding, type FindingKind } from '../proxy/compare.js';
import { readRecording, RecordingError, type RecordedExchange } from '../proxy/recording.js';
import type { CliIo } from './options.js';
import { parseFlags } from './parse-flags.js';
import { UsageError } from './options.js';

/*
 * `social-gateway-mock drift DIR`: what a recording of the real service shows that the
 * contract does not say, per operation, for a person reading a CI log and (with --json) for a
 * script. Every exchange goes through the proxy's own ContractComparer, so the report lists
 * exactly what the proxy flagged live.
 */

export function driftHelp(): string {
  return [
    'Usage: social-gateway-mock drift <DIR> [--json] [--strict] [--contract <FILE>]',
    '',
    'Compares every exchange of a recording (a folder written by proxy --record) with the contract and',
    'prints, per operation, what the recorded answers show that the contract does not declare (statuses,',
    'fields, enum values, formats, types, headers) and what it requires that did not come (required',
    'fields and headers), each with the number of exchanges that showed it and an example value.',
    'Differences the contract allows (an open enumeration\'s new value, a field where the schema is open, a',
    'header of the API\'s namespace) are listed and counted as tolerated: they fail the run only with --strict.',
    "Requests that break the contract are listed apart: they are the client's fault, not drift.",
    'Exchanges the upstream never answered are counted, and are not drift either.',
    '',
    '  --json               Print one JSON document (format social-gateway-mock/drift@1) instead.',
    '  --strict             Exit 1 for tolerated differences too, not only for those that break the contract.',
    '  --contract <FILE>    Compare with this OpenAPI file instead of the openapi.yaml the mock ships.',
    '  --help               Show this help.',
    '',
    'Exit status: 0 when no difference breaks the contract (with --strict: when there is none at all), 1 when one',
    'does, 2 for a usage error or an unreadable recording.',
  ].join('\n');
}

export const DRIFT_FORMAT = 'social-gateway-mock/drift@1';

/** One difference of one operation, over all its exchanges. */
export interface DriftEntry {
  kind: FindingKind;
  /** Where, as the comparer names it, with each array index of the body folded into `*`. */
  field: string;
  /** How many of the operation's exchanges showed it. */
  exchanges: number;
  /** Up to three distinct values seen (an undeclared status, enum value, field value); absent when there is none. */
  examples?: unknown[];
  /** The first finding's sentence. */
  message: string;
  /** True when the contract allows it (an extra field where the schema is open, an open enumeration's new value). */
  tolerated: boolean;
}

export interface OperationDrift {
  /** null for requests that matched no operation of the contract; `request` then names them. */
  operationId: string | null;
  /** `METHOD /path` of an unmatched request; absent otherwise. */
  request?: string;
  exchanges: number;
  /** Statuses answered, with their counts; exchanges without an answer are under `noAnswer`. */
  statuses: Record<string, number>;
  /** What the answers hold that the contract does not declare. */
  undeclared: DriftEntry[];
  /** What the contract requires that the answers lacked. */
  missing: DriftEntry[];
  /** Requests that broke the contract: the client's doing, not drift. */
  requestProblems: DriftEntry[];
  /** Exchanges the upstream never answered (timed out, refused, dropped), by the proxy's error code. */
  noAnswer: Array<{ code: string; exchanges: number; message: string }>;
}

export interface DriftReport {
  format: typeof DRIFT_FORMAT;
  recording: string;
  contract: string;
  exchanges: number;
  /** True when any operation shows an undeclared or a missing entry the contract does not allow: the exit status is then 1. */
  drift: boolean;
  /** Whether --strict was given: tolerated entries then set the exit status to 1 too. */
  strict: boolean;
  totals: {
    operations: number;
    /** Operations with an entry that breaks the contract (tolerated ones left out). */
    operationsWithDrift: number;
    /** Undeclared and missing entries that break the contract. */
    undeclared: number;
    missing: number;
    /** Entries the contract allows (`tolerated: true`), counted apart from the two above. */
    tolerated: number;
    requestProblems: number;
    noAnswer: number;
  };
  operations: OperationDrift[];
}

const MISSING_KINDS = new Set<FindingKind>(['missing-required-field', 'missing-required-header']);
const MAX_EXAMPLES = 3;

/**
 * The drift of `exchanges` against the comparer's contract. Pure.
 *
 * A request to a path the contract does not have is the client's problem when the service
 * refused it too; answered with a 2xx, it shows an operation the contract lacks, and that is drift.
 */
export function driftReport(exchanges: readonly RecordedExchange[], comparer: ContractComparer, names: { recording: string; contract: string }, strict = false): DriftReport {
  const groups = new Map<string, { operation: OperationDrift; entries: Map<string, DriftEntry> }>();
  for (const exchange of exchanges) {
    const { operationId, findings } = comparer.compare(exchange);
    const request = `${exchange.request.method.toUpperCase()} ${exchange.request.path}`;
    const key = operationId ?? request;
    let group = groups.get(key);
    if (!group) {
      const operation: OperationDrift = { operationId, ...(operationId === null && { request }), exchanges: 0, statuses: {}, undeclared: [], missing: [], requestProblems: [], noAnswer: [] };
      group = { operation, entries: new Map() };
      groups.set(key, group);
    }
    const { operation } = group;
    operation.exchanges += 1;
    if (exchange.response) {
      const status = String(exchange.response.status);
      operation.statuses[status] = (operation.statuses[status] ?? 0) + 1;
    } else {
      const code = exchange.upstreamError?.code ?? 'NO_ANSWER';
      const known = operation.noAnswer.find((row) => row.code === code);
      if (known) known.exchanges += 1;
      else operation.noAnswer.push({ code, exchanges: 1, message: exchange.upstreamError?.message ?? 'the upstream gave no answer' });
    }
    const seen = new Set<string>();
    for (const finding of findings) {
      const section = sectionOf(finding, exchange);
      const field = foldIndices(finding.field);
      const entryKey = `${section} ${finding.kind} ${field}${finding.kind === 'undeclared-status' ? ` ${String(finding.value)}` : ''}`;
      let entry = group.entries.get(entryKey);
      if (!entry) {
        // `examples` is placed now so that JSON lists it before the sentence, and filled below.
        entry = { kind: finding.kind, field, exchanges: 0, examples: undefined, message: finding.message, tolerated: finding.tolerated === true };
        group.entries.set(entryKey, entry);
        operation[section].push(entry);
      }
      // Counted once per exchange, however many array items showed it.
      if (!seen.has(entryKey)) entry.exchanges += 1;
      seen.add(entryKey);
      if (finding.value !== undefined) addExample(entry, finding.value);
    }
  }
  // By operationId, then the requests that matched none, by what they asked for.
  const operations = [...groups.values()]
    .map(({ operation }) => operation)
    .sort((a, b) => Number(a.operationId === null) - Number(b.operationId === null) || (a.operationId ?? a.request ?? '').localeCompare(b.operationId ?? b.request ?? ''));
  const sum = (pick: (operation: OperationDrift) => number) => operations.reduce((total, operation) => total + pick(operation), 0);
  const breaking = (entries: DriftEntry[]) => entries.filter((entry) => !entry.tolerated).length;
  const totals = {
    operations: operations.length,
    operationsWithDrift: operations.filter((operation) => breaking(operation.undeclared) + breaking(operation.missing) > 0).length,
    undeclared: sum((operation) => breaking(operation.undeclared)),
    missing: sum((operation) => breaking(operation.missing)),
    tolerated: sum((operation) => operation.undeclared.length + operation.missing.length - breaking(operation.undeclared) - breaking(operation.missing)),
    requestProblems: sum((operation) => operation.requestProblems.length),
    noAnswer: sum((operation) => operation.noAnswer.reduce((total, row) => total + row.exchanges, 0)),
  };
  return { format: DRIFT_FORMAT, recording: names.recording, contract: names.contract, exchanges: exchanges.length, drift: totals.undeclared + totals.missing > 0, strict, totals, operations };
}

/** The exit status a report asks for: 1 for drift that breaks the contract, and under --strict for tolerated drift too. */
export function driftExitCode(report: DriftReport): number {
  return report.drift || (report.strict && report.totals.tolerated > 0) ? 1 : 0;
}

function sectionOf(finding: Finding, exchange: RecordedExchange): 'undeclared' | 'missing' | 'requestProblems' {
  if (finding.kind === 'unknown-operation') {
    const status = exchange.response?.status ?? 0;
    return status >= 200 && status < 300 ? 'undeclared' : 'requestProblems';
  }
  if (finding.side === 'request') return 'requestProblems';
  return MISSING_KINDS.has(finding.kind) ? 'missing' : 'undeclared';
}

/** Array indices of the body become `*`: one entry for a field whatever item of a list showed it. */
function foldIndices(field: string): string {
  return field.startsWith('body/') ? field.replace(/\/\d+(?=\/|$)/g, '/*') : field;
}

function addExample(entry: DriftEntry, value: unknown): void {
  const examples = (entry.examples ??= []);
  if (examples.length >= MAX_EXAMPLES) return;
  const text = JSON.stringify(value);
  if (!examples.some((known) => JSON.stringify(known) === text)) examples.push(value);
}

// ------------------------------------------------------------------ the human report

const EXAMPLE_WIDTH = 60;

function exampleText(entry: DriftEntry): string {
  if (!entry.examples || entry.examples.length === 0) return '';
  const text = entry.examples.map((value) => JSON.stringify(value) ?? String(value)).join(', ');
  return `e.g. ${text.length > EXAMPLE_WIDTH ? `${text.slice(0, EXAMPLE_WIDTH - 1)}…` : text}`;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** The report as aligned plain text, for a CI log: no colour, one line per difference. */
export function formatDriftReport(report: DriftReport): string {
  const rows = report.operations.flatMap((operation) => [...operation.undeclared, ...operation.missing, ...operation.requestProblems]);
  const kindWidth = Math.max(0, ...rows.map((entry) => entry.kind.length));
  const fieldWidth = Math.max(0, ...rows.map((entry) => entry.field.length));
  const lines = [`Drift of ${report.recording} against ${report.contract}: ${plural(report.exchanges, 'exchange')}, ${plural(report.totals.operations, 'operation')}`, ''];
  for (const operation of report.operations) {
    const statuses = Object.entries(operation.statuses).map(([status, count]) => `${status} ×${count}`);
    const noAnswer = operation.noAnswer.reduce((total, row) => total + row.exchanges, 0);
    if (noAnswer > 0) statuses.push(`no answer ×${noAnswer}`);
    lines.push(`${operation.operationId ?? `${operation.request ?? ''} (no operation of the contract)`}: ${plural(operation.exchanges, 'exchange')} (${statuses.join(', ')})`);
    const row = (entry: DriftEntry) =>
      `    ${entry.kind.padEnd(kindWidth)}  ${entry.field.padEnd(fieldWidth)}  ${`${entry.exchanges} of ${operation.exchanges}`.padEnd(9)} ${[exampleText(entry), entry.tolerated ? '(the contract allows it)' : ''].filter(Boolean).join(' ')}`.trimEnd();
    if (operation.undeclared.length > 0) lines.push('  not in the contract:', ...operation.undeclared.map(row));
    if (operation.missing.length > 0) lines.push('  required, never came:', ...operation.missing.map(row));
    if (operation.undeclared.length + operation.missing.length === 0) lines.push('  no drift');
    if (operation.requestProblems.length > 0) lines.push("  requests that broke the contract (the client's, not drift):", ...operation.requestProblems.map(row));
    for (const { code, exchanges, message } of operation.noAnswer) lines.push(`  no answer (not drift): ${code} ×${exchanges}: ${message}`);
  }
  const { totals } = report;
  lines.push('');
  const also = [totals.requestProblems > 0 && plural(totals.requestProblems, 'request problem'), totals.noAnswer > 0 && plural(totals.noAnswer, 'exchange') + ' without an answer'].filter(Boolean).join('; ');
  // Tolerated differences are named and counted, and fail the run only under --strict.
  const tolerated = `${plural(totals.tolerated, 'difference')} the contract allows${report.strict ? ' (failing under --strict)' : ' (--strict fails on them)'}`;
  if (report.drift) {
    const more = [totals.tolerated > 0 && `${totals.tolerated} more the contract allows`, also].filter(Boolean).join('; ');
    lines.push(`Drift: ${plural(totals.undeclared + totals.missing, 'difference')} that break${totals.undeclared + totals.missing === 1 ? 's' : ''} the contract in ${totals.operationsWithDrift} of ${plural(totals.operations, 'operation')} (${totals.undeclared} not in the contract, ${totals.missing} required and missing)${more ? `; ${more}` : ''}.`);
  } else if (totals.tolerated > 0) {
    lines.push(`No drift that breaks the contract: ${tolerated}${also ? `; ${also}` : ''}.`);
  } else {
    lines.push(`No drift: every recorded answer matches the contract${also ? ` (${also})` : ''}.`);
  }
  return lines.join('\n');
}

// ------------------------------------------------------------------ the command

function loadContract(path: string | undefined, cwd: string): { document: OpenApiDocument; name: string } {
  if (path === undefined) return { document: loadSpec('openapi.yaml').document, name: 'openapi.yaml' };
  let parsed: unknown;
  try {
    parsed = parseYaml(readFileSync(resolvePath(cwd, path), 'utf8'));
  } catch (error) {
    throw new UsageError(`cannot read the contract ${path}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  }
  const paths = (parsed as { paths?: unknown } | null)?.paths;
  if (typeof paths !== 'object' || paths === null) throw new UsageError(`${path} is not an OpenAPI document (it has no paths)`);
  return { document: parsed as OpenApiDocument, name: path };
}

/** `social-gateway-mock drift DIR [--json] [--strict] [--contract FILE]`; answers the exit status. */
export function driftCommand(argv: string[], io: CliIo): number {
  const parsed = parseFlags(argv, { json: { type: 'boolean' }, strict: { type: 'boolean' }, contract: { type: 'string' }, help: { type: 'boolean', short: 'h' } });
  if (parsed.values.help) {
    io.out(driftHelp());
    return 0;
  }
  const [dir, ...extra] = parsed.positionals;
  if (dir === undefined) throw new UsageError('drift needs the recording folder: drift <DIR>');
  if (extra.length > 0) throw new UsageError(`drift takes one folder; got also '${extra.join(' ')}'`);
  const contract = loadContract(parsed.values.contract, io.cwd);
  let comparer: ContractComparer;
  try {
    comparer = new ContractComparer(contract.document);
  } catch (error) {
    throw new UsageError(`cannot compare with ${contract.name}: ${error instanceof Error ? error.message : String(error)}`);
  }
  let exchanges: RecordedExchange[];
  try {
    exchanges = readRecording(resolvePath(io.cwd, dir));
  } catch (error) {
    if (!(error instanceof RecordingError)) throw error;
    io.err(`social-gateway-mock: ${error.message}`);
    return 2;
  }
  const report = driftReport(exchanges, comparer, { recording: dir, contract: contract.name }, parsed.values.strict === true);
  io.out(parsed.values.json ? JSON.stringify(report, null, 2) : formatDriftReport(report));
  return driftExitCode(report);
}
