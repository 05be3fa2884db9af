import { parseIsoDuration } from '../clock/duration.js';
import type { RanJob } from '../clock/scheduler.js';
import { validationError } from '../http/errors.js';
import { created, ok, route, type RouteDefinition } from '../http/route.js';
import { BUDGET_NAMES, budgetWindows, budgetLimit, describeBudget, type BudgetName } from '../limits/request-budget.js';
import type { PlanName } from '../workspaces/plans.js';
import type { WorkspaceRegistry } from '../workspaces/registry.js';
import type { Workspace } from '../workspaces/workspace.js';

export interface ControlDependencies {
  registry: WorkspaceRegistry;
  version: string;
}

function clockView(workspace: Workspace) {
  const next = workspace.scheduler.next();
  return {
    now: workspace.nowIso(),
    frozen: workspace.clock.frozen,
    pendingJobs: workspace.scheduler.size,
    nextDueAt: next ? new Date(next.dueAt).toISOString() : null,
  };
}

function limitsView(workspace: Workspace) {
  const budgets = Object.fromEntries(
    BUDGET_NAMES.map((name) => {
      const { limit, count, remaining, resetSeconds, windowSeconds } = describeBudget(workspace, name);
      return [name, { limit, count, remaining, resetAt: new Date(resetSeconds * 1000).toISOString(), windowSeconds }];
    }),
  );
  return { plan: workspace.data.plan, budgets };
}

async function moveClock(workspace: Workspace, targetMs: number) {
  const from = workspace.nowIso();
  const ran: RanJob[] = await workspace.scheduler.advanceTo(targetMs);
  workspace.changed();
  return ok({ from, now: workspace.nowIso(), ran, clock: clockView(workspace) });
}

/**
 * The one table of /__control (WireMock's AdminRoutes). Read-only endpoints here
 * never change state; the workspace is the one the request's key names, or the
 * default workspace.
 */
export function controlRoutes({ registry, version }: ControlDependencies): RouteDefinition[] {
  return [
    route('getHealth', () => ok({ status: 'ok', version, workspaces: registry.all().length })),

    route<never, never, { plan?: PlanName; seed?: number; fixtures?: boolean; clock?: { start?: string; frozen?: boolean } } | undefined>(
      'createWorkspace',
      ({ body }) => {
        const workspace = registry.create({
          ...(body?.plan && { plan: body.plan }),
          ...(body?.seed !== undefined && { seed: body.seed }),
          ...(body?.fixtures !== undefined && { fixtures: body.fixtures }),
          ...(body?.clock?.start !== undefined && { clockStartMs: Date.parse(body.clock.start) }),
          ...(body?.clock?.frozen !== undefined && { clockFrozen: body.clock.frozen }),
        });
        return created({
          workspaceId: workspace.id,
          apiKey: workspace.data.apiKeys[0],
          plan: workspace.data.plan,
          seed: workspace.data.seed,
          clock: clockView(workspace),
        });
      },
    ),

    route('getClock', ({ workspace }) => ok(clockView(workspace))),

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

    route('createApiKey', ({ workspace }) => created({ workspaceId: workspace.id, apiKey: registry.addApiKey(workspace) })),

    route('getLimits', ({ workspace }) => ok(limitsView(workspace))),

    route<never, never, { plan?: PlanName; drain?: BudgetName[]; refill?: BudgetName[] }>('updateLimits', ({ workspace, body }) => {
      if (body.plan) workspace.data.plan = body.plan;
      const windows = budgetWindows(workspace);
      for (const name of body.refill ?? []) windows[name].clear();
      for (const name of body.drain ?? []) windows[name].fillTo(budgetLimit(workspace, name), workspace.now());
      workspace.changed();
      return ok(limitsView(workspace));
    }),

    route<never, { limit?: number; after?: number; operationId?: string }>('getJournal', ({ workspace, query }) => {
      let entries = workspace.journal.entries(query.after ?? 0);
      if (query.operationId !== undefined) entries = entries.filter((entry) => entry.operationId === query.operationId);
      const limit = query.limit ?? 100;
      return ok({ data: entries.slice(-limit), size: workspace.journal.size, capacity: workspace.journal.capacity });
    }),
  ];
}
