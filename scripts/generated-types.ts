import { readFileSync } from 'node:fs';
import openapiTS, { astToString } from 'openapi-typescript';
import { parse } from 'yaml';
import { packagePath } from '../src/lib/package-root.js';
import { renderClientTable, renderControlMethods, renderMcpToolTable, renderReadmeTable, replaceRegion, type ControlDocument } from './generated-control-client.js';

/**
 * Everything in src/generated/, rendered from the two contracts. Never edited by hand;
 * test/contract/generated.test.ts fails when a committed file differs from what this renders.
 *
 * - `openapi.ts` and `control.ts`: openapi-typescript's `paths`, `components` and
 *   `operations` of openapi.yaml and control.yaml.
 * - `named-types.ts`: one named type per request and response body, driven by the documents
 *   alone (no hand list), so a schema or operation added to a contract gets its name on the
 *   next `npm run generate`. See {@link renderNamedTypes} for the naming rules.
 * - `control-operations.ts`: the one table of the control plane (operationId → method, path,
 *   tag, access), read by the server's route check, the typed client, the walk test and, as
 *   the same file under src/dashboard/ui/ (the browser loads nothing outside it), the dashboard.
 *
 * And, from control.yaml, outside src/generated/ (scripts/generated-control-client.ts): the typed
 * client's methods (src/client/control-methods.ts), and the tables of the control plane in the
 * README, docs/typescript.md and docs/mcp.md, each between markers in a file otherwise written by hand.
 */

/** A contract and the names its types take in the package. */
interface Contract {
  /** The YAML file at the package root. */
  file: string;
  /** The generated module, in src/generated/. */
  module: string;
  /** How named-types.ts imports `components` and `operations` of this contract. */
  components: string;
  operations: string;
  /** Put before every schema name: control.yaml's `Comment` is not openapi.yaml's `Comment`. */
  prefix: string;
}

const CONTRACTS: Contract[] = [
  { file: 'openapi.yaml', module: 'openapi', components: 'components', operations: 'operations', prefix: '' },
  { file: 'control.yaml', module: 'control', components: 'ControlComponents', operations: 'ControlOperations', prefix: 'Control' },
];

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** What the renderers read of an OpenAPI document; everything else is left alone. */
interface Reference {
  $ref: string;
}
interface MediaType {
  schema?: Reference | Record<string, unknown>;
}
interface BodyObject {
  content?: Record<string, MediaType>;
}
interface OperationObject {
  operationId?: string;
  tags?: string[];
  'x-access'?: string;
  requestBody?: BodyObject | Reference;
  responses?: Record<string, BodyObject | Reference>;
}
interface Document {
  tags?: Array<{ name: string }>;
  paths?: Record<string, Partial<Record<(typeof HTTP_METHODS)[number], OperationObject>>>;
  components?: {
    schemas?: Record<string, { description?: string; title?: string }>;
    requestBodies?: Record<string, BodyObject & { description?: string }>;
    responses?: Record<string, BodyObject>;
  };
}

/** A file of src/generated/ and the text it must hold. */
export interface GeneratedFile {
  /** Relative to the package root, with forward slashes. */
  path: string;
  text: string;
}

function readPackageFile(file: string): string {
  return readFileSync(packagePath(file), 'utf8');
}

/** Every file of src/generated/, in a stable order. */
export async function renderGeneratedFiles(): Promise<GeneratedFile[]> {
  const files: GeneratedFile[] = [];
  for (const contract of CONTRACTS) {
    files.push({ path: `src/generated/${contract.module}.ts`, text: await renderContractTypes(contract.file) });
  }
  const documents = CONTRACTS.map((contract) => ({ contract, document: parse(readPackageFile(contract.file)) as Document }));
  files.push({ path: 'src/generated/named-types.ts', text: renderNamedTypes(documents) });
  const control = parse(readPackageFile('control.yaml')) as Document & ControlDocument;
  const table = renderControlOperations(control);
  for (const path of CONTROL_OPERATIONS_FILES) files.push({ path, text: table });
  files.push({ path: 'src/client/control-methods.ts', text: renderControlMethods(control) });
  files.push({ path: 'README.md', text: replaceRegion('README.md', readPackageFile('README.md'), renderReadmeTable(control)) });
  files.push({ path: 'docs/typescript.md', text: replaceRegion('docs/typescript.md', readPackageFile('docs/typescript.md'), renderClientTable(control)) });
  files.push({ path: 'docs/mcp.md', text: replaceRegion('docs/mcp.md', readPackageFile('docs/mcp.md'), renderMcpToolTable(control)) });
  return files;
}

/** openapi-typescript's rendering of one contract. */
async function renderContractTypes(file: string): Promise<string> {
  // Default options, as an integrator runs it: the contracts keep every body with defaults in
  // components/requestBodies, where openapi-typescript leaves those fields optional
  // (docs/decisions/0009-contract-for-generators.md), so what we ship is what they would get.
  const ast = await openapiTS(readPackageFile(file));
  return [
    '/* eslint-disable */',
    `// Generated from ${file} by \`npm run generate\` (openapi-typescript). Do not edit by hand.`,
    '',
    astToString(ast),
  ].join('\n');
}

/** Where the control plane's table is written: the server's and client's copy, and the dashboard's. */
export const CONTROL_OPERATIONS_FILES = ['src/generated/control-operations.ts', 'src/dashboard/ui/control-operations.ts'] as const;

/**
 * `control-operations.ts`: every operation of control.yaml with its method, path, tag and
 * `x-access`, in the contract's order, and the contract's tags. Each operation must carry
 * exactly one tag of the document's `tags` (the file of src/control/ that serves it) and an
 * `x-access`: the generation stops otherwise, rather than write a table a reader cannot trust.
 */
export function renderControlOperations(document: Document): string {
  const tags = (document.tags ?? []).map((tag) => tag.name);
  const rows: string[] = [];
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (operation?.operationId === undefined) continue;
      const id = operation.operationId;
      const [tag, ...more] = operation.tags ?? [];
      if (tag === undefined || more.length > 0 || !tags.includes(tag)) throw new Error(`control.yaml: ${id} must carry exactly one of the document's tags (${tags.join(', ')}); it has ${JSON.stringify(operation.tags ?? [])}`);
      const access = operation['x-access'];
      if (access === undefined) throw new Error(`control.yaml: ${id} has no x-access`);
      rows.push(`  ${id}: { method: '${method.toUpperCase()}', path: '${path}', tag: '${tag}', access: '${access}' },`);
    }
  }
  return [
    '/* eslint-disable */',
    '// Generated from control.yaml by `npm run generate` (scripts/generated-types.ts). Do not edit by hand.',
    '',
    "/** The tags of control.yaml, in its order: each is one file of src/control/ (`Workspaces` → `workspaces.ts`). */",
    `export const CONTROL_TAGS = [${tags.map((tag) => `'${tag}'`).join(', ')}] as const;`,
    '',
    'export type ControlTag = (typeof CONTROL_TAGS)[number];',
    '',
    '/**',
    ' * Every operation of control.yaml by operationId: its method, its path (`{name}` for a path',
    " * parameter), its tag, and who may call it on a server with a control token (`x-access`).",
    ' */',
    'export const CONTROL_OPERATIONS = {',
    ...rows,
    '} as const;',
    '',
    'export type ControlOperationName = keyof typeof CONTROL_OPERATIONS;',
    '',
    '/** The path of an operation, each of its parameters filled in and encoded; throws when one is missing. */',
    'export function controlPath(operationId: ControlOperationName, params: Readonly<Record<string, string>> = {}): string {',
    '  return CONTROL_OPERATIONS[operationId].path.replace(/\\{(\\w+)\\}/g, (_, name: string) => {',
    '    const value = params[name];',
    '    if (value === undefined) throw new Error(`social-gateway-mock: ${operationId} needs the path parameter ${name}`);',
    '    return encodeURIComponent(value);',
    '  });',
    '}',
    '',
  ].join('\n');
}

function isReference(value: unknown): value is Reference {
  return typeof value === 'object' && value !== null && typeof (value as Reference).$ref === 'string';
}

/** `#/components/<kind>/<name>` → name; anything else (an external file) is not supported. */
function refName(ref: string, kind: string): string {
  const prefix = `#/components/${kind}/`;
  if (!ref.startsWith(prefix)) throw new Error(`${ref}: only local references to #/components/${kind} are supported`);
  return ref.slice(prefix.length);
}

function pascal(operationId: string): string {
  return operationId.charAt(0).toUpperCase() + operationId.slice(1);
}

/** Text for a TSDoc block: `*\/` would end the comment early. */
function docText(text: string): string {
  return text.trim().replaceAll('*/', '*\\/');
}

function docComment(lines: string[]): string {
  const body = lines.flatMap((line) => docText(line).split('\n')).map((line) => (line === '' ? ' *' : ` * ${line}`));
  return ['/**', ...body, ' */'].join('\n');
}

/** The JSON schema of a body, its reference resolved one level (requestBodies, responses). */
function jsonSchema(document: Document, body: BodyObject | Reference | undefined, kind: 'requestBodies' | 'responses'): MediaType['schema'] | undefined {
  if (body === undefined) return undefined;
  const resolved = isReference(body) ? document.components?.[kind]?.[refName(body.$ref, kind)] : body;
  if (resolved === undefined) throw new Error(`${(body as Reference).$ref} does not exist`);
  return resolved.content?.['application/json']?.schema;
}

interface NamedType {
  name: string;
  doc: string[];
  type: string;
}

/**
 * `named-types.ts`: a name for every body a client sends or reads.
 *
 * - Every `components.schemas` and `components.requestBodies` entry by its own name (`Post`,
 *   `Webhook`, `CreatePostBody`); control.yaml's with `Control` before it (`ControlClock`),
 *   since both contracts have a `Comment`.
 * - Every operation's JSON request body as `<OperationId>Body` (`likePost` → `LikePostBody`),
 *   unless it is the schema of that very name already (`createPost` → `CreatePostBody`).
 * - Every operation's JSON success body as `<OperationId>Response` when it is not one named
 *   schema (an inline object, a `oneOf`, or different schemas for different statuses).
 *
 * A derived name that a different type already holds stops the generation: silently
 * picking one would give a name two meanings.
 */
export function renderNamedTypes(documents: Array<{ contract: Contract; document: Document }>): string {
  const types: NamedType[] = [];
  const taken = new Map<string, string>();
  const add = (named: NamedType, origin: string) => {
    const holder = taken.get(named.name);
    if (holder !== undefined) throw new Error(`named-types: ${named.name} is both ${holder} and ${origin}; rename one in the contract`);
    taken.set(named.name, origin);
    types.push(named);
  };

  for (const { contract, document } of documents) {
    const { prefix } = contract;
    const schemaType = (name: string) => `${prefix}${name}`;
    for (const [name, schema] of Object.entries(document.components?.schemas ?? {})) {
      const about = schema.description ?? schema.title;
      add(
        { name: schemaType(name), doc: [...(about ? [about] : []), `${contract.file}: \`#/components/schemas/${name}\`.`], type: `${contract.components}['schemas']['${name}']` },
        `${contract.file} schema ${name}`,
      );
    }

    // A named request body (`components.requestBodies`, for a body described beside its schema) by its name too.
    for (const [name, body] of Object.entries(document.components?.requestBodies ?? {})) {
      if (body.content?.['application/json'] === undefined) continue;
      add(
        {
          name: schemaType(name),
          doc: [...(body.description ? [body.description] : []), `${contract.file}: \`#/components/requestBodies/${name}\`.`],
          type: `${contract.components}['requestBodies']['${name}']['content']['application/json']`,
        },
        `${contract.file} request body ${name}`,
      );
    }

    for (const [path, item] of Object.entries(document.paths ?? {})) {
      for (const method of HTTP_METHODS) {
        const operation = item[method];
        if (operation?.operationId === undefined) continue;
        const id = operation.operationId;
        const where = `\`${id}\` (\`${method.toUpperCase()} ${path}\`)`;
        const operationType = `${contract.operations}['${id}']`;

        const body = jsonSchema(document, operation.requestBody, 'requestBodies');
        if (body !== undefined) {
          const name = `${prefix}${pascal(id)}Body`;
          // The body's own name: a named request body, else a named schema, else none (inline).
          const bodyName = isReference(operation.requestBody)
            ? refName(operation.requestBody.$ref, 'requestBodies')
            : isReference(body)
              ? refName(body.$ref, 'schemas')
              : undefined;
          // The body already has that very name: its own type serves.
          if (bodyName === undefined || schemaType(bodyName) !== name) {
            const type = bodyName !== undefined ? schemaType(bodyName) : `NonNullable<${operationType}['requestBody']>['content']['application/json']`;
            add({ name, doc: [`Request body of ${where} in ${contract.file}.`], type }, `${contract.file} request body of ${id}`);
          }
        }

        const successes = Object.entries(operation.responses ?? {})
          .filter(([status]) => /^2\d\d$/.test(status))
          .map(([status, response]) => ({ status, schema: jsonSchema(document, response, 'responses') }))
          .filter((success): success is { status: string; schema: NonNullable<MediaType['schema']> } => success.schema !== undefined);
        if (successes.length === 0) continue;
        const refs = new Set(successes.map((success) => (isReference(success.schema) ? refName(success.schema.$ref, 'schemas') : undefined)));
        const [only] = refs;
        // One named schema for every success: that name is the response's name.
        if (refs.size === 1 && only !== undefined) continue;
        const members = [
          ...new Set(
            successes.map((success) =>
              isReference(success.schema) ? schemaType(refName(success.schema.$ref, 'schemas')) : `${operationType}['responses'][${success.status}]['content']['application/json']`,
            ),
          ),
        ];
        const statuses = successes.map((success) => success.status).join(', ');
        add({ name: `${prefix}${pascal(id)}Response`, doc: [`Response body of ${where} in ${contract.file} (${statuses}).`], type: members.join(' | ') }, `${contract.file} response of ${id}`);
      }
    }
  }

  const imports = CONTRACTS.map((contract) => {
    const names = [contract.components === 'components' ? 'components' : `components as ${contract.components}`, contract.operations === 'operations' ? 'operations' : `operations as ${contract.operations}`];
    return `import type { ${names.join(', ')} } from './${contract.module}.js';`;
  });
  return [
    '/* eslint-disable */',
    `// Generated from ${CONTRACTS.map((contract) => contract.file).join(' and ')} by \`npm run generate\` (scripts/generated-types.ts). Do not edit by hand.`,
    '',
    ...imports,
    '',
    ...types.map((named) => `${docComment(named.doc)}\nexport type ${named.name} = ${named.type};\n`),
  ].join('\n');
}
