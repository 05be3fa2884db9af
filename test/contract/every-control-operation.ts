import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadSpec, type OpenApiDocument } from '../../src/http/spec.js';
import { operationModels, type OperationModel } from '../fuzz/operations.js';
import { resolvePointer } from '../fuzz/schema-arbitraries.js';
import type { Exchange } from './every-operation.js';

/*
 * The control plane's counterpart of every-operation.ts: one walk that answers 2xx on
 * every operation of control.yaml, in a workspace of its own, then a handful of its
 * declared errors. Bodies are the contract's own examples where it gives one. What is
 * not a control operation (the /v1 reads and the webhook the faults are set on) goes
 * straight to the mock. It speaks plain HTTP, so it works against the mock or a proxy.
 *
 * `GET /__control/events` never ends on its own (it ends when the client leaves or the
 * server closes), and a validating proxy that reads whole answers would wait for ever:
 * put `boundEventStreams` between such a proxy and the mock.
 */

const document: OpenApiDocument = loadSpec('control.yaml').document;
export const CONTROL_OPERATIONS: OperationModel[] = operationModels(document, 'control');

export interface ControlWalkOptions {
  /** Where /__control calls go: the mock, or a proxy in front of it. */
  controlUrl: string;
  /** The mock itself, for what is not an operation of control.yaml (the /v1 calls the walk needs). */
  mockUrl: string;
  /** A receiver that answers 2xx, for the webhook whose faults the walk sets. */
  hookUrl: string;
}

type Json = Record<string, unknown>;

/** The request body example control.yaml gives: the media type's `example`/`examples`, else its schema's `example`. */
export function controlBodyExample(operationId: string): unknown {
  const op = CONTROL_OPERATIONS.find((candidate) => candidate.operationId === operationId);
  if (!op?.body) throw new Error(`no operation ${operationId} with a body`);
  const operation = document.paths[op.path]?.[op.method.toLowerCase()] as { requestBody: Json };
  const requestBody = (typeof operation.requestBody.$ref === 'string' ? resolvePointer(document, operation.requestBody.$ref) : operation.requestBody) as Json;
  const media = (requestBody.content as Record<string, Json>)['application/json'] ?? {};
  if (media.example !== undefined) return media.example;
  if (media.examples) return (Object.values(media.examples as Record<string, Json>)[0] as Json).value;
  let schema = (media.schema ?? {}) as Json;
  while (typeof schema.$ref === 'string') schema = resolvePointer(document, schema.$ref) as Json;
  if (schema.example === undefined) throw new Error(`${operationId}: control.yaml gives no body example`);
  return schema.example;
}

export async function walkEveryControlOperation(options: ControlWalkOptions): Promise<Exchange[]> {
  const exchanges: Exchange[] = [];
  const headers: Record<string, string> = { 'content-type': 'application/json' };

  /** Calls the operation; `expected` is a declared error (status and code) the answer must be, else a 2xx. */
  async function call(operationId: string, path: string, body?: unknown, expected?: { status: number; code: string }): Promise<Exchange> {
    const op = CONTROL_OPERATIONS.find((candidate) => candidate.operationId === operationId);
    if (!op) throw new Error(`no control operation ${operationId}`);
    const res = await fetch(`${options.controlUrl}${path}`, { method: op.method, headers, ...(body !== undefined && { body: JSON.stringify(body) }) });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      // Not JSON (the event stream, the Markdown coverage): kept as text.
    }
    const exchange: Exchange = { operationId, method: op.method, path, expected: expected?.status ?? '2xx', status: res.status, body: parsed, headers: res.headers };
    exchanges.push(exchange);
    const code = (parsed as { error?: { code?: unknown } } | undefined)?.error?.code;
    const ok = expected ? res.status === expected.status && code === expected.code : res.status >= 200 && res.status < 300;
    if (!ok) throw new Error(`${operationId} ${op.method} ${path}: expected ${expected ? `${expected.status} ${expected.code}` : '2xx'}, got ${res.status} ${text.slice(0, 500)}`);
    return exchange;
  }

  /** A /v1 call straight to the mock, with the walk's key. */
  async function api(method: string, path: string, body?: unknown): Promise<Json> {
    const res = await fetch(`${options.mockUrl}${path}`, { method, headers, ...(body !== undefined && { body: JSON.stringify(body) }) });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as Json;
  }

  const body = (exchange: Exchange) => exchange.body as Json;
  const missing = 'no_such_record_0f8e7d6c';

  // ---- server and workspaces: the walk's own workspace, its clock frozen
  await call('getHealth', '/__control/health');
  const workspace = body(await call('createWorkspace', '/__control/workspaces', { seed: 7, clock: { frozen: true } }));
  headers['x-api-key'] = workspace.apiKey as string;
  await call('createApiKey', '/__control/keys');
  await call('listWorkspaces', '/__control/workspaces');
  const doomed = body(await call('createWorkspace', '/__control/workspaces', { fixtures: false }));
  await call('deleteWorkspace', `/__control/workspaces/${doomed.workspaceId as string}`);
  const forked = body(await call('createWorkspace', '/__control/workspaces', { from: workspace.workspaceId }));
  await call('deleteWorkspace', `/__control/workspaces/${forked.workspaceId as string}`);
  const readKey = body(await call('createApiKey', '/__control/keys', controlBodyExample('createApiKey'))).apiKey as string;

  // ---- clock: forward by a duration, by nothing (waits for deliveries), to an instant; run, then freeze again
  const clock = body(await call('getClock', '/__control/clock'));
  await call('listClockJobs', '/__control/clock/jobs?limit=3');
  await call('advanceClock', '/__control/clock/advance', { by: 'PT2H' });
  await call('advanceClock', '/__control/clock/advance', { ms: 0 });
  const [yesterday, tomorrow] = [-1, 1].map((days) => new Date(Date.parse(clock.now as string) + days * 86_400_000).toISOString());
  await call('setClock', '/__control/clock/set', { to: tomorrow });
  await call('resumeClock', '/__control/clock/resume');
  await call('freezeClock', '/__control/clock/freeze');

  // ---- limits and wallet
  await call('getLimits', '/__control/limits');
  await call('updateLimits', '/__control/limits', { plan: 'payg' });
  await call('getWallet', '/__control/wallet');
  await call('setWallet', '/__control/wallet', controlBodyExample('setWallet'));

  // ---- the network side: inbound activity (every field from the seed), account status
  await call('receiveInboundComment', '/__control/inbound/comments', {});
  await call('receiveInboundMessage', '/__control/inbound/messages', {});
  await call('receiveInboundStoryReply', '/__control/inbound/story-replies', {});
  await call('receiveInboundReview', '/__control/inbound/reviews', {});
  const accounts = (await api('GET', '/v1/accounts?limit=100')).data as Array<{ id: string; status: string; platform: string }>;
  const account = accounts.find((row) => row.status === 'active');
  if (!account) throw new Error('no active account');
  await call('setAccountStatus', `/__control/accounts/${account.id}/status`, controlBodyExample('setAccountStatus'));
  await call('setAccountStatus', `/__control/accounts/${account.id}/status`, { status: 'active' });

  // ---- webhook faults, on a webhook made through the API
  const hook = (await api('POST', '/v1/webhooks', { name: 'Control walk', url: options.hookUrl, events: ['post.published'] })).id as string;
  await call('setWebhookFaults', `/__control/webhooks/${hook}/faults`, controlBodyExample('setWebhookFaults'));
  await call('failWebhookDeliveries', `/__control/webhooks/${hook}/failures`, controlBodyExample('failWebhookDeliveries'));
  await call('setWebhookFaults', `/__control/webhooks/${hook}/faults`, {});

  // ---- triggers on existing objects: a queued post's outcome, an event for it
  const textAccount = accounts.find((row) => row.status === 'active' && row.platform === 'bluesky');
  if (!textAccount) throw new Error('no active bluesky account');
  const queued = ((await api('POST', '/v1/posts', { text: 'Control walk', destinations: [{ connectionId: textAccount.id }] })).post as Json).id as string;
  await call('setPostOutcome', `/__control/posts/${queued}/outcome`, controlBodyExample('setPostOutcome'));
  await call('emitEvent', '/__control/events', { event: 'post.scheduled', objectId: queued });
  const tested = body(await call('emitEvent', '/__control/events', { event: 'webhook.test', objectId: hook })).deliveries as Array<{ deliveryId: string }>;
  await call('redeliverDelivery', `/__control/webhooks/${hook}/deliveries/${tested[0]?.deliveryId ?? ''}/redeliver`);

  // ---- rules at run time: add one, see it, let it fire, remove it
  await call('addRule', '/__control/rules', { id: 'walk-rule', match: { operationId: 'listAccounts' }, then: { latencyMs: 0 }, times: 1 });
  await call('listRules', '/__control/rules');
  await api('GET', '/v1/accounts?limit=1');
  await call('removeRule', '/__control/rules/walk-rule');

  // ---- inspection: the journal, the events so far (replayed, so the stream has one to end on), coverage
  await call('getJournal', '/__control/journal?limit=5');
  const stream = await call('streamEvents', '/__control/events?replay=true');
  if (typeof stream.body !== 'string' || !/^event: /m.test(stream.body)) throw new Error(`the event stream held no event: ${String(stream.body)}`);
  await call('getCoverage', '/__control/coverage?scope=workspace');
  await call('getCoverage', '/__control/coverage?format=markdown');

  // ---- state and scenarios: snapshot, load a scenario, restore the snapshot, reset
  const snapshot = body(await call('getState', '/__control/state'));
  const available = body(await call('listScenarios', '/__control/scenarios')).available as Array<{ name: string }>;
  if (!available[0]) throw new Error('no ready-made scenario');
  await call('loadScenario', '/__control/scenarios', { name: available[0].name });
  await call('putState', '/__control/state', snapshot);
  await call('resetWorkspace', '/__control/reset');
  await call('revokeApiKey', `/__control/keys/${readKey}`);

  // ---- a selection of declared errors, each valid by the contract's request schemas
  await call('createWorkspace', '/__control/workspaces', { scenario: 'no-such-scenario' }, { status: 400, code: 'INVALID_SCENARIO' });
  await call('loadScenario', '/__control/scenarios', { yaml: 'rules: [' }, { status: 400, code: 'INVALID_SCENARIO' });
  await call('setClock', '/__control/clock/set', { to: yesterday }, { status: 400, code: 'VALIDATION_ERROR' });
  await call('setAccountStatus', `/__control/accounts/${missing}/status`, { status: 'expired' }, { status: 404, code: 'NOT_FOUND' });
  await call('setWebhookFaults', `/__control/webhooks/${missing}/faults`, {}, { status: 404, code: 'NOT_FOUND' });
  await call('failWebhookDeliveries', `/__control/webhooks/${missing}/failures`, { count: 1, status: 500 }, { status: 404, code: 'NOT_FOUND' });
  await call('redeliverDelivery', `/__control/webhooks/${hook}/deliveries/${missing}/redeliver`, undefined, { status: 404, code: 'NOT_FOUND' });
  await call('setPostOutcome', `/__control/posts/${missing}/outcome`, { result: 'published' }, { status: 404, code: 'NOT_FOUND' });
  await call('emitEvent', '/__control/events', { event: 'post.published', objectId: missing }, { status: 404, code: 'NOT_FOUND' });
  await call('updateLimits', '/__control/limits', { velocity: [{ accountId: missing, published: 1 }] }, { status: 404, code: 'NOT_FOUND' });
  await call('receiveInboundReview', '/__control/inbound/reviews', { accountId: missing }, { status: 404, code: 'NOT_FOUND' });
  await call('revokeApiKey', `/__control/keys/${readKey}`, undefined, { status: 404, code: 'NOT_FOUND' });
  await call('removeRule', `/__control/rules/${missing}`, undefined, { status: 404, code: 'NOT_FOUND' });
  await call('deleteWorkspace', `/__control/workspaces/${doomed.workspaceId as string}`, undefined, { status: 404, code: 'NOT_FOUND' });
  await call('deleteWorkspace', '/__control/workspaces/ws_default', undefined, { status: 409, code: 'CONFLICT' });
  await call('createWorkspace', '/__control/workspaces', { from: doomed.workspaceId }, { status: 404, code: 'NOT_FOUND' });
  await call('addRule', '/__control/rules', { then: { colour: 'red' } }, { status: 400, code: 'INVALID_SCENARIO' });
  return exchanges;
}

/** Whether an SSE text holds a whole event message (an `event:` line, and the blank line that ends it). */
function holdsEvent(text: string): boolean {
  return /(^|\n)event: [^\n]*\n(?:[^\n]+\n)*\n/.test(text);
}

/**
 * A relay to the mock that passes every request and answer through unchanged, except
 * that it ends an event stream once the stream has sent its first event. So a proxy
 * that reads whole answers before it validates them (Prism does) gets the stream's
 * bytes as the mock sent them, bounded. Answers the relay's URL and how to close it.
 */
export async function boundEventStreams(upstream: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const forward = request(new URL(req.url ?? '/', upstream), { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      if (!String(answer.headers['content-type'] ?? '').startsWith('text/event-stream')) {
        answer.pipe(res);
        return;
      }
      let seen = '';
      // Ending it early makes the rest of the mock's answer an abort: expected, not an error.
      answer.on('error', () => undefined);
      answer.on('data', (chunk: Buffer) => {
        res.write(chunk);
        seen += chunk.toString();
        if (holdsEvent(seen)) {
          res.end();
          // Leaving is how a client ends the stream: the mock detaches it.
          forward.destroy();
        }
      });
      answer.on('end', () => res.end());
    });
    forward.on('error', (error) => {
      if (!res.headersSent) res.writeHead(502).end(String(error));
    });
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
