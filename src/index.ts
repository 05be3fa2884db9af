/**
 * The library entry: run the mock in-process (listen on port 0, use the URL), drive it
 * through its control plane with a typed client (and a sleep that moves its clock), and
 * check the webhooks it sends.
 * The contracts' types are in `social-gateway-mock/types`; a vitest fixture giving each test
 * its own workspace is in `social-gateway-mock/vitest`.
 *
 * @packageDocumentation
 */
export { createMockServer, DEFAULT_API_KEY, type MockServer, type MockServerOptions } from './server.js';
export type { ProxyOptions } from './proxy/proxy-router.js';
export { main as runCli } from './cli/main.js';
export { verifyWebhookSignature } from './api/webhooks/signature.js';
export { EVENT_NAMES, type EventName } from './events/catalog.js';
export type { EventData, EventPayloads, WebhookEventBody } from './events/payloads.js';
export {
  CONTROL_ROUTES,
  ControlClient,
  ControlError,
  createControlClient,
  type ControlBody,
  type ControlClientOptions,
  type ControlErrorBody,
  type ControlOperationId,
  type ControlQuery,
  type ControlResult,
  type ControlRoute,
} from './client/control-client.js';
export { ControlEventStream, type ControlEvent } from './client/event-stream.js';
export { clockSleep, type ClockMover } from './client/clock-sleep.js';
