import { setTimeout as sleep } from 'node:timers/promises';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { ApiError } from '../lib/errors.js';
import { declaredOperations, errorCodeOf } from '../http/declared-responses.js';
import { jsonBody } from '../http/json-body.js';
import type { Operation } from '../http/operations.js';
import type { Responder, ResponseDecorator } from '../http/respond.js';
import type { Reply } from '../http/route.js';
import type { OpenApiDocument } from '../http/spec.js';
import { activeOutage, assertNetworkUp, outagesStore } from '../platforms/outages.js';
import type { Workspace } from '../workspaces/workspace.js';
import type { ScenarioObserver } from './load.js';
import { faultReply, wireFaultOf } from './fault-answers.js';
import { resolvePointer } from '../lib/json-pointer.js';
import { countSelects, drawUnit, MatchBudget, pathMatches, queryMatches, valueMatches } from './matching.js';
import { OpenValueRewriter } from './open-values.js';
import { requestAccounts, type RequestAccounts } from './request-facts.js';
import { initialRuleState, nextRuleState, nextScenarioState, type RuleState } from './rule-state.js';
import { runtimeRulesStore, RUNTIME_RULES_NAME } from './runtime-rules.js';
import type { ErrorEffect, RespondEffect } from './scenario.js';
import { loadedScenario, type LoadedMatch, type LoadedRule } from './store.js';
import { twinError } from './twins.js';

export interface ScenarioGuardOptions {
  document: OpenApiDocument;
  /** The API's body limit: rules that match on a body account read the body here. */
  bodyLimit: string;
  observer?: ScenarioObserver;
  /** Sends the off-contract answers (faults, broken bodies) the rules make up. */
  responder: Responder;
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
  const parseBody = jsonBody(options.bodyLimit);
  const declared = declaredOperations(options.document);
  const rewriter = new OpenValueRewriter(options.document);

  const readBody = (req: Request, res: Response) =>
    new Promise<void>((resolve, reject) => {
      parseBody(req, res, (error?: unknown) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve()));
    });

  /** Each rule offered the request, the first that fires applied; answers whether the request goes on. */
  const applyRules = async (req: Request, res: Response, workspace: Workspace, operation: Operation, sets: RuleSet[]): Promise<boolean> => {
    let bodyRead = false;
    const readBodyOnce = async () => {
      // The body parser marks the body read, so the pipeline's own parser skips it later.
      if (!bodyRead && operation.method !== 'GET') await readBody(req, res);
      bodyRead = true;
    };
    let accounts: RequestAccounts | undefined;
    const accountsOf = async () => {
      if (!accounts) {
        await readBodyOnce();
        accounts = requestAccounts(workspace, req, operation);
      }
      return accounts;
    };
    const firing = await firingRule(workspace, sets, req, operation, { accountsOf, bodyOf: async () => (await readBodyOnce(), req.body as unknown) });
    if (!firing) return true;
    const { rule, set } = firing;
    req.ctx.matchedRule = rule.id;
    options.observer?.ruleFired(workspace, { name: set.name }, rule.id);
    workspace.changed();
    // A twin of a real error is filled from the request's accounts, which a post names in its body.
    if (rule.then.error) await readBodyOnce().catch(() => undefined);
    return applyEffect(rule, req, res, workspace, operation, rewriter, options.responder);
  };

  /** A network read the contract lets fail with 502 answers 502 PLATFORM_ERROR while its account's network is out. */
  const checkOutages = (req: Request, workspace: Workspace, operation: Operation): void => {
    if (operation.method !== 'GET' || !declared.get(operation.operationId)?.statuses.has(502) || (outagesStore.peek(workspace)?.outages.length ?? 0) === 0) return;
    for (const platform of requestAccounts(workspace, req, operation).platforms) {
      if (!activeOutage(workspace, platform)) continue;
      req.ctx.scenarioEffect = 'outage';
      assertNetworkUp(workspace, platform);
    }
  };

  // A workspace without rules (most requests) goes through at once: waiting on a promise here cost
  // every request a trip through the microtask queue. The pipeline takes a throw or a rejection alike.
  return (req: Request, res: Response, next: NextFunction) => {
    const { workspace, operation } = req.ctx;
    // Unknown routes go on to the 404/405 step untouched.
    if (!workspace || !operation) return next();
    const sets = ruleSets(workspace);
    if (sets.length === 0) {
      checkOutages(req, workspace, operation);
      return next();
    }
    return applyRules(req, res, workspace, operation, sets).then((passOn) => {
      if (!passOn) return;
      checkOutages(req, workspace, operation);
      next();
    });
  };
}

/** Rules and their counters, from one place: the run-time rules, or the loaded scenario. */
interface RuleSet {
  /** What coverage files the rules under: the scenario's name, or `runtime`. */
  name: string;
  rules: LoadedRule[];
  ruleStates: Record<string, RuleState>;
}

/** The workspace's rule sets in the order they are tried: run-time rules first (the newer intent), then the scenario's. */
function ruleSets(workspace: Workspace): RuleSet[] {
  const sets: RuleSet[] = [];
  const runtime = runtimeRulesStore.peek(workspace);
  if (runtime && runtime.rules.length > 0) sets.push({ name: RUNTIME_RULES_NAME, rules: runtime.rules, ruleStates: runtime.ruleStates });
  const scenario = loadedScenario(workspace);
  if (scenario && scenario.rules.length > 0) sets.push({ name: scenario.name, rules: scenario.rules, ruleStates: scenario.ruleStates });
  return sets;
}

/** What matching may need of the request, read at most once and only when a matcher asks. */
interface RequestReaders {
  accountsOf: () => Promise<RequestAccounts>;
  bodyOf: () => Promise<unknown>;
}

function headerValue(req: Request, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** Each request's query parameters, read once however many rules ask. */
const queries = new WeakMap<Request, URLSearchParams>();

/** The request's query parameters, as sent (URL-decoded). */
function requestQuery(req: Request): URLSearchParams {
  let query = queries.get(req);
  if (!query) {
    const at = req.originalUrl.indexOf('?');
    query = new URLSearchParams(at === -1 ? '' : req.originalUrl.slice(at + 1));
    queries.set(req, query);
  }
  return query;
}

/** The matchers that read only the request line, its headers and the clock (no body, no accounts). */
function plainMatchersHold(match: LoadedMatch, req: Request, operation: Operation, now: number, scenarioState: string | null, budget: MatchBudget): boolean {
  if (match.state !== undefined && scenarioState !== match.state) return false;
  if (match.operationIds && !match.operationIds.includes(operation.operationId)) return false;
  if (match.methods && !match.methods.includes(operation.method)) return false;
  if (match.pathPattern !== undefined && !pathMatches(match, `${req.baseUrl}${req.path}`, budget)) return false;
  if (match.fromMs !== undefined && now < match.fromMs) return false;
  if (match.untilMs !== undefined && now >= match.untilMs) return false;
  if (match.params && !Object.entries(match.params).every(([name, values]) => req.ctx.params[name] !== undefined && values.includes(req.ctx.params[name]))) return false;
  if (match.headers && !match.headers.every((header) => {
    const value = headerValue(req, header.name);
    return value !== undefined && valueMatches(value, header, budget);
  })) return false;
  if (match.query && !queryMatches(match.query, requestQuery(req))) return false;
  return true;
}

/** Offers the request to each rule in turn; moves the counters of those that match; answers the first that fires. */
async function firingRule(workspace: Workspace, sets: RuleSet[], req: Request, operation: Operation, read: RequestReaders): Promise<{ rule: LoadedRule; set: RuleSet } | undefined> {
  const scenario = loadedScenario(workspace);
  // One budget for every pattern the request meets, however many rules hold them.
  const budget = new MatchBudget();
  for (const set of sets) {
    for (const rule of set.rules) {
      const match = rule.match;
      if ((set.ruleStates[rule.id] ?? initialRuleState()).phase === 'exhausted') continue;
      if (!plainMatchersHold(match, req, operation, workspace.now(), scenario?.state ?? null, budget)) continue;
      if (match.accountIds || match.platforms) {
        const { accountIds, platforms } = await read.accountsOf();
        if (match.accountIds && !match.accountIds.some((id) => accountIds.includes(id))) continue;
        if (match.platforms && !match.platforms.some((platform) => platforms.includes(platform))) continue;
      }
      if (match.body) {
        const body = await read.bodyOf();
        if (!match.body.every((field) => {
          const found = resolvePointer(body, field.pointer);
          return found.found && valueMatches(found.value, field, budget);
        })) continue;
      }
      // Read after any await: another request may have moved the counters meanwhile.
      const current = set.ruleStates[rule.id] ?? initialRuleState();
      if (current.phase === 'exhausted') continue;
      const seen = nextRuleState(current, { type: 'matched' });
      set.ruleStates[rule.id] = seen;
      let fires = countSelects(seen.seen, match.nth, match.every);
      if (fires && match.probability !== undefined) fires = drawUnit(workspace.data.seed, rule.id, seen.seen) < match.probability;
      if (!fires) continue;
      set.ruleStates[rule.id] = nextRuleState(seen, { type: 'fired', times: rule.times });
      if (rule.then.state !== undefined && scenario) scenario.state = nextScenarioState(scenario.states, rule.then.state);
      return { rule, set };
    }
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
  responder: Responder,
): Promise<boolean> {
  const { then } = rule;
  if (then.latencyMs) {
    // Real time, the one place the mock waits: the client measures the delay with its own clock.
    req.ctx.scenarioEffect = 'latency';
    await sleep(then.latencyMs);
  }
  if (then.drop) {
    req.ctx.scenarioEffect = 'drop';
    req.ctx.injected = true;
    req.socket.destroy();
    return false;
  }
  if (then.reset === true) {
    req.ctx.scenarioEffect = 'reset';
    req.ctx.injected = true;
    req.socket.resetAndDestroy();
    return false;
  }
  // A drip or a cut applies to whatever answer goes out: the real one, or the rule's own below.
  const wireFault = wireFaultOf(then);
  const wireEffects = [...(then.drip ? ['drip'] : []), ...(then.truncated ? ['truncated'] : []), ...(typeof then.reset === 'object' ? ['reset'] : [])];
  if (wireFault) {
    req.ctx.wireFault = wireFault;
    req.ctx.injected = true;
  }
  const effect = (answer?: string) => [...(answer ? [answer] : []), ...wireEffects].join('+');
  const offContract = then.malformed ? { status: 200, contentType: 'application/json', body: then.malformed.body, offContract: true as const } : then.fault ? faultReply(then.fault, rule.id) : undefined;
  if (offContract) {
    // No contract describes these answers: the responder sends them unchecked, and the journal and coverage mark them injected.
    req.ctx.scenarioEffect = effect(then.malformed ? 'malformed' : 'fault');
    req.ctx.injected = true;
    responder.send(req, res, offContract);
    return false;
  }
  if (then.respond) {
    req.ctx.scenarioEffect = effect('respond');
    const code = then.respond.status >= 400 ? errorCodeOf(then.respond.json) : undefined;
    if (code !== undefined) req.ctx.errorCode = code;
    responder.send(req, res, respondReply(then.respond));
    return false;
  }
  if (then.error) {
    req.ctx.scenarioEffect = effect('error');
    throw ruleError(then.error, rule, workspace, req, operation);
  }
  if (then.unknownValues) {
    const values = then.unknownValues;
    req.ctx.scenarioEffect = effect('unknownValues');
    req.ctx.rewriteReply = (status, body) => rewriter.rewrite(operation, status, body, values);
  } else if (wireEffects.length > 0) {
    req.ctx.scenarioEffect = effect();
  } else if (!then.latencyMs) {
    req.ctx.scenarioEffect = 'state';
  }
  return true;
}

/**
 * The reply of a `respond` effect. JSON goes out through the responder's JSON path (a recorded
 * Content-Type such as application/problem+json is kept as a header); text as is, typed by the
 * recorded Content-Type. `recorded` asks the responder to judge it against the contract itself.
 */
function respondReply(spec: RespondEffect): Reply {
  const headers = { ...spec.headers };
  if (spec.text !== undefined) {
    const typeHeader = Object.keys(headers).find((name) => name.toLowerCase() === 'content-type');
    const contentType = (typeHeader !== undefined ? headers[typeHeader] : undefined) ?? 'text/plain; charset=utf-8';
    return { status: spec.status, headers, contentType, body: spec.text, recorded: true };
  }
  return { status: spec.status, headers, ...(spec.json !== undefined && { body: spec.json }), recorded: true };
}

/**
 * The error a rule answers with, in the envelope its code uses: for a code the mock answers by
 * itself, the real one's twin (src/scenarios/twins.ts); for any other, the rule's own words.
 */
function ruleError(spec: ErrorEffect, rule: LoadedRule, workspace: Workspace, req: Request, operation: Operation): ApiError {
  const twin = twinError({ spec, workspace, req, operation, untilMs: rule.match.untilMs, accountIds: rule.match.accountIds });
  if (twin) return twin;
  const headers: Record<string, string> = { ...spec.headers };
  const details: Record<string, unknown> = { ...spec.details };
  if (spec.status === 429) {
    const untilMs = rule.match.untilMs;
    const fromWindow = untilMs !== undefined ? Math.max(0, Math.ceil((untilMs - workspace.now()) / 1000)) : undefined;
    const retryAfter = typeof details['retryAfterSeconds'] === 'number' ? details['retryAfterSeconds'] : (fromWindow ?? DEFAULT_RETRY_AFTER_SECONDS);
    if (!Object.keys(headers).some((name) => name.toLowerCase() === 'retry-after')) headers['Retry-After'] = String(retryAfter);
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
