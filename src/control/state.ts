import type { WebhookRecord } from '../api/webhooks/records.js';
import { ok, route } from '../http/route.js';
import { REDACTED } from '../redaction/redactor.js';
import { checkSnapshot, takeSnapshot, type WorkspaceSnapshot } from '../workspaces/snapshot.js';
import { CONTROL_BODY_LIMITS } from './body-limits.js';
import type { ControlRouteFactory } from './dependencies.js';
import { readResetScenario, stillThere, withScenario } from './scenario-input.js';
import { workspaceSummary } from './views.js';

/** A snapshot as a workspace's key holder may read it: no keys, and webhook secrets masked. */
function withoutSecrets(snapshot: WorkspaceSnapshot): WorkspaceSnapshot {
  const { keyScopes: _scopes, ...data } = snapshot.workspace;
  const webhooks = (data.stores['webhooks'] as { webhooks?: Record<string, WebhookRecord> } | undefined)?.webhooks ?? {};
  for (const webhook of Object.values(webhooks)) if (webhook.secret !== null) webhook.secret = REDACTED;
  return { ...snapshot, workspace: { ...data, apiKeys: [] } };
}

/** The operations of control.yaml's tag State: reset, snapshot and restore a workspace's whole world. */
export const stateRoutes: ControlRouteFactory = ({ registry }) => [
  route('resetWorkspace', async ({ workspace }) => {
    await readResetScenario(registry.originOf(workspace));
    const current = stillThere(registry, workspace);
    return ok(workspaceSummary(withScenario('scenario', () => registry.reset(current))));
  }),

  // Keys and webhook secrets are the owner's to see: a workspace's key holder gets them masked.
  route('getState', ({ workspace, caller }) => ok(caller === 'owner' ? takeSnapshot(workspace) : withoutSecrets(takeSnapshot(workspace)))),

  {
    ...route<never, never, WorkspaceSnapshot>('putState', ({ workspace, body }) => {
      const data = checkSnapshot(body, (kind) => registry.canRun(kind));
      return ok(workspaceSummary(registry.restore(workspace, data)));
    }),
    ...CONTROL_BODY_LIMITS.putState,
  },
];
