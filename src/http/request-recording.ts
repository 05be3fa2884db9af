import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { RealTime } from '../clock/real-time.js';
import type { AnsweredError } from '../journal/journal.js';
import { captureLiveDetail } from '../journal/live-detail.js';
import { clip } from '../lib/clip.js';
import type { Containment } from '../lib/containment.js';
import { valueScrubber, type Redactor } from '../redaction/redactor.js';
import type { Workspace } from '../workspaces/workspace.js';
import { stampDate } from './date-header.js';
import { apiKeyOf } from './authenticate.js';
import { isApiPath } from './transport.js';

/** One answered (or unanswered: status 0) request to an operation of the API, as contract coverage counts it. */
export interface AnsweredOperation {
  /** Null when no workspace was found (a bad key). */
  workspaceId: string | null;
  operationId: string;
  status: number;
  errorCode: string | null;
  injected: boolean;
  /** The workspace ended (deleted or evicted) while the request was answered. */
  ended: boolean;
}

/**
 * What the recording reads and tells. Described by what it needs rather than by the
 * server's classes: coverage and the event streams import from src/http, so importing
 * them back would close a loop.
 */
export interface RequestRecordingOptions {
  /** The wall clock: when a request started and how long it took. */
  realTime: RealTime;
  /** Dates every answer in virtual time before the request's own workspace is known. */
  registry: { readonly defaultWorkspace: Workspace };
  /** Hides secrets in the logged line and in the journal's path and query. */
  redactor: Redactor;
  /** Contract coverage: counts every answered API operation. */
  coverage: { recordResponse(answer: AnsweredOperation): void };
  /** The dashboard's streams: whether any (no id) or this workspace's watch requests. */
  eventStreams: { watchesRequests(workspaceId?: string): boolean };
  /** Receives one line per answered request (--log-level debug). */
  logRequests?: ((line: string) => void) | undefined;
  /** Where a failure of the recording stops: the answer is out, so it ends only the recording (decision 0041). */
  containment: Containment;
}

/** Longest error message the journal keeps, and the most JSON of details: a journal holds a thousand entries. */
const ERROR_MESSAGE_LIMIT = 500;
const ERROR_DETAILS_LIMIT = 2048;

/** Details with secrets hidden, or undefined when hiding a value broke the JSON (a secret made of JSON's own punctuation). */
function scrubbedJson(details: Record<string, unknown>, redactor: Redactor, scrub: (text: string) => string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(scrub(JSON.stringify(redactor.json(details)))) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/**
 * What an error answer said, as the journal keeps it, bounded: secrets hidden by name and shape,
 * and every value the request sent under a secret name hidden wherever the answer echoes it (a
 * 404 naming the unknown token it was given), as the dashboard's live detail does.
 */
function journalError(req: Request, error: NonNullable<Request['ctx']['answeredError']>, redactor: Redactor): AnsweredError {
  const headers = Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : String(value ?? '')]));
  const secrets = redactor.secretValuesOfRequest(headers, req.originalUrl.split('?')[1] ?? '');
  redactor.secretValuesOfJson(req.body, secrets);
  for (const [name, value] of Object.entries(req.ctx.params)) if (redactor.isSecretPathParam(name)) secrets.add(value);
  const scrub = valueScrubber(secrets);
  const details = error.details === undefined ? undefined : scrubbedJson(error.details, redactor, scrub);
  return {
    message: clip(scrub(redactor.text(error.message)), ERROR_MESSAGE_LIMIT),
    ...(error.param !== undefined && { param: error.param }),
    ...(details !== undefined && JSON.stringify(details).length <= ERROR_DETAILS_LIMIT && { details }),
  };
}

/** Longest User-Agent product the journal keeps. */
const USER_AGENT_LIMIT = 40;

/**
 * Who sent a request, without its key: the key's last four characters (as a dashboard shows a
 * card's) and the first product of its User-Agent, so the journal can tell which client spent a
 * budget (MCP's explain_request).
 */
function callerOf(req: Request): string | undefined {
  const key = apiKeyOf(req);
  const product = firstProduct(req.headers['user-agent']);
  const shownKey = key !== undefined ? `key …${key.slice(-4)}` : undefined;
  const shownProduct = product ? clip(product, USER_AGENT_LIMIT) : undefined;
  if (shownKey === undefined) return shownProduct;
  return shownProduct === undefined ? shownKey : `${shownKey}, ${shownProduct}`;
}

/** A User-Agent's first product (`node`, `curl/8.5.0`): what comes before its first white space. */
function firstProduct(userAgent: string | undefined): string | undefined {
  if (userAgent === undefined) return undefined;
  const trimmed = userAgent.trim();
  const end = trimmed.search(/\s/);
  return end === -1 ? trimmed : trimmed.slice(0, end);
}

/** The answer's Retry-After when it is a number of seconds. */
function retryAfterOf(res: Response): number | undefined {
  const value = res.getHeader('retry-after');
  const seconds = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : undefined;
  return seconds;
}

/**
 * The first step of every request, and the last word on it: it opens the request's context
 * (`req.ctx`) and, once the response is over, logs the request, counts it for coverage and
 * writes its journal entry, from what the pipeline noted in the context on the way.
 */
export function requestRecording(options: RequestRecordingOptions): RequestHandler {
  const { realTime, registry, redactor, coverage, eventStreams, containment } = options;

  /** Logs, counts and journals a request once its response is over, finished or not. */
  const record = (req: Request, res: Response): void => {
    req.ctx.endUse?.();
    // A dropped or reset connection answers nothing: status 0; an answer cut short still had its status seen.
    const status = res.writableFinished || res.headersSent ? res.statusCode : 0;
    options.logRequests?.(`${req.method} ${redactor.url(req.originalUrl, req.ctx.params)} ${status || 'no answer'} ${(realTime() - req.ctx.startedAt).toFixed(0)}ms`);
    const { workspace, contract, operation, liveDetail } = req.ctx;
    if (contract !== 'api') return;
    const errorCode = status === 0 ? null : (req.ctx.errorCode ?? null);
    const injected = req.ctx.injected ?? false;
    if (operation) coverage.recordResponse({ workspaceId: workspace?.id ?? null, operationId: operation.operationId, status, errorCode, injected, ended: workspace?.scheduler.isStopped ?? false });
    if (!workspace) return;
    const queryAt = req.originalUrl.indexOf('?');
    const retryAfter = status === 0 ? undefined : retryAfterOf(res);
    const caller = callerOf(req);
    workspace.journal.record(
      {
        at: req.ctx.arrivedAt ?? workspace.nowIso(),
        method: req.method,
        path: redactor.path(queryAt === -1 ? req.originalUrl : req.originalUrl.slice(0, queryAt), req.ctx.params),
        query: queryAt === -1 ? '' : redactor.query(req.originalUrl.slice(queryAt + 1)),
        operationId: operation?.operationId ?? null,
        status,
        errorCode,
        durationMs: realTime() - req.ctx.startedAt,
        matchedRule: req.ctx.matchedRule ?? null,
        effect: req.ctx.scenarioEffect ?? null,
        ...(req.ctx.answeredError && { error: journalError(req, req.ctx.answeredError, redactor) }),
        injected,
        ...(retryAfter !== undefined && { retryAfter }),
        ...(caller !== undefined && { caller }),
        ...(req.ctx.contractFindings && { violations: req.ctx.contractFindings }),
      },
      liveDetail && eventStreams.watchesRequests(workspace.id) ? liveDetail() : undefined,
    );
  };
  // One listener for every response ('close' follows each, finished or not), which finds its request
  // on `res.req`: the recording runs at the response boundary, where nothing it throws reaches the event loop.
  function onClose(this: Response): void {
    containment.call('response', record, this.req, this);
  }

  return (req: Request, res: Response, next: NextFunction): void => {
    req.ctx = { startedAt: realTime(), params: {} };
    // Virtual time from the start; the responder dates its answers again with the request's workspace's clock.
    stampDate(res, registry.defaultWorkspace);
    // While a dashboard watches, an API request's headers and bodies go with its entry on the stream (never kept).
    if (eventStreams.watchesRequests() && isApiPath(req.path)) req.ctx.liveDetail = captureLiveDetail(req, res, redactor);
    res.once('close', onClose);
    next();
  };
}
