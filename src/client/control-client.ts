import { CONTROL_OPERATIONS, controlPath } from '../generated/control-operations.js';
import type { ControlBody, ControlErrorBody, ControlOperationId, ControlQuery, ControlResult } from './control-types.js';
import { ControlEventStream, readServerSentEvents } from './event-stream.js';

/*
 * A typed client of the control plane (control.yaml), on the global `fetch`. It is a
 * client like any other: it speaks HTTP to a running mock and imports nothing of the
 * server, only what is generated from the contract (its types and its table of operations),
 * so it works the same against an in-process server, `npx social-gateway-mock` or a shared CI
 * server.
 */

export type { ControlBody, ControlErrorBody, ControlOperationId, ControlQuery, ControlResult } from './control-types.js';

type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Where an operation lives. */
export interface ControlRoute {
  method: HttpMethod;
  /** With `{name}` placeholders for path parameters. */
  path: string;
}

/** The method and path of one operation, as control.yaml declares them. */
type RouteOf<K extends ControlOperationId> = Readonly<Pick<(typeof CONTROL_OPERATIONS)[K], 'method' | 'path'>>;

/**
 * The route of every control operation, one per operationId of control.yaml: a view of the
 * table `npm run generate` writes from the contract (src/generated/control-operations.ts), which
 * the server, the dashboard and the tests read too. The type makes the compiler refuse a table
 * that misses an operation of the generated types.
 */
export const CONTROL_ROUTES = Object.fromEntries(
  Object.entries(CONTROL_OPERATIONS).map(([operationId, { method, path }]) => [operationId, { method, path }]),
) as { readonly [K in ControlOperationId]: RouteOf<K> } satisfies Record<ControlOperationId, ControlRoute>;

/**
 * A control call answered with a status other than 2xx. `code`, `message`'s reason and
 * `param` come from the answer's error envelope, which `body` holds whole.
 *
 * @example
 * ```ts
 * try {
 *   await control.setClock({ to: '2020-01-01T00:00:00Z' });
 * } catch (error) {
 *   if (error instanceof ControlError && error.code === 'VALIDATION_ERROR') console.log(error.param); // 'to'
 *   else throw error;
 * }
 * ```
 */
export class ControlError extends Error {
  override readonly name = 'ControlError';

  constructor(
    /** The operation that failed. */
    readonly operationId: ControlOperationId,
    /** The HTTP status. */
    readonly status: number,
    /** The parsed error envelope; the raw text when the answer was not JSON. */
    readonly body: ControlErrorBody | string,
  ) {
    const error = typeof body === 'string' ? undefined : body.error;
    super(`${operationId} answered ${status}${error ? ` ${error.code}: ${error.message}` : typeof body === 'string' && body !== '' ? `: ${body.slice(0, 200)}` : ''}`);
  }

  /** The envelope's error code (`VALIDATION_ERROR`, `NOT_FOUND`, `INVALID_SCENARIO`, …). */
  get code(): string | undefined {
    return typeof this.body === 'string' ? undefined : this.body.error.code;
  }

  /** The field the error is about, when the envelope names one. */
  get param(): string | undefined {
    return typeof this.body === 'string' ? undefined : this.body.error.param;
  }

  /** The envelope's `details`, when it has them (an invalid scenario's file, line and column). */
  get details(): Record<string, unknown> | undefined {
    return typeof this.body === 'string' ? undefined : this.body.error.details;
  }
}

/** How to reach the control plane. */
export interface ControlClientOptions {
  /**
   * The server's root, for example `http://127.0.0.1:4010` (what `createMockServer().listen()`
   * answers). A trailing `/__control` is accepted too, so `SOCIAL_GATEWAY_MOCK_CONTROL_URL`
   * can be passed as it is.
   */
  baseUrl: string | URL;
  /** Picks the workspace (`x-api-key`); the server's default workspace when left out. */
  apiKey?: string | undefined;
  /** Sent as `x-control-token`, for a server started with `--control-token`. */
  controlToken?: string | undefined;
  /** The `fetch` to use (default: the global one). */
  fetch?: typeof fetch;
}

interface CallOptions {
  pathParams?: Record<string, string>;
  query?: object | undefined;
  body?: unknown;
  signal?: AbortSignal;
  accept?: string;
}

type CoverageQuery = ControlQuery<'getCoverage'>;

/** The server's root: no trailing slash, no `/__control`. */
function serverRoot(baseUrl: string | URL): string {
  return String(baseUrl)
    .replace(/\/+$/, '')
    .replace(/\/__control$/, '');
}

/**
 * One method per operation of control.yaml, each named after its operationId and typed from
 * the generated control types: the request body, the query, and the answer. A non-2xx
 * answer throws a {@link ControlError}. Every call is for the client's workspace (its
 * `apiKey`), or the server's default workspace when it has none.
 *
 * @example
 * ```ts
 * import { createControlClient } from 'social-gateway-mock';
 *
 * const control = createControlClient({ baseUrl: 'http://127.0.0.1:4010' });
 * const workspace = await control.createWorkspace({ seed: 7, clock: { start: '2026-03-02T09:00:00Z', frozen: true } });
 * const mine = control.forWorkspace(workspace.apiKey);
 * const moved = await mine.advanceClock({ by: 'PT2H' });
 * console.log(moved.now, moved.ran.map((job) => job.kind));
 * ```
 */
export class ControlClient {
  /** The server's root, without `/__control`. */
  readonly baseUrl: string;
  readonly apiKey: string | undefined;
  private readonly controlToken: string | undefined;
  private readonly fetch: typeof fetch;
  private readonly streams = new Set<ControlEventStream>();

  constructor(options: ControlClientOptions) {
    this.baseUrl = serverRoot(options.baseUrl);
    this.apiKey = options.apiKey;
    this.controlToken = options.controlToken;
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  /**
   * The same client for another workspace, by one of its keys (from `createWorkspace` or
   * `createApiKey`).
   *
   * @example
   * ```ts
   * const { apiKey } = await control.createWorkspace({ fixtures: false });
   * const workspace = control.forWorkspace(apiKey);
   * ```
   */
  forWorkspace(apiKey: string): ControlClient {
    return new ControlClient({ baseUrl: this.baseUrl, apiKey, controlToken: this.controlToken, fetch: this.fetch });
  }

  /** `GET /__control/health`: up, version and the number of workspaces. Needs no workspace. */
  getHealth(): Promise<ControlResult<'getHealth'>> {
    return this.json('getHealth');
  }

  /**
   * `POST /__control/workspaces`: a fresh, isolated workspace and its key. Hand the key to
   * {@link forWorkspace} (or to your API client as `x-api-key`).
   *
   * @example
   * ```ts
   * const created = await control.createWorkspace({ plan: 'free', seed: 3, scenario: 'network-outage' });
   * ```
   */
  createWorkspace(body: ControlBody<'createWorkspace'> = {}): Promise<ControlResult<'createWorkspace'>> {
    return this.json('createWorkspace', { body });
  }

  /**
   * `GET /__control/workspaces`: every workspace of the server, with its plan, when it was
   * created and last used, how long it has been idle, its size and what it holds open.
   */
  listWorkspaces(): Promise<ControlResult<'listWorkspaces'>> {
    return this.json('listWorkspaces');
  }

  /**
   * `DELETE /__control/workspaces/{id}`: ends a workspace; its keys answer 401, its jobs,
   * webhook retries and event streams stop, and the server forgets it. The default
   * workspace is kept (409).
   *
   * @example
   * ```ts
   * const { workspaceId } = await control.createWorkspace();
   * await control.deleteWorkspace(workspaceId);
   * ```
   */
  deleteWorkspace(id: string): Promise<ControlResult<'deleteWorkspace'>> {
    return this.json('deleteWorkspace', { pathParams: { id } });
  }

  /** `GET /__control/clock`: the virtual time, whether it is frozen, and what is due next. */
  getClock(): Promise<ControlResult<'getClock'>> {
    return this.json('getClock');
  }

  /**
   * `GET /__control/clock/jobs`: the jobs due next (scheduled posts, retries, expiries), in
   * the order an advance would run them, and how many wait in all.
   *
   * @example
   * ```ts
   * const { data: [next] } = await control.listClockJobs({ limit: 1 });
   * ```
   */
  listClockJobs(query: ControlQuery<'listClockJobs'> = {}): Promise<ControlResult<'listClockJobs'>> {
    return this.json('listClockJobs', { query });
  }

  /**
   * `POST /__control/clock/advance`: moves virtual time forward (`{ by: 'PT2H' }` or
   * `{ ms: 7200000 }`), running every job that falls due, and answers what ran. It also
   * waits for webhook deliveries in flight, so `{ ms: 0 }` settles them.
   *
   * @example
   * ```ts
   * const { now, ran } = await control.advanceClock({ by: 'PT10S' });
   * ```
   */
  advanceClock(body: ControlBody<'advanceClock'>): Promise<ControlResult<'advanceClock'>> {
    return this.json('advanceClock', { body });
  }

  /** `POST /__control/clock/set`: moves virtual time forward to an instant, running what falls due. */
  setClock(body: ControlBody<'setClock'>): Promise<ControlResult<'setClock'>> {
    return this.json('setClock', { body });
  }

  /** `POST /__control/clock/freeze`: stops virtual time; only advance and set move it. */
  freezeClock(): Promise<ControlResult<'freezeClock'>> {
    return this.json('freezeClock');
  }

  /** `POST /__control/clock/resume`: lets virtual time run with the wall clock again. */
  resumeClock(): Promise<ControlResult<'resumeClock'>> {
    return this.json('resumeClock');
  }

  /**
   * `GET /__control/journal`: the workspace's recent API requests, oldest first.
   *
   * @example
   * ```ts
   * const { data } = await control.getJournal({ operationId: 'createPost', status: 201 });
   * ```
   */
  getJournal(query: ControlQuery<'getJournal'> = {}): Promise<ControlResult<'getJournal'>> {
    return this.json('getJournal', { query });
  }

  /**
   * `POST /__control/keys`: mints another key for the workspace (sharing its request budget);
   * a `read` key is refused every API write with 403 FORBIDDEN.
   *
   * @example
   * ```ts
   * const { apiKey } = await control.createApiKey({ scope: 'read' }); // for a status page
   * ```
   */
  createApiKey(body: ControlBody<'createApiKey'> = {}): Promise<ControlResult<'createApiKey'>> {
    return this.json('createApiKey', { body });
  }

  /** `DELETE /__control/keys/{key}`: revokes one of the workspace's keys; the API answers it 401 from then on. */
  revokeApiKey(key: string): Promise<ControlResult<'revokeApiKey'>> {
    return this.json('revokeApiKey', { pathParams: { key } });
  }

  /** `GET /__control/limits`: the request budget windows and every account's posting velocity. */
  getLimits(): Promise<ControlResult<'getLimits'>> {
    return this.json('getLimits');
  }

  /**
   * `POST /__control/limits`: switches the plan, drains or refills a budget, pre-loads velocity.
   *
   * @example
   * ```ts
   * await control.updateLimits({ drain: ['requests'] }); // the next API call answers 429
   * ```
   */
  updateLimits(body: ControlBody<'updateLimits'>): Promise<ControlResult<'updateLimits'>> {
    return this.json('updateLimits', { body });
  }

  /**
   * `GET /__control/events`: every event the workspace emits, as it is emitted. Resolves once
   * the stream is live, so nothing emitted afterwards is missed; `{ replay: true }` first
   * sends the events the workspace still keeps. Close it when done ({@link close} closes
   * every stream this client opened).
   *
   * @example
   * ```ts
   * const events = await control.streamEvents();
   * await control.receiveInboundReview({ recommendation: 'positive' });
   * const [review] = await events.take(1); // review?.event === 'review.new'
   * events.close();
   * ```
   */
  async streamEvents(query: ControlQuery<'streamEvents'> = {}): Promise<ControlEventStream> {
    const abort = new AbortController();
    const response = await this.send('streamEvents', { query, signal: abort.signal, accept: 'text/event-stream' });
    if (!response.body) throw new Error('social-gateway-mock: the event stream answered without a body');
    const messages = readServerSentEvents(response.body, abort.signal);
    // The server writes a comment once the stream is attached: from then on nothing is missed.
    const opening = await messages.next();
    if (opening.done || opening.value.comment === undefined) {
      abort.abort();
      throw new Error('social-gateway-mock: the event stream did not open with its comment line');
    }
    const stream = new ControlEventStream(messages, abort);
    this.streams.add(stream);
    stream.onClose(() => this.streams.delete(stream));
    return stream;
  }

  /**
   * `POST /__control/webhooks/{id}/faults`: replaces a webhook's delivery faults (`{}` clears them).
   *
   * @example
   * ```ts
   * await control.setWebhookFaults(webhook.id, { failStatus: 503, failCount: 2 });
   * ```
   */
  setWebhookFaults(webhookId: string, body: ControlBody<'setWebhookFaults'>): Promise<ControlResult<'setWebhookFaults'>> {
    return this.json('setWebhookFaults', { pathParams: { id: webhookId }, body });
  }

  /**
   * `POST /__control/webhooks/{id}/failures`: the webhook's next `count` delivery attempts fail
   * with a status, a time-out or a reset connection, logged and retried like real failures.
   *
   * @example
   * ```ts
   * await control.failWebhookDeliveries(webhook.id, { count: 2, status: 500 });
   * await control.failWebhookDeliveries(webhook.id, { count: 1, timeout: true });
   * ```
   */
  failWebhookDeliveries(webhookId: string, body: ControlBody<'failWebhookDeliveries'>): Promise<ControlResult<'failWebhookDeliveries'>> {
    return this.json('failWebhookDeliveries', { pathParams: { id: webhookId }, body });
  }

  /**
   * `POST /__control/webhooks/{id}/deliveries/{deliveryId}/redeliver`: sends a logged delivery
   * again now, as the API's redeliver does, without an API key of the workspace; answers the
   * record after the attempt.
   *
   * @example
   * ```ts
   * const delivery = await control.redeliverDelivery(webhook.id, failed.id);
   * ```
   */
  redeliverDelivery(webhookId: string, deliveryId: string): Promise<ControlResult<'redeliverDelivery'>> {
    return this.json('redeliverDelivery', { pathParams: { id: webhookId, deliveryId } });
  }

  /**
   * `POST /__control/posts/{id}/outcome`: decides how a queued or scheduled post's destinations
   * end when it fires (all of them, or those to `accountId`).
   *
   * @example
   * ```ts
   * await control.setPostOutcome(post.id, { result: 'failed', errorCode: 'PLATFORM_ERROR' });
   * ```
   */
  setPostOutcome(postId: string, body: ControlBody<'setPostOutcome'>): Promise<ControlResult<'setPostOutcome'>> {
    return this.json('setPostOutcome', { pathParams: { id: postId }, body });
  }

  /**
   * `POST /__control/events`: emits one of the 22 events for an existing object, its payload
   * built from the object's current state with `overrides` merged in; answers the event and
   * the deliveries it made.
   *
   * @example
   * ```ts
   * const { event } = await control.emitEvent({ event: 'post.published', objectId: post.id, overrides: { post: { text: 'edited' } } });
   * ```
   */
  emitEvent(body: ControlBody<'emitEvent'>): Promise<ControlResult<'emitEvent'>> {
    return this.json('emitEvent', { body });
  }

  /**
   * `POST /__control/inbound/comments`: someone comments on a published post (every field
   * left out is drawn from the seed). Answers the comment, the events and the automations it set off.
   *
   * @example
   * ```ts
   * const { comment, events } = await control.receiveInboundComment({ text: 'Recipe please!' });
   * ```
   */
  receiveInboundComment(body: ControlBody<'receiveInboundComment'> = {}): Promise<ControlResult<'receiveInboundComment'>> {
    return this.json('receiveInboundComment', { body });
  }

  /** `POST /__control/inbound/messages`: someone writes a direct message to an account. */
  receiveInboundMessage(body: ControlBody<'receiveInboundMessage'> = {}): Promise<ControlResult<'receiveInboundMessage'>> {
    return this.json('receiveInboundMessage', { body });
  }

  /** `POST /__control/inbound/story-replies`: someone replies to an account's story. */
  receiveInboundStoryReply(body: ControlBody<'receiveInboundStoryReply'> = {}): Promise<ControlResult<'receiveInboundStoryReply'>> {
    return this.json('receiveInboundStoryReply', { body });
  }

  /** `POST /__control/inbound/reviews`: someone reviews a page. */
  receiveInboundReview(body: ControlBody<'receiveInboundReview'> = {}): Promise<ControlResult<'receiveInboundReview'>> {
    return this.json('receiveInboundReview', { body });
  }

  /**
   * `POST /__control/accounts/{id}/status`: the network changed an account (`expired` sends
   * `account.expired`, back to `active` sends `account.reconnected`).
   *
   * @example
   * ```ts
   * await control.setAccountStatus(accountId, { status: 'expired' });
   * ```
   */
  setAccountStatus(accountId: string, body: ControlBody<'setAccountStatus'>): Promise<ControlResult<'setAccountStatus'>> {
    return this.json('setAccountStatus', { pathParams: { id: accountId }, body });
  }

  /** `GET /__control/wallet`: the pay-as-you-go wallet that pays for new accounts. */
  getWallet(): Promise<ControlResult<'getWallet'>> {
    return this.json('getWallet');
  }

  /** `POST /__control/wallet`: sets the balance or the price per account. */
  setWallet(body: ControlBody<'setWallet'>): Promise<ControlResult<'setWallet'>> {
    return this.json('setWallet', { body });
  }

  /** `POST /__control/reset`: the workspace back to its start (fixtures, scenario, clock start). */
  resetWorkspace(): Promise<ControlResult<'resetWorkspace'>> {
    return this.json('resetWorkspace');
  }

  /**
   * `GET /__control/state`: a snapshot of the workspace's whole world, to {@link putState}
   * back later (here or into another workspace).
   *
   * @example
   * ```ts
   * const snapshot = await control.getState();
   * // ... the test changes things ...
   * await control.putState(snapshot);
   * ```
   */
  getState(): Promise<ControlResult<'getState'>> {
    return this.json('getState');
  }

  /** `PUT /__control/state`: restores a snapshot taken with {@link getState}. */
  putState(snapshot: ControlBody<'putState'>): Promise<ControlResult<'putState'>> {
    return this.json('putState', { body: snapshot });
  }

  /** `GET /__control/scenarios`: the ready-made scenarios, and the loaded one with its rules' counters. */
  listScenarios(): Promise<ControlResult<'listScenarios'>> {
    return this.json('listScenarios');
  }

  /**
   * `POST /__control/scenarios`: starts the workspace afresh from a scenario (`{ name }` or
   * `{ yaml }`). A bad one throws a {@link ControlError} with code `INVALID_SCENARIO`.
   *
   * @example
   * ```ts
   * await control.loadScenario({ name: 'rate-limit-exhaustion' });
   * ```
   */
  loadScenario(body: ControlBody<'loadScenario'>): Promise<ControlResult<'loadScenario'>> {
    return this.json('loadScenario', { body });
  }

  /** `GET /__control/rules`: the active rules (run-time, then the scenario's) with their hit counts. */
  listRules(): Promise<ControlResult<'listRules'>> {
    return this.json('listRules');
  }

  /**
   * `POST /__control/rules`: adds a rule, written as a scenario's, to the running workspace;
   * answers it with its id. A bad one throws a {@link ControlError} with code `INVALID_SCENARIO`.
   *
   * @example
   * ```ts
   * const rule = await control.addRule({ match: { operationId: 'createPost' }, then: { error: { status: 429, code: 'VELOCITY_LIMITED' } }, times: 1 });
   * // ... the next createPost answers 429 ...
   * await control.removeRule(rule.id);
   * // A load balancer's 503 page, off the contract, twice:
   * await control.addRule({ match: { method: 'GET' }, then: { fault: { status: 503, retryAfter: 5 } }, times: 2 });
   * ```
   */
  addRule(body: ControlBody<'addRule'>): Promise<ControlResult<'addRule'>> {
    return this.json('addRule', { body });
  }

  /** `DELETE /__control/rules/{id}`: removes an active rule and answers it with its final counters. */
  removeRule(ruleId: string): Promise<ControlResult<'removeRule'>> {
    return this.json('removeRule', { pathParams: { id: ruleId } });
  }

  /**
   * `GET /__control/coverage`: the contract coverage of the traffic, as JSON, or as Markdown
   * tables with `{ format: 'markdown' }`.
   *
   * @example
   * ```ts
   * const { operations } = await control.getCoverage({ scope: 'workspace' });
   * console.log(`${operations.percent}% of the operations exercised`);
   * ```
   */
  getCoverage(query?: CoverageQuery & { format?: 'json' }): Promise<ControlResult<'getCoverage'>>;
  getCoverage(query: CoverageQuery & { format: 'markdown' | 'table' }): Promise<string>;
  async getCoverage(query: CoverageQuery = {}): Promise<ControlResult<'getCoverage'> | string> {
    if (query.format === 'markdown' || query.format === 'table') {
      return (await this.send('getCoverage', { query, accept: 'text/markdown' })).text();
    }
    return this.json('getCoverage', { query });
  }

  /** Closes every event stream this client opened (not those of clients made by {@link forWorkspace}). */
  close(): void {
    for (const stream of [...this.streams]) stream.close();
  }

  private async json<K extends ControlOperationId>(operationId: K, options: CallOptions = {}): Promise<ControlResult<K>> {
    const response = await this.send(operationId, options);
    return (await response.json()) as ControlResult<K>;
  }

  private async send(operationId: ControlOperationId, options: CallOptions): Promise<Response> {
    const url = new URL(this.baseUrl + controlPath(operationId, options.pathParams));
    for (const [name, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = { accept: options.accept ?? 'application/json' };
    if (this.apiKey !== undefined) headers['x-api-key'] = this.apiKey;
    if (this.controlToken !== undefined) headers['x-control-token'] = this.controlToken;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const response = await this.fetch(url, {
      method: CONTROL_OPERATIONS[operationId].method,
      headers,
      ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
      ...(options.signal && { signal: options.signal }),
    });
    if (!response.ok) throw new ControlError(operationId, response.status, await readErrorBody(response));
    return response;
  }
}

async function readErrorBody(response: Response): Promise<ControlErrorBody | string> {
  const text = await response.text();
  try {
    const parsed: unknown = JSON.parse(text);
    // Only the envelope is typed as one; anything else is kept as the text it was.
    if (typeof parsed === 'object' && parsed !== null && typeof (parsed as { error?: { code?: unknown } }).error?.code === 'string') return parsed as ControlErrorBody;
  } catch {
    // Not JSON (a proxy's HTML page, say): the text itself is the best report.
  }
  return text;
}

/**
 * A typed client of the mock's control plane (`/__control`), on the global `fetch`.
 * `baseUrl` is the server's root; `apiKey` picks the workspace (the default workspace
 * without one); `controlToken` is for a server started with `--control-token`.
 *
 * @example
 * ```ts
 * import { createControlClient, createMockServer } from 'social-gateway-mock';
 *
 * const mock = await createMockServer({ seed: 1, clock: '2026-03-02T09:00:00Z', clockFrozen: true });
 * const control = createControlClient({ baseUrl: await mock.listen(0) });
 * const { apiKey } = await control.createWorkspace();
 * const workspace = control.forWorkspace(apiKey);
 * await workspace.advanceClock({ by: 'PT1H' }); // runs every job due within the hour
 * console.log((await workspace.getClock()).now); // 2026-03-02T10:00:00.000Z
 * await mock.close();
 * ```
 */
export function createControlClient(options: ControlClientOptions): ControlClient {
  return new ControlClient(options);
}
