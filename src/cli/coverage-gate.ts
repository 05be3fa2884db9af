import { readFileSync, writeFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { coverageMarkdown, type CoverageTracker } from '../coverage/coverage.js';
import { HTTP_METHODS } from '../http/spec.js';
import { didYouMean } from '../lib/did-you-mean.js';
import { UsageError, type CliIo, type CoverageScope, type ResolvedCli } from './options.js';

function readText(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${what} ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** `/v1/posts/{postId}` and `/v1/posts/{id}` are the same route: parameter names do not count. */
function routeKey(method: string, path: string): string {
  return `${method.toUpperCase()} ${path.replace(/\{[^}]*\}/g, '{}').replace(/\/+$/, '')}`;
}

/**
 * The operations of a client's own OpenAPI file: by operationId where it names ours,
 * otherwise by method and path (a client's subset may rename operations, or name none).
 */
function operationsOfClientContract(path: string, tracker: CoverageTracker): string[] {
  const routes = new Map(tracker.operations().map((operation) => [routeKey(operation.method, operation.path), operation.operationId]));
  let document: unknown;
  try {
    document = parseYaml(readText(path, 'the OpenAPI file'));
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`--coverage-from ${path} is not YAML or JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  const paths = (document as { paths?: unknown } | null)?.paths;
  if (typeof paths !== 'object' || paths === null) throw new UsageError(`--coverage-from ${path} has no paths: is it an OpenAPI document?`);
  const known = new Set(tracker.operations().map((operation) => operation.operationId));
  const found: string[] = [];
  const unknown: string[] = [];
  for (const [template, item] of Object.entries(paths as Record<string, Record<string, { operationId?: unknown } | undefined>>)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const byId = typeof operation.operationId === 'string' && known.has(operation.operationId) ? operation.operationId : undefined;
      const byRoute = routes.get(routeKey(method, template)) ?? routes.get(routeKey(method, `/v1${template}`));
      const id = byId ?? byRoute;
      if (id === undefined) unknown.push(`${method.toUpperCase()} ${template}`);
      else if (!found.includes(id)) found.push(id);
    }
  }
  if (unknown.length > 0) throw new UsageError(`--coverage-from ${path}: not operations of openapi.yaml: ${unknown.join(', ')}`);
  if (found.length === 0) throw new UsageError(`--coverage-from ${path} declares no operations`);
  return found;
}

/**
 * The operationIds a coverage scope names, checked against openapi.yaml at start,
 * so that a typo fails the job at once and not after the whole suite ran.
 */
export function scopedOperations(scope: CoverageScope, tracker: CoverageTracker): string[] {
  if (scope.kind === 'openapi') return operationsOfClientContract(scope.path, tracker);
  const ids =
    scope.kind === 'list'
      ? scope.operationIds
      : readText(scope.path, 'the operations file')
          .split(/\r?\n/)
          .map((line) => line.replace(/#.*/, ''))
          .flatMap((line) => line.split(/[\s,]+/))
          .filter((id) => id !== '');
  const known = new Set(tracker.operations().map((operation) => operation.operationId));
  const unknown = ids.filter((id) => !known.has(id));
  const flag = scope.kind === 'list' ? '--coverage-ops' : `--coverage-ops ${scope.path}`;
  if (unknown.length > 0) throw new UsageError(`${flag}: not operationIds of openapi.yaml: ${unknown.map((id) => `${id}${didYouMean(id, [...known])}`).join('; ')}`);
  if (ids.length === 0) throw new UsageError(`${flag} names no operations`);
  return [...new Set(ids)];
}

/**
 * After the last request: writes --coverage-report, tells what the client's operations
 * never saw, and checks --coverage-min. Answers the exit code (0, or 1 when the gate fails
 * or the report cannot be written).
 */
export function finishCoverage(tracker: CoverageTracker, resolved: ResolvedCli, limitedTo: string[] | undefined, io: CliIo): number {
  const rulesStatus = finishRules(tracker, resolved, io);
  const coverageStatus = finishContractCoverage(tracker, resolved, limitedTo, io);
  return coverageStatus !== 0 ? coverageStatus : rulesStatus;
}

/** The most unfired rules named one by one; past it, a count (the coverage report lists them all). */
const UNFIRED_NAMED = 50;

/**
 * Names each rule of a loaded scenario that fired in no workspace: a replay that replayed
 * nothing, or a rule the suite never reached, is never silent. Answers 1 when there are any and
 * --fail-on-unfired-rules asks for it.
 */
function finishRules(tracker: CoverageTracker, resolved: ResolvedCli, io: CliIo): number {
  const unfired = tracker.unfired();
  if (unfired.length === 0) return 0;
  for (const rule of unfired.slice(0, UNFIRED_NAMED)) {
    io.err(`social-gateway-mock: rule ${rule.ruleId} of scenario ${rule.scenario} never fired (${rule.workspaces === 1 ? 'in the one workspace that loaded it' : `in none of the ${rule.workspaces} workspaces that loaded it`})`);
  }
  if (unfired.length > UNFIRED_NAMED) io.err(`social-gateway-mock: and ${unfired.length - UNFIRED_NAMED} more rules never fired (the coverage report lists them all)`);
  if (!resolved.failOnUnfiredRules) return 0;
  io.err(`social-gateway-mock: ${unfired.length} scenario rule${unfired.length === 1 ? '' : 's'} never fired: failing, as --fail-on-unfired-rules asks`);
  return 1;
}

function finishContractCoverage(tracker: CoverageTracker, resolved: ResolvedCli, limitedTo: string[] | undefined, io: CliIo): number {
  if (resolved.coverageReport === undefined && resolved.coverageMin === undefined && limitedTo === undefined) return 0;
  const report = tracker.report(undefined, limitedTo);
  if (resolved.coverageReport !== undefined) {
    const body = resolved.coverageReport.endsWith('.md') ? coverageMarkdown(report) : `${JSON.stringify(report, null, 2)}\n`;
    try {
      writeFileSync(resolved.coverageReport, body);
      io.err(`social-gateway-mock: coverage report written to ${resolved.coverageReport}`);
    } catch (error) {
      io.err(`social-gateway-mock: cannot write the coverage report ${resolved.coverageReport}: ${error instanceof Error ? error.message : String(error)}`);
      return 1;
    }
  }
  if (limitedTo !== undefined) {
    // A client's own operations: say, per operation, what its suite never saw.
    for (const operation of report.byOperation) {
      const gaps = [
        ...(operation.exercised ? [] : ['was never called with a declared status']),
        ...(operation.missingStatuses.length > 0 ? [`never saw status ${operation.missingStatuses.join(', ')}`] : []),
        ...(operation.missingErrorCodes.length > 0 ? [`never saw error code ${operation.missingErrorCodes.join(', ')}`] : []),
      ];
      if (gaps.length > 0) io.err(`social-gateway-mock: coverage: ${operation.operationId} ${gaps.join('; ')}`);
    }
  }
  const { percent, exercised, total } = report.operations;
  if (resolved.coverageMin !== undefined && percent < resolved.coverageMin) {
    const of = limitedTo === undefined ? 'operations' : "of the client's operations";
    io.err(`social-gateway-mock: contract coverage ${percent}% (${exercised} of ${total} ${of}) is below --coverage-min ${resolved.coverageMin}%`);
    return 1;
  }
  return 0;
}
