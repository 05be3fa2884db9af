import { setTimeout as sleep } from 'node:timers/promises';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { ApiError, RateLimitedError } from '../http/errors.js';
import { declaredOperations } from '../http/declared-responses.js';
import type { Operation } from '../http/operations.js';
import type { ResponseDecorator } from '../http/respond.js';
import type { OpenApiDocument } from '../http/spec.js';
import { activeOutage, assertNetworkUp, outagesStore } from '../platforms/outages.js';
import type { Workspace } from '../workspaces/workspace.js';
import type { ScenarioObserver } from './load.js';
import { countSelects, drawUnit, pathMatches } from './matching.js';
import { OpenValueRewriter } from './open-values.js';
import { requestAccounts, type RequestAccounts } from './request-facts.js';
import { initialRuleState, nextRuleState, nextScenarioState } from './rule-state.js';
import type { ErrorEffect } from './scenario.js';
import { loadedScenario, type LoadedRule, type LoadedScenario } from './store.js';

export interface ScenarioGuardOptions {
  document: OpenApiDocument;
  /** The API's body limit: rules that match on a body account read the body here. */
  bodyLimit: string;
  observer?: ScenarioObserver;
}

/** Retry-After of an injected 429 when neither the rule nor its window says. */
const DEFAULT_RETRY_AFTER_SECONDS = 60;

/**
 * The "scenario rules" step of the /v1 pipeline (after authentication, before
 * validation). The workspace's rules are tried in file order; the first whose
 * matchers accept the request and whose counters select it answers (an error, a
 * delay, a dropped or reset connection, a broken body) or marks the real answer for
 * rewriting. Then, for a network read that the contract lets fail with 502, an outage
 * of the account's network answers 502 PLATFORM_ERROR.
 */
export function scenarioGuard(options: ScenarioGuardOptions): RequestHandler {
  const parseBody = express.json({ limit: options.bodyLimit, type: ['application/json', 'application/*+json'] });
  const declared = declaredOperations(options.document);
  const rewriter = new OpenValueRewriter(options.document);

  const readBody = (req: Request, res: Response) =>
    new Promise<void>((resolve, reject) => {
      parseBody(req, res, (error?: unknown) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve()));
    });

  return async (req: Request, res: Response, next: NextFunction) => {
    const { workspace, operation } = req.ctx;
    // Unknown routes go on to the 404/405 step untouched.
    if (!workspace || !operation) return next();

    const scenario = loadedScenario(workspace);
    if (scenario && scenario.rules.length > 0) {
      let accounts: RequestAccounts | undefined;
      const accountsOf = async () => {
        if (!accounts) {
          // The body parser marks the body read, so the pipeline's own parser skips it later.
          if (operation.method !== 'GET') await readBody(req, res);
          accounts = requestAccounts(workspace, req, operation);
        }
        return accounts;
      };
      const rule = await firingRule(workspace, scenario, req, operation, accountsOf);
      if (rule) {
        req.ctx.matchedRule = rule.id;
        options.observer?.ruleFired(workspace, scenario, rule.id);
        workspace.changed();
        const passOn = await applyEffect(rule, req, res, workspace, operation, rewriter);
        if (!passOn) return;
      }
    }

    if (operation.method === 'GET' && declared.get(operation.operationId)?.statuses.has(502) && (outagesStore.peek(workspace)?.outages.length ?? 0) > 0) {
      for (const platform of requestAccounts(workspace, req, operation).platforms) {
        if (!activeOutage(workspace, platform)) continue;
        req.ctx.scenarioEffect = 'outage';
        assertNetworkUp(workspace, platform);
      }
    }
    next();
  };
}

/** Offers the request to each rule in turn; moves the counters of those that match; answers the first that fires. */
async function firingRule(
  workspace: Workspace,
  scenario: LoadedScenario,
  req: Request,
  operation: Operation,
  accountsOf: () => Promise<RequestAccounts>,
): Promise<LoadedRule | undefined> {
  const path = `${req.baseUrl}${req.path}`;
  for (const rule of scenario.rules) {
    const match = rule.match;
    if ((scenario.ruleStates[rule.id] ?? initialRuleState()).phase === 'exhausted') continue;
    if (match.state !== undefined && scenario.state !== match.state) continue;
    if (match.operationIds && !match.operationIds.includes(operation.operationId)) continue;
    if (match.methods && !match.methods.includes(operation.method)) continue;
    if (match.pathPattern !== undefined && !pathMatches(match.pathPattern, path)) continue;
    const now = workspace.now();
    if (match.fromMs !== undefined && now < match.fromMs) continue;
    if (match.untilMs !== undefined && now >= match.untilMs) continue;
    if (match.accountIds || match.platforms) {
      const { accountIds, platforms } = await accountsOf();
      if (match.accountIds && !match.accountIds.some((id) => accountIds.includes(id))) continue;
      if (match.platforms && !match.platforms.some((platform) => platforms.includes(platform))) continue;
    }
    // Read after any await: another request may have moved the counters meanwhile.
    const seen = nextRuleState(scenario.ruleStates[rule.id] ?? initialRuleState(), { type: 'matched' });
    scenario.ruleStates[rule.id] = seen;
    let fires = countSelects(seen.seen, match.nth, match.every);
    if (fires && match.probability !== undefined) fires = drawUnit(workspace.data.seed, rule.id, seen.seen) < match.probability;
    if (!fires) continue;
    scenario.ruleStates[rule.id] = nextRuleState(seen, { type: 'fired', times: rule.times });
    if (rule.then.state !== undefined) scenario.state = nextScenarioState(scenario.states, rule.then.state);
    return rule;
  }
  return undefined;
}

/** Does what the rule says; answers whether the request goes on to the real handler. */
async function applyEffect(
  rule: LoadedRule,
  req: Request,
  res: Response,
  workspace: Workspace,
  operation: Operation,
  rewriter: OpenValueRewriter,
): Promise<boolean> {
  const { then } = rule;
  if (then.latencyMs) {
    // Real time, the one place the mock waits: the client measures the delay with its own clock.
    req.ctx.scenarioEffect = 'latency';
    await sleep(then.latencyMs);
  }
  if (then.drop) {
    req.ctx.scenarioEffect = 'drop';
    req.socket.destroy();
    return false;
  }
  if (then.reset) {
    req.ctx.scenarioEffect = 'reset';
    req.socket.resetAndDestroy();
    return false;
  }
  if (then.malformed) {
    // Past the responder on purpose: no contract describes a broken body.
    req.ctx.scenarioEffect = 'malformed';
    res.status(200).type('application/json').end(then.malformed.body);
    return false;
  }
  if (then.error) {
    req.ctx.scenarioEffect = 'error';
    throw ruleError(then.error, rule, workspace);
  }
  if (then.unknownValues) {
    const values = then.unknownValues;
    req.ctx.scenarioEffect = 'unknownValues';
    req.ctx.rewriteReply = (status, body) => rewriter.rewrite(operation, status, body, values);
  } else if (!then.latencyMs) {
    req.ctx.scenarioEffect = 'state';
  }
  return true;
}

/** The error a rule answers with, in the envelope its code uses. */
function ruleError(spec: ErrorEffect, rule: LoadedRule, workspace: Workspace): ApiError {
  const headers: Record<string, string> = { ...spec.headers };
  const details: Record<string, unknown> = { ...spec.details };
  if (spec.status === 429) {
    const untilMs = rule.match.untilMs;
    const fromWindow = untilMs !== undefined ? Math.max(0, Math.ceil((untilMs - workspace.now()) / 1000)) : undefined;
    const retryAfter = typeof details['retryAfterSeconds'] === 'number' ? details['retryAfterSeconds'] : (fromWindow ?? DEFAULT_RETRY_AFTER_SECONDS);
    if (!Object.keys(headers).some((name) => name.toLowerCase() === 'retry-after')) headers['Retry-After'] = String(retryAfter);
    if (spec.code === 'RATE_LIMITED') {
      const budget = workspace.plan.requestsPerMinute;
      const message = spec.message ?? `Rate limit exceeded. Retry in ${retryAfter} seconds.`;
      return new RateLimitedError(429, 'RATE_LIMITED', message, {
        details: { currentCount: details['currentCount'] ?? budget, limit: details['limit'] ?? budget, retryAfterSeconds: retryAfter },
        headers,
      });
    }
  }
  const message = spec.message ?? `${spec.code} (scenario rule '${rule.id}').`;
  return new ApiError(spec.status, spec.code, message, {
    ...(spec.param !== undefined && { param: spec.param }),
    ...(Object.keys(details).length > 0 && { details }),
    headers,
  });
}

/** The responder step that applies a rule's rewrite to the real answer, before the contract check sees it. */
export const applyReplyRewrite: ResponseDecorator = (req, _res, reply) => {
  if (req.ctx.rewriteReply && reply.body !== undefined) reply.body = req.ctx.rewriteReply(reply.status, reply.body);
};
