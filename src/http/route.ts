import type { IncomingHttpHeaders } from 'node:http';
import type { Workspace } from '../workspaces/workspace.js';
import type { ResponseStream } from '../events/streams.js';
import type { ControlCaller } from './context.js';
import type { Operation } from './operations.js';

/** What a handler is given: the workspace and the request's validated parts. */
export interface HandlerInput<Params = Record<string, string>, Query = Record<string, unknown>, Body = unknown> {
  workspace: Workspace;
  operation: Operation;
  params: Params;
  query: Query;
  body: Body;
  headers: IncomingHttpHeaders;
  /** Who calls, on the control plane (undefined on the API): handlers that reach past the workspace ask for the owner. */
  caller: ControlCaller | undefined;
}


/** What a handler answers; `body` undefined means an empty body. */
export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Instead of a body: the response stays open and this writes to it (its headers name the content type). */
  stream?: (stream: ResponseStream) => void;
  /** A media type other than JSON (`text/markdown`): `body` is then the text, sent as is. */
  contentType?: string;
  /**
   * An answer a scenario rule made up to break the contract on purpose (a proxy's 502 page,
   * a broken body): the responder does not check it against the contract.
   */
  offContract?: true;
  /**
   * An answer a scenario rule replays as the real service gave it (`respond`): the responder
   * checks it against the contract whatever --strict-responses says, and sends it unchanged
   * either way; one the contract does not describe (drift the replay must reproduce) is marked
   * injected, never a violation of the mock's own.
   */
  recorded?: true;
}

export type Handler = (input: HandlerInput) => Reply | Promise<Reply>;

/**
 * One operation's implementation. Route modules read params, call the service and
 * shape the reply; nothing else. `notes` says where the mock differs from the real
 * service and is published in docs/coverage.md.
 */
export interface RouteDefinition {
  operationId: string;
  handle: Handler;
  notes?: string;
  /** A body larger than the contract's limit (--body-limit) that this operation reads: a world to restore. */
  bodyLimitBytes?: number;
  /** A body nested deeper than MAX_JSON_DEPTH that this operation reads: a world holds bodies inside its own structure. */
  bodyDepth?: number;
}

/** Declares a route, typing the handler's input from the caller's own types. */
export function route<Params = Record<string, string>, Query = Record<string, unknown>, Body = unknown>(
  operationId: string,
  handle: (input: HandlerInput<Params, Query, Body>) => Reply | Promise<Reply>,
  notes?: string,
): RouteDefinition {
  return { operationId, handle: handle as Handler, ...(notes !== undefined && { notes }) };
}

export function ok(body: unknown, status = 200): Reply {
  return { status, body };
}

export function created(body: unknown): Reply {
  return { status: 201, body };
}

