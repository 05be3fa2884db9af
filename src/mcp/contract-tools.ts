import { CONTROL_OPERATIONS, type ControlOperationName, type ControlTag } from '../generated/control-operations.js';
import type { OpenApiDocument } from '../http/spec.js';

/*
 * The tools an agent calls to reach the control plane, derived from control.yaml when the MCP
 * server starts: which operations each tool groups (by the operations' tags), what each one is
 * (its summary), and the shape of its parameters and body (the contract's own schemas). Nothing
 * here restates the contract, so a tool cannot drift from it; the control plane itself checks
 * every call, as it checks any client's, and its refusals come back as tool errors.
 */

/**
 * The control plane's tags, grouped into a few tools so an agent's context stays small: the
 * type refuses a tag of control.yaml that no tool takes. Each description says when to use it;
 * the list of operations and their schemas come from the contract.
 */
export const CONTROL_TOOLS = {
  workspaces: {
    tags: ['Server', 'Workspaces', 'State'],
    description: 'Create (start here: its workspaceId is every tool\'s workspace), list, reset, snapshot, restore or delete isolated workspaces; mint and revoke keys; health.',
  },
  clock: {
    tags: ['Clock'],
    description: 'Read or move the virtual clock: publishing, schedules, webhook retries and expiries happen only as it moves; advanceClock runs what falls due and waits for deliveries in flight.',
  },
  inspect: {
    tags: ['Journal', 'Coverage', 'Events'],
    description: 'Read what happened: the journal, contract coverage, the events emitted (streamEvents answers the kept ones). For questions prefer explain_request, find_requests, coverage_gaps.',
  },
  limits: {
    tags: ['Limits'],
    description: 'Read or change rate budgets and posting velocity: plan, drain or refill a window, pre-load an account\'s published posts.',
  },
  webhooks: {
    tags: ['Webhooks', 'Triggers'],
    description: 'Make things happen: webhook delivery faults and failures, redelivery, how a queued post ends, any event for an existing object.',
  },
  world: {
    tags: ['Accounts', 'Inbound'],
    description: 'Act as the networks and their people: an account\'s status (expire it), the wallet, inbound comments, messages, story replies, reviews.',
  },
  scenarios: {
    tags: ['Scenarios'],
    description: 'Load a scenario (resets the workspace), or add and remove run-time rules that intercept matching requests (errors, latency, faults). A rule: {match: {operationId, nth, account}, then: {error: {status, code}}, times}; an error the mock answers itself (VELOCITY_LIMITED, RATE_LIMITED) comes filled as the real one. All fields: resource social-gateway-mock://docs/scenarios.md.',
  },
} as const satisfies Record<string, { tags: readonly ControlTag[]; description: string }>;

export type ControlToolName = keyof typeof CONTROL_TOOLS;

type SchemaObject = Record<string, unknown>;

/** The `workspace` argument every tool takes. */
export const WORKSPACE_HELP = 'Workspace id (default: the default one)';

/** One operation as a tool reaches it. */
export interface ToolOperation {
  operationId: ControlOperationName;
  method: string;
  path: string;
  /** Names of its path parameters. */
  pathParams: string[];
  /** Names of its query parameters. */
  queryParams: string[];
  /** Whether it takes a JSON body. */
  hasBody: boolean;
}

/** A control tool as it is listed and called. */
export interface ControlTool {
  name: ControlToolName;
  description: string;
  inputSchema: SchemaObject;
  operations: Map<string, ToolOperation>;
}

/**
 * Keywords of the contract's schemas an agent needs to build a call: the fields, their types,
 * values and formats. The rest (prose, examples, bounds, lengths, patterns, defaults, closed
 * objects) stays in control.yaml, where the control plane checks it and says what is wrong.
 */
const KEPT_KEYWORDS = new Set(['type', 'properties', 'required', 'items', 'enum', 'const', 'oneOf', 'anyOf', 'allOf', 'additionalProperties', 'format', 'nullable']);

/** Keywords that describe what a value holds: dropped below SCHEMA_DEPTH levels. */
const NESTING_KEYWORDS = new Set(['properties', 'required', 'items', 'additionalProperties', 'oneOf', 'anyOf', 'allOf']);

/**
 * How many levels of a body's objects the tool's schema spells out (a list's items are as deep
 * as the list). Deeper (a snapshot's clock and stores) it says only "an object": the whole schema
 * is in the control.yaml resource, and the control plane checks every level of every call.
 */
export const SCHEMA_DEPTH = 2;

/** Where a `$ref` of the document points. */
function resolveRef(document: OpenApiDocument, ref: string): unknown {
  let node: unknown = document;
  for (const segment of ref.replace(/^#\//, '').split('/')) node = (node as Record<string, unknown> | undefined)?.[segment.replaceAll('~1', '/').replaceAll('~0', '~')];
  if (node === undefined) throw new Error(`control.yaml: ${ref} points nowhere`);
  return node;
}

/**
 * A schema of the contract as a tool's input schema: references resolved (a reference met again
 * inside itself stays an open object), OpenAPI 3.0's `nullable` written as JSON Schema's null
 * type, and only the keywords that constrain a value kept.
 */
export function compactSchema(document: OpenApiDocument, schema: unknown, depth = SCHEMA_DEPTH, open: ReadonlySet<string> = new Set()): unknown {
  if (Array.isArray(schema)) return schema.map((item) => compactSchema(document, item, depth, open));
  if (schema === null || typeof schema !== 'object') return schema;
  const node = schema as SchemaObject;
  if (typeof node.$ref === 'string') {
    if (open.has(node.$ref)) return { type: 'object' };
    return compactSchema(document, resolveRef(document, node.$ref), depth, new Set([...open, node.$ref]));
  }
  const out: SchemaObject = {};
  for (const [keyword, value] of Object.entries(node)) {
    if (!KEPT_KEYWORDS.has(keyword) || keyword === 'nullable') continue;
    if (depth <= 0 && NESTING_KEYWORDS.has(keyword)) continue;
    if (keyword === 'additionalProperties' && typeof value !== 'object') continue;
    if (keyword === 'properties') {
      out.properties = Object.fromEntries(Object.entries(value as SchemaObject).map(([name, property]) => [name, compactSchema(document, property, depth - 1, open)]));
    } else if (keyword === 'additionalProperties') {
      out[keyword] = compactSchema(document, value, depth - 1, open);
    } else {
      out[keyword] = compactSchema(document, value, depth, open);
    }
  }
  if (depth <= 0 && out.type === undefined) out.type = 'object';
  if (node.nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  return out;
}

interface ParameterObject {
  name: string;
  in: string;
  required?: boolean;
  schema?: unknown;
}

/** The operation of control.yaml with this id, and the parameters its path item and it declare. */
function operationOf(document: OpenApiDocument, operationId: ControlOperationName): { operation: SchemaObject; parameters: ParameterObject[] } {
  const { method, path } = CONTROL_OPERATIONS[operationId];
  const item = document.paths[path] as SchemaObject | undefined;
  const operation = item?.[method.toLowerCase()] as SchemaObject | undefined;
  if (!item || !operation) throw new Error(`control.yaml has no ${method} ${path} (${operationId}): run npm run generate`);
  const declared = [...((item.parameters as unknown[] | undefined) ?? []), ...((operation.parameters as unknown[] | undefined) ?? [])];
  const parameters = declared.map((parameter) => {
    const resolved = parameter as SchemaObject;
    return (typeof resolved.$ref === 'string' ? resolveRef(document, resolved.$ref) : resolved) as ParameterObject;
  });
  return { operation, parameters };
}

/** The JSON schema of an operation's body, or undefined when it takes none. */
function bodySchemaOf(document: OpenApiDocument, operation: SchemaObject): unknown {
  let body = operation.requestBody as SchemaObject | undefined;
  if (body && typeof body.$ref === 'string') body = resolveRef(document, body.$ref) as SchemaObject;
  const json = (body?.content as Record<string, { schema?: unknown }> | undefined)?.['application/json'];
  return json?.schema;
}

/** Every control tool, built from control.yaml's document and the generated table of its operations. */
export function controlTools(document: OpenApiDocument): ControlTool[] {
  return (Object.entries(CONTROL_TOOLS) as Array<[ControlToolName, (typeof CONTROL_TOOLS)[ControlToolName]]>).map(([name, { tags, description }]) => {
    const operations = new Map<string, ToolOperation>();
    const lines: string[] = [];
    const pathProperties: SchemaObject = {};
    const queryProperties: SchemaObject = {};
    const bodies: SchemaObject[] = [];
    for (const [operationId, { method, path, tag }] of Object.entries(CONTROL_OPERATIONS) as Array<[ControlOperationName, (typeof CONTROL_OPERATIONS)[ControlOperationName]]>) {
      if (!(tags as readonly string[]).includes(tag)) continue;
      const { operation, parameters } = operationOf(document, operationId);
      const pathParams = parameters.filter((parameter) => parameter.in === 'path');
      const queryParams = parameters.filter((parameter) => parameter.in === 'query');
      for (const parameter of pathParams) pathProperties[parameter.name] ??= compactSchema(document, parameter.schema ?? { type: 'string' });
      for (const parameter of queryParams) queryProperties[parameter.name] ??= compactSchema(document, parameter.schema ?? { type: 'string' });
      const body = bodySchemaOf(document, operation);
      if (body !== undefined) bodies.push({ title: operationId, ...(compactSchema(document, body) as SchemaObject) });
      const needs = [...pathParams.map((parameter) => `params.${parameter.name}`), ...(body !== undefined ? ['body'] : [])];
      lines.push(`${operationId}: ${String(operation.summary ?? '')}${needs.length > 0 ? ` (${needs.join(', ')})` : ''}`);
      operations.set(operationId, { operationId, method, path, pathParams: pathParams.map((parameter) => parameter.name), queryParams: queryParams.map((parameter) => parameter.name), hasBody: body !== undefined });
    }
    const properties: SchemaObject = {
      operation: { type: 'string', enum: [...operations.keys()] },
      workspace: { type: 'string', description: WORKSPACE_HELP },
    };
    if (Object.keys(pathProperties).length > 0) properties.params = { type: 'object', properties: pathProperties };
    if (Object.keys(queryProperties).length > 0) properties.query = { type: 'object', properties: queryProperties };
    if (bodies.length > 0) properties.body = bodies.length === 1 ? bodies[0] : { anyOf: bodies };
    return {
      name,
      description: `${description}\nOperations:\n${lines.map((line) => `- ${line}`).join('\n')}`,
      inputSchema: { type: 'object', properties, required: ['operation'], additionalProperties: false },
      operations,
    };
  });
}
