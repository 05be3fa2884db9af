import { commentView, receiveComment, type InboundCommentInput } from '../api/comments/service.js';
import { conversationView, messageView, receiveMessage, receiveStoryReply, type InboundMessageInput, type InboundResult, type InboundStoryReplyInput } from '../api/inbox/service.js';
import { receiveReview, reviewView, type InboundReviewInput } from '../api/reviews/service.js';
import { updateWallet, walletView } from '../api/accounts/billing.js';
import { accountView, allAccounts, getAccount, setAccountStatus, type StatusChange } from '../api/accounts/service.js';
import { parseIsoDuration } from '../clock/duration.js';
import { MAX_STORED_DEPTH } from '../lib/nesting.js';
import type { RanJob } from '../clock/scheduler.js';
import { setDeliveryFaults, type DeliveryFaultsInput } from '../api/webhooks/service.js';
import { sseMessage, type EventStreams } from '../events/streams.js';
import { BUDGET_NAMES, budgetWindows, budgetLimit, describeBudget, type BudgetName } from '../limits/request-budget.js';
import { dailyCap, HOURLY_CAP, recordPublishes, velocityUsage } from '../api/posts/velocity.js';
import { coverageMarkdown, type CoverageTracker } from '../coverage/coverage.js';
import { beyondWorkspace } from '../http/authenticate.js';
import { ApiError, validationError } from '../lib/errors.js';
import type { WebhookRecord } from '../api/webhooks/records.js';
import { REDACTED } from '../redaction/redactor.js';
import { created, ok, route, type RouteDefinition } from '../http/route.js';
import { inlineScenario, availableScenarios, scenarioByName, SCENARIO_NAME, unknownScenarioReason } from '../scenarios/library.js';
import { chooseScenario } from '../scenarios/load.js';
import { ScenarioError } from '../scenarios/parse.js';
import { initialRuleState } from '../scenarios/rule-state.js';
import { loadedScenario } from '../scenarios/store.js';
import type { ScenarioSource, WorkspaceBase } from '../store/database.js';
import type { PlanName } from '../workspaces/plans.js';
import { workspaceFacts, type ScenarioChoice, type WorkspaceFacts, type WorkspaceRegistry } from '../workspaces/registry.js';
import { checkSnapshot, takeSnapshot, type WorkspaceSnapshot } from '../workspaces/snapshot.js';
import { Workspace } from '../workspaces/workspace.js';
import { withEventReport } from './event-report.js';
import { triggerRoutes } from './triggers.js';
import { addRule, deleteRule, listRules } from './rules.js';
import { keyRoutes } from './keys.js';
import { forkWorkspace, workspaceRoutes } from './workspaces.js';

/**
 * A snapshot to restore (PUT /__control/state) holds a whole world: the one control body far
 * larger than --body-limit, and nested deeper (bodies kept inside the world's own structure).
 */
export const STATE_BODY_LIMIT_BYTES = 64 * 1024 * 1024;

/** A scenario's YAML (1,000,000 characters at most, by the contract) fits whatever escaping JSON gives it (six bytes for `\uXXXX`). */
export const SCENARIO_BODY_LIMIT_BYTES = 8 * 1024 * 1024;

/**
 * The control operations whose bodies may be larger than --body-limit or deeper than
 * MAX_JSON_DEPTH: read by their routes below, and by the fuzz's oracle, which must expect what they take.
 */
export const CONTROL_BODY_LIMITS = {
  createWorkspace: { bodyLimitBytes: SCENARIO_BODY_LIMIT_BYTES },
  loadScenario: { bodyLimitBytes: SCENARIO_BODY_LIMIT_BYTES },
  putState: { bodyLimitBytes: STATE_BODY_LIMIT_BYTES, bodyDepth: MAX_STORED_DEPTH },
} satisfies Record<string, Pick<RouteDefinition, 'bodyLimitBytes' | 'bodyDepth'>>;

export interface ControlDependencies {
  registry: WorkspaceRegistry;
  version: string;
  /** The open `GET /__control/events` streams. */
  eventStreams: EventStreams;
  coverage: CoverageTracker;
}

/** A snapshot as a workspace's key holder may read it: no keys, and webhook secrets masked. */
function withoutSecrets(snapshot: WorkspaceSnapshot): WorkspaceSnapshot {
  const { keyScopes: _scopes, ...data } = snapshot.workspace;
  const webhooks = (data.stores['webhooks'] as { webhooks?: Record<string, WebhookRecord> } | undefined)?.webhooks ?? {};
  for (const webhook of Object.values(webhooks)) if (webhook.secret !== null) webhook.secret = REDACTED;
  return { ...snapshot, workspace: { ...data, apiKeys: [] } };
}

/** The clock as the control plane shows it: of a workspace, or of what can be read of one not built yet. */
function clockView(of: Workspace | WorkspaceFacts) {
  const facts = of instanceof Workspace ? workspaceFacts(of) : of;
  return {
    now: new Date(facts.nowMs).toISOString(),
    frozen: facts.frozen,
    pendingJobs: facts.pendingJobs,
    nextDueAt: facts.nextDueAtMs === null ? null : new Date(facts.nextDueAtMs).toISOString(),
  };
}

function limitsView(workspace: Workspace) {
  const budgets = Object.fromEntries(
    BUDGET_NAMES.map((name) => {
      const { limit, count, remaining, resetSeconds, windowSeconds } = describeBudget(workspace, name);
      return [name, { limit, count, remaining, resetAt: new Date(resetSeconds * 1000).toISOString(), windowSeconds }];
    }),
  );
  const dayEnd = new Date((Math.floor(workspace.now() / 86_400_000) + 1) * 86_400_000).toISOString();
  const velocity = allAccounts(workspace).map((account) => {
    const usage = velocityUsage(workspace, account.id);
    const oldest = usage.lastHour[0];
    return {
      accountId: account.id,
      platform: account.platform,
      hour: { count: usage.lastHour.length, limit: HOURLY_CAP, resetAt: oldest === undefined ? null : new Date(oldest + 3600_000).toISOString() },
      day: { count: usage.today, limit: dailyCap(account.platform), resetAt: dayEnd },
      inFlight: usage.inFlight,
    };
  });
  return { plan: workspace.data.plan, budgets, velocity };
}

/** The answer of an inbound message or story reply: the message, its conversation, and what it set off. */
function inboundMessageReply(workspace: Workspace, act: () => InboundResult) {
  const { result, events, automations } = withEventReport(workspace, act);
  return created({
    accountId: result.conversation.accountId,
    message: messageView(result.message),
    // Read after the automations ran, so it shows their answers too.
    conversation: conversationView(workspace, result.conversation),
    started: result.started,
    events,
    automations,
  });
}

function summary(workspace: Workspace) {
  return {
    workspaceId: workspace.id,
    plan: workspace.data.plan,
    seed: workspace.data.seed,
    scenario: loadedScenario(workspace)?.name ?? null,
    clock: clockView(workspace),
  };
}

/** The answer of a workspace made from the control plane (fresh or forked), read without building its world. */
function createdWorkspace(facts: WorkspaceFacts) {
  return created({
    workspaceId: facts.data.id,
    apiKey: facts.data.apiKeys[0],
    plan: facts.data.plan,
    seed: facts.data.seed,
    // A workspace with a scenario is built at once; one not built yet has none.
    scenario: (facts.workspace && loadedScenario(facts.workspace)?.name) ?? null,
    clock: clockView(facts),
  });
}

function scenarioView(workspace: Workspace) {
  const loaded = loadedScenario(workspace);
  if (!loaded) return undefined;
  return {
    name: loaded.name,
    description: loaded.description,
    loadedAt: loaded.loadedAt,
    states: loaded.states,
    state: loaded.state,
    rules: loaded.rules.map((rule) => {
      const state = loaded.ruleStates[rule.id] ?? initialRuleState();
      return { id: rule.id, description: rule.description, phase: state.phase, seen: state.seen, fired: state.fired, times: rule.times };
    }),
    timelineSteps: loaded.timelineSteps,
  };
}

/** Jobs a clock move lists: writing the 222,849 of ten virtual years as JSON held every workspace for half a second. */
const RAN_LISTED = 1000;

async function moveClock(workspace: Workspace, targetMs: number) {
  const from = workspace.nowIso();
  const ran: RanJob[] = await workspace.scheduler.advanceTo(targetMs);
  workspace.changed();
  return ok({ from, now: workspace.nowIso(), ran: ran.length > RAN_LISTED ? ran.slice(0, RAN_LISTED) : ran, ranTotal: ran.length, clock: clockView(workspace) });
}

/** A scenario that cannot be used, as a 400 naming the file, line and column. */
function invalidScenario(error: ScenarioError, param: string): ApiError {
  return new ApiError(400, 'INVALID_SCENARIO', error.message, { param, details: error.details });
}

/** Runs `work`, turning a ScenarioError into the control plane's 400. */
function withScenario<T>(param: string, work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof ScenarioError) throw invalidScenario(error, param);
    throw error;
  }
}

/** A ready-made scenario by name, or a 400 listing the names there are. */
function namedScenario(name: string, param: string): ScenarioSource {
  const source = scenarioByName(name);
  if (!source) throw new ApiError(400, 'INVALID_SCENARIO', unknownScenarioReason(name), { param });
  return source;
}

/** Reads and checks a scenario, and what it asks of the workspace it builds. */
function choose(source: ScenarioSource, param: string): ScenarioChoice {
  return withScenario(param, () => chooseScenario(source));
}

interface CreateWorkspaceBody {
  plan?: PlanName;
  seed?: number;
  fixtures?: boolean;
  clock?: { start?: string; frozen?: boolean };
  scenario?: string;
  /** Fork: the id of the workspace to copy. */
  from?: string;
}

/**
 * The one table of /__control (WireMock's AdminRoutes). Read-only endpoints here
 * never change state; the workspace is the one the request's key names, or the
 * default workspace.
 */
export function controlRoutes({ registry, version, eventStreams, coverage }: ControlDependencies): RouteDefinition[] {
  return [
    route('getHealth', () => ok({ status: 'ok', version, workspaces: registry.size })),

    {
      ...route<never, never, CreateWorkspaceBody | undefined>('createWorkspace', ({ body, caller, workspace }) => {
        // On a shared server (decision 0024) anyone may make a workspace while --max-workspaces
        // bounds how many; a key may fork only its own.
        if (caller !== 'owner' && !registry.bounded) {
          throw beyondWorkspace('Creating a workspace', 'A server that lets clients make their own sets --max-workspaces.');
        }
        if (caller !== 'owner' && body?.from !== undefined && (caller !== 'workspace' || body.from !== workspace.id)) {
          throw beyondWorkspace("Forking another workspace than the key's own");
        }
        if (body?.from !== undefined) {
          // Validation fills in `fixtures: true`, the contract's default: only `false` was asked for.
          const asked = Object.keys(body).filter((name) => name !== 'fixtures' || body.fixtures === false);
          return createdWorkspace(forkWorkspace(registry, body.from, asked));
        }
        const explicit: Partial<WorkspaceBase> = {
          ...(body?.plan && { plan: body.plan }),
          ...(body?.seed !== undefined && { seed: body.seed }),
          ...(body?.fixtures !== undefined && { fixtures: body.fixtures }),
          ...(body?.clock?.start !== undefined && { clockStartMs: Date.parse(body.clock.start) }),
          ...(body?.clock?.frozen !== undefined && { clockFrozen: body.clock.frozen }),
        };
        let scenario: ScenarioChoice | undefined;
        if (body?.scenario !== undefined) {
          // A bare name is a ready-made scenario; anything else (it has a colon or a line break) is YAML.
          const source = SCENARIO_NAME.test(body.scenario) ? namedScenario(body.scenario, 'scenario') : inlineScenario(body.scenario);
          scenario = choose(source, 'scenario');
        }
        return createdWorkspace(withScenario('scenario', () => registry.create(explicit, scenario)));
      }),
      ...CONTROL_BODY_LIMITS.createWorkspace,
    },

    ...workspaceRoutes(registry, eventStreams),

    route('resetWorkspace', ({ workspace }) => ok(summary(withScenario('scenario', () => registry.reset(workspace))))),

    // Keys and webhook secrets are the owner's to see: a workspace's key holder gets them masked.
    route('getState', ({ workspace, caller }) => ok(caller === 'owner' ? takeSnapshot(workspace) : withoutSecrets(takeSnapshot(workspace)))),

    {
      ...route<never, never, WorkspaceSnapshot>('putState', ({ workspace, body }) => {
        const data = checkSnapshot(registry, body);
        return ok(summary(registry.restore(workspace, data)));
      }),
      ...CONTROL_BODY_LIMITS.putState,
    },

    route('listScenarios', ({ workspace }) => {
      const loaded = scenarioView(workspace);
      return ok({ available: availableScenarios(), ...(loaded && { loaded }) });
    }),

    {
      ...route<never, never, { name?: string; yaml?: string }>('loadScenario', ({ workspace, body }) => {
        const param = body.name !== undefined ? 'name' : 'yaml';
        const source = body.name !== undefined ? namedScenario(body.name, param) : inlineScenario(body.yaml ?? '');
        const choice = choose(source, param);
        const loaded = withScenario(param, () => registry.loadScenario(workspace, choice));
        return ok({ workspaceId: loaded.id, scenario: scenarioView(loaded), clock: clockView(loaded) });
      }),
      ...CONTROL_BODY_LIMITS.loadScenario,
    },

    route('listRules', ({ workspace }) => listRules(workspace)),
    route<never, never, Record<string, unknown>>('addRule', ({ workspace, body }) => addRule(workspace, body, coverage)),
    route<{ id: string }>('removeRule', ({ workspace, params }) => deleteRule(workspace, params.id)),

    route('getClock', ({ workspace }) => ok(clockView(workspace))),
    route<never, { limit: number }>('listClockJobs', ({ workspace, query }) =>
      ok({
        data: workspace.scheduler.upcoming(query.limit).map(({ id, kind, label, dueAt }) => ({ id, kind, label, dueAt: new Date(dueAt).toISOString() })),
        total: workspace.scheduler.size,
      }),
    ),

    route<never, never, { by?: string; ms?: number }>('advanceClock', ({ workspace, body }) => {
      let ms = body.ms;
      if (body.by !== undefined) {
        ms = parseIsoDuration(body.by);
        if (ms === undefined) throw validationError('by', `by must be an ISO 8601 duration without years or months, such as PT2H; got '${body.by}'.`);
      }
      return moveClock(workspace, workspace.now() + (ms ?? 0));
    }),

    route<never, never, { to: string }>('setClock', ({ workspace, body }) => {
      const target = Date.parse(body.to);
      if (target < workspace.now()) {
        throw validationError('to', `The clock only moves forward: ${body.to} is before ${workspace.nowIso()}.`);
      }
      return moveClock(workspace, target);
    }),

    route('freezeClock', ({ workspace }) => {
      workspace.clock.freeze();
      workspace.scheduler.arm();
      workspace.changed();
      return ok(clockView(workspace));
    }),

    route('resumeClock', ({ workspace }) => {
      workspace.clock.resume();
      workspace.scheduler.arm();
      workspace.changed();
      return ok(clockView(workspace));
    }),

    ...keyRoutes(registry),

    route('getLimits', ({ workspace }) => ok(limitsView(workspace))),

    route<never, never, { plan?: PlanName; drain?: BudgetName[]; refill?: BudgetName[]; velocity?: Array<{ accountId: string; published: number }> }>('updateLimits', ({ workspace, body }) => {
      // Every named account must exist before anything changes.
      for (const entry of body.velocity ?? []) getAccount(workspace, entry.accountId);
      for (const entry of body.velocity ?? []) recordPublishes(workspace, entry.accountId, entry.published);
      if (body.plan) workspace.data.plan = body.plan;
      const windows = budgetWindows(workspace);
      for (const name of body.refill ?? []) windows[name].clear();
      for (const name of body.drain ?? []) windows[name].fillTo(budgetLimit(workspace, name), workspace.now());
      workspace.changed();
      return ok(limitsView(workspace));
    }),

    route<never, { limit?: number; after?: number; operationId?: string; method?: string; status?: number; matchedRule?: string }>('getJournal', ({ workspace, query }) => {
      const data = workspace.journal.query({ ...query, limit: query.limit ?? 100 });
      return ok({ data, size: workspace.journal.size, capacity: workspace.journal.capacity });
    }),

    route<never, { scope?: 'server' | 'workspace'; format?: 'json' | 'markdown' | 'table'; operations?: string }>('getCoverage', ({ workspace, query, caller }) => {
      if (query.scope !== 'workspace' && caller !== 'owner') throw beyondWorkspace('The server-wide coverage (scope=server, the default)', 'Ask for scope=workspace to see this workspace\'s.');
      const limitedTo = query.operations?.split(',');
      const unknown = limitedTo?.filter((operationId) => !coverage.operations().some((operation) => operation.operationId === operationId)) ?? [];
      if (unknown.length > 0) throw validationError('operations', `Not operationIds of openapi.yaml: ${unknown.join(', ')}.`);
      const report = coverage.report(query.scope === 'workspace' ? workspace.id : undefined, limitedTo);
      if (query.format === 'markdown' || query.format === 'table') return { status: 200, body: coverageMarkdown(report), contentType: 'text/markdown; charset=utf-8' };
      return ok(report);
    }),

    route<never, { replay?: boolean; requests?: boolean }>('streamEvents', ({ workspace, query }) => ({
      status: 200,
      headers: { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' },
      stream: (stream) => {
        stream.write(`: connected to ${workspace.id}\n\n`);
        if (query.replay === true) for (const event of workspace.events.recent()) stream.write(sseMessage(event));
        eventStreams.attach(workspace.id, stream, { requests: query.requests === true });
      },
    })),

    route<{ id: string }, never, DeliveryFaultsInput>('setWebhookFaults', ({ workspace, params, body }) => {
      const faults = setDeliveryFaults(workspace, params.id, body);
      workspace.changed();
      return ok({ webhookId: params.id, faults });
    }),

    ...triggerRoutes(),

    route<never, never, InboundCommentInput | undefined>('receiveInboundComment', ({ workspace, body }) => {
      const { result, events, automations } = withEventReport(workspace, () => receiveComment(workspace, body ?? {}));
      return created({ comment: commentView(result), destinationId: result.destinationId, events, automations });
    }),

    route<never, never, InboundMessageInput | undefined>('receiveInboundMessage', ({ workspace, body }) => inboundMessageReply(workspace, () => receiveMessage(workspace, body ?? {}))),

    route<never, never, InboundStoryReplyInput | undefined>('receiveInboundStoryReply', ({ workspace, body }) => inboundMessageReply(workspace, () => receiveStoryReply(workspace, body ?? {}))),

    route<never, never, InboundReviewInput | undefined>('receiveInboundReview', ({ workspace, body }) => {
      const { result, events } = withEventReport(workspace, () => receiveReview(workspace, body ?? {}));
      return created({ accountId: result.accountId, review: reviewView(result), events });
    }),

    route<{ id: string }, never, StatusChange>('setAccountStatus', ({ workspace, params, body }) => ok(accountView(workspace, setAccountStatus(workspace, params.id, body)))),

    route('getWallet', ({ workspace }) => ok(walletView(workspace))),

    route<never, never, { balanceCents?: number; pricePerAccountCents?: number }>('setWallet', ({ workspace, body }) => ok(updateWallet(workspace, body))),
  ];
}
