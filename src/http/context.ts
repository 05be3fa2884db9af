import type { LiveDetail } from '../journal/live-detail.js';
import type { KeyScope } from '../store/key-scopes.js';
import type { Workspace } from '../workspaces/workspace.js';
import type { RateLimitHeaders } from '../limits/request-budget.js';
import type { Operation } from './operations.js';
import type { WireFault } from './wire-faults.js';

/**
 * Who is calling the control plane: the server's owner (the control token, or anyone on a
 * server started without one: the laptop), a workspace's own key, or nobody in particular
 * (an `open` operation called with no credential on a server with a token).
 */
export type ControlCaller = 'owner' | 'workspace' | 'anonymous';

/** What the pipeline learns about a request as it passes each step. */
export interface RequestContext {
  /** Wall-clock start, for the journal's timing. */
  startedAt: number;
  /** Virtual time at arrival, in the workspace's clock, once the workspace is known. */
  arrivedAt?: string;
  workspace?: Workspace;
  /** Who calls the control plane (/__control only, once authenticated). */
  caller?: ControlCaller;
  /** What the request's API key may do (/v1 only, once authenticated). */
  keyScope?: KeyScope;
  operation?: Operation;
  params: Record<string, string>;
  /** When the path exists but not for this method: the methods it has (for 405 and Allow). */
  allowedMethods?: string[];
  /** Which contract the request belongs to: picks the checker for its response. */
  contract?: 'api' | 'control';
  /** The error code of the response, when it is an error. */
  errorCode?: string;
  /** The error envelope the answer carried: the journal keeps its message, param and details. */
  answeredError?: { message: string; param?: string; details?: Record<string, unknown> };
  /** The scenario rule that answered or changed the request. */
  matchedRule?: string;
  /** What this response's X-RateLimit-* headers say, once the budget step has counted it. */
  rateLimit?: RateLimitHeaders;
  /** What a scenario did to the request (`error`, `respond`, `latency`, `drop`, `reset`, `malformed`, `unknownValues`, `outage`). */
  scenarioEffect?: string;
  /** The answer is an off-contract fault a scenario rule injected, or a proxy's own answer in place of the upstream's (the journal and coverage mark it). */
  injected?: boolean;
  /** How the answer goes out on the wire: dripped, cut short, reset mid-body. */
  wireFault?: WireFault;
  /** Rewrites the handler's answer before it is checked and sent (a scenario's unknown values). */
  rewriteReply?: (status: number, body: unknown) => unknown;
  /** Ends the workspace's use by this request (it counts as in use until then: --workspace-ttl); called when the answer ends. */
  endUse?: () => void;
  /** The Idempotency-Key this request holds while it runs. */
  idempotencyKey?: string;
  /** The answer was replayed from an earlier request with the same key. */
  replayed?: boolean;
  /** While a dashboard watches requests: the request's headers and bodies, for its journal entry on the stream (src/journal/live-detail.ts). */
  liveDetail?: () => LiveDetail;
  /** Proxy mode: what the exchange breaks of openapi.yaml (the journal carries them). */
  contractFindings?: Array<{ side: 'request' | 'response'; kind: string; field: string; message: string; tolerated?: boolean }>;
}

declare module 'express-serve-static-core' {
  interface Request {
    ctx: RequestContext;
  }
}
