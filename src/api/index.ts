import type { JobHandler } from '../clock/scheduler.js';
import type { EventSubscriber } from '../events/bus.js';
import type { RouteDefinition } from '../http/route.js';
import type { Workspace } from '../workspaces/workspace.js';
import { accountRoutes } from './accounts/routes.js';
import { handleTokenExpiry, scheduleAllTokenExpiries, TOKEN_EXPIRY_JOB } from './accounts/service.js';
import { analyticsRoutes } from './analytics/routes.js';
import { automationRoutes } from './automations/routes.js';
import { automationRunner } from './automations/runner.js';
import { commentRoutes } from './comments/routes.js';
import { engagementRoutes } from './engagement/routes.js';
import { inboxRoutes } from './inbox/routes.js';
import { mediaRoutes } from './media/routes.js';
import { postJobHandlers, resumePostJobs } from './posts/publish.js';
import { postRoutes } from './posts/routes.js';
import { profileRoutes } from './profiles/routes.js';
import { reviewRoutes } from './reviews/routes.js';
import { syncRoutes } from './sync/routes.js';
import { dispatchEvent, resumeDeliveries, webhookJobHandlers } from './webhooks/dispatcher.js';
import { webhookRoutes } from './webhooks/routes.js';

/**
 * What each API area contributes, in one place. An area exports its routes, the job
 * kinds it schedules and the event subscribers it needs; the server wires them.
 */

/** Every implemented /v1 operation; an operation of the contract not listed here answers 501. */
export const apiRoutes: RouteDefinition[] = [
  ...accountRoutes,
  ...profileRoutes,
  ...postRoutes,
  ...syncRoutes,
  ...mediaRoutes,
  ...analyticsRoutes,
  ...webhookRoutes,
  ...commentRoutes,
  ...engagementRoutes,
  ...inboxRoutes,
  ...reviewRoutes,
  ...automationRoutes,
];

/** Job kinds the API areas schedule on workspace schedulers. */
export const jobHandlers = new Map<string, JobHandler<Workspace>>([...postJobHandlers, ...webhookJobHandlers, [TOKEN_EXPIRY_JOB, handleTokenExpiry]]);

/** What each area sets in motion once the fixture world is built (the fixture's own due work). */
export const populateHooks: Array<(workspace: Workspace) => void> = [resumePostJobs, scheduleAllTokenExpiries];

/** What each area picks up in a workspace loaded from a --data file or restored from a snapshot (its jobs come back by themselves). */
export const resumeHooks: Array<(workspace: Workspace) => void> = [resumeDeliveries];

/** What reacts to domain events: the webhook dispatcher, the automation runner. */
export const eventSubscribers: Array<EventSubscriber<Workspace>> = [dispatchEvent, automationRunner];
