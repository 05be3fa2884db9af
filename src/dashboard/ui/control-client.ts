/*
 * The dashboard's one way to the server: the control plane's HTTP API and its event stream,
 * as any other client uses them (control.yaml). The control token is kept for the tab in
 * sessionStorage and sent only as the x-control-token header, never in a URL; the workspace
 * is named by the x-workspace-id header.
 */

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

export class ControlClient {
  /** The workspace control calls act on; null for the server's default workspace. */
  workspaceId: string | null = null;

  constructor(private readonly base = '/__control') {}

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

  /** A control call; throws TokenRequired or ControlError for an error answer. */
  async request(path: string, init: RequestInit = {}): Promise<Response> {
    const response = await fetch(this.base + path, { ...init, headers: this.headers(init.headers), cache: 'no-store' });
    if (response.ok) return response;
    const body = (await response.json().catch(() => ({}))) as ErrorEnvelope;
    const message = body.error?.message ?? `${response.status} ${response.statusText}`;
    if (response.status === 401 && message.includes('x-control-token')) {
      // A token the server refuses is forgotten, so the page asks again rather than repeating it.
      sessionStorage.removeItem(TOKEN_KEY);
      throw new TokenRequired(message);
    }
    throw new ControlError(response.status, body.error?.code ?? 'UNKNOWN', message, body.error?.details);
  }

  async json<T>(path: string, init?: RequestInit): Promise<T> {
    return (await (await this.request(path, init)).json()) as T;
  }

  /** Sends a JSON body. */
  send<T>(method: string, path: string, body: unknown): Promise<T> {
    return this.json<T>(path, { method, body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  }

  /**
   * Reads `GET /__control/events?requests=true` (the webhook events and `request.recorded`)
   * until it ends or `signal` aborts. Through fetch rather than
   * EventSource, which can send no header: the token would have to go in the URL.
   */
  async stream({ onOpen, onEvent, signal }: StreamHandlers): Promise<void> {
    const response = await this.request('/events?requests=true', { signal, headers: { accept: 'text/event-stream' } });
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
