/**
 * What `social-gateway-mock run -- <command>` tells the command of the server, in its
 * environment: written by the CLI's `run`, read by the vitest kit (and by any client).
 */
export const RUN_ENVIRONMENT = {
  /** The server's root, `http://127.0.0.1:4010`; the API is under `/v1`. */
  url: 'SOCIAL_GATEWAY_MOCK_URL',
  /** The default workspace's key. */
  apiKey: 'SOCIAL_GATEWAY_MOCK_API_KEY',
  /** The control plane, `…/__control`. */
  controlUrl: 'SOCIAL_GATEWAY_MOCK_CONTROL_URL',
  /** The control token, only when the server has one. */
  controlToken: 'SOCIAL_GATEWAY_MOCK_CONTROL_TOKEN',
} as const;
