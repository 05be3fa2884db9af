import type { Request, RequestHandler } from 'express';
import { RateLimitedError } from '../lib/errors.js';
import type { Workspace } from '../workspaces/workspace.js';
import { PLANS } from '../store/plans.js';
import { SlidingWindow } from './sliding-window.js';

/** The two budgets of the reference: per minute for everything, per second for workspace analytics. */
export const BUDGET_NAMES = ['requests', 'analytics'] as const;
export type BudgetName = (typeof BUDGET_NAMES)[number];

/** The operations behind the per-second analytics window (reference, Limits 2). */
const ANALYTICS_OPERATIONS = new Set(['getAnalytics', 'getAnalyticsTimeline']);

const WINDOW_MS: Record<BudgetName, number> = { requests: 60_000, analytics: 1_000 };

/** What the X-RateLimit-* headers of one response say. */
export interface RateLimitHeaders {
  limit: number;
  remaining: number;
  /** Unix seconds when the oldest request in the window ages out. */
  resetSeconds: number;
}

/**
 * The budget's windows are runtime state of a workspace object: a reset workspace
 * (a new object) starts with empty windows, and nothing here is persisted.
 */
const windows = new WeakMap<Workspace, Record<BudgetName, SlidingWindow>>();

export function budgetWindows(workspace: Workspace): Record<BudgetName, SlidingWindow> {
  let found = windows.get(workspace);
  if (!found) {
    found = { requests: new SlidingWindow(WINDOW_MS.requests), analytics: new SlidingWindow(WINDOW_MS.analytics) };
    windows.set(workspace, found);
  }
  return found;
}

/** The budget of a window under the workspace's current plan: analytics is max(6, rpm / 60). */
export function budgetLimit(workspace: Workspace, name: BudgetName): number {
  const perMinute = PLANS[workspace.data.plan].requestsPerMinute;
  return name === 'requests' ? perMinute : Math.max(6, Math.floor(perMinute / 60));
}

export function budgetFor(operationId: string | undefined): BudgetName {
  return operationId !== undefined && ANALYTICS_OPERATIONS.has(operationId) ? 'analytics' : 'requests';
}

/** A window's state as the headers and the control plane report it. */
export function describeBudget(workspace: Workspace, name: BudgetName): RateLimitHeaders & { count: number; windowSeconds: number } {
  const now = workspace.now();
  const window = budgetWindows(workspace)[name];
  const limit = budgetLimit(workspace, name);
  const count = window.count(now);
  const expiry = window.oldestExpiry(now) ?? now;
  return { limit, count, remaining: Math.max(0, limit - count), resetSeconds: Math.ceil(expiry / 1000), windowSeconds: windowSeconds(name) };
}

/** What a refused request's 429 says: the flat envelope, its details and Retry-After. */
export interface RateLimitRefusal {
  currentCount: number;
  limit: number;
  retryAfterSeconds: number;
}

/** The 429 of a spent budget (also what a scenario rule's RATE_LIMITED answers, filled from the same window). */
export function rateLimited(name: BudgetName, refusal: RateLimitRefusal, headers: Record<string, string> = {}): RateLimitedError {
  return new RateLimitedError(429, 'RATE_LIMITED', `The workspace's ${name === 'analytics' ? 'per-second analytics' : 'per-minute request'} budget of ${refusal.limit} is used up; retry after ${refusal.retryAfterSeconds} s.`, {
    details: { ...refusal },
    headers: { 'Retry-After': String(refusal.retryAfterSeconds), ...headers },
  });
}

/** The length of a budget's window, in seconds. */
export function windowSeconds(name: BudgetName): number {
  return WINDOW_MS[name] / 1000;
}

/**
 * Gives back the place one request took in its window: a scenario rule that answers RATE_LIMITED
 * answers as the real refusal does, and a real 429 does not occupy the window.
 */
export function refundRequest(workspace: Workspace, name: BudgetName): void {
  budgetWindows(workspace)[name].forget(workspace.now());
}

/**
 * The rate-limit step of the pipeline, right after authentication. Every
 * authenticated /v1 request counts against its window, whatever it then answers
 * (400, 404, …), except one refused here: a 429 does not occupy the window, so a
 * client that backs off for Retry-After seconds always gets through. With
 * `enforce` off (--rate-limit off, for load tests) requests still count and the
 * headers still tell, but nothing is refused.
 */
export function rateLimitStep(enforce: boolean): RequestHandler {
  return (req, _res, next) => {
    const workspace = req.ctx.workspace;
    if (!workspace) return next();
    const name = budgetFor(req.ctx.operation?.operationId);
    const now = workspace.now();
    const window = budgetWindows(workspace)[name];
    const limit = budgetLimit(workspace, name);
    const count = window.count(now);
    if (enforce && count >= limit) {
      const expiry = window.oldestExpiry(now) ?? now;
      const retryAfterSeconds = Math.max(1, Math.ceil((expiry - now) / 1000));
      req.ctx.rateLimit = { limit, remaining: 0, resetSeconds: Math.ceil(expiry / 1000) };
      throw rateLimited(name, { currentCount: count, limit, retryAfterSeconds });
    }
    window.record(now);
    const expiry = window.oldestExpiry(now) ?? now;
    req.ctx.rateLimit = { limit, remaining: Math.max(0, limit - count - 1), resetSeconds: Math.ceil(expiry / 1000) };
    next();
  };
}

/**
 * A request refused before any workspace is known (401) is counted in a window per
 * client address with the free plan's budget, read on the default workspace's clock,
 * so its headers describe something real; such requests are never refused with 429.
 */
export class AnonymousBudget {
  private readonly byAddress = new Map<string, SlidingWindow>();

  constructor(private readonly clock: () => number) {}

  headers(req: Request): RateLimitHeaders {
    const address = req.socket.remoteAddress ?? 'unknown';
    let window = this.byAddress.get(address);
    if (!window) {
      // Bounded: a flood of addresses cannot grow the map without limit.
      if (this.byAddress.size >= 10_000) this.byAddress.clear();
      window = new SlidingWindow(WINDOW_MS.requests);
      this.byAddress.set(address, window);
    }
    const now = this.clock();
    const limit = PLANS.free.requestsPerMinute;
    window.record(now);
    const count = window.count(now);
    return { limit, remaining: Math.max(0, limit - count), resetSeconds: Math.ceil((window.oldestExpiry(now) ?? now) / 1000) };
  }
}
