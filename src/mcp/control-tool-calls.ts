import type { CallToolResult } from '@modelcontextprotocol/server';
import { readServerSentEvents } from '../client/event-stream.js';
import type { ControlOperationName } from '../generated/control-operations.js';
import { didYouMean } from '../lib/did-you-mean.js';
import type { ControlTool } from './contract-tools.js';
import { answerResult, controlCredentials, jsonResult, ToolError, type McpSession } from './session.js';

/** The arguments of a control tool, as its schema describes them (checked here, then by the control plane). */
export interface ControlToolArguments {
  operation?: unknown;
  workspace?: unknown;
  params?: unknown;
  query?: unknown;
  body?: unknown;
}

/** How long the event stream is read once it goes quiet, and at most: an agent reads what was kept, it does not subscribe. */
const STREAM_QUIET_MS = 150;
const STREAM_MAX_MS = 2000;
const STREAM_MAX_EVENTS = 200;

function objectArgument(value: unknown, name: string): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new ToolError('VALIDATION_ERROR', `${name} must be an object`, { param: name });
  return value as Record<string, unknown>;
}

export function optionalString(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') throw new ToolError('VALIDATION_ERROR', `${name} must be a non-empty string`, { param: name });
  return value;
}

/** One call of a control tool: its operation, with the parameters and body the contract declares, on the named workspace. */
export async function callControlTool(session: McpSession, tool: ControlTool, args: ControlToolArguments): Promise<CallToolResult> {
  const operationId = args.operation;
  const operation = typeof operationId === 'string' ? tool.operations.get(operationId) : undefined;
  if (!operation) {
    const names = [...tool.operations.keys()];
    const given = typeof operationId === 'string' ? `; got '${operationId}'${didYouMean(operationId, names)}` : '';
    throw new ToolError('VALIDATION_ERROR', `operation must be one of ${names.join(', ')}${given}`, { param: 'operation' });
  }
  const workspace = optionalString(args.workspace, 'workspace');
  const params = objectArgument(args.params, 'params') ?? {};
  const pathParams: Record<string, string> = {};
  for (const name of operation.pathParams) {
    const value = params[name];
    if (typeof value !== 'string' || value === '') throw new ToolError('VALIDATION_ERROR', `${operation.operationId} needs params.${name}`, { param: `params.${name}` });
    pathParams[name] = value;
  }
  const query = objectArgument(args.query, 'query');
  if (!operation.hasBody && args.body !== undefined) throw new ToolError('VALIDATION_ERROR', `${operation.operationId} takes no body`, { param: 'body' });
  const { credentials, workspace: named } = controlCredentials(session, workspace);
  const call = { params: pathParams, query, body: args.body, workspace: named };

  if (operation.operationId === 'streamEvents') return readEvents(session, { ...call, query: { replay: true, ...query } }, credentials);
  const answer = await session.target.control(operation.operationId, { ...call, ...(operation.operationId === 'getCoverage' && query?.format === 'markdown' && { accept: 'text/markdown' }) }, credentials);
  remember(session, operation.operationId, answer.status, answer.body, workspace);
  return answerResult(answer);
}

/** Keys the server hands out are kept, so the API can be called as that workspace's client later. */
function remember(session: McpSession, operationId: ControlOperationName, status: number, body: unknown, workspace: string | undefined): void {
  if (status >= 300 || !session.keys) return;
  const answer = body as { workspaceId?: string; apiKey?: string };
  if ((operationId === 'createWorkspace' || operationId === 'createApiKey') && answer.workspaceId !== undefined && answer.apiKey !== undefined) {
    if (operationId === 'createWorkspace' || session.keys.get(answer.workspaceId) === undefined) session.keys.remember(answer.workspaceId, answer.apiKey);
  }
  if (operationId === 'deleteWorkspace' && workspace !== undefined) session.keys.forget(workspace);
}

/** `streamEvents` as a tool: the events the stream sends (the kept ones, with replay) until it goes quiet. */
async function readEvents(session: McpSession, call: Parameters<McpSession['target']['control']>[1] & object, credentials: McpSession['credentials']): Promise<CallToolResult> {
  const abort = new AbortController();
  const answer = await session.target.control('streamEvents', { ...call, accept: 'text/event-stream', signal: abort.signal }, credentials);
  if (answer.status !== 200) return answerResult(answer);
  const events: unknown[] = [];
  const messages = readServerSentEvents(answer.body as ReadableStream<Uint8Array>, abort.signal);
  const deadline = setTimeout(() => abort.abort(), STREAM_MAX_MS);
  let quiet: NodeJS.Timeout | undefined;
  try {
    for await (const message of messages) {
      clearTimeout(quiet);
      quiet = setTimeout(() => abort.abort(), STREAM_QUIET_MS);
      if (message.data === undefined) continue;
      events.push({ id: message.id, event: message.event, data: JSON.parse(message.data) as unknown });
      if (events.length >= STREAM_MAX_EVENTS) break;
    }
  } finally {
    clearTimeout(deadline);
    clearTimeout(quiet);
    abort.abort();
  }
  return jsonResult({ events, more: events.length >= STREAM_MAX_EVENTS });
}
