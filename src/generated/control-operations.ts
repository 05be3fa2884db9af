/* eslint-disable */
// Generated from control.yaml by `npm run generate` (scripts/generated-types.ts). Do not edit by hand.

/** The tags of control.yaml, in its order: each is one file of src/control/ (`Workspaces` → `workspaces.ts`). */
export const CONTROL_TAGS = ['Server', 'Workspaces', 'Clock', 'Journal', 'Limits', 'Events', 'Webhooks', 'Triggers', 'Inbound', 'Accounts', 'State', 'Scenarios', 'Coverage'] as const;

export type ControlTag = (typeof CONTROL_TAGS)[number];

/**
 * Every operation of control.yaml by operationId: its method, its path (`{name}` for a path
 * parameter), its tag, and who may call it on a server with a control token (`x-access`).
 */
export const CONTROL_OPERATIONS = {
  getHealth: { method: 'GET', path: '/__control/health', tag: 'Server', access: 'open' },
  listWorkspaces: { method: 'GET', path: '/__control/workspaces', tag: 'Workspaces', access: 'server' },
  createWorkspace: { method: 'POST', path: '/__control/workspaces', tag: 'Workspaces', access: 'open' },
  deleteWorkspace: { method: 'DELETE', path: '/__control/workspaces/{id}', tag: 'Workspaces', access: 'workspace' },
  getClock: { method: 'GET', path: '/__control/clock', tag: 'Clock', access: 'workspace' },
  listClockJobs: { method: 'GET', path: '/__control/clock/jobs', tag: 'Clock', access: 'workspace' },
  advanceClock: { method: 'POST', path: '/__control/clock/advance', tag: 'Clock', access: 'workspace' },
  setClock: { method: 'POST', path: '/__control/clock/set', tag: 'Clock', access: 'workspace' },
  freezeClock: { method: 'POST', path: '/__control/clock/freeze', tag: 'Clock', access: 'workspace' },
  resumeClock: { method: 'POST', path: '/__control/clock/resume', tag: 'Clock', access: 'workspace' },
  getJournal: { method: 'GET', path: '/__control/journal', tag: 'Journal', access: 'workspace' },
  createApiKey: { method: 'POST', path: '/__control/keys', tag: 'Workspaces', access: 'server' },
  revokeApiKey: { method: 'DELETE', path: '/__control/keys/{key}', tag: 'Workspaces', access: 'workspace' },
  getLimits: { method: 'GET', path: '/__control/limits', tag: 'Limits', access: 'workspace' },
  updateLimits: { method: 'POST', path: '/__control/limits', tag: 'Limits', access: 'workspace' },
  streamEvents: { method: 'GET', path: '/__control/events', tag: 'Events', access: 'workspace' },
  emitEvent: { method: 'POST', path: '/__control/events', tag: 'Triggers', access: 'workspace' },
  setWebhookFaults: { method: 'POST', path: '/__control/webhooks/{id}/faults', tag: 'Webhooks', access: 'workspace' },
  failWebhookDeliveries: { method: 'POST', path: '/__control/webhooks/{id}/failures', tag: 'Triggers', access: 'workspace' },
  redeliverDelivery: { method: 'POST', path: '/__control/webhooks/{id}/deliveries/{deliveryId}/redeliver', tag: 'Triggers', access: 'workspace' },
  setPostOutcome: { method: 'POST', path: '/__control/posts/{id}/outcome', tag: 'Triggers', access: 'workspace' },
  receiveInboundComment: { method: 'POST', path: '/__control/inbound/comments', tag: 'Inbound', access: 'workspace' },
  receiveInboundMessage: { method: 'POST', path: '/__control/inbound/messages', tag: 'Inbound', access: 'workspace' },
  receiveInboundStoryReply: { method: 'POST', path: '/__control/inbound/story-replies', tag: 'Inbound', access: 'workspace' },
  receiveInboundReview: { method: 'POST', path: '/__control/inbound/reviews', tag: 'Inbound', access: 'workspace' },
  setAccountStatus: { method: 'POST', path: '/__control/accounts/{id}/status', tag: 'Accounts', access: 'workspace' },
  getWallet: { method: 'GET', path: '/__control/wallet', tag: 'Accounts', access: 'workspace' },
  setWallet: { method: 'POST', path: '/__control/wallet', tag: 'Accounts', access: 'workspace' },
  resetWorkspace: { method: 'POST', path: '/__control/reset', tag: 'State', access: 'workspace' },
  getState: { method: 'GET', path: '/__control/state', tag: 'State', access: 'workspace' },
  putState: { method: 'PUT', path: '/__control/state', tag: 'State', access: 'server' },
  listScenarios: { method: 'GET', path: '/__control/scenarios', tag: 'Scenarios', access: 'workspace' },
  loadScenario: { method: 'POST', path: '/__control/scenarios', tag: 'Scenarios', access: 'workspace' },
  listRules: { method: 'GET', path: '/__control/rules', tag: 'Scenarios', access: 'workspace' },
  addRule: { method: 'POST', path: '/__control/rules', tag: 'Scenarios', access: 'workspace' },
  removeRule: { method: 'DELETE', path: '/__control/rules/{id}', tag: 'Scenarios', access: 'workspace' },
  getCoverage: { method: 'GET', path: '/__control/coverage', tag: 'Coverage', access: 'workspace' },
} as const;

export type ControlOperationName = keyof typeof CONTROL_OPERATIONS;

/** The path of an operation, each of its parameters filled in and encoded; throws when one is missing. */
export function controlPath(operationId: ControlOperationName, params: Readonly<Record<string, string>> = {}): string {
  return CONTROL_OPERATIONS[operationId].path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`social-gateway-mock: ${operationId} needs the path parameter ${name}`);
    return encodeURIComponent(value);
  });
}
