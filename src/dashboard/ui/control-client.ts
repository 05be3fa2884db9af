/*
 * The dashboard's one way to the server: the control plane's HTTP API and its event stream,
 * as any other client uses them (control.yaml). A call names its operation; the method and
 * path come from the table `npm run generate` writes from the contract (control-operations.ts,
 * the same table the typed client and the server read), and the body, query and answer are
 * typed from the contract too. The control token is kept for the tab in sessionStorage and
 * sent only as the x-control-token header, never in a URL; the workspace is named by the
 * x-workspace-id header.
 */

import type { ControlBody, ControlOperationId, ControlQuery, ControlResult } from '../../client/control-types.js';
import { CONTROL_OPERATIONS, controlPath } from './control-operations.js';
import { parseSseMessage } from './sse.js';

const TOKEN_KEY = 'social-gateway-mock.control-token';

/** The server wants a control token (--control-token) and has none, or a wrong one. */
export class TokenRequired extends Error {}

/** A control call answered an error envelope. */
export class ControlError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The envelope's `details`, when it has them (an INVALID_SCENARIO's line and column). */
    readonly details?: unknown,
  ) {
    super(message);
  }
}

interface ErrorEnvelope {
  error?: { code?: string; message?: string; details?: unknown };
}

export interface StreamHandlers {
  /** The stream is open: events from now on will arrive. */
  onOpen: () => void;
  onEvent: (name: string, data: string) => void;
  signal: AbortSignal;
}

/** One control call: what fills the operation's path, query and body. */
export interface CallInput<K extends ControlOperationId> {
  /** Path parameters by name: `{ id }` for `/__control/rules/{id}`. */
  params?: Record<string, string>;
  query?: ControlQuery<K>;
  body?: ControlBody<K>;
  /** A body that is JSON already, sent as it is (a snapshot file to restore). */
  text?: string;
  signal?: AbortSignal | undefined;
  accept?: string;
}

export class ControlClient {
  /** The workspace control calls act on; null for the server's default workspace. */
  workspaceId: string | null = null;

  /** `origin`: where the control plane is (the page's own server when empty). */
  constructor(private readonly origin = '') {}

  get hasToken(): boolean {
    return sessionStorage.getItem(TOKEN_KEY) !== null;
  }

  setToken(token: string): void {
    sessionStorage.setItem(TOKEN_KEY, token);
  }

  private headers(extra?: HeadersInit): Headers {
    const headers = new Headers(extra);
    const token = sessionStorage.getItem(TOKEN_KEY);
    if (token !== null) headers.set('x-control-token', token);
    if (this.workspaceId !== null) headers.set('x-workspace-id', this.workspaceId);
    return headers;
  }

  /** A control call's answer as it came; throws TokenRequired or ControlError for an error answer. */
  async response<K extends ControlOperationId>(operationId: K, { params, query, body, text, signal, accept }: CallInput<K> = {}): Promise<Response> {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined) search.set(name, String(value));
    }
    const url = `${this.origin}${controlPath(operationId, params)}${search.size > 0 ? `?${search.toString()}` : ''}`;
    const sent = text ?? (body === undefined ? undefined : JSON.stringify(body));
    const headers = this.headers({ ...(accept !== undefined && { accept }), ...(sent !== undefined && { 'content-type': 'application/json' }) });
    const response = await fetch(url, { method: CONTROL_OPERATIONS[operationId].method, headers, cache: 'no-store', ...(sent !== undefined && { body: sent }), ...(signal && { signal }) });
    if (response.ok) return response;
    const envelope = (await response.json().catch(() => ({}))) as ErrorEnvelope;
    const message = envelope.error?.message ?? `${response.status} ${response.statusText}`;
    if (response.status === 401 && message.includes('x-control-token')) {
      // A token the server refuses is forgotten, so the page asks again rather than repeating it.
      sessionStorage.removeItem(TOKEN_KEY);
      throw new TokenRequired(message);
    }
    throw new ControlError(response.status, envelope.error?.code ?? 'UNKNOWN', message, envelope.error?.details);
  }

  /** A control call and its JSON answer, typed by control.yaml. */
  async call<K extends ControlOperationId>(operationId: K, input?: CallInput<K>): Promise<ControlResult<K>> {
    return (await (await this.response(operationId, input)).json()) as ControlResult<K>;
  }

  /**
   * Reads `streamEvents` with `requests=true` (the webhook events and `request.recorded`)
   * until it ends or `signal` aborts. Through fetch rather than
   * EventSource, which can send no header: the token would have to go in the URL.
   */
  async stream({ onOpen, onEvent, signal }: StreamHandlers): Promise<void> {
    const response = await this.response('streamEvents', { query: { requests: true }, signal, accept: 'text/event-stream' });
    if (!response.body) return;
    onOpen();
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const message = parseSseMessage(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (message) onEvent(message.event, message.data);
      }
    }
  }
}
