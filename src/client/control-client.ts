import { CONTROL_OPERATIONS, controlPath } from '../generated/control-operations.js';
import type { ControlErrorBody, ControlOperationId, ControlQuery, ControlResult } from './control-types.js';
import { ControlMethods, type ControlCallOptions } from './control-methods.js';
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

type CoverageQuery = ControlQuery<'getCoverage'>;

/** The server's root: no trailing slash, no `/__control`. */
function serverRoot(baseUrl: string | URL): string {
  return String(baseUrl)
    .replace(/\/+$/, '')
    .replace(/\/__control$/, '');
}

/**
 * One method per operation of control.yaml, each named after its operationId and typed from
 * the generated control types: the request body, the query, and the answer. Those answering
 * JSON are generated from the contract into {@link ControlMethods} (`npm run generate`); the
 * event stream and the Markdown coverage report are written here. A non-2xx
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
export class ControlClient extends ControlMethods {
  /** The server's root, without `/__control`. */
  readonly baseUrl: string;
  readonly apiKey: string | undefined;
  private readonly controlToken: string | undefined;
  private readonly fetch: typeof fetch;
  private readonly streams = new Set<ControlEventStream>();

  constructor(options: ControlClientOptions) {
    super();
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

  protected async json<K extends ControlOperationId>(operationId: K, options: ControlCallOptions = {}): Promise<ControlResult<K>> {
    const response = await this.send(operationId, options);
    return (await response.json()) as ControlResult<K>;
  }

  private async send(operationId: ControlOperationId, options: ControlCallOptions): Promise<Response> {
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
