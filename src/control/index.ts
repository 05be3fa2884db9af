import type { RouteDefinition } from '../http/route.js';
import type { ControlTag } from '../generated/control-operations.js';
import { accountsRoutes } from './accounts.js';
import { clockRoutes } from './clock.js';
import { coverageRoutes } from './coverage.js';
import type { ControlDependencies, ControlRouteFactory } from './dependencies.js';
import { eventsRoutes } from './events.js';
import { inboundRoutes } from './inbound.js';
import { journalRoutes } from './journal.js';
import { limitsRoutes } from './limits.js';
import { scenariosRoutes } from './scenarios.js';
import { serverRoutes } from './server.js';
import { stateRoutes } from './state.js';
import { triggersRoutes } from './triggers.js';
import { webhooksRoutes } from './webhooks.js';
import { workspacesRoutes } from './workspaces.js';

/**
 * The control plane by tag, as src/api/ is by area: one file of src/control/ per tag of
 * control.yaml, each exporting its routes. The type refuses a tag of the contract without its
 * file; test/contract/control-tags.test.ts checks that each file serves only its tag's operations.
 */
export const CONTROL_ROUTES_BY_TAG = {
  Server: serverRoutes,
  Workspaces: workspacesRoutes,
  Clock: clockRoutes,
  Journal: journalRoutes,
  Limits: limitsRoutes,
  Events: eventsRoutes,
  Webhooks: webhooksRoutes,
  Triggers: triggersRoutes,
  Inbound: inboundRoutes,
  Accounts: accountsRoutes,
  State: stateRoutes,
  Scenarios: scenariosRoutes,
  Coverage: coverageRoutes,
} as const satisfies Record<ControlTag, ControlRouteFactory>;

/**
 * The routes of /__control (WireMock's AdminRoutes), joined. Read-only endpoints never change
 * state; the workspace is the one the request's key names, or the default workspace.
 */
export function controlRoutes(dependencies: ControlDependencies): RouteDefinition[] {
  return Object.values(CONTROL_ROUTES_BY_TAG).flatMap((routes) => routes(dependencies));
}
