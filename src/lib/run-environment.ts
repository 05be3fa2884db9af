/**
 * What `social-gateway-mock run -- <command>` (and `proxy -- <command>`) tells the command of the
 * server, in its environment: written by the CLI, read by the vitest kit (and by any client).
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
  /**
   * Set by `proxy -- <command>` only: the real service behind the proxy at `url`. It tells the
   * vitest kit and a nested `run` that there is no mock world to make workspaces in, and no
   * server to start. Not the environment form of a flag (`--upstream`'s is SOCIAL_GATEWAY_MOCK_UPSTREAM),
   * so configuring a proxy in the shell never makes a later `run` think it is behind one.
   */
  proxyUpstream: 'SOCIAL_GATEWAY_MOCK_PROXY_UPSTREAM',
  /**
   * Set by `run --scenario X -- <command>`: the scenario, as an absolute file path or a ready-made
   * scenario's name (empty without one). The vitest kit loads it into each test's workspace, as
   * `--scenario` loads it into the default one. Not `--scenario`'s own environment form
   * (SOCIAL_GATEWAY_MOCK_SCENARIO), so a scenario configured in the shell for `serve` never reaches
   * a kit that starts its own server.
   */
  scenario: 'SOCIAL_GATEWAY_MOCK_RUN_SCENARIO',
} as const;
