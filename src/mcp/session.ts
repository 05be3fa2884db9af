import type { CallToolResult } from '@modelcontextprotocol/server';
import { envelopeOf, type Answer, type Credentials, type MockTarget } from './target.js';

/**
 * Keys of workspaces the MCP server created or minted, by workspace id, so a tool can call the
 * API of the workspace an agent names. Shared only among callers who could reach every
 * workspace anyway (the owner): a workspace's own key never reaches another's key through it.
 */
export class KeyRing {
  private readonly keys = new Map<string, string>();

  get(workspaceId: string): string | undefined {
    return this.keys.get(workspaceId);
  }

  remember(workspaceId: string, apiKey: string): void {
    this.keys.set(workspaceId, apiKey);
  }

  forget(workspaceId: string): void {
    this.keys.delete(workspaceId);
  }
}

/** What one MCP connection drives, and with which credentials. */
export interface McpSession {
  target: MockTarget;
  /** The connection's credentials: the control plane decides what they reach. */
  credentials: Credentials;
  /** The default workspace's key, when this caller may use it (the owner's). */
  defaultApiKey?: string | undefined;
  /** Keys of named workspaces; absent for a caller holding one workspace's key only. */
  keys?: KeyRing | undefined;
}

/** A refusal of the tool itself (a missing argument, an unknown operation), in the API's envelope. */
export class ToolError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
    /** The HTTP status of the answer it passes on, when it is one. */
    readonly status?: number,
  ) {
    super(message);
  }
}

/** JSON as a tool answers it: compact, since every character is in the agent's context. */
export function jsonResult(value: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }] };
}

/**
 * An answer as a tool result: a 2xx is its body; anything else is a tool error (`isError`)
 * whose text opens with the status and the envelope's code and message, then the whole body.
 */
export function answerResult(answer: Answer, extra?: Record<string, unknown>): CallToolResult {
  if (answer.status >= 200 && answer.status < 300) return jsonResult(extra ? { ...extra, body: answer.body } : (answer.body ?? { status: answer.status }));
  const envelope = envelopeOf(answer.body);
  const headline = envelope ? `${answer.status} ${envelope.code}: ${envelope.message}` : `${answer.status}: ${typeof answer.body === 'string' ? answer.body.slice(0, 200) : 'no error envelope'}`;
  return { isError: true, content: [{ type: 'text', text: `${headline}\n${JSON.stringify(extra ? { ...extra, status: answer.status, body: answer.body } : answer.body ?? null)}` }] };
}

/** A tool error for a refusal of the tool's own. */
export function toolErrorResult(error: ToolError): CallToolResult {
  const headline = `${error.status === undefined ? '' : `${error.status} `}${error.code}: ${error.message}`;
  return { isError: true, content: [{ type: 'text', text: `${headline}\n${JSON.stringify({ error: { code: error.code, message: error.message, ...(error.details && { details: error.details }) } })}` }] };
}

/**
 * The credentials for a control call on a named workspace: its own key when the server knows it
 * (least reach), else the connection's credentials and the id in x-workspace-id, which the
 * control plane accepts from the owner, or from the key of that very workspace.
 */
export function controlCredentials(session: McpSession, workspace: string | undefined): { credentials: Credentials; workspace?: string } {
  if (workspace === undefined) return { credentials: session.credentials };
  const key = session.keys?.get(workspace);
  if (key !== undefined) return { credentials: { ...session.credentials, apiKey: key } };
  // x-workspace-id picks a workspace only without a key: the owner's call sends the id alone.
  if (session.credentials.controlToken !== undefined || session.credentials.apiKey === undefined) return { credentials: { controlToken: session.credentials.controlToken }, workspace };
  return { credentials: session.credentials, workspace };
}

/**
 * The API key that calls the API as the named workspace's client: the connection's key or the
 * default key when none is named; a known key; else, for the owner, a key minted now
 * (`createApiKey`) and kept. A workspace-key caller naming another workspace is refused by the
 * control plane, as it would be over HTTP.
 */
export async function apiKeyFor(session: McpSession, workspace: string | undefined): Promise<string> {
  if (workspace === undefined) {
    const key = session.credentials.apiKey ?? session.defaultApiKey;
    if (key === undefined) throw new ToolError('VALIDATION_ERROR', 'Name a workspace (its id from createWorkspace): this connection has no API key of its own.');
    return key;
  }
  const known = session.keys?.get(workspace);
  if (known !== undefined) return known;
  const { credentials, workspace: named } = controlCredentials(session, workspace);
  if (session.credentials.apiKey !== undefined && session.credentials.controlToken === undefined) {
    // The connection holds one workspace's key: it is this workspace's only if the control plane says so.
    const check = await session.target.control('getClock', { workspace: named }, credentials);
    if (check.status !== 200) throw answerError(check);
    return session.credentials.apiKey;
  }
  const minted = await session.target.control('createApiKey', { workspace: named, body: {} }, credentials);
  if (minted.status !== 201 && minted.status !== 200) throw answerError(minted);
  const key = (minted.body as { apiKey?: string }).apiKey;
  if (key === undefined) throw new ToolError('INTERNAL_ERROR', 'createApiKey answered no key');
  session.keys?.remember(workspace, key);
  return key;
}

/** An answer's refusal as a ToolError, keeping its code, message and details. */
export function answerError(answer: Answer): ToolError {
  const envelope = envelopeOf(answer.body);
  return new ToolError(envelope?.code ?? `HTTP_${answer.status}`, envelope?.message ?? `answered ${answer.status}`, envelope?.details, answer.status);
}
