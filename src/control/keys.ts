import { ApiError } from '../lib/errors.js';
import { created, ok, route, type RouteDefinition } from '../http/route.js';
import { scopeOfKey, type KeyScope } from '../store/key-scopes.js';
import type { WorkspaceRegistry } from '../workspaces/registry.js';

/**
 * `POST /__control/keys` and `DELETE /__control/keys/{key}`: the workspace's keys, each
 * full or read-only, all sharing the workspace's one budget (docs/decisions/0013).
 */
export function keyRoutes(registry: WorkspaceRegistry): RouteDefinition[] {
  return [
    route<never, never, { scope?: KeyScope } | undefined>('createApiKey', ({ workspace, body }) => {
      const scope = body?.scope ?? 'full';
      return created({ workspaceId: workspace.id, apiKey: registry.addApiKey(workspace, scope), scope });
    }),

    route<{ key: string }>('revokeApiKey', ({ workspace, params }) => {
      const { key } = params;
      // A key of another workspace is as unknown here as any id of another workspace.
      if (!workspace.data.apiKeys.includes(key)) throw new ApiError(404, 'NOT_FOUND', 'This workspace has no such key.', { param: 'key' });
      // The server's own key comes back at the next start with --data, and the banner, the
      // ready file and `run`'s environment keep handing it out: revoking it would be a lie.
      if (registry.isDefaultApiKey(key)) {
        throw new ApiError(409, 'CONFLICT', "The server's default key (--api-key) cannot be revoked; mint another key for the boundary you want to draw.", { param: 'key' });
      }
      const scope = scopeOfKey(workspace.data, key);
      // A workspace always keeps a key that can write: without one, no client could ever change it again.
      const otherFull = workspace.data.apiKeys.some((candidate) => candidate !== key && scopeOfKey(workspace.data, candidate) === 'full');
      if (scope === 'full' && !otherFull) {
        throw new ApiError(409, 'CONFLICT', "This is the workspace's last full key; mint another full key before revoking it.", { param: 'key' });
      }
      registry.revokeApiKey(workspace, key);
      return ok({ workspaceId: workspace.id, apiKey: key, scope });
    }),
  ];
}
