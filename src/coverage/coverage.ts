import { EVENT_NAMES } from '../events/catalog.js';
import { declaredOperations, type DeclaredOperation } from '../http/declared-responses.js';
import type { OpenApiDocument } from '../http/spec.js';
import type { ScenarioObserver } from '../scenarios/load.js';
import { RUNTIME_RULES_NAME } from '../scenarios/runtime-rules.js';
import type { Workspace } from '../workspaces/workspace.js';

/** One answered (or dropped) request, as coverage counts it. */
export interface CoveredResponse {
  /** Null when no workspace was found (a bad key). */
  workspaceId: string | null;
  operationId: string;
  /** 0 when no answer was sent. */
  status: number;
  errorCode: string | null;
  /** An off-contract answer a scenario rule injected (a fault, a replayed answer off the contract): counted apart, never as the contract's status or code. */
  injected?: boolean;
  /** The workspace ended (deleted or evicted) while the request was answered: counted with the ended ones. */
  ended?: boolean;
}

interface OperationTally {
  calls: number;
  noResponse: number;
  injected: number;
  statuses: Map<number, number>;
  codes: Map<string, number>;
}

interface WorkspaceTally {
  operations: Map<string, OperationTally>;
  events: Map<string, number>;
}

interface RuleTally {
  workspaceId: string;
  scenario: string;
  ruleId: string;
  fired: number;
}

export interface CoverageRatio {
  exercised: number;
  total: number;
  /** exercised / total, in percent with one decimal. */
  percent: number;
}

export interface OperationCoverage {
  operationId: string;
  method: string;
  path: string;
  calls: number;
  /** Requests answered with no response at all (dropped or reset by a scenario). */
  noResponse: number;
  /** Requests a scenario rule answered with an off-contract fault (also in `calls`, never in `statuses`). */
  injected: number;
  /** At least one answer with a status the contract declares for it. */
  exercised: boolean;
  statuses: Array<{ status: number; count: number; declared: boolean }>;
  missingStatuses: number[];
  errorCodes: Array<{ code: string; count: number; declared: boolean }>;
  missingErrorCodes: string[];
}

/** Proxy mode: how often the upstream's exchanges broke openapi.yaml, per operation and kind of finding. */
export interface ContractFindingsSummary {
  /** Exchanges compared (every proxied request with an operation, answered or not). */
  exchanges: number;
  /** Of those, how many broke the contract (at least one finding it does not tolerate). */
  withViolations: number;
  /** Of those, how many showed only what the contract allows: listed, never counted as a violation. */
  toleratedOnly: number;
  byOperation: Array<{
    /** Null for requests that matched no operation of openapi.yaml. */
    operationId: string | null;
    side: 'request' | 'response';
    kind: string;
    /** The contract allows it (an open enumeration's new value, an extra field where allowed): drift, not a violation. */
    tolerated: boolean;
    count: number;
    /** Up to five of the fields it was found at, for a first look. */
    fields: string[];
  }>;
}

export interface CoverageReport {
  scope: 'server' | 'workspace';
  /** The operations the report is limited to (a client's own subset, `--coverage-ops`); absent when it counts every operation. */
  limitedTo?: string[];
  /** The workspace of a workspace-scoped report; null for the whole server. */
  workspaceId: string | null;
  operations: CoverageRatio;
  statuses: CoverageRatio;
  errorCodes: CoverageRatio;
  /** Successful webhook deliveries, per event. */
  webhookEvents: CoverageRatio & { events: Array<{ event: string; count: number }> };
  rules: Array<{ workspaceId: string; scenario: string; ruleId: string; fired: number }>;
  /** The scenarios' rules that fired in no workspace (run-time rules aside), with how many workspaces loaded each. */
  unfiredRules: UnfiredRule[];
  byOperation: OperationCoverage[];
  /** The live workspaces with traffic; those that ended are counted together in `endedWorkspaces`. */
  workspaces: Array<{ workspaceId: string; calls: number; operationsExercised: number }>;
  /** Every workspace that made a call over the server's lifetime, the ended ones included (the kit deletes its own). */
  workspacesWithTraffic: number;
  /** The workspaces that made calls and have since been deleted or evicted, and their calls: kept in every count above. */
  endedWorkspaces: { count: number; calls: number };
  /** Proxy mode only: what the upstream's answers broke of the contract. */
  contractFindings?: ContractFindingsSummary;
}

/** A rule of a loaded scenario that fired in none of the workspaces that loaded it. */
export interface UnfiredRule {
  scenario: string;
  ruleId: string;
  /** The workspaces that loaded it (ended ones included). */
  workspaces: number;
}

/**
 * The scenario rules among `rules` (one row per workspace) that fired nowhere: a scenario loaded
 * into a workspace per test counts a rule as fired when any of them fired it. Rules added at run
 * time are the tests' own and left out. In the scenarios' order of first load, rules in file order.
 */
export function unfiredRules(rules: ReadonlyArray<{ scenario: string; ruleId: string; fired: number }>): UnfiredRule[] {
  const byRule = new Map<string, UnfiredRule & { fired: number }>();
  for (const rule of rules) {
    if (rule.scenario === RUNTIME_RULES_NAME) continue;
    const key = `${rule.scenario}\u0000${rule.ruleId}`;
    const entry = byRule.get(key) ?? { scenario: rule.scenario, ruleId: rule.ruleId, workspaces: 0, fired: 0 };
    entry.workspaces++;
    entry.fired += rule.fired;
    byRule.set(key, entry);
  }
  return [...byRule.values()].filter((rule) => rule.fired === 0).map(({ scenario, ruleId, workspaces }) => ({ scenario, ruleId, workspaces }));
}

interface FindingTally {
  operationId: string | null;
  side: 'request' | 'response';
  kind: string;
  tolerated: boolean;
  count: number;
  fields: Set<string>;
}

/** Fields kept per operation and kind: an example or five, not every item of every list. */
const FINDING_FIELDS_KEPT = 5;

function callsOf(tally: WorkspaceTally): number {
  return [...tally.operations.values()].reduce((sum, operation) => sum + operation.calls, 0);
}

function ratio(exercised: number, total: number): CoverageRatio {
  return { exercised, total, percent: total === 0 ? 0 : Math.round((exercised / total) * 1000) / 10 };
}

function emptyWorkspace(): WorkspaceTally {
  return { operations: new Map(), events: new Map() };
}

function emptyOperation(): OperationTally {
  return { calls: 0, noResponse: 0, injected: 0, statuses: new Map(), codes: new Map() };
}

/** Adds one operation's counts to another's. */
function addOperation(into: OperationTally, from: OperationTally): void {
  into.calls += from.calls;
  into.noResponse += from.noResponse;
  into.injected += from.injected;
  for (const [status, count] of from.statuses) into.statuses.set(status, (into.statuses.get(status) ?? 0) + count);
  for (const [code, count] of from.codes) into.codes.set(code, (into.codes.get(code) ?? 0) + count);
}

/**
 * Contract coverage over the server's lifetime: which operations of openapi.yaml the
 * traffic reached, with which declared statuses and error codes, which webhook events
 * went out and which scenario rules fired. Counted per workspace (a reset or restore
 * keeps the counts: they describe the traffic, not the world) and summed for the server.
 */
export class CoverageTracker implements ScenarioObserver {
  private readonly declared: Map<string, DeclaredOperation>;
  private readonly workspaces = new Map<string, WorkspaceTally>();
  /** Requests answered before any workspace was known (a missing or wrong key). */
  private readonly unauthenticated = emptyWorkspace();
  /** The counts of every workspace that ended (deleted or evicted), together: one tally, however many end. */
  private readonly ended = emptyWorkspace();
  /** How many workspaces with calls ended: the report says how many had traffic in all, not only the live ones. */
  private endedWithTraffic = 0;
  private readonly rules = new Map<string, RuleTally>();
  /** Proxy mode's findings; undefined when the server does not proxy. */
  private findings: { exchanges: number; withViolations: number; toleratedOnly: number; tallies: Map<string, FindingTally> } | undefined;

  constructor(document: OpenApiDocument) {
    this.declared = declaredOperations(document);
  }

  recordResponse(response: CoveredResponse): void {
    const tally = response.ended ? this.ended : this.tallyOf(response.workspaceId);
    let operation = tally.operations.get(response.operationId);
    if (!operation) {
      operation = emptyOperation();
      tally.operations.set(response.operationId, operation);
    }
    operation.calls++;
    if (response.status === 0) operation.noResponse++;
    if (response.injected) {
      // A proxy's 503 or a cut body says nothing about the contract's statuses and codes.
      operation.injected++;
      return;
    }
    // No answer is counted once, as such: 0 is no status of the contract.
    if (response.status !== 0) operation.statuses.set(response.status, (operation.statuses.get(response.status) ?? 0) + 1);
    if (response.errorCode !== null) operation.codes.set(response.errorCode, (operation.codes.get(response.errorCode) ?? 0) + 1);
  }

  /**
   * A webhook receiver took a delivery of `event` (the dispatcher reports each success).
   * One on the wire when its workspace ended lands afterwards: `ended` counts it with the
   * ended ones, rather than bring back a tally for a workspace that is gone.
   */
  recordWebhookDelivery(workspaceId: string, event: string, ended = false): void {
    const tally = ended ? this.ended : this.tallyOf(workspaceId);
    tally.events.set(event, (tally.events.get(event) ?? 0) + 1);
  }

  /**
   * A workspace ended (deleted or evicted): its counts join those of the workspaces that
   * ended before it, so the server's totals keep them while a long-lived server holds
   * nothing per workspace it no longer has (the soak found a tally per workspace kept
   * for ever). It is no longer listed on its own.
   */
  workspaceEnded(workspaceId: string): void {
    const tally = this.workspaces.get(workspaceId);
    if (!tally) return;
    this.workspaces.delete(workspaceId);
    if (callsOf(tally) > 0) this.endedWithTraffic++;
    for (const [operationId, operation] of tally.operations) {
      let into = this.ended.operations.get(operationId);
      if (!into) {
        into = emptyOperation();
        this.ended.operations.set(operationId, into);
      }
      addOperation(into, operation);
    }
    for (const [event, count] of tally.events) this.ended.events.set(event, (this.ended.events.get(event) ?? 0) + count);
  }

  /** Proxy mode: the report gets a summary of contract findings (empty until an exchange is compared). */
  trackContractFindings(): void {
    this.findings ??= { exchanges: 0, withViolations: 0, toleratedOnly: 0, tallies: new Map() };
  }

  /** One proxied exchange compared with openapi.yaml, and what it broke. */
  recordContractFindings(operationId: string | null, findings: ReadonlyArray<{ side: 'request' | 'response'; kind: string; field: string; tolerated?: boolean }>): void {
    this.trackContractFindings();
    const summary = this.findings as NonNullable<typeof this.findings>;
    summary.exchanges++;
    if (findings.some((finding) => !finding.tolerated)) summary.withViolations++;
    else if (findings.length > 0) summary.toleratedOnly++;
    // Counted once per exchange, as drift counts: a list of twenty items with one new value each is one exchange, not twenty.
    const counted = new Set<string>();
    for (const finding of findings) {
      const tolerated = finding.tolerated ?? false;
      const key = `${operationId ?? ''}\u0000${finding.side}\u0000${finding.kind}\u0000${tolerated}`;
      let tally = summary.tallies.get(key);
      if (!tally) {
        tally = { operationId, side: finding.side, kind: finding.kind, tolerated, count: 0, fields: new Set() };
        summary.tallies.set(key, tally);
      }
      if (!counted.has(key)) tally.count++;
      counted.add(key);
      // List indexes folded (body/connections/*/platform), as drift shows a field.
      const field = finding.field.replace(/\/\d+(?=\/|$)/g, '/*');
      if (tally.fields.size < FINDING_FIELDS_KEPT) tally.fields.add(field);
    }
  }

  scenarioLoaded(workspace: Workspace, scenario: { name: string; rules: Array<{ id: string }> }): void {
    for (const rule of scenario.rules) this.ruleTally(workspace.id, scenario.name, rule.id);
  }

  ruleFired(workspace: Workspace, scenario: { name: string }, ruleId: string): void {
    this.ruleTally(workspace.id, scenario.name, ruleId).fired++;
  }

  /** The loaded scenarios' rules that fired in no workspace (see unfiredRules). */
  unfired(): UnfiredRule[] {
    return unfiredRules([...this.rules.values()]);
  }

  /** The contract's operations, in document order. */
  operations(): Array<{ operationId: string; method: string; path: string }> {
    return [...this.declared.values()].map(({ operationId, method, path }) => ({ operationId, method, path }));
  }

  /**
   * The report for the server, or one workspace; `limitedTo` counts only those operations
   * (a client that uses a fraction of the API is measured against what it uses).
   */
  report(workspaceId?: string, limitedTo?: readonly string[]): CoverageReport {
    const only = limitedTo === undefined ? undefined : new Set(limitedTo);
    const tallies = workspaceId === undefined ? [...this.workspaces.values(), this.unauthenticated, this.ended] : [this.workspaces.get(workspaceId) ?? emptyWorkspace()];
    const byOperation: OperationCoverage[] = [];
    let statusTotal = 0;
    let statusSeen = 0;
    let codeTotal = 0;
    let codeSeen = 0;
    for (const declared of this.declared.values()) {
      if (only && !only.has(declared.operationId)) continue;
      const merged = emptyOperation();
      for (const tally of tallies) {
        const own = tally.operations.get(declared.operationId);
        if (own) addOperation(merged, own);
      }
      const declaredCodes = new Set([...declared.statuses.values()].flat());
      const statuses = [...merged.statuses].sort(([a], [b]) => a - b).map(([status, count]) => ({ status, count, declared: declared.statuses.has(status) }));
      const errorCodes = [...merged.codes].sort(([a], [b]) => a.localeCompare(b)).map(([code, count]) => ({ code, count, declared: declaredCodes.has(code) }));
      const missingStatuses = [...declared.statuses.keys()].filter((status) => !merged.statuses.has(status)).sort((a, b) => a - b);
      const missingErrorCodes = [...declaredCodes].filter((code) => !merged.codes.has(code)).sort();
      statusTotal += declared.statuses.size;
      statusSeen += declared.statuses.size - missingStatuses.length;
      codeTotal += declaredCodes.size;
      codeSeen += declaredCodes.size - missingErrorCodes.length;
      byOperation.push({
        operationId: declared.operationId,
        method: declared.method,
        path: declared.path,
        calls: merged.calls,
        noResponse: merged.noResponse,
        injected: merged.injected,
        exercised: statuses.some((entry) => entry.declared),
        statuses,
        missingStatuses,
        errorCodes,
        missingErrorCodes,
      });
    }
    const events = new Map<string, number>();
    for (const tally of tallies) for (const [event, count] of tally.events) events.set(event, (events.get(event) ?? 0) + count);
    const workspaces = [...this.workspaces.entries()]
      .filter(([id]) => workspaceId === undefined || id === workspaceId)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([id, tally]) => ({
        workspaceId: id,
        calls: callsOf(tally),
        operationsExercised: [...tally.operations.entries()].filter(([operationId, operation]) => (!only || only.has(operationId)) && [...operation.statuses.keys()].some((status) => this.declared.get(operationId)?.statuses.has(status))).length,
      }));
    // In the order loaded: a scenario's rules in file order, so the unfired ones read as the file does.
    const rules = [...this.rules.values()].filter((rule) => workspaceId === undefined || rule.workspaceId === workspaceId);
    return {
      scope: workspaceId === undefined ? 'server' : 'workspace',
      workspaceId: workspaceId ?? null,
      ...(only && { limitedTo: byOperation.map((operation) => operation.operationId) }),
      operations: ratio(byOperation.filter((operation) => operation.exercised).length, byOperation.length),
      statuses: ratio(statusSeen, statusTotal),
      errorCodes: ratio(codeSeen, codeTotal),
      webhookEvents: {
        ...ratio(EVENT_NAMES.filter((event) => (events.get(event) ?? 0) > 0).length, EVENT_NAMES.length),
        events: EVENT_NAMES.map((event) => ({ event, count: events.get(event) ?? 0 })),
      },
      rules: rules.map((rule) => ({ ...rule })).sort((a, b) => a.workspaceId.localeCompare(b.workspaceId) || a.scenario.localeCompare(b.scenario) || a.ruleId.localeCompare(b.ruleId)),
      unfiredRules: unfiredRules(rules),
      byOperation,
      workspaces,
      workspacesWithTraffic: workspaces.filter((workspace) => workspace.calls > 0).length + (workspaceId === undefined ? this.endedWithTraffic : 0),
      endedWorkspaces: workspaceId === undefined ? { count: this.endedWithTraffic, calls: callsOf(this.ended) } : { count: 0, calls: 0 },
      ...(this.findings && workspaceId === undefined && { contractFindings: this.findingsSummary() }),
    };
  }

  private findingsSummary(): ContractFindingsSummary {
    const summary = this.findings as NonNullable<typeof this.findings>;
    return {
      exchanges: summary.exchanges,
      withViolations: summary.withViolations,
      toleratedOnly: summary.toleratedOnly,
      byOperation: [...summary.tallies.values()]
        .map(({ fields, ...tally }) => ({ ...tally, fields: [...fields] }))
        .sort((a, b) => (a.operationId ?? '').localeCompare(b.operationId ?? '') || a.side.localeCompare(b.side) || a.kind.localeCompare(b.kind) || Number(a.tolerated) - Number(b.tolerated)),
    };
  }

  private tallyOf(workspaceId: string | null): WorkspaceTally {
    if (workspaceId === null) return this.unauthenticated;
    let tally = this.workspaces.get(workspaceId);
    if (!tally) {
      tally = emptyWorkspace();
      this.workspaces.set(workspaceId, tally);
    }
    return tally;
  }

  private ruleTally(workspaceId: string, scenario: string, ruleId: string): RuleTally {
    const key = `${workspaceId}\u0000${scenario}\u0000${ruleId}`;
    let tally = this.rules.get(key);
    if (!tally) {
      tally = { workspaceId, scenario, ruleId, fired: 0 };
      this.rules.set(key, tally);
    }
    return tally;
  }
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function counted(entries: Array<{ label: string; count: number; declared: boolean }>): string {
  if (entries.length === 0) return '';
  return entries.map((entry) => `${entry.label} ×${entry.count}${entry.declared ? '' : ' (undeclared)'}`).join(', ');
}

/** The report as Markdown tables: what a CI job publishes, and what `?format=markdown` answers. */
export function coverageMarkdown(report: CoverageReport): string {
  const row = (label: string, r: CoverageRatio) => `| ${label} | ${r.exercised} | ${r.total} | ${r.percent}% |`;
  const lines = [
    '# Contract coverage',
    '',
    report.scope === 'server' ? serverLine(report) : `Workspace \`${report.workspaceId}\`.`,
    ...(report.limitedTo ? ['', `Limited to the ${report.limitedTo.length} operation${report.limitedTo.length === 1 ? '' : 's'} the client uses.`] : []),
    '',
    '| | Exercised | Declared | Coverage |',
    '|---|---:|---:|---:|',
    row('Operations', report.operations),
    row('Status codes (per operation)', report.statuses),
    row('Error codes (per operation)', report.errorCodes),
    row('Webhook events (delivered)', report.webhookEvents),
    '',
    '## Operations',
    '',
    '| Operation | Method and path | Calls | Statuses seen | Declared, not seen | Error codes seen | Error codes not seen |',
    '|---|---|---:|---|---|---|---|',
  ];
  for (const operation of report.byOperation) {
    const statuses = counted(operation.statuses.map((s) => ({ label: String(s.status), count: s.count, declared: s.declared })));
    const noAnswer = operation.noResponse > 0 ? `${statuses ? ', ' : ''}no answer ×${operation.noResponse}` : '';
    const injected = operation.injected > 0 ? `${statuses || noAnswer ? ', ' : ''}injected ×${operation.injected}` : '';
    const codes = counted(operation.errorCodes.map((c) => ({ label: c.code, count: c.count, declared: c.declared })));
    lines.push(`| ${operation.exercised ? '' : '✗ '}\`${operation.operationId}\` | \`${operation.method} ${operation.path}\` | ${operation.calls} | ${cell(statuses + noAnswer + injected)} | ${operation.missingStatuses.join(', ')} | ${cell(codes)} | ${operation.missingErrorCodes.join(', ')} |`);
  }
  lines.push('', '## Webhook events delivered', '', '| Event | Deliveries |', '|---|---:|');
  for (const { event, count } of report.webhookEvents.events) lines.push(`| \`${event}\` | ${count} |`);
  lines.push('', '## Scenario rules', '');
  if (report.rules.length === 0) lines.push('No scenario rules were loaded.');
  else {
    lines.push('| Workspace | Scenario | Rule | Fired |', '|---|---|---|---:|');
    for (const rule of report.rules) lines.push(`| \`${rule.workspaceId}\` | ${cell(rule.scenario)} | \`${rule.ruleId}\` | ${rule.fired} |`);
  }
  if (report.unfiredRules.length > 0) {
    lines.push('', '### Rules that never fired', '', 'Fired in none of the workspaces that loaded them: each is a request the suite never made, or made otherwise than the rule expects.', '');
    lines.push('| Scenario | Rule | Workspaces that loaded it |', '|---|---|---:|');
    for (const rule of report.unfiredRules) lines.push(`| ${cell(rule.scenario)} | \`${rule.ruleId}\` | ${rule.workspaces} |`);
  }
  lines.push('', '## Workspaces', '', '| Workspace | Calls | Operations exercised |', '|---|---:|---:|');
  for (const workspace of report.workspaces) lines.push(`| \`${workspace.workspaceId}\` | ${workspace.calls} | ${workspace.operationsExercised} |`);
  const { count, calls } = report.endedWorkspaces;
  if (count > 0) lines.push(`| ${plural(count, 'ended workspace')}, together | ${calls} | |`);
  if (report.contractFindings) lines.push(...findingsMarkdown(report.contractFindings));
  return `${lines.join('\n')}\n`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** Counts every workspace that had traffic, those the kit (or anyone) has deleted since included. */
function serverLine(report: CoverageReport): string {
  const { count } = report.endedWorkspaces;
  const ended = count === 0 ? '' : ` (${count} of them since deleted or evicted, their calls still counted)`;
  return `Whole server: ${plural(report.workspacesWithTraffic, 'workspace')} had traffic${ended}.`;
}

/** Proxy mode's section: what the upstream broke of the contract, per operation and kind. */
function findingsMarkdown(summary: ContractFindingsSummary): string[] {
  const tolerated = summary.toleratedOnly === 0 ? '' : ` ${summary.toleratedOnly} more showed only what the contract allows (the rows marked tolerated): drift to pick up, not a violation.`;
  const lines = ['', '## Contract violations (proxy)', '', `${summary.withViolations} of ${summary.exchanges} exchange${summary.exchanges === 1 ? '' : 's'} with the upstream broke openapi.yaml.${tolerated}`];
  if (summary.byOperation.length === 0) return lines;
  lines.push('', '| Operation | Side | Kind | Exchanges | Fields (examples) |', '|---|---|---|---:|---|');
  for (const row of summary.byOperation) lines.push(`| ${row.operationId === null ? '(no operation)' : `\`${row.operationId}\``} | ${row.side} | ${row.kind}${row.tolerated ? ' (tolerated)' : ''} | ${row.count} | ${cell(row.fields.map((field) => `\`${field}\``).join(', '))} |`);
  return lines;
}
