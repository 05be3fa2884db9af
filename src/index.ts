/** The library entry: run the mock in-process (listen on port 0, use the URL). */
export { createMockServer, DEFAULT_API_KEY, type MockServer, type MockServerOptions } from './server.js';
export { main as runCli } from './cli/main.js';
export { verifyWebhookSignature } from './api/webhooks/signature.js';
export type { EventName } from './events/catalog.js';
export type { EventData, EventPayloads, WebhookEventBody } from './events/payloads.js';
