import type { Request } from 'express';
import { reconnectToRead } from '../api/accounts/network-reads.js';
import { accountsStore } from '../api/accounts/store.js';
import { findTarget, reconnectToAct } from '../api/engagement/target.js';
import { reconnectToPublish } from '../api/posts/validate.js';
import { dailyCap, HOURLY_CAP, velocityError, velocityUsage, type VelocityRefusal } from '../api/posts/velocity.js';
import { reconnectToSync } from '../api/sync/service.js';
import type { Operation } from '../http/operations.js';
import type { ApiError } from '../lib/errors.js';
import { getOwn } from '../lib/records.js';
import { budgetFor, budgetLimit, budgetWindows, rateLimited, refundRequest, windowSeconds } from '../limits/request-budget.js';
import type { Workspace } from '../workspaces/workspace.js';
import type { ErrorEffect } from './scenario.js';

/*
 * A rule's `error` for a code the mock answers by itself is made by the code that answers the
 * real one, filled from the request and the workspace: the same message, `param`, `details` and
 * headers (`Retry-After`, `X-RateLimit-*`), and, as a real refusal, no webhook. What the rule
 * gives (`message`, `details`, `headers`) wins over what is filled. A client cannot tell the
 * injected answer from the real one; the journal can (`matchedRule`). Decision 0049.
 */

/** What a twin needs: the rule's error, the request, and the moment the window of the rule ends. */
export interface TwinInput {
  spec: ErrorEffect;
  workspace: Workspace;
  req: Request;
  operation: Operation;
  /** The rule's `window.until`, virtual ms; its Retry-After when the rule gives none. */
  untilMs: number | undefined;
  /** The accounts the rule matches on: of a request naming several, the one it is about. */
  accountIds: readonly string[] | undefined;
}

const HOUR_MS = 3600_000;
const DAY_MS = 24 * HOUR_MS;

/** The real error a rule's error stands for; undefined for a code the mock never answers by itself. */
export function twinError(input: TwinInput): ApiError | undefined {
  switch (input.spec.code) {
    case 'RATE_LIMITED':
      return rateLimitedTwin(input);
    case 'VELOCITY_LIMITED':
      return velocityTwin(input);
    case 'ACCOUNT_RECONNECT_REQUIRED':
      return reconnectTwin(input);
    default:
      return undefined;
  }
}

/** The rule's own Retry-After: its details, else the end of its window. */
function givenRetryAfter({ spec, workspace, untilMs }: TwinInput): number | undefined {
  const given = spec.details?.['retryAfterSeconds'];
  if (typeof given === 'number') return given;
  return untilMs === undefined ? undefined : Math.max(1, Math.ceil((untilMs - workspace.now()) / 1000));
}

/** What the rule's error says over the real one's: its message and headers, and its details unless they were used already. */
function overlay(error: ApiError, spec: ErrorEffect, { details = true }: { details?: boolean } = {}): ApiError {
  const extra = error.extra as { details?: Record<string, unknown>; headers?: Record<string, string> };
  if (details && spec.details) extra.details = { ...extra.details, ...spec.details };
  if (spec.headers) extra.headers = { ...extra.headers, ...spec.headers };
  if (spec.message !== undefined) error.message = spec.message;
  return error;
}

/**
 * RATE_LIMITED as the budget step answers it: the window of the operation full (currentCount
 * is its limit), Retry-After until its oldest request ages out (a whole window when it holds
 * none), X-RateLimit-Remaining 0; and, as a real 429, the request does not occupy the window.
 */
function rateLimitedTwin(input: TwinInput): ApiError {
  const { workspace, req, operation, spec } = input;
  const name = budgetFor(operation.operationId);
  refundRequest(workspace, name);
  const now = workspace.now();
  const limit = budgetLimit(workspace, name);
  const given = givenRetryAfter(input);
  const oldestExpiry = budgetWindows(workspace)[name].oldestExpiry(now);
  const expiry = given !== undefined ? now + given * 1000 : (oldestExpiry ?? now + windowSeconds(name) * 1000);
  const retryAfterSeconds = given ?? Math.max(1, Math.ceil((expiry - now) / 1000));
  req.ctx.rateLimit = { limit, remaining: 0, resetSeconds: Math.ceil(expiry / 1000) };
  const currentCount = typeof spec.details?.['currentCount'] === 'number' ? spec.details['currentCount'] : limit;
  return overlay(rateLimited(name, { currentCount, limit: typeof spec.details?.['limit'] === 'number' ? spec.details['limit'] : limit, retryAfterSeconds }), spec, { details: false });
}

interface NamedAccount {
  id: string;
  platform: string;
  status: string;
  /** Its place among a post's destinations, when the request is a post. */
  index?: number;
}

/** The account the request acts as: the one the rule matched on when it names several. */
function requestAccount({ workspace, req, operation, accountIds: preferred }: TwinInput): NamedAccount | undefined {
  const accounts = accountsStore.peek(workspace)?.accounts ?? {};
  const body = (req.body ?? {}) as Record<string, unknown>;
  const named: Array<{ id: string; index?: number }> = [];
  if (Array.isArray(body['destinations'])) {
    (body['destinations'] as unknown[]).forEach((destination, index) => {
      const id = (destination as { connectionId?: unknown } | null)?.connectionId;
      if (typeof id === 'string') named.push({ id, index });
    });
  }
  const pathId = /^\/v1\/(accounts|connections)\/\{id\}/.test(operation.path) ? req.ctx.params['id'] : undefined;
  for (const id of [pathId, body['accountId'], body['connectionId'], (req.query as Record<string, unknown>)['accountId']]) if (typeof id === 'string') named.push({ id });
  if (named.length === 0 && (typeof body['destinationId'] === 'string' || typeof body['post'] === 'string')) {
    // An action on a published destination acts as the account that published it.
    try {
      const { destination } = findTarget(workspace, body as { destinationId?: string; post?: string; accountId?: string });
      named.push({ id: destination.connectionId });
    } catch {
      // A target the request does not resolve: no account to fill from.
    }
  }
  const known = named.filter(({ id }) => getOwn(accounts, id) !== undefined);
  const chosen = known.find(({ id }) => preferred?.includes(id)) ?? known[0];
  if (!chosen) return undefined;
  const account = getOwn(accounts, chosen.id) as { id: string; platform: string; status: string };
  return { id: account.id, platform: account.platform, status: account.status, ...(chosen.index !== undefined && { index: chosen.index }) };
}

/**
 * VELOCITY_LIMITED as createPost and createQuote answer it: the account's hourly cap reached now
 * (or its daily cap, with `details.window: day`), Retry-After until the hour's oldest publish
 * ages out (a whole hour when none went out), or to the next UTC midnight for the day.
 */
function velocityTwin(input: TwinInput): ApiError | undefined {
  const account = requestAccount(input);
  if (!account) return undefined;
  const now = input.workspace.now();
  const day = input.spec.details?.['window'] === 'day';
  const given = givenRetryAfter(input);
  const oldest = velocityUsage(input.workspace, account.id).lastHour[0];
  const untilNextSlot = oldest === undefined ? HOUR_MS : oldest + HOUR_MS - now;
  const untilMidnight = Math.floor(now / DAY_MS) * DAY_MS + DAY_MS - now;
  const refusal: VelocityRefusal = {
    accountId: account.id,
    platform: account.platform,
    window: day ? 'day' : 'hour',
    limit: day ? dailyCap(account.platform) : HOURLY_CAP,
    retryAfterSeconds: given ?? Math.max(1, Math.ceil((day ? untilMidnight : untilNextSlot) / 1000)),
  };
  const error = velocityError({ ...refusal, ...(input.spec.details as Partial<VelocityRefusal> | undefined), retryAfterSeconds: refusal.retryAfterSeconds }, account.index === undefined ? undefined : `destinations[${account.index}].connectionId`);
  return overlay(error, input.spec, { details: false });
}

/**
 * ACCOUNT_RECONNECT_REQUIRED as the operation answers it for an account whose authorization ran
 * out (`status: expired`, or the rule's `details.status`): a post names the destination, a
 * sync or a network read the path's `id`, an action the account it acts as.
 */
function reconnectTwin(input: TwinInput): ApiError | undefined {
  const found = requestAccount(input);
  if (!found) return undefined;
  const status = typeof input.spec.details?.['status'] === 'string' ? input.spec.details['status'] : 'expired';
  const account = { ...found, status };
  const { operationId, method } = input.operation;
  const error =
    operationId === 'createPost'
      ? reconnectToPublish(account, found.index ?? 0)
      : operationId === 'syncAccount'
        ? reconnectToSync(account)
        : method === 'GET'
          ? reconnectToRead(account)
          : reconnectToAct(account);
  return overlay(error, input.spec);
}
