import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CONTROL_OPERATIONS as ROUTES, controlPath, type ControlOperationName } from '../../src/generated/control-operations.js';
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

/** What fills one call: path parameters by name, the query, the JSON body. */
interface CallInput {
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
}

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

  /**
   * Calls the operation at the method and path control.yaml gives it (the generated table), its
   * `{name}`s filled from `params` and `query` appended; `expected` is a declared error (status
   * and code) the answer must be, else a 2xx.
   */
  async function call(operationId: ControlOperationName, { params, query, body }: CallInput = {}, expected?: { status: number; code: string }): Promise<Exchange> {
    const { method } = ROUTES[operationId];
    const path = controlPath(operationId, params) + (query === undefined ? '' : `?${new URLSearchParams(query).toString()}`);
    const res = await fetch(`${options.controlUrl}${path}`, { method, headers, ...(body !== undefined && { body: JSON.stringify(body) }) });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      // Not JSON (the event stream, the Markdown coverage): kept as text.
    }
    const exchange: Exchange = { operationId, method, path, expected: expected?.status ?? '2xx', status: res.status, body: parsed, headers: res.headers };
    exchanges.push(exchange);
    const code = (parsed as { error?: { code?: unknown } } | undefined)?.error?.code;
    const ok = expected ? res.status === expected.status && code === expected.code : res.status >= 200 && res.status < 300;
    if (!ok) throw new Error(`${operationId} ${method} ${path}: expected ${expected ? `${expected.status} ${expected.code}` : '2xx'}, got ${res.status} ${text.slice(0, 500)}`);
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
  await call('getHealth');
  const workspace = body(await call('createWorkspace', { body: { seed: 7, clock: { frozen: true } } }));
  headers['x-api-key'] = workspace.apiKey as string;
  await call('createApiKey');
  await call('listWorkspaces');
  const doomed = body(await call('createWorkspace', { body: { fixtures: false } }));
  await call('deleteWorkspace', { params: { id: doomed.workspaceId as string } });
  const forked = body(await call('createWorkspace', { body: { from: workspace.workspaceId } }));
  await call('deleteWorkspace', { params: { id: forked.workspaceId as string } });
  const readKey = body(await call('createApiKey', { body: controlBodyExample('createApiKey') })).apiKey as string;

  // ---- clock: forward by a duration, by nothing (waits for deliveries), to an instant; run, then freeze again
  const clock = body(await call('getClock'));
  await call('listClockJobs', { query: { limit: '3' } });
  await call('advanceClock', { body: { by: 'PT2H' } });
  await call('advanceClock', { body: { ms: 0 } });
  const [yesterday, tomorrow] = [-1, 1].map((days) => new Date(Date.parse(clock.now as string) + days * 86_400_000).toISOString());
  await call('setClock', { body: { to: tomorrow } });
  await call('resumeClock');
  await call('freezeClock');

  // ---- limits and wallet
  await call('getLimits');
  await call('updateLimits', { body: { plan: 'payg' } });
  await call('getWallet');
  await call('setWallet', { body: controlBodyExample('setWallet') });

  // ---- the network side: inbound activity (every field from the seed), account status
  await call('receiveInboundComment', { body: {} });
  await call('receiveInboundMessage', { body: {} });
  await call('receiveInboundStoryReply', { body: {} });
  await call('receiveInboundReview', { body: {} });
  const accounts = (await api('GET', '/v1/accounts?limit=100')).data as Array<{ id: string; status: string; platform: string }>;
  const account = accounts.find((row) => row.status === 'active');
  if (!account) throw new Error('no active account');
  await call('setAccountStatus', { params: { id: account.id }, body: controlBodyExample('setAccountStatus') });
  await call('setAccountStatus', { params: { id: account.id }, body: { status: 'active' } });

  // ---- webhook faults, on a webhook made through the API
  const hook = (await api('POST', '/v1/webhooks', { name: 'Control walk', url: options.hookUrl, events: ['post.published'] })).id as string;
  await call('setWebhookFaults', { params: { id: hook }, body: controlBodyExample('setWebhookFaults') });
  await call('failWebhookDeliveries', { params: { id: hook }, body: controlBodyExample('failWebhookDeliveries') });
  await call('setWebhookFaults', { params: { id: hook }, body: {} });

  // ---- triggers on existing objects: a queued post's outcome, an event for it
  const textAccount = accounts.find((row) => row.status === 'active' && row.platform === 'bluesky');
  if (!textAccount) throw new Error('no active bluesky account');
  const queued = ((await api('POST', '/v1/posts', { text: 'Control walk', destinations: [{ connectionId: textAccount.id }] })).post as Json).id as string;
  await call('setPostOutcome', { params: { id: queued }, body: controlBodyExample('setPostOutcome') });
  await call('emitEvent', { body: { event: 'post.scheduled', objectId: queued } });
  const tested = body(await call('emitEvent', { body: { event: 'webhook.test', objectId: hook } })).deliveries as Array<{ deliveryId: string }>;
  await call('redeliverDelivery', { params: { id: hook, deliveryId: tested[0]?.deliveryId ?? '' } });

  // ---- rules at run time: add one, see it, let it fire, remove it
  await call('addRule', { body: { id: 'walk-rule', match: { operationId: 'listAccounts' }, then: { latencyMs: 0 }, times: 1 } });
  await call('listRules');
  await api('GET', '/v1/accounts?limit=1');
  await call('removeRule', { params: { id: 'walk-rule' } });

  // ---- inspection: the journal, the events so far (replayed, so the stream has one to end on), coverage
  await call('getJournal', { query: { limit: '5' } });
  const stream = await call('streamEvents', { query: { replay: 'true' } });
  if (typeof stream.body !== 'string' || !/^event: /m.test(stream.body)) throw new Error(`the event stream held no event: ${String(stream.body)}`);
  await call('getCoverage', { query: { scope: 'workspace' } });
  await call('getCoverage', { query: { format: 'markdown' } });

  // ---- state and scenarios: snapshot, load a scenario, restore the snapshot, reset
  const snapshot = body(await call('getState'));
  const available = body(await call('listScenarios')).available as Array<{ name: string }>;
  if (!available[0]) throw new Error('no ready-made scenario');
  await call('loadScenario', { body: { name: available[0].name } });
  await call('putState', { body: snapshot });
  await call('resetWorkspace');
  await call('revokeApiKey', { params: { key: readKey } });

  // ---- a selection of declared errors, each valid by the contract's request schemas
  await call('createWorkspace', { body: { scenario: 'no-such-scenario' } }, { status: 400, code: 'INVALID_SCENARIO' });
  await call('loadScenario', { body: { yaml: 'rules: [' } }, { status: 400, code: 'INVALID_SCENARIO' });
  await call('setClock', { body: { to: yesterday } }, { status: 400, code: 'VALIDATION_ERROR' });
  await call('setAccountStatus', { params: { id: missing }, body: { status: 'expired' } }, { status: 404, code: 'NOT_FOUND' });
  await call('setWebhookFaults', { params: { id: missing }, body: {} }, { status: 404, code: 'NOT_FOUND' });
  await call('failWebhookDeliveries', { params: { id: missing }, body: { count: 1, status: 500 } }, { status: 404, code: 'NOT_FOUND' });
  await call('redeliverDelivery', { params: { id: hook, deliveryId: missing } }, { status: 404, code: 'NOT_FOUND' });
  await call('setPostOutcome', { params: { id: missing }, body: { result: 'published' } }, { status: 404, code: 'NOT_FOUND' });
  await call('emitEvent', { body: { event: 'post.published', objectId: missing } }, { status: 404, code: 'NOT_FOUND' });
  await call('updateLimits', { body: { velocity: [{ accountId: missing, published: 1 }] } }, { status: 404, code: 'NOT_FOUND' });
  await call('receiveInboundReview', { body: { accountId: missing } }, { status: 404, code: 'NOT_FOUND' });
  await call('revokeApiKey', { params: { key: readKey } }, { status: 404, code: 'NOT_FOUND' });
  await call('removeRule', { params: { id: missing } }, { status: 404, code: 'NOT_FOUND' });
  await call('deleteWorkspace', { params: { id: doomed.workspaceId as string } }, { status: 404, code: 'NOT_FOUND' });
  await call('deleteWorkspace', { params: { id: 'ws_default' } }, { status: 409, code: 'CONFLICT' });
  await call('createWorkspace', { body: { from: doomed.workspaceId } }, { status: 404, code: 'NOT_FOUND' });
  await call('addRule', { body: { then: { colour: 'red' } } }, { status: 400, code: 'INVALID_SCENARIO' });
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
