import { CONTROL_OPERATIONS, controlPath, type ControlOperationName } from '../generated/control-operations.js';
import { VERSION } from '../version.js';

/*
 * The mock the MCP server drives, reached over HTTP like any client: in process (the server
 * `social-gateway-mock mcp` started), a running one (`--url`), or the server /mcp is mounted on.
 * The tools speak to its control plane and its API through this and nothing else, so they get
 * exactly the answers, errors and access rules any other client gets.
 */

/** The credentials a call carries: the control plane decides what they reach (x-access). */
export interface Credentials {
  /** Sent as x-control-token. */
  controlToken?: string | undefined;
  /** Sent as x-api-key: picks its workspace on the control plane, and is the API's key. */
  apiKey?: string | undefined;
}

/** An answer, whatever its status: a tool turns a refusal into its own error. */
export interface Answer {
  status: number;
  /** The parsed JSON body, the text when it was not JSON, undefined when empty. */
  body: unknown;
  headers: Headers;
}

/** One call of a control operation. */
export interface ControlCall {
  params?: Record<string, string> | undefined;
  query?: Record<string, unknown> | undefined;
  body?: unknown;
  /** Names the workspace by id (x-workspace-id) when the credentials do not. */
  workspace?: string | undefined;
  accept?: string;
  signal?: AbortSignal;
}

/** An error envelope's parts, when an answer carries one. */
export interface Envelope {
  code: string;
  message: string;
  param?: string;
  details?: Record<string, unknown>;
}

/** The envelope's parts: nested (`{ error: { code, message } }`), or flat as a 429 RATE_LIMITED has them (`{ error: message, code }`). */
export function envelopeOf(body: unknown): Envelope | undefined {
  const flat = body as { error?: unknown; code?: unknown } | undefined;
  if (typeof flat?.error === 'string' && typeof flat.code === 'string') return { code: flat.code, message: flat.error };
  const error = (body as { error?: Partial<Envelope> } | undefined)?.error;
  if (typeof error?.code !== 'string' || typeof error.message !== 'string') return undefined;
  return error as Envelope;
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

export class MockTarget {
  /** The server's root, without a trailing slash. */
  readonly url: string;

  constructor(
    url: string,
    readonly credentials: Credentials = {},
    private readonly fetchImpl: typeof fetch = globalThis.fetch,
  ) {
    this.url = url.replace(/\/+$/, '').replace(/\/__control$/, '');
  }

  /** Calls one control operation with these credentials (the target's own unless given). */
  async control(operationId: ControlOperationName, call: ControlCall = {}, credentials: Credentials = this.credentials): Promise<Answer> {
    const url = new URL(this.url + controlPath(operationId, call.params));
    for (const [name, value] of Object.entries(call.query ?? {})) {
      if (value !== undefined && value !== null) url.searchParams.set(name, typeof value === 'object' ? JSON.stringify(value) : String(value as string | number | boolean));
    }
    const headers = this.headers(credentials, call.accept ?? 'application/json', call.body !== undefined);
    if (call.workspace !== undefined) headers['x-workspace-id'] = call.workspace;
    const response = await this.fetchImpl(url, {
      method: CONTROL_OPERATIONS[operationId].method,
      headers,
      ...(call.body !== undefined && { body: JSON.stringify(call.body) }),
      ...(call.signal && { signal: call.signal }),
    });
    if (call.accept === 'text/event-stream' && response.ok) return { status: response.status, body: response.body, headers: response.headers };
    return { status: response.status, body: await readBody(response), headers: response.headers };
  }

  /** Calls the API (/v1…) with a workspace's key. */
  async api(method: string, path: string, apiKey: string | undefined, body?: unknown, query?: Record<string, unknown>): Promise<Answer> {
    const url = new URL(this.url + (path.startsWith('/v1') ? path : `/v1${path.startsWith('/') ? '' : '/'}${path}`));
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined && value !== null) url.searchParams.set(name, String(value as string | number | boolean));
    }
    const response = await this.fetchImpl(url, {
      method: method.toUpperCase(),
      headers: this.headers({ apiKey }, 'application/json', body !== undefined),
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: await readBody(response), headers: response.headers };
  }

  private headers(credentials: Credentials, accept: string, hasBody: boolean): Record<string, string> {
    // Named, so the journal's caller tells the agent's calls from the client's own (explain_request's spent budget).
    const headers: Record<string, string> = { accept, 'user-agent': `social-gateway-mock-mcp/${VERSION}` };
    if (credentials.apiKey !== undefined) headers['x-api-key'] = credentials.apiKey;
    if (credentials.controlToken !== undefined) headers['x-control-token'] = credentials.controlToken;
    if (hasBody) headers['content-type'] = 'application/json';
    return headers;
  }
}
