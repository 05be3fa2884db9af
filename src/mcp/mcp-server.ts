import { McpServer, type CallToolResult, type StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type { OpenApiDocument } from '../http/spec.js';
import { VERSION } from '../version.js';
import { AGENT_TOOLS } from './agent-tools.js';
import { controlTools, type ControlTool } from './contract-tools.js';
import { callControlTool, type ControlToolArguments } from './control-tool-calls.js';
import { registerResources, type ResourceSource } from './resources.js';
import { ToolError, toolErrorResult, type McpSession } from './session.js';

/**
 * A tool's input schema as the SDK takes it. The JSON schema is what `tools/list` shows; the
 * validation is the tool's own and the control plane's, which answer every bad argument as a
 * tool error in the API's envelope (the SDK's own check would answer a protocol error).
 */
function schema(jsonSchema: Record<string, unknown>): StandardSchemaWithJSON<Record<string, unknown>> {
  return {
    '~standard': {
      version: 1,
      vendor: 'social-gateway-mock',
      validate: (value) => ({ value: (value ?? {}) as Record<string, unknown> }),
      jsonSchema: { input: () => jsonSchema, output: () => jsonSchema },
    },
  };
}

/** Why a request to the mock failed: fetch says only "fetch failed", its cause says ECONNREFUSED. */
function failureReason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause as NodeJS.ErrnoException | undefined;
  return cause?.code !== undefined ? `${error.message} (${cause.code})` : error.message;
}

/** Every failure of a tool comes back as a tool result with isError, never as a protocol error. */
async function guarded(session: McpSession, run: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ToolError) return toolErrorResult(error);
    // Named by URL: an agent told only "the mock did not answer" cannot tell which mock, nor start it.
    return toolErrorResult(new ToolError('MOCK_UNREACHABLE', `The mock at ${session.target.url} did not answer: ${failureReason(error)}. Is it running there?`, { url: session.target.url }));
  }
}

/** What every MCP server of a process is built from: read once, shared by every connection. */
export interface McpServerParts {
  /** control.yaml, parsed: the tools' operations and schemas. */
  controlDocument: OpenApiDocument;
  /** The files the resources serve. */
  resources: ResourceSource;
}

/** The control tools, built once per process from control.yaml. */
const toolsByDocument = new WeakMap<OpenApiDocument, ControlTool[]>();

/** One MCP server for one connection (stdio) or one request (Streamable HTTP, stateless). */
export function createMcpServer(session: McpSession, parts: McpServerParts): McpServer {
  const server = new McpServer(
    { name: 'social-gateway-mock', version: VERSION },
    {
      capabilities: { tools: {}, resources: {} },
      instructions: 'A stateful mock of the Social Publishing Gateway API. Create a workspace (workspaces tool, createWorkspace), call its API with call_api, move its virtual clock (clock tool), break things on purpose (break_one_thing), then ask why a request got its answer (explain_request). Read the contracts and docs as resources.' + ` The mock serves its API at ${session.target.url}/v1: point the client under test there.`,
    },
  );
  let tools = toolsByDocument.get(parts.controlDocument);
  if (!tools) {
    tools = controlTools(parts.controlDocument);
    toolsByDocument.set(parts.controlDocument, tools);
  }
  for (const tool of tools) {
    server.registerTool(tool.name, { description: tool.description, inputSchema: schema(tool.inputSchema) }, (args) => guarded(session, () => callControlTool(session, tool, args as ControlToolArguments)));
  }
  for (const tool of AGENT_TOOLS) {
    server.registerTool(tool.name, { description: tool.description, inputSchema: schema(tool.inputSchema), ...(tool.readOnly && { annotations: { readOnlyHint: true } }) }, (args) => guarded(session, () => tool.run(session, args)));
  }
  registerResources(server, session, parts.resources);
  return server;
}
