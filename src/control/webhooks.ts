import { setDeliveryFaults, type DeliveryFaultsInput } from '../api/webhooks/service.js';
import { ok, route } from '../http/route.js';
import type { ControlRouteFactory } from './dependencies.js';

/** The operations of control.yaml's tag Webhooks: a webhook's delivery faults. */
export const webhooksRoutes: ControlRouteFactory = () => [
  route<{ id: string }, never, DeliveryFaultsInput>('setWebhookFaults', ({ workspace, params, body }) => {
    const faults = setDeliveryFaults(workspace, params.id, body);
    workspace.changed();
    return ok({ webhookId: params.id, faults });
  }),
];
