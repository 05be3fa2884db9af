/**
 * What control.yaml says once and four readers repeat: the typed client's methods
 * (src/client/control-methods.ts), the README's table of the control plane,
 * docs/typescript.md's table of ControlClient's methods and docs/mcp.md's table of the MCP tools. Each operation's method, path,
 * summary, description, bodies and `x-codeSamples` come from the contract alone, so a new
 * control operation is its contract entry, its handler and its tests (CONTRIBUTING.md).
 */

import { CONTROL_TOOLS } from '../src/mcp/contract-tools.js';

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

interface Reference {
  $ref: string;
}
interface Schema {
  $ref?: string;
  type?: string;
  properties?: Record<string, unknown>;
  required?: string[];
  oneOf?: Schema[];
  anyOf?: Schema[];
}
interface Body {
  required?: boolean;
  content?: Record<string, { schema?: Schema }>;
}
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
}
interface CodeSample {
  lang: string;
  source: string;
}
interface Operation {
  operationId: string;
  tags?: string[];
  summary?: string;
  description?: string;
  parameters?: Parameter[];
  requestBody?: Body | Reference;
  responses?: Record<string, Body | Reference>;
  'x-codeSamples'?: CodeSample[];
}
type PathItem = Partial<Record<(typeof HTTP_METHODS)[number], Operation>> & { parameters?: Parameter[] };

/** The part of control.yaml read here. */
export interface ControlDocument {
  paths?: Record<string, PathItem>;
  components?: {
    schemas?: Record<string, Schema>;
    requestBodies?: Record<string, Body>;
    responses?: Record<string, Body>;
  };
}

/** One operation as its three readers present it. */
interface ClientOperation {
  id: string;
  tag: string;
  method: string;
  path: string;
  summary: string;
  description: string;
  /** The method's arguments: path parameters, then the query or the body. */
  args: Array<{ name: string; type: string; optional: boolean }>;
  /** How the method hands its arguments to the call: `{ pathParams: { id: webhookId }, body }`. */
  callOptions: string;
  /** The query's or the body's fields as a reader writes them: `{ by } | { ms }`, `{ scope? }`. */
  shapes: { query?: string; body?: string };
  examples: string[];
  /**
   * Answered with something besides JSON (an event stream, Markdown): its method is written by
   * hand in control-client.ts, which knows what to make of the answer.
   */
  handWritten: boolean;
}

function isReference(value: unknown): value is Reference {
  return typeof value === 'object' && value !== null && typeof (value as Reference).$ref === 'string';
}

function resolve<T>(document: ControlDocument, value: T | Reference, kind: 'schemas' | 'requestBodies' | 'responses'): T {
  if (!isReference(value)) return value;
  const name = value.$ref.slice(`#/components/${kind}/`.length);
  const found = document.components?.[kind]?.[name] as T | undefined;
  if (found === undefined) throw new Error(`control.yaml: ${value.$ref} does not exist`);
  return found;
}

/**
 * A path parameter's name as an argument: `{id}` after `/webhooks` is `webhookId`, so that
 * `redeliverDelivery(webhookId, deliveryId)` reads; any other name is kept.
 */
function argumentName(path: string, parameter: string): string {
  if (parameter !== 'id') return parameter;
  const before = /\/([a-z-]+)s\/\{id\}/.exec(path)?.[1];
  if (before === undefined) throw new Error(`control.yaml: ${path} names {id} after a segment that is not a plural noun`);
  return `${before.replace(/-(\w)/g, (_, letter: string) => letter.toUpperCase())}Id`;
}

/** `{ a, b? }` for an object schema, `{ by } | { ms }` for a choice of them. */
function shapeOf(document: ControlDocument, schema: Schema | Reference): string {
  const resolved = resolve<Schema>(document, schema, 'schemas');
  const choices = resolved.oneOf ?? resolved.anyOf;
  if (choices) return choices.map((choice) => shapeOf(document, choice)).join(' | ');
  const names = Object.keys(resolved.properties ?? {});
  if (names.length === 0) return '{}';
  const required = new Set(resolved.required ?? []);
  return `{ ${names.map((name) => (required.has(name) ? name : `${name}?`)).join(', ')} }`;
}

function readOperation(document: ControlDocument, path: string, method: string, operation: Operation, shared: Parameter[]): ClientOperation {
  const id = operation.operationId;
  const parameters = [...shared, ...(operation.parameters ?? [])];
  const pathParams = [...path.matchAll(/\{(\w+)\}/g)].map(([, name = '']) => ({ name, argument: argumentName(path, name) }));
  const args: ClientOperation['args'] = pathParams.map(({ argument }) => ({ name: argument, type: 'string', optional: false }));
  const options: string[] = [];
  if (pathParams.length > 0) {
    options.push(`pathParams: { ${pathParams.map(({ name, argument }) => (name === argument ? name : `${name}: ${argument}`)).join(', ')} }`);
  }
  const shapes: ClientOperation['shapes'] = {};
  const query = parameters.filter((parameter) => parameter.in === 'query');
  if (query.length > 0) {
    args.push({ name: 'query', type: `ControlQuery<'${id}'>`, optional: true });
    options.push('query');
    shapes.query = `{ ${query.map((parameter) => (parameter.required === true ? parameter.name : `${parameter.name}?`)).join(', ')} }`;
  }
  if (operation.requestBody !== undefined) {
    const body = resolve<Body>(document, operation.requestBody, 'requestBodies');
    const schema = body.content?.['application/json']?.schema;
    if (schema === undefined) throw new Error(`control.yaml: ${id} takes a body that is not JSON`);
    shapes.body = shapeOf(document, schema);
    args.push({ name: 'body', type: `ControlBody<'${id}'>`, optional: body.required !== true });
    options.push('body');
  }
  const answered = Object.entries(operation.responses ?? {})
    .filter(([status]) => status.startsWith('2'))
    .flatMap(([, response]) => Object.keys(resolve<Body>(document, response, 'responses').content ?? {}));
  return {
    id,
    tag: operation.tags?.[0] ?? '',
    method: method.toUpperCase(),
    path,
    summary: operation.summary ?? '',
    description: operation.description?.trim() ?? '',
    args,
    callOptions: options.length === 0 ? '' : `, { ${options.join(', ')} }`,
    shapes,
    examples: (operation['x-codeSamples'] ?? []).filter((sample) => sample.lang === 'TypeScript').map((sample) => sample.source.trimEnd()),
    handWritten: answered.some((type) => type !== 'application/json'),
  };
}

/** Every operation of control.yaml, in the contract's order. */
function operationsOf(document: ControlDocument): ClientOperation[] {
  return Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    HTTP_METHODS.flatMap((method) => {
      const operation = item[method];
      return operation ? [readOperation(document, path, method, operation, item.parameters ?? [])] : [];
    }),
  );
}

/** Text for a TSDoc block: `*\/` would end the comment early. */
function commentLines(text: string): string[] {
  return text.replaceAll('*/', '*\\/').split('\n');
}

function methodSource(operation: ClientOperation): string {
  const doc = [`\`${operation.method} ${operation.path}\`: ${operation.summary}.`, '', ...commentLines(operation.description)];
  for (const example of operation.examples) doc.push('', '@example', '```ts', ...commentLines(example), '```');
  const parameters = operation.args.map((arg) => `${arg.name}: ${arg.type}${arg.optional ? ' = {}' : ''}`).join(', ');
  return [
    '  /**',
    ...doc.map((line) => (line === '' ? '   *' : `   * ${line}`)),
    '   */',
    `  ${operation.id}(${parameters}): Promise<ControlResult<'${operation.id}'>> {`,
    `    return this.json('${operation.id}'${operation.callOptions});`,
    '  }',
  ].join('\n');
}

/**
 * `src/client/control-methods.ts`: a method per operation of control.yaml that answers JSON,
 * each named after its operationId, typed from the contract and documented by it. ControlClient
 * extends it with the transport and the methods whose answers are not JSON.
 */
export function renderControlMethods(document: ControlDocument): string {
  const operations = operationsOf(document).filter((operation) => !operation.handWritten);
  return [
    '// Generated from control.yaml by `npm run generate` (scripts/generated-control-client.ts). Do not edit by hand.',
    "import type { ControlBody, ControlOperationId, ControlQuery, ControlResult } from './control-types.js';",
    '',
    '/** What a method hands the transport besides its operationId. */',
    'export interface ControlCallOptions {',
    '  pathParams?: Record<string, string>;',
    '  query?: object | undefined;',
    '  body?: unknown;',
    '  signal?: AbortSignal;',
    '  accept?: string;',
    '}',
    '',
    '/**',
    " * One method per operation of control.yaml that answers JSON, named after its operationId and",
    " * typed from the contract: path parameters first, then the query or the body. Its text is the",
    " * operation's summary, description and `x-codeSamples`. {@link ControlClient} supplies `json`.",
    ' */',
    'export abstract class ControlMethods {',
    '  protected abstract json<K extends ControlOperationId>(operationId: K, options?: ControlCallOptions): Promise<ControlResult<K>>;',
    '',
    operations.map(methodSource).join('\n\n'),
    '}',
    '',
  ].join('\n');
}

/** A Markdown table cell: a `|` would end it. */
function cell(text: string): string {
  return text.replaceAll('|', '\\|');
}

/** The README's table of the control plane: a row per operation, in the contract's order. */
export function renderReadmeTable(document: ControlDocument): string {
  const rows = operationsOf(document).map((operation) => {
    const query = operation.shapes.query === undefined ? '' : ` query \`${cell(operation.shapes.query)}\``;
    const body = operation.shapes.body === undefined ? '' : ` \`${cell(operation.shapes.body)}\``;
    return `| \`${operation.method} ${operation.path}\`${query}${body} | ${cell(operation.summary)}. |`;
  });
  return ['| Call | What it does |', '|---|---|', ...rows].join('\n');
}

/** docs/typescript.md's table of ControlClient's methods. */
export function renderClientTable(document: ControlDocument): string {
  const rows = operationsOf(document).map((operation) => {
    const args = operation.args.map((arg) => (arg.name === 'body' || arg.name === 'query' ? operation.shapes[arg.name] : arg.name) + (arg.optional ? '?' : ''));
    return `| \`${cell(`${operation.id}(${args.join(', ')})`)}\` | \`${operation.method} ${operation.path}\`: ${cell(operation.summary)}. |`;
  });
  return ['| Method | Call |', '|---|---|', ...rows].join('\n');
}

/** docs/mcp.md's table of the tools that reach the control plane: each tool's tags and operations. */
export function renderMcpToolTable(document: ControlDocument): string {
  const operations = operationsOf(document);
  const rows = Object.entries(CONTROL_TOOLS).map(([tool, { tags }]) => {
    const reached = operations.filter((operation) => (tags as readonly string[]).includes(operation.tag)).map((operation) => operation.id);
    return `| \`${tool}\` | ${tags.join(', ')} | ${reached.join(', ')} |`;
  });
  return ['| Tool | control.yaml tags | Operations |', '|---|---|---|', ...rows].join('\n');
}

/** The markers around a generated region of a hand-written Markdown file. */
const REGION_START = '<!-- Generated from control.yaml by `npm run generate`: edit the contract, not this table. -->';
const REGION_END = '<!-- End of the generated table. -->';

/** `text` with its one generated region replaced by `table`; throws when the markers are missing. */
export function replaceRegion(file: string, text: string, table: string): string {
  const start = text.indexOf(REGION_START);
  const end = text.indexOf(REGION_END);
  if (start < 0 || end < start) throw new Error(`${file} has no generated region (${REGION_START} … ${REGION_END})`);
  return `${text.slice(0, start)}${REGION_START}\n${table}\n${text.slice(end)}`;
}
