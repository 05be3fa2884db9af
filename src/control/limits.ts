import { allAccounts, getAccount } from '../api/accounts/service.js';
import { dailyCap, HOURLY_CAP, recordPublishes, velocityUsage } from '../api/posts/velocity.js';
import { ok, route } from '../http/route.js';
import { BUDGET_NAMES, budgetLimit, budgetWindows, describeBudget, type BudgetName } from '../limits/request-budget.js';
import type { PlanName } from '../store/plans.js';
import type { Workspace } from '../workspaces/workspace.js';
import type { ControlRouteFactory } from './dependencies.js';

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

type LimitsChange = { plan?: PlanName; drain?: BudgetName[]; refill?: BudgetName[]; velocity?: Array<{ accountId: string; published: number }> };

/** The operations of control.yaml's tag Limits: the workspace's request budget, inspected and steered. */
export const limitsRoutes: ControlRouteFactory = () => [
  route('getLimits', ({ workspace }) => ok(limitsView(workspace))),

  route<never, never, LimitsChange>('updateLimits', ({ workspace, body }) => {
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
];
