import { encodeComponent } from '../lib/uri.js';
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { ControlJournalEntry } from '../generated/named-types.js';
import { loadSpec } from '../http/spec.js';
import { budgetFor, windowSeconds, type BudgetName } from '../limits/request-budget.js';
import { WORKSPACE_HELP } from './contract-tools.js';
import { optionalString } from './control-tool-calls.js';
import { answerError, answerResult, apiKeyFor, controlCredentials, jsonResult, ToolError, type McpSession } from './session.js';
import type { Answer } from './target.js';

/*
 * Tools made for the questions an agent asks while it writes and debugs a client, beyond one
 * operation each: call the API as the client would, ask why a request got its answer, find
 * requests, see what was never exercised, break one thing, wait for webhooks. Each is a few
 * calls of the control plane (or the API) on one workspace, named by the `workspace` argument.
 */

type Args = Record<string, unknown>;

export interface AgentTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** Changes nothing in the mock. */
  readOnly?: boolean;
  run(session: McpSession, args: Args): Promise<CallToolResult>;
}

const WORKSPACE = { type: 'string', description: WORKSPACE_HELP };

function integer(value: unknown, name: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) throw new ToolError('VALIDATION_ERROR', `${name} must be a whole number from ${min} to ${max}`, { param: name });
  return value;
}

function required<T>(value: T | undefined, name: string): T {
  if (value === undefined) throw new ToolError('VALIDATION_ERROR', `${name} is required`, { param: name });
  return value;
}

/** A control call on the tool's workspace, its refusal thrown as the tool's error. */
async function control(session: McpSession, workspace: string | undefined, operationId: Parameters<McpSession['target']['control']>[0], call: { params?: Record<string, string>; query?: Record<string, unknown>; body?: unknown } = {}): Promise<unknown> {
  const { credentials, workspace: named } = controlCredentials(session, workspace);
  const answer = await session.target.control(operationId, { ...call, workspace: named }, credentials);
  if (answer.status >= 300) throw answerError(answer);
  return answer.body;
}

/** Response headers an agent reasons with: the budget, when to retry, where a created thing is. */
const TOLD_HEADERS = ['retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'location', 'idempotent-replayed'];

function toldHeaders(answer: Answer): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of TOLD_HEADERS) {
    const value = answer.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  return headers;
}

/** A journal entry as control.yaml declares it. */
type JournalEntry = ControlJournalEntry;

async function journal(session: McpSession, workspace: string | undefined, query: Record<string, unknown> = {}): Promise<JournalEntry[]> {
  const page = (await control(session, workspace, 'getJournal', { query })) as { data: JournalEntry[] };
  return page.data;
}

/** Why an answer came, from its journal entry and what the workspace holds now: each reason with what to do next. */
async function reasons(session: McpSession, workspace: string | undefined, entry: JournalEntry): Promise<{ why: string[]; next: string[]; rule?: unknown; limits?: unknown; spentBy?: SpentBy }> {
  const why: string[] = [];
  const next: string[] = [];
  const out: { why: string[]; next: string[]; rule?: unknown; limits?: unknown; spentBy?: SpentBy } = { why, next };
  if (entry.status === 0) why.push('No answer was sent: a scenario rule dropped or reset the connection.');
  if (entry.matchedRule !== null) {
    const rules = (await control(session, workspace, 'listRules')) as { data?: Array<{ id: string }> } | Array<{ id: string }>;
    const list = Array.isArray(rules) ? rules : (rules.data ?? []);
    out.rule = list.find((rule) => rule.id === entry.matchedRule) ?? { id: entry.matchedRule, note: 'no longer active' };
    why.push(`Scenario rule '${entry.matchedRule}' intercepted it (${entry.effect ?? 'effect not recorded'})${entry.injected ? ', answering off the contract on purpose' : ''}.`);
    next.push(`Remove the rule (scenarios tool, removeRule, params.id '${entry.matchedRule}') or let its times run out.`);
  }
  if (entry.error) why.push(`${entry.errorCode ?? 'The error'}: ${entry.error.message}${entry.error.param ? ` (field ${entry.error.param})` : ''}`);
  const details = entry.error?.details;
  // The answer's own Retry-After first: the advice must match what the client was told.
  const retryAfter = entry.retryAfter ?? (typeof details?.retryAfterSeconds === 'number' ? details.retryAfterSeconds : undefined);
  const wait = (then: string) =>
    retryAfter === undefined
      ? `The answer named no Retry-After: ${then}`
      : `Wait the answer's Retry-After, ${retryAfter} s: advance the clock (clock tool, advanceClock, body {"by":"PT${retryAfter}S"}), then ${then}`;
  switch (entry.errorCode) {
    case 'VALIDATION_ERROR':
      next.push('Fix the request to match openapi.yaml (resource social-gateway-mock://contract/openapi.yaml) and send it again.');
      break;
    case 'RATE_LIMITED': {
      out.limits = ((await control(session, workspace, 'getLimits')) as { budgets?: unknown }).budgets;
      const spent = await spentBy(session, workspace, entry);
      out.spentBy = spent;
      if (spent.requests > 0) why.push(spentSentence(spent));
      next.push(wait('send it again; or refill the window (limits tool, updateLimits, body {"refill":["requests"]}).'));
      if (spent.callers[0] && spent.callers[0].requests * 2 > spent.requests) next.push(`Most of the budget went to ${spent.callers[0].caller}: space its calls out (poll less often) or let webhooks tell it instead.`);
      break;
    }
    case 'VELOCITY_LIMITED': {
      const accountId = typeof details?.accountId === 'string' ? details.accountId : undefined;
      const limits = (await control(session, workspace, 'getLimits')) as { velocity?: Array<{ accountId: string }> };
      out.limits = accountId === undefined ? limits.velocity : limits.velocity?.find((account) => account.accountId === accountId);
      why.push(velocitySentence(details));
      next.push(wait('send it again.'));
      break;
    }
    case 'ACCOUNT_RECONNECT_REQUIRED':
    case 'ACCOUNT_EXPIRED':
      next.push("Reconnect the account, or set it active again (world tool, setAccountStatus, body {\"status\":\"active\"}).");
      break;
    case 'UNAUTHORIZED':
      next.push('Send a key of the workspace (x-api-key or Authorization: Bearer).');
      break;
    default:
      if (entry.retryAfter !== undefined) next.push(wait('send it again.'));
      break;
  }
  if (why.length === 0) why.push(entry.status < 400 ? `Answered ${entry.status} as the contract describes: no rule, limit or error involved.` : `Answered ${entry.status}${entry.errorCode ? ` ${entry.errorCode}` : ''}.`);
  return out;
}

/** The cap a VELOCITY_LIMITED names, in the words its details give, and only those. */
function velocitySentence(details: Record<string, unknown> | undefined): string {
  const window = details?.window === 'hour' ? 'per rolling hour' : details?.window === 'day' ? 'per UTC day' : undefined;
  const cap = typeof details?.limit === 'number' ? `${details.limit} published posts${window ? ` ${window}` : ''}` : window;
  const account = typeof details?.accountId === 'string' ? ` of account ${details.accountId}${typeof details.platform === 'string' ? ` (${details.platform})` : ''}` : '';
  return `The posting velocity cap${account} was reached${cap ? `: ${cap}` : ''}.`;
}

/** Who spent a request budget: the requests of its window before the refusal, by operation and by caller. */
interface SpentBy {
  /** The budget behind the refused operation. */
  budget: BudgetName;
  /** The window's requests that counted (refusals do not). */
  requests: number;
  windowSeconds: number;
  operations: Array<{ operationId: string; requests: number }>;
  callers: Array<{ caller: string; requests: number }>;
}

/** The most any list of `spentBy` names. */
const TOP = 5;

function top<K extends string>(counts: Map<string, number>, key: K): Array<Record<K, string> & { requests: number }> {
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, TOP)
    .map(([name, requests]) => ({ [key]: name, requests }) as Record<K, string> & { requests: number });
}

/**
 * What filled the window a RATE_LIMITED answer refused from: the journal's requests to the same
 * budget in the window before it (a refused 429 takes no place, so it is not counted), the top
 * operations and the top callers. The journal keeps the last --journal-size requests, so a long
 * window on a busy workspace may be counted in part.
 */
async function spentBy(session: McpSession, workspace: string | undefined, entry: JournalEntry): Promise<SpentBy> {
  const budget = budgetFor(entry.operationId ?? undefined);
  const seconds = windowSeconds(budget);
  const endMs = Date.parse(entry.at);
  const startMs = endMs - seconds * 1000;
  const entries = await journal(session, workspace, { limit: 1000 });
  const operations = new Map<string, number>();
  const callers = new Map<string, number>();
  let requests = 0;
  for (const candidate of entries) {
    const at = Date.parse(candidate.at);
    if (candidate.seq >= entry.seq || at <= startMs || at > endMs || candidate.status === 429 && candidate.errorCode === 'RATE_LIMITED') continue;
    if (budgetFor(candidate.operationId ?? undefined) !== budget) continue;
    requests++;
    const operation = candidate.operationId ?? `${candidate.method} ${candidate.path}`;
    operations.set(operation, (operations.get(operation) ?? 0) + 1);
    const caller = candidate.caller ?? 'an unnamed caller';
    callers.set(caller, (callers.get(caller) ?? 0) + 1);
  }
  return { budget, requests, windowSeconds: seconds, operations: top(operations, 'operationId'), callers: top(callers, 'caller') };
}

function spentSentence(spent: SpentBy): string {
  const operations = spent.operations.map((operation) => `${operation.operationId} ${operation.requests}`).join(', ');
  const callers = spent.callers.map((caller) => `${caller.caller} ${caller.requests}`).join(', ');
  return `What spent the ${spent.budget === 'analytics' ? 'per-second analytics' : 'per-minute'} budget: ${spent.requests} requests in the ${spent.windowSeconds} s before it, by operation ${operations}; by caller ${callers}.`;
}

/** What a workspace's coverage never saw: operations not exercised, statuses and error codes declared but never answered. */
interface OperationCoverage {
  operationId: string;
  calls: number;
  exercised: boolean;
  missingStatuses: unknown[];
  missingErrorCodes: unknown[];
}

export const AGENT_TOOLS: AgentTool[] = [
  {
    name: 'call_api',
    description: "Send one request to the API (/v1) as the workspace's client. Answers status, rate-limit and Retry-After headers, body; a non-2xx is a tool error with the envelope's code and message.",
    inputSchema: {
      type: 'object',
      required: ['method', 'path'],
      additionalProperties: false,
      properties: { workspace: WORKSPACE, method: { type: 'string', enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] }, path: { type: 'string', description: '/v1/posts…' }, query: { type: 'object' }, body: {} },
    },
    async run(session, args) {
      const method = optionalString(args.method, 'method');
      const path = required(optionalString(args.path, 'path'), 'path');
      if (method === undefined || !['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].includes(method.toUpperCase())) throw new ToolError('VALIDATION_ERROR', 'method must be GET, POST, PUT, PATCH or DELETE', { param: 'method' });
      if (!path.startsWith('/')) throw new ToolError('VALIDATION_ERROR', "path must start with '/' (/v1/posts)", { param: 'path' });
      const workspace = optionalString(args.workspace, 'workspace');
      const key = await apiKeyFor(session, workspace);
      const answer = await session.target.api(method, path, key, args.body, args.query as Record<string, unknown> | undefined);
      return answerResult(answer, { status: answer.status, headers: toldHeaders(answer) });
    },
  },
  {
    name: 'explain_request',
    description: "Why did a request get its answer? From its journal entry (default: the latest): the validation error and field, the rule that intercepted it, the limit that fired (for a spent budget, the top operations and callers that spent it), and what to do next (waiting the answer's own Retry-After).",
    readOnly: true,
    inputSchema: { type: 'object', additionalProperties: false, properties: { workspace: WORKSPACE, seq: { type: 'integer', minimum: 1, description: 'Journal seq' } } },
    async run(session, args) {
      const workspace = optionalString(args.workspace, 'workspace');
      const seq = integer(args.seq, 'seq', 1, Number.MAX_SAFE_INTEGER);
      const entries = await journal(session, workspace, seq === undefined ? { limit: 1 } : { after: seq - 1, limit: 1000 });
      const entry = seq === undefined ? entries.at(-1) : entries.find((candidate) => candidate.seq === seq);
      if (!entry) throw new ToolError('NOT_FOUND', seq === undefined ? 'The journal is empty: no API request was made in this workspace yet.' : `No journal entry ${seq} (gone past --journal-size, or never made).`);
      return jsonResult({ entry, ...(await reasons(session, workspace, entry)) });
    },
  },
  {
    name: 'find_requests',
    description: 'Find requests in the journal by operation, method, status, error code, field an error named, path or rule; newest last.',
    readOnly: true,
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      properties: {
        workspace: WORKSPACE,
        operationId: { type: 'string' },
        method: { type: 'string' },
        status: { type: 'integer' },
        errorCode: { type: 'string' },
        field: { type: 'string', description: 'error.param' },
        path: { type: 'string' },
        matchedRule: { type: 'string' },
        limit: { type: 'integer', minimum: 1, maximum: 1000 },
      },
    },
    async run(session, args) {
      const workspace = optionalString(args.workspace, 'workspace');
      const errorCode = optionalString(args.errorCode, 'errorCode');
      const field = optionalString(args.field, 'field');
      const path = optionalString(args.path, 'path');
      const limit = integer(args.limit, 'limit', 1, 1000) ?? 20;
      const query = {
        ...(args.operationId !== undefined && { operationId: optionalString(args.operationId, 'operationId') }),
        ...(args.method !== undefined && { method: optionalString(args.method, 'method') }),
        ...(args.status !== undefined && { status: integer(args.status, 'status', 0, 599) }),
        ...(args.matchedRule !== undefined && { matchedRule: optionalString(args.matchedRule, 'matchedRule') }),
        limit: 1000,
      };
      const found = (await journal(session, workspace, query)).filter(
        (entry) => (errorCode === undefined || entry.errorCode === errorCode) && (field === undefined || entry.error?.param === field) && (path === undefined || entry.path.includes(path)),
      );
      return jsonResult({ count: found.length, data: found.slice(-limit) });
    },
  },
  {
    name: 'coverage_gaps',
    description: "What the workspace's traffic never exercised: operations never called; statuses and error codes declared but never seen.",
    readOnly: true,
    inputSchema: { type: 'object', additionalProperties: false, properties: { workspace: WORKSPACE, operations: { type: 'array', items: { type: 'string' }, description: "Your client's operationIds" } } },
    async run(session, args) {
      const workspace = optionalString(args.workspace, 'workspace');
      const operations = args.operations;
      if (operations !== undefined && !(Array.isArray(operations) && operations.every((id) => typeof id === 'string'))) throw new ToolError('VALIDATION_ERROR', 'operations must be a list of operationIds', { param: 'operations' });
      const report = (await control(session, workspace, 'getCoverage', { query: { scope: 'workspace', ...(operations !== undefined && operations.length > 0 && { operations: operations.join(',') }) } })) as {
        operations: unknown;
        statuses: unknown;
        errorCodes: unknown;
        byOperation: OperationCoverage[];
      };
      return jsonResult({
        operations: report.operations,
        statuses: report.statuses,
        errorCodes: report.errorCodes,
        neverCalled: report.byOperation.filter((operation) => operation.calls === 0).map((operation) => operation.operationId),
        gaps: report.byOperation
          .filter((operation) => operation.calls > 0 && (operation.missingStatuses.length > 0 || operation.missingErrorCodes.length > 0 || !operation.exercised))
          .map(({ operationId, exercised, missingStatuses, missingErrorCodes }) => ({ operationId, exercised, missingStatuses, missingErrorCodes })),
      });
    },
  },
  {
    name: 'break_one_thing',
    description:
      "Break one thing now: expire-session (accountId), exhaust-rate-budget (next API call 429), velocity-cap (accountId's hourly cap filled), fail-webhook (webhookId's next count deliveries fail with status), network-down (platform's account reads 502).",
    inputSchema: {
      type: 'object',
      required: ['what'],
      additionalProperties: false,
      properties: {
        workspace: WORKSPACE,
        what: { type: 'string', enum: ['expire-session', 'exhaust-rate-budget', 'velocity-cap', 'fail-webhook', 'network-down'] },
        accountId: { type: 'string' },
        webhookId: { type: 'string' },
        platform: { type: 'string' },
        count: { type: 'integer', minimum: 1, maximum: 1000 },
        status: { type: 'integer', minimum: 400, maximum: 599 },
      },
    },
    async run(session, args) {
      const workspace = optionalString(args.workspace, 'workspace');
      switch (args.what) {
        case 'expire-session': {
          const id = required(optionalString(args.accountId, 'accountId'), 'accountId');
          return jsonResult({ broke: 'expire-session', account: await control(session, workspace, 'setAccountStatus', { params: { id }, body: { status: 'expired' } }) });
        }
        case 'exhaust-rate-budget':
          return jsonResult({ broke: 'exhaust-rate-budget', limits: await control(session, workspace, 'updateLimits', { body: { drain: ['requests'] } }) });
        case 'velocity-cap': {
          const accountId = required(optionalString(args.accountId, 'accountId'), 'accountId');
          return jsonResult({ broke: 'velocity-cap', limits: await control(session, workspace, 'updateLimits', { body: { velocity: [{ accountId, published: HOURLY_VELOCITY_CAP }] } }) });
        }
        case 'fail-webhook': {
          const id = required(optionalString(args.webhookId, 'webhookId'), 'webhookId');
          const count = integer(args.count, 'count', 1, 1000) ?? 5;
          const status = integer(args.status, 'status', 400, 599) ?? 503;
          return jsonResult({ broke: 'fail-webhook', faults: await control(session, workspace, 'failWebhookDeliveries', { params: { id }, body: { count, status } }) });
        }
        case 'network-down': {
          const platform = required(optionalString(args.platform, 'platform'), 'platform');
          const rule = { id: `network-down-${platform}`, match: { platform, operationId: networkReads() }, then: { error: { status: 502, code: 'PLATFORM_ERROR', message: `The ${platform} network is not answering.`, details: { platform } } } };
          return jsonResult({ broke: 'network-down', rule: await control(session, workspace, 'addRule', { body: rule }), undo: `scenarios tool, removeRule, params.id '${rule.id}'` });
        }
        default:
          throw new ToolError('VALIDATION_ERROR', 'what must be expire-session, exhaust-rate-budget, velocity-cap, fail-webhook or network-down', { param: 'what' });
      }
    },
  },
  {
    name: 'webhook_deliveries',
    description: "Wait for webhook deliveries: advances the clock by advance (default PT0S: waits for those in flight), then lists those attempted meanwhile (all: every one kept), newest first.",
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      properties: { workspace: WORKSPACE, advance: { type: 'string', description: 'ISO 8601 duration' }, event: { type: 'string' }, webhookId: { type: 'string' }, all: { type: 'boolean' } },
    },
    async run(session, args) {
      const workspace = optionalString(args.workspace, 'workspace');
      const advance = optionalString(args.advance, 'advance') ?? 'PT0S';
      const event = optionalString(args.event, 'event');
      const webhookId = optionalString(args.webhookId, 'webhookId');
      const all = args.all === true;
      const before = ((await control(session, workspace, 'getClock')) as { now: string }).now;
      const moved = (await control(session, workspace, 'advanceClock', { body: { by: advance } })) as { now: string; ran: Array<{ kind: string }> };
      const key = await apiKeyFor(session, workspace);
      const webhooks = webhookId === undefined ? await apiData(session, key, '/v1/webhooks') : [{ id: webhookId }];
      const deliveries: unknown[] = [];
      for (const webhook of webhooks as Array<{ id: string }>) {
        for (const delivery of (await apiData(session, key, `/v1/webhooks/${encodeComponent(webhook.id)}/deliveries`, event === undefined ? {} : { event })) as Array<{ lastAttemptAt?: string | null }>) {
          // Instants of one clock, in one format: the text compares as the time does.
          if (all || (delivery.lastAttemptAt ?? '') >= before) deliveries.push(delivery);
        }
      }
      return jsonResult({ now: moved.now, ran: moved.ran.map((job) => job.kind), deliveries });
    },
  },
];

/** The posting velocity per rolling hour of one account (README, Limits): pre-loading that many fills it. */
const HOURLY_VELOCITY_CAP = 25;

/** A list answer's `data`, its refusal thrown as the tool's error. */
async function apiData(session: McpSession, key: string, path: string, query: Record<string, unknown> = {}): Promise<unknown[]> {
  const answer = await session.target.api('GET', path, key, undefined, query);
  if (answer.status !== 200) throw answerError(answer);
  return (answer.body as { data: unknown[] }).data;
}

let reads: string[] | undefined;

/**
 * The API's reads a network outage answers 502 (a GET that declares 502 and names an account),
 * from openapi.yaml: a rule may answer only statuses its operations declare.
 */
function networkReads(): string[] {
  if (reads) return reads;
  const found: string[] = [];
  for (const [path, item] of Object.entries(loadSpec('openapi.yaml').document.paths)) {
    const get = item.get as { operationId?: string; responses?: Record<string, unknown>; parameters?: Array<{ name?: string }> } | undefined;
    if (!get?.operationId || get.responses?.['502'] === undefined) continue;
    const namesAccount = /^\/v1\/(accounts|connections)\/\{id\}/.test(path) || (get.parameters ?? []).some((parameter) => parameter.name === 'accountId' || parameter.name === 'connectionId');
    if (namesAccount) found.push(get.operationId);
  }
  reads = found;
  return found;
}
