import type { Request, RequestHandler } from 'express';
import { sameCredential } from '../lib/credentials.js';
import { scopeOfKey } from '../store/key-scopes.js';
import type { WorkspaceRegistry } from '../workspaces/registry.js';
import type { Workspace } from '../workspaces/workspace.js';
import { ApiError } from '../lib/errors.js';

/** The key from `x-api-key` or `Authorization: Bearer`; both carry the same key everywhere. */
export function apiKeyOf(req: Pick<Request, 'headers'>): string | undefined {
  const header = req.headers['x-api-key'];
  if (typeof header === 'string' && header !== '') return header;
  const authorization = req.headers.authorization;
  const bearer = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization) : null;
  return bearer?.[1];
}

/** /v1: a known key is required; its scope is noted for the scope step. */
export function authenticateApi(registry: WorkspaceRegistry): (req: Request) => Workspace {
  return (req) => {
    const key = apiKeyOf(req);
    if (key === undefined) {
      // The commonest slip of a first request: the key sent as the whole Authorization header. Its value is not echoed.
      const authorization = req.headers.authorization;
      if (authorization !== undefined && authorization.trim() !== '') {
        throw new ApiError(401, 'UNAUTHORIZED', 'The Authorization header has no Bearer scheme: send Authorization: Bearer <key> (the word Bearer, a space, then the key), or the key alone as x-api-key.');
      }
      throw new ApiError(401, 'UNAUTHORIZED', 'Missing API key: send it as x-api-key or Authorization: Bearer <key>.');
    }
    const workspace = registry.byApiKey(key);
    if (!workspace) throw new ApiError(401, 'UNAUTHORIZED', 'Invalid API key: no workspace has this key.');
    req.ctx.keyScope = scopeOfKey(workspace.data, key);
    inUseUntilAnswered(registry, workspace, req);
    return workspace;
  };
}

/** Methods that only read: a read key may call every operation with one of them. */
const READ_METHODS = new Set(['GET', 'HEAD']);

/**
 * /v1, right after the rate limit: a read key is refused every write (every operation
 * that is not a GET) with 403 FORBIDDEN. After the budget, so a refused write counts
 * like any other refusal (a 400, a 404) and a client cannot probe for free; before the
 * scenario rules and validation, since a key that may not write has no business being
 * told what is wrong with its body. A path that is no operation is left to the 404/405
 * step: there is nothing there to forbid. See docs/decisions/0013-read-only-keys.md.
 */
export function keyScopeStep(): RequestHandler {
  return (req, _res, next) => {
    const { operation, keyScope } = req.ctx;
    if (keyScope !== 'read' || !operation || READ_METHODS.has(operation.method)) return next();
    throw new ApiError(403, 'FORBIDDEN', `This key is read-only: ${operation.operationId} (${operation.method} ${operation.path}) needs a full key.`, {
      details: { scope: keyScope, operationId: operation.operationId },
    });
  };
}

/**
 * /__control. Without a control token every caller is the owner, as on a laptop: a key, when
 * sent, picks its workspace, else an `x-workspace-id` does (the default workspace otherwise).
 * With one (a shared server, docs/decisions/0024), the token holder is the owner and may do
 * anything; a workspace's key reaches that workspace alone: the operations control.yaml marks
 * `x-access: workspace` (only the GETs for a read key), never another workspace's id, never a
 * `server` operation. A call with neither is refused unless the operation is `open`.
 */
export function authenticateControl(registry: WorkspaceRegistry, controlToken: string | undefined): (req: Request) => Workspace {
  const isToken = controlToken === undefined ? undefined : (sent: string) => sameCredential(sent, controlToken);
  return (req) => {
    const sent = req.headers['x-control-token'];
    if (isToken && sent !== undefined && !(typeof sent === 'string' && isToken(sent))) {
      throw new ApiError(401, 'UNAUTHORIZED', 'The control token (x-control-token) is wrong.');
    }
    const key = apiKeyOf(req);
    const named = req.headers['x-workspace-id'];
    const byName = typeof named === 'string' && named !== '' ? named : undefined;
    if (!isToken || sent !== undefined) {
      req.ctx.caller = 'owner';
      // By id, for a client that holds no key of the workspace: the dashboard lists workspaces
      // by id (listWorkspaces shows no keys) and acts on the one picked (decision 0021).
      if (key === undefined && byName !== undefined) return byId(registry, byName, req);
      if (key === undefined) return registry.defaultWorkspace;
      return byKey(registry, key, req);
    }

    const operation = req.ctx.operation;
    const access = operation?.access ?? 'workspace';
    if (key === undefined && access === 'open') {
      req.ctx.caller = 'anonymous';
      return registry.defaultWorkspace;
    }
    if (key === undefined) {
      throw new ApiError(401, 'UNAUTHORIZED', "This server requires the control token (x-control-token) or a workspace's API key (x-api-key) on control calls.");
    }
    const workspace = byKey(registry, key, req);
    req.ctx.caller = 'workspace';
    if (access === 'server') throw beyondWorkspace(`${operation?.operationId ?? 'This call'} reaches beyond one workspace`);
    if (byName !== undefined && byName !== workspace.id) throw beyondWorkspace('x-workspace-id names another workspace than the key');
    if (operation && scopeOfKey(workspace.data, key) === 'read' && !READ_METHODS.has(operation.method)) {
      throw new ApiError(403, 'FORBIDDEN', `This key is read-only: ${operation.operationId} (${operation.method} ${operation.path}) needs a full key or the control token.`, {
        details: { scope: 'read', operationId: operation.operationId },
      });
    }
    return workspace;
  };
}

/** A workspace key asked for more than its workspace: 403, whatever exists there. */
export function beyondWorkspace(what: string, instead?: string): ApiError {
  return new ApiError(403, 'FORBIDDEN', `${what}: on this server that needs the control token (x-control-token); a workspace's key reaches only its own workspace.${instead === undefined ? '' : ` ${instead}`}`);
}

function byKey(registry: WorkspaceRegistry, key: string, req: Request): Workspace {
  const workspace = registry.byApiKey(key);
  if (!workspace) throw new ApiError(401, 'UNAUTHORIZED', 'Invalid API key: no workspace has this key.');
  inUseUntilAnswered(registry, workspace, req);
  return workspace;
}

/**
 * The workspace is in use until the request's answer ends: --workspace-ttl never evicts it
 * mid-request. The request's one 'close' listener (the journal's, in server.ts) ends the use.
 */
function inUseUntilAnswered(registry: WorkspaceRegistry, workspace: Workspace, req: Request): void {
  req.ctx.endUse = registry.use(workspace);
}

function byId(registry: WorkspaceRegistry, id: string, req: Request): Workspace {
  const workspace = registry.get(id);
  if (!workspace) throw new ApiError(401, 'UNAUTHORIZED', `No workspace has the id in x-workspace-id ('${id}'): deleted, evicted, or never made.`);
  inUseUntilAnswered(registry, workspace, req);
  return workspace;
}
