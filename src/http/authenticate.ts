import type { Request } from 'express';
import type { WorkspaceRegistry } from '../workspaces/registry.js';
import type { Workspace } from '../workspaces/workspace.js';
import { ApiError } from './errors.js';

/** The key from `x-api-key` or `Authorization: Bearer`; both carry the same key everywhere. */
export function apiKeyOf(req: Request): string | undefined {
  const header = req.headers['x-api-key'];
  if (typeof header === 'string' && header !== '') return header;
  const authorization = req.headers.authorization;
  const bearer = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization) : null;
  return bearer?.[1];
}

/** /v1: a known key is required. */
export function authenticateApi(registry: WorkspaceRegistry): (req: Request) => Workspace {
  return (req) => {
    const key = apiKeyOf(req);
    if (key === undefined) {
      throw new ApiError(401, 'UNAUTHORIZED', 'Missing API key: send it as x-api-key or Authorization: Bearer <key>.');
    }
    const workspace = registry.byApiKey(key);
    if (!workspace) throw new ApiError(401, 'UNAUTHORIZED', 'Invalid API key: no workspace has this key.');
    return workspace;
  };
}

/**
 * /__control: no API key is needed; one, when sent, picks its workspace (the default
 * workspace otherwise). With --control-token every call must carry x-control-token.
 */
export function authenticateControl(registry: WorkspaceRegistry, controlToken: string | undefined): (req: Request) => Workspace {
  return (req) => {
    if (controlToken !== undefined && req.headers['x-control-token'] !== controlToken) {
      throw new ApiError(401, 'UNAUTHORIZED', 'This server requires x-control-token on control calls.');
    }
    const key = apiKeyOf(req);
    if (key === undefined) return registry.defaultWorkspace;
    const workspace = registry.byApiKey(key);
    if (!workspace) throw new ApiError(401, 'UNAUTHORIZED', 'Invalid API key: no workspace has this key.');
    return workspace;
  };
}
