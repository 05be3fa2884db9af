import { apiRoutes } from '../api/index.js';
import { networkPostRules } from '../api/posts/network-rules.js';
import { PLATFORM_IDS, platformFacts } from '../platforms/catalog.js';
import { declaredOperations, type DeclaredOperation } from '../http/declared-responses.js';
import { OperationIndex } from '../http/operations.js';
import type { RouteDefinition } from '../http/route.js';
import { loadSpec, type OpenApiDocument } from '../http/spec.js';

/** `400 VALIDATION_ERROR, INVALID_CURSOR; 401 UNAUTHORIZED`: an operation's `x-error-codes`, by status. */
function errorCodes(declared: DeclaredOperation | undefined): string {
  return [...(declared?.statuses ?? [])]
    .filter(([, codes]) => codes.length > 0)
    .map(([status, codes]) => `${status} ${codes.join(', ')}`)
    .join('; ');
}

function table(index: OperationIndex, routes: RouteDefinition[], declared: Map<string, DeclaredOperation>): string[] {
  const byId = new Map(routes.map((definition) => [definition.operationId, definition]));
  const lines = ['| Operation | Method and path | Status | Error codes it can answer | Where the mock differs |', '|---|---|---|---|---|'];
  const tags = [...new Set(index.operations.map((operation) => operation.tags[0] ?? 'Other'))];
  for (const tag of tags) {
    for (const operation of index.operations.filter((op) => (op.tags[0] ?? 'Other') === tag)) {
      const definition = byId.get(operation.operationId);
      const status = definition ? 'implemented' : 'not yet (501)';
      const notes = (definition?.notes ?? '').replace(/\|/g, '\\|').replace(/\n/g, ' ');
      lines.push(`| ${tag}: \`${operation.operationId}\` | \`${operation.method} ${operation.path}\` | ${status} | ${errorCodes(declared.get(operation.operationId))} | ${notes} |`);
    }
  }
  return lines;
}

type Schema = { $ref?: string; oneOf?: Schema[]; anyOf?: Schema[]; properties?: Record<string, Schema>; type?: string };

/** A `$ref` followed, once or more, within the document. */
function resolved<T>(document: OpenApiDocument, node: T | { $ref?: string } | undefined): T | undefined {
  let current = node as { $ref?: string } | undefined;
  for (let hops = 0; current?.$ref !== undefined && hops < 10; hops++) {
    current = current.$ref
      .split('/')
      .slice(1)
      .reduce<unknown>((at, key) => (at as Record<string, unknown> | undefined)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], document) as { $ref?: string } | undefined;
  }
  return current as T | undefined;
}

const SHOWN_FIELDS = 4;

/** `Post`, from `#/components/schemas/Post`. */
function schemaName(schema: Schema | undefined): string | undefined {
  return schema?.$ref?.split('/').pop();
}

/** An object's fields as a sketch: `{ id, name, url, enabled, … }`. */
function fieldsSketch(document: OpenApiDocument, schema: Schema | undefined): string {
  const names = Object.keys(resolved<Schema>(document, schema)?.properties ?? {});
  return `{ ${names.slice(0, SHOWN_FIELDS).join(', ')}${names.length > SHOWN_FIELDS ? ', …' : ''} }`;
}

/**
 * What an answer's body is, as a client destructures it: an envelope of one field (`{ post: Post }`,
 * `const { post } = await res.json()`) or the object itself (`Webhook`, `const webhook = …`).
 */
function answerShape(document: OpenApiDocument, schema: Schema | undefined): string {
  if (schema === undefined) return 'no body';
  const alternatives = schema.oneOf ?? schema.anyOf;
  if (alternatives) return alternatives.map((alternative) => answerShape(document, alternative)).join(', or ');
  const target = resolved<Schema>(document, schema);
  const fields = Object.entries(target?.properties ?? {});
  const name = schemaName(schema) ?? 'an object';
  if (fields.length === 1) {
    const [field, inner] = fields[0] as [string, Schema];
    const innerName = schemaName(inner);
    if (innerName !== undefined || resolved<Schema>(document, inner)?.properties) return `\`{ ${field}: ${innerName ?? 'object'} }\`: an envelope, \`{ ${field}: ${fieldsSketch(document, inner)} }\``;
  }
  return `\`${name}\` itself, bare: \`${fieldsSketch(document, schema)}\``;
}

/**
 * What each write answers: the one place a client learns that `createPost` wraps its post
 * (`{ post }`) while `createWebhook` answers the webhook bare, read from the contract.
 */
function writeAnswers(index: OperationIndex, document: OpenApiDocument): string[] {
  const lines = ['| Operation | Method and path | Status | Answer |', '|---|---|---|---|'];
  for (const operation of index.operations.filter((op) => op.method === 'POST' || op.method === 'PUT' || op.method === 'PATCH')) {
    const responses = (document.paths[operation.path] as Record<string, { responses?: Record<string, unknown> }> | undefined)?.[operation.method.toLowerCase()]?.responses ?? {};
    for (const [status, response] of Object.entries(responses).filter(([code]) => code.startsWith('2'))) {
      const schema = resolved<{ content?: Record<string, { schema?: Schema }> }>(document, response as { $ref?: string })?.content?.['application/json']?.schema;
      lines.push(`| \`${operation.operationId}\` | \`${operation.method} ${operation.path}\` | ${status} | ${answerShape(document, schema)} |`);
    }
  }
  return lines;
}

const yes = (value: boolean): string => (value ? 'yes' : 'no');

/** What each network publishes, from the create-post rules the mock enforces (src/api/posts/network-rules.ts). */
function networkMedia(): string[] {
  const lines = ['| Network | Text only | Image | Several images (at most) | Video | Stories | Thread | Text limit | Fields it requires |', '|---|---|---|---|---|---|---|---:|---|'];
  for (const platform of PLATFORM_IDS) {
    const rules = networkPostRules(platform);
    const takes = (kind: (typeof rules.mediaKinds)[number]) => rules.mediaKinds.includes(kind);
    const facts = platformFacts(platform);
    lines.push(
      `| \`${platform}\` (${facts?.kind ?? ''}) | ${yes(takes('text'))} | ${yes(takes('image'))} | ${takes('multi-image') ? `yes (${rules.maxImages})` : 'no'} | ${yes(takes('video'))} | ${yes(takes('stories'))} | ${yes(rules.threads)} | ${facts?.textLimit ?? ''} | ${rules.required.map((field) => `\`${field}\``).join(', ') || 'none'} |`,
    );
  }
  return lines;
}

/**
 * docs/coverage.md, generated from openapi.yaml and the route table (moto's
 * implementation-coverage page). A test fails when the committed file is stale.
 */
export function renderCoverageDoc(): string {
  const document = loadSpec('openapi.yaml').document;
  const index = new OperationIndex(document);
  const declared = declaredOperations(document);
  const pairs = [...declared.values()].reduce((sum, operation) => sum + [...operation.statuses.values()].flat().length, 0);
  const implemented = index.operations.filter((operation) => apiRoutes.some((definition) => definition.operationId === operation.operationId));
  return [
    '# Implementation coverage',
    '',
    '<!-- Generated by `npm run coverage:doc` from openapi.yaml and src/api; do not edit by hand. -->',
    '',
    `${implemented.length} of ${index.operations.length} operations of \`openapi.yaml\` are implemented. An operation`,
    'that is not answers `501 NOT_IMPLEMENTED` in the error envelope, after authentication and request',
    'validation, so a client already gets real 401 and 400 answers from it.',
    '',
    `Each operation declares the error codes it can answer in its \`x-error-codes\` (${pairs} in all; decision`,
    '0036): contract coverage counts those, so a suite that provokes each of them reaches 100%.',
    '',
    ...table(index, apiRoutes, declared),
    '',
    '## What each write answers',
    '',
    "Some writes answer an envelope of one field, others the object itself: `createPost` answers `{ post }`",
    'while `createWebhook` answers the webhook bare. Read from the 2xx responses of `openapi.yaml`.',
    '',
    ...writeAnswers(index, document),
    '',
    '## What each network publishes',
    '',
    'Read from the rules the mock enforces: a text-only post to a network without "Text only" is refused with',
    '`400 VALIDATION_ERROR` (param `mediaUrls`), a kind of media it does not publish with `400 PLATFORM_NOT_SUPPORTED`',
    '(param `mediaKind`), more images than it takes with `400 VALIDATION_ERROR`. The text limit is counted in code',
    'points (a premium microblogging account has more).',
    '',
    ...networkMedia(),
    '',
  ].join('\n');
}
