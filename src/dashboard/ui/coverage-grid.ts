/*
 * The Coverage view's pure logic: `GET /__control/coverage` turned into the rows of its grid,
 * worded and grouped as the CI report words them (coverageMarkdown in src/coverage/coverage.ts,
 * the gate's "never saw" lines in src/cli/coverage-gate.ts), so the page and the report agree.
 * No DOM here, so a unit test loads it as it is.
 */
import type { ControlCoverageRatio, ControlCoverageReport, ControlOperationCoverage } from '../../generated/named-types.js';

export type CoverageReport = ControlCoverageReport;
export type CoverageRatio = ControlCoverageRatio;
type OperationCoverage = ControlOperationCoverage;

/** Which operations the grid shows: every one, those with any gap, or those never exercised (the report's ✗). */
export const COVERAGE_SHOWS = ['all', 'gaps', 'unexercised'] as const;
export type CoverageShow = (typeof COVERAGE_SHOWS)[number];
export const COVERAGE_SHOW_LABELS: Record<CoverageShow, string> = {
  all: 'All operations',
  gaps: 'Only gaps',
  unexercised: 'Only never exercised (✗)',
};

/** One operation of the grid: the report's row, with its gaps named. */
export interface CoverageRow {
  operationId: string;
  method: string;
  path: string;
  calls: number;
  /** Answered at least once with a status the contract declares for it (the report's ✓ / ✗). */
  exercised: boolean;
  /** Statuses and error codes seen, as the report's cells: `200 ×1, 404 ×2 (undeclared), no answer ×1`. */
  statusesSeen: string;
  errorCodesSeen: string;
  /** Declared and never seen: the gaps. */
  missingStatuses: number[];
  missingErrorCodes: string[];
  /** Not exercised, or a declared status or error code not seen: what the gate reports for the operation. */
  hasGap: boolean;
  /** The gate's own words for the gaps (`never saw status 401, 429`), empty when there are none. */
  gaps: string[];
}

/** `200 ×3, 409 ×1 (undeclared)`: the report's `counted` cell. */
function counted(entries: Array<{ label: string; count: number; declared: boolean }>): string[] {
  return entries.map(({ label, count, declared }) => `${label} ×${count}${declared ? '' : ' (undeclared)'}`);
}

/** The gaps of an operation, in the words of `--coverage-ops`'s lines (src/cli/coverage-gate.ts). */
export function gapsOf(operation: OperationCoverage): string[] {
  return [
    ...(operation.exercised ? [] : ['was never called with a declared status']),
    ...(operation.missingStatuses.length > 0 ? [`never saw status ${operation.missingStatuses.join(', ')}`] : []),
    ...(operation.missingErrorCodes.length > 0 ? [`never saw error code ${operation.missingErrorCodes.join(', ')}`] : []),
  ];
}

export function coverageRow(operation: OperationCoverage): CoverageRow {
  const statuses = counted(operation.statuses.map((entry) => ({ label: String(entry.status), count: entry.count, declared: entry.declared })));
  // Answers that are no status of the contract, listed after the statuses as the report does.
  if (operation.noResponse > 0) statuses.push(`no answer ×${operation.noResponse}`);
  if (operation.injected > 0) statuses.push(`injected ×${operation.injected}`);
  const gaps = gapsOf(operation);
  return {
    operationId: operation.operationId,
    method: operation.method,
    path: operation.path,
    calls: operation.calls,
    exercised: operation.exercised,
    statusesSeen: statuses.join(', '),
    errorCodesSeen: counted(operation.errorCodes.map((entry) => ({ label: entry.code, count: entry.count, declared: entry.declared }))).join(', '),
    missingStatuses: operation.missingStatuses,
    missingErrorCodes: operation.missingErrorCodes,
    hasGap: gaps.length > 0,
    gaps,
  };
}

/** The rows shown for a choice of operations and a text (operationId, method, path, status, error code). */
export function shownRows(rows: readonly CoverageRow[], show: CoverageShow, text: string): CoverageRow[] {
  const needle = text.trim().toLowerCase();
  return rows.filter((row) => {
    if (show === 'gaps' && !row.hasGap) return false;
    if (show === 'unexercised' && row.exercised) return false;
    if (needle === '') return true;
    const haystack = [row.operationId, row.method, row.path, row.statusesSeen, row.errorCodesSeen, ...row.missingStatuses, ...row.missingErrorCodes].join(' ').toLowerCase();
    return haystack.includes(needle);
  });
}

/** `3 of 40 (7.5%)`, as the report's summary row reads. */
export function ratioText(ratio: CoverageRatio): string {
  return `${ratio.exercised} of ${ratio.total} (${ratio.percent}%)`;
}

/** What the report counts: the report's first line, and its limit to a client's operations. */
export function scopeText(report: CoverageReport): string {
  const over = report.scope === 'server' ? serverText(report) : `Workspace ${report.workspaceId ?? ''}.`;
  const limited = report.limitedTo ? ` Limited to the ${report.limitedTo.length} operation${report.limitedTo.length === 1 ? '' : 's'} the client uses.` : '';
  return over + limited;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** Every workspace that had traffic, the deleted and evicted ones included, as the report's first line counts them. */
function serverText(report: CoverageReport): string {
  const { count } = report.endedWorkspaces;
  const ended = count === 0 ? '' : ` (${count} of them since deleted or evicted, their calls still counted)`;
  return `Whole server: ${plural(report.workspacesWithTraffic, 'workspace')} had traffic${ended}.`;
}

/** The `operations` parameter from what was typed: operationIds split on commas or spaces, or none. */
export function operationsParam(typed: string): string | null {
  const ids = typed.split(/[\s,]+/).filter((id) => id !== '');
  return ids.length === 0 ? null : ids.join(',');
}

/**
 * Runs `refresh` at most once per `delayMs` however many times `poke` is called, and never
 * two at a time: 10,000 requests answered in a burst make a handful of fetches, not 10,000.
 * The last poke is always followed by a refresh that starts after it.
 */
export function coalescedRefresh(refresh: () => Promise<void>, delayMs: number): { poke: () => void; cancel: () => void } {
  let timer: ReturnType<typeof setTimeout> | null = null;
  let running = false;
  let again = false;
  let cancelled = false;
  const run = () => {
    timer = null;
    running = true;
    again = false;
    void refresh().finally(() => {
      running = false;
      if (again && !cancelled) poke();
    });
  };
  function poke() {
    if (cancelled) return;
    if (running) again = true;
    else timer ??= setTimeout(run, delayMs);
  }
  return {
    poke,
    cancel() {
      cancelled = true;
      if (timer !== null) clearTimeout(timer);
    },
  };
}
