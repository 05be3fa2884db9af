import { parse as parseUrl } from 'node:url';
import type { Request } from 'express';
import type { Ajv as AjvInstance, ErrorObject, KeywordDefinition, ValidateFunction } from 'ajv';
import jtdTypeModule from 'ajv/dist/vocabularies/jtd/type.js';
import AjvDraft04Module from 'ajv-draft-04';
import addFormatsModule from 'ajv-formats';
import qs from 'qs';
import type { Operation } from './operations.js';
import type { OpenApiDocument } from './spec.js';

// CommonJS modules; under NodeNext their default exports arrive wrapped.
const AjvDraft04 = ((AjvDraft04Module as unknown as { default?: typeof AjvDraft04Module }).default ?? AjvDraft04Module) as unknown as new (options: object) => AjvInstance;
const addFormats = addFormatsModule as unknown as (ajv: AjvInstance, options: { mode: 'full' }) => AjvInstance;
const jtdType = ((jtdTypeModule as unknown as { default?: KeywordDefinition }).default ?? jtdTypeModule) as KeywordDefinition;

/**
 * The request validator of both contracts: what express-openapi-validator 5.6 (EOV)
 * did for the mock, reproduced for the small part of OpenAPI our contracts use
 * (scalar parameters in path, query and header without style, explode or content;
 * JSON request bodies), so that every answer stays byte-identical while a request
 * costs a few µs instead of EOV's 20–50 (decision 0020). Behaviour is held to EOV's
 * by a differential test (test/contract/request-validator-parity.test.ts).
 *
 * How it stays identical: the schemas are EOV's own, preprocessed as EOV does
 * (path-level parameters merged, examples dropped, `date`/`date-time` strings typed
 * by `x-eov-type`, as EOV's default serializers make them), wrapped as EOV wraps them
 * (`{ query, headers, params, cookies, body }`, one validator for parameters and one
 * for the body) and compiled by ajv set up as EOV sets it up (draft-04 for OpenAPI
 * 3.0, its formats then ajv-formats 'full', coercion and defaults for parameters,
 * defaults only for the body, first error only). What differs is when the work is
 * done: everything that does not depend on the request is done once per operation.
 */
export class RequestValidator {
  private readonly document: PreprocessedDocument;
  private readonly general: AjvInstance;
  private readonly body: AjvInstance;
  private readonly plans = new Map<Operation, OperationPlan | null>();
  private readonly securityQueryNames: string[];

  constructor(requestContract: OpenApiDocument) {
    this.document = preprocess(requestContract);
    assertSupported(this.document);
    // EOV's request validator drops the examples before building its ajv instances.
    delete this.document.components?.examples;
    this.general = createAjv(this.document, true);
    this.body = createAjv(this.document, false);
    this.securityQueryNames = securityQueryNames(this.document);
  }

  /**
   * Validates the request for `operation` (resolved by the OperationIndex, with its
   * decoded `params`) and mutates it as EOV did: `req.params` set, `req.query` made a
   * stable own property with values coerced and defaults filled, defaults filled in
   * `req.body`. Throws EOV's errors (RequestValidationError): a 400 `{ status,
   * errors: [{ path, message, errorCode }] }` that toApiError reads, or a 415.
   */
  validate(req: Request, operation: Operation, params: Record<string, string>): void {
    const plan = this.plan(operation);
    if (!plan) return;
    refuseMalformedEscapes(req, plan, params);
    // EOV looks the operation up by the request's method: HEAD, answered by the GET
    // operation, has none of its own, so EOV let it through unvalidated.
    if (req.method !== operation.method) return;
    req.params = { ...params };

    const contentType = req.headers['content-type'];
    const validators = this.validators(plan, contentType);

    // Express 5's req.query is a getter that parses again on every read: EOV pinned
    // one parsed copy as an own property (the same descriptor), which then keeps its
    // coerced values and defaults. A request answered before Express (bare-api.ts) has
    // it as a plain own property already, and redefining it twice a request was dearer
    // than the check.
    const own = Object.getOwnPropertyDescriptor(req, 'query');
    // Only a data property has `writable`: a getter's descriptor has none.
    const pinned = own?.writable === true;
    if (!pinned) Object.defineProperty(req, 'query', { writable: true, value: req.query });
    const query = req.query as Record<string, unknown>;
    expandBracketKeys(query);
    if (plan.reservedChecks.length > 0) refuseReservedCharacters(req.originalUrl, plan.reservedChecks);
    if (!plan.allowUnknownQuery) refuseUnknownOrEmpty(query, plan.queryNames, plan.allowEmpty, this.securityQueryNames);
    if (own && !pinned) Object.defineProperty(req, 'query', own);

    const data = { query: req.query ?? {}, headers: req.headers, params: req.params, cookies: undefined, body: req.body as unknown };
    const valid = validators.general(data);
    const validBody = validators.body(data);
    if (valid && validBody) return;
    const errors = augment([...(validators.general.errors ?? []), ...(validators.body.errors ?? [])]);
    throw new RequestValidationError(req.path, this.general.errorsText(errors, { dataVar: 'request' }), errors.map(toErrorItem));
  }

  private plan(operation: Operation): OperationPlan | null {
    let plan = this.plans.get(operation);
    if (plan === undefined) {
      plan = buildPlan(this.document, operation);
      this.plans.set(operation, plan);
    }
    return plan;
  }

  /**
   * The two validators for a Content-Type, compiled on first use as EOV did (its cache
   * key, its body choice). The contract router's body steps leave the header either
   * absent or a media type the operation declares, so an operation has few of them.
   */
  private validators(plan: OperationPlan, contentType: string | undefined): CompiledValidators {
    const key = contentType ?? NO_CONTENT_TYPE;
    let compiled = plan.validators.get(key);
    if (!compiled) {
      const bodySchema = bodySchemaFor(plan, contentType);
      const cacheKey = `${plan.method}-${plan.expressRoute}-${contentType ?? 'not_provided'}`;
      const wrapped = { paths: this.document.paths, components: this.document.components };
      const general = { ...wrapped, required: ['query', 'headers', 'params'], properties: { ...plan.parameterSchemas, body: {} } };
      const body: Record<string, unknown> = { ...wrapped, properties: { query: {}, headers: {}, params: {}, cookies: {}, body: bodySchema } };
      // EOV's test reads the body schema's own `required` keyword, not requestBody.required.
      if (bodySchema.required) body.required = ['body'];
      compiled = { general: compileOnce(this.general, general, cacheKey), body: compileOnce(this.body, body, cacheKey) };
      plan.validators.set(key, compiled);
    }
    return compiled;
  }
}

/** A 400 shaped as EOV's BadRequest (which toApiError maps to VALIDATION_ERROR), or its 415. */
export class RequestValidationError extends Error {
  constructor(
    readonly path: string,
    message: string,
    readonly errors: ValidationErrorItem[] = [{ path, message }],
    readonly status: 400 | 415 = 400,
  ) {
    super(message);
    this.name = status === 400 ? 'Bad Request' : 'Unsupported Media Type';
  }
}

export interface ValidationErrorItem {
  path: string;
  message: string;
  errorCode?: string;
}

// ----------------------------------------------------------------- per operation, once

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  allowReserved?: boolean;
  allowEmptyValue?: boolean;
  schema?: Schema;
  $ref?: string;
  [key: string]: unknown;
}

type Schema = Record<string, unknown>;

interface RequestBody {
  required?: boolean;
  content?: Record<string, { schema?: Schema }>;
}

interface OperationObject {
  parameters?: Parameter[];
  requestBody?: RequestBody;
  [key: string]: unknown;
}

interface PreprocessedDocument extends OpenApiDocument {
  security?: Array<Record<string, unknown>>;
}

interface CompiledValidators {
  general: ValidateFunction;
  body: ValidateFunction;
}

interface OperationPlan {
  method: string;
  expressRoute: string;
  /** The template as a regular expression, to read the raw path segments back. */
  pattern: RegExp;
  parameterSchemas: Record<'query' | 'headers' | 'params' | 'cookies', Schema>;
  queryNames: Set<string>;
  allowEmpty: Set<string>;
  allowUnknownQuery: boolean;
  /** Query parameters whose raw values may not hold reserved characters, in parameter order. */
  reservedChecks: Array<{ name: string; allowComma: boolean }>;
  requestBody: RequestBody | undefined;
  validators: Map<string, CompiledValidators>;
}

const NO_CONTENT_TYPE = '\0none';
const PARAMETER_FIELDS: Record<string, 'query' | 'headers' | 'params' | 'cookies'> = { query: 'query', header: 'headers', path: 'params', cookie: 'cookies' };

function buildPlan(document: PreprocessedDocument, operation: Operation): OperationPlan | null {
  const op = document.paths[operation.path]?.[operation.method.toLowerCase()] as OperationObject | undefined;
  if (!op) return null;
  const parameterSchemas: OperationPlan['parameterSchemas'] = { query: {}, headers: {}, params: {}, cookies: {} };
  const queryNames = new Set<string>();
  const allowEmpty = new Set<string>();
  const reservedChecks: OperationPlan['reservedChecks'] = [];
  for (const raw of op.parameters ?? []) {
    const parameter = dereferenceParameter(document, raw);
    const field = PARAMETER_FIELDS[parameter.in];
    if (!field) throw new Error(`${operation.operationId}: parameter ${parameter.name} is in '${parameter.in}'`);
    const name = parameter.in === 'header' ? parameter.name.toLowerCase() : parameter.name;
    const target = (parameterSchemas[field].properties ? parameterSchemas[field] : (parameterSchemas[field] = { type: 'object', properties: {} })) as { properties: Schema; required?: string[] };
    target.properties[name] = parameterSchema(document, parameter);
    if (parameter.required) (target.required ??= []).push(name);
    if (parameter.in === 'query') {
      queryNames.add(name);
      if (parameter.allowEmptyValue) allowEmpty.add(name);
      // A query parameter is form/explode by default; EOV allows a comma only when explode is false.
      if (!parameter.allowReserved) reservedChecks.push({ name, allowComma: parameter.explode === false });
    }
  }
  const allowUnknown = op['x-eov-allow-unknown-query-parameters'] ?? op['x-allow-unknown-query-parameters'];
  return {
    method: operation.method,
    expressRoute: operation.path.replace(/\{([^}]+)\}/g, ':$1'),
    pattern: new RegExp(`^${operation.path.split('/').map((segment) => (/^\{\w+\}$/.test(segment) ? '([^/]+)' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/')}$`),
    parameterSchemas,
    queryNames,
    allowEmpty,
    allowUnknownQuery: Boolean(allowUnknown),
    reservedChecks,
    requestBody: op.requestBody,
    validators: new Map(),
  };
}

/** EOV validated a parameter against its schema with a `$ref` followed (so that its `default` is applied). */
function parameterSchema(document: PreprocessedDocument, parameter: Parameter): Schema {
  const schema = parameter.schema;
  if (!schema) return parameter;
  return schema.$ref ? (resolve(document, schema) ?? parameter) : schema;
}

function dereferenceParameter(document: PreprocessedDocument, parameter: Parameter): Parameter {
  if (!Object.hasOwn(parameter, '$ref')) return parameter;
  const name = (parameter.$ref ?? '').replace(/^.+\//i, '');
  return document.components?.parameters?.[name] as Parameter;
}

/** EOV's BodySchemaParser for the Content-Type the pipeline leaves: a declared media type, or none. */
function bodySchemaFor(plan: OperationPlan, contentType: string | undefined): Schema {
  const requestBody = plan.requestBody;
  if (!requestBody?.content) return {};
  const content = contentType === undefined ? undefined : requestBody.content[contentType];
  if (content) return content.schema ?? {};
  if (contentType === undefined && requestBody.required === false) return {};
  // EOV's UnsupportedMediaType: toApiError answers any 415 the same way.
  throw new RequestValidationError(plan.expressRoute, `unsupported media type ${contentType}`, undefined, 415);
}

function compileOnce(ajv: AjvInstance, schema: object, key: string): ValidateFunction {
  let validate = ajv.getSchema(key);
  if (!validate) {
    ajv.addSchema(schema, key);
    validate = ajv.getSchema(key);
  }
  if (!validate) throw new Error(`could not compile the request validator ${key}`);
  return validate;
}

// ----------------------------------------------------------------- per request

/** EOV decoded the path parameters itself and refused a malformed escape, which the OperationIndex keeps as written. */
function refuseMalformedEscapes(req: Request, plan: OperationPlan, params: Record<string, string>): void {
  let suspect = false;
  for (const name in params) if ((params[name] as string).includes('%')) suspect = true;
  if (!suspect) return;
  const found = plan.pattern.exec(req.path === '/' ? req.baseUrl : `${req.baseUrl}${req.path}`);
  for (const raw of found?.slice(1) ?? []) {
    try {
      decodeURIComponent(raw);
    } catch {
      throw new RequestValidationError(req.path, "malformed uri'");
    }
  }
}

/**
 * `a[b]=1` arrives from Express's simple query parser as the key `a[b]`; EOV read
 * such keys with qs as nested objects (then refused them as unknown or mistyped).
 */
function expandBracketKeys(query: Record<string, unknown>): void {
  for (const key of Object.keys(query)) {
    if (!key.includes('[')) continue;
    const normalizedKey = key.split('[')[0] as string;
    const parsed = qs.parse(`${key}=${String(query[key])}`) as Record<string, unknown>;
    const value = parsed[normalizedKey];
    if (value !== undefined) {
      const existing = query[normalizedKey];
      if (existing && typeof existing === 'object' && typeof value === 'object' && !Array.isArray(value)) {
        query[normalizedKey] = { ...existing, ...value };
      } else {
        query[normalizedKey] = value;
      }
    }
    delete query[key];
  }
}

const RESERVED_CHARS = /[:/?#[\]@!$'()*+,;=]/;
/** The reserved characters a raw value can hold: between `=` and `&` there is neither. */
const RESERVED_IN_QUERY = /[:/?#[\]@!$'()*+,;]/;

/**
 * EOV refused a query value holding a reserved character unencoded, reading the raw
 * query as `url.parse` gives it. Most requests hold none at all, which is checked
 * first on the raw text without parsing it.
 */
function refuseReservedCharacters(originalUrl: string, checks: OperationPlan['reservedChecks']): void {
  const mark = originalUrl.indexOf('?');
  if (mark === -1 || !RESERVED_IN_QUERY.test(originalUrl.slice(mark + 1))) return;
  const pairs = rawQueryPairs(parseUrl(originalUrl).query);
  for (const { name, allowComma } of checks) {
    for (const value of pairs.get(name) ?? []) {
      for (const part of allowComma ? (value ?? '').split(',') : [value]) {
        if (part !== undefined && RESERVED_CHARS.test(part)) {
          throw new RequestValidationError(`/query/${name}`, `Parameter '${name}' must be url encoded. Its value may not contain reserved characters.`);
        }
      }
    }
  }
}

/** EOV's undecoded reading of the query: only the text between the first and second `=` is a pair's value. */
function rawQueryPairs(text: string | null): Map<string, Array<string | undefined>> {
  const pairs = new Map<string, Array<string | undefined>>();
  if (!text) return pairs;
  for (const pair of text.replace('?', '').split('&')) {
    const [key, value] = pair.split('=') as [string, string | undefined];
    const values = pairs.get(key) ?? [];
    values.push(value);
    pairs.set(key, values);
  }
  return pairs;
}

function refuseUnknownOrEmpty(query: Record<string, unknown>, known: Set<string>, allowEmpty: Set<string>, securityNames: string[]): void {
  for (const name of Object.keys(query)) {
    if (!known.has(name) && !securityNames.includes(name)) throw new RequestValidationError(`/query/${name}`, `Unknown query parameter '${name}'`);
    if (!allowEmpty.has(name) && query[name] === '') throw new RequestValidationError(`/query/${name}`, `Empty value found for query parameter '${name}'`);
  }
}

/** EOV appended an enum's allowed values to its message. */
function augment(errors: ErrorObject[]): ErrorObject[] {
  for (const error of errors) {
    const allowed = (error.params as { allowedValues?: unknown[] } | undefined)?.allowedValues;
    if (error.keyword === 'enum' && allowed) error.message = `${error.message}: ${allowed.join(', ')}`;
  }
  return errors;
}

function toErrorItem(error: ErrorObject): ValidationErrorItem {
  const params = error.params as { missingProperty?: string; additionalProperty?: string; unevaluatedProperty?: string } | undefined;
  // As EOV wrote it: an empty property name ('') gives an empty path, not the instance's.
  const required = params?.missingProperty && `${error.instancePath}/${params.missingProperty}`;
  const additional = params?.additionalProperty && `${error.instancePath}/${params.additionalProperty}`;
  const unevaluated = params?.unevaluatedProperty && `${error.instancePath}/${params.unevaluatedProperty}`;
  return { path: required ?? additional ?? unevaluated ?? error.instancePath, message: error.message as string, errorCode: `${error.keyword}.openapi.validation` };
}

// ----------------------------------------------------------------- the document, as EOV prepared it

/** EOV's own formats, registered before ajv-formats (which replaces most of them). */
const MAX_INT32 = 2 ** 31 - 1;
const MIN_INT32 = (-2) ** 31;
const MAX_INT64 = 2 ** 63 - 1;
const MIN_INT64 = (-2) ** 63;
const MAX_FLOAT = (2 - 2 ** -23) * 2 ** 127;
const MIN_POSITIVE_FLOAT = 2 ** -126;
const EOV_FORMATS = {
  int32: { type: 'number', validate: (i: number) => Number.isInteger(i) && i <= MAX_INT32 && i >= MIN_INT32 },
  int64: { type: 'number', validate: (i: number) => Number.isInteger(i) && i <= MAX_INT64 && i >= MIN_INT64 },
  float: { type: 'number', validate: (i: number) => typeof i === 'number' && (i === 0 || (i <= MAX_FLOAT && i >= MIN_POSITIVE_FLOAT) || (i >= -MAX_FLOAT && i <= -MIN_POSITIVE_FLOAT)) },
  double: { type: 'number', validate: (i: number) => typeof i === 'number' },
  byte: (b: string) => b.length % 4 === 0 && /^[A-Za-z0-9+/]*(=|==)?$/.test(b),
  binary: () => true,
  password: () => true,
} as const;

/** Formats EOV's default serializers name: their strings are typed by `x-eov-type` instead of `type`. */
const SERDES_FORMATS = ['date', 'date-time'];

/** ajv as EOV's createRequestAjv built it for `validateRequests: { allowUnknownQueryParameters: false }`, `validateFormats: true`, `ajvFormats: { mode: 'full' }`. */
function createAjv(document: PreprocessedDocument, coerceTypes: boolean): AjvInstance {
  const ajv = new AjvDraft04({
    strict: false,
    strictNumbers: true,
    strictTuples: true,
    allowUnionTypes: false,
    validateSchema: false,
    useDefaults: true,
    validateFormats: true,
    formats: EOV_FORMATS,
    ...(coerceTypes && { coerceTypes: true }),
  });
  for (const format of SERDES_FORMATS) ajv.addFormat(format, true);
  for (const [name, format] of Object.entries(EOV_FORMATS)) ajv.addFormat(name, format as Parameters<AjvInstance['addFormat']>[1]);
  addFormats(ajv, { mode: 'full' });
  ajv.addKeyword({ ...jtdType, keyword: 'x-eov-type', before: 'type' } as KeywordDefinition);
  for (const [id, schema] of Object.entries(document.components?.schemas ?? {})) ajv.addSchema(schema as object, `#/components/schemas/${id}`);
  return ajv;
}

function securityQueryNames(document: PreprocessedDocument): string[] {
  const schemes = (document.components?.securitySchemes ?? {}) as Record<string, { type?: string; in?: string; name?: string }>;
  return Object.values(schemes)
    .filter((scheme) => scheme.type === 'apiKey' && scheme.in === 'query')
    .map((scheme) => scheme.name as string);
}

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

function resolve(document: PreprocessedDocument, node: unknown): Schema | undefined {
  if (!node || typeof node !== 'object') return undefined;
  const ref = (node as { $ref?: unknown }).$ref;
  if (typeof ref !== 'string') return node as Schema;
  let target: unknown = document;
  for (const raw of ref.replace(/^#\//, '').split('/')) target = (target as Record<string, unknown> | undefined)?.[raw.replace(/~1/g, '/').replace(/~0/g, '~')];
  return target as Schema | undefined;
}

function removeExamples(node: Schema | null | undefined): void {
  if (!node) return;
  delete node.example;
  delete node.examples;
}

/**
 * EOV's SchemaPreprocessor, the parts that change a request's validation: path-level
 * parameters appended to each operation's, request bodies and their schemas
 * dereferenced, examples removed, and the `date`/`date-time` strings it reaches
 * (walking as it walks: one of allOf, oneOf, anyOf, items, properties or
 * additionalProperties per schema) typed by `x-eov-type`. It works on its own copy.
 */
function preprocess(contract: OpenApiDocument): PreprocessedDocument {
  const document = structuredClone(contract) as PreprocessedDocument;
  const roots: Array<{ schema: Schema; path: string[] }> = [];
  const schemas = (document.components?.schemas ?? {}) as Record<string, Schema>;
  for (const [id, schema] of Object.entries(schemas)) {
    const resolved = resolve(document, schema) as Schema;
    schemas[id] = resolved;
    roots.push({ schema: resolved, path: ['components', 'schemas', id] });
  }
  const bodyRoots: typeof roots = [];
  const parameterRoots: typeof roots = [];
  for (const [path, rawItem] of Object.entries(document.paths)) {
    const item = resolve(document, rawItem) as Record<string, unknown>;
    document.paths[path] = item;
    for (const method of Object.keys(item)) {
      if (!HTTP_METHODS.has(method)) continue;
      const op = item[method] as OperationObject;
      appendPathLevelParameters(document, item, method);
      const requestBody = resolve(document, op.requestBody) as RequestBody | undefined;
      if (requestBody !== undefined) op.requestBody = requestBody;
      for (const [type, media] of Object.entries(requestBody?.content ?? {})) {
        const schema = resolve(document, media.schema) as Schema;
        media.schema = schema;
        removeExamples(media as Schema);
        bodyRoots.push({ schema, path: ['paths', path, method, 'requestBody', 'content', type, 'schema'] });
      }
      for (const parameter of op.parameters ?? []) {
        if (parameter.$ref) continue;
        removeExamples(parameter as Schema);
        const schema = parameter.schema;
        if (schema && !schema.items && !schema.$ref) parameterRoots.push({ schema, path: [] });
      }
    }
  }
  removeExamples(document.components as Schema | undefined);
  const seen = new Set<Schema>();
  const visit = (parent: Schema | undefined, schema: Schema | undefined): void => {
    if (!schema || seen.has(schema)) return;
    seen.add(schema);
    if (schema.type === 'string' && schema.format && SERDES_FORMATS.includes(schema.format as string)) {
      schema['x-eov-type'] = schema.type;
      if ('nullable' in schema) schema.type = ['string', 'number', 'boolean', 'object', 'array'];
      else delete schema.type;
    }
    removeExamples(parent);
    removeExamples(schema);
    // EOV hands the reference itself on as the resolved schema's parent.
    if (schema.$ref) return visit(schema, resolve(document, schema));
    const children = schema.allOf ?? schema.oneOf ?? schema.anyOf;
    if (Array.isArray(children)) for (const child of children) visit(schema, child as Schema);
    else if (schema.type === 'array' && schema.items) visit(schema, schema.items as Schema);
    else if (schema.properties) for (const child of Object.values(schema.properties as Record<string, Schema>)) visit(schema, child);
    else if (schema.additionalProperties) visit(schema, schema.additionalProperties as Schema);
  };
  for (const root of [...roots, ...bodyRoots, ...parameterRoots]) visit(undefined, root.schema);
  return document;
}

/** Path-level parameters join each operation's, unless the operation names the same one. */
function appendPathLevelParameters(document: PreprocessedDocument, item: Record<string, unknown>, method: string): void {
  const shared = (item.parameters as Parameter[] | undefined) ?? [];
  if (shared.length === 0) return;
  const op = resolve(document, item[method]) as OperationObject;
  op.parameters ??= [];
  for (const parameter of shared) {
    const named = op.parameters.some((own) => (own.name && own.name === parameter.name) || (own.$ref && own.$ref === parameter.$ref));
    if (!named) op.parameters.push(parameter);
  }
}

/**
 * The parts of OpenAPI this validator does not reproduce: a contract that starts
 * using one fails at start, naming it, rather than being validated differently.
 */
function assertSupported(document: PreprocessedDocument): void {
  const problems: string[] = [];
  const scan = (node: unknown, where: string): void => {
    if (Array.isArray(node)) node.forEach((item, i) => scan(item, `${where}/${i}`));
    else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (['readOnly', 'writeOnly', 'discriminator', 'x-stoplight'].includes(key) || (key.startsWith('x-eov-') && key !== 'x-eov-type') || key === 'x-allow-unknown-query-parameters') problems.push(`${where}/${key}`);
        scan(value, `${where}/${key}`);
      }
    }
  };
  scan(document.paths, '#/paths');
  scan(document.components?.schemas, '#/components/schemas');
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!HTTP_METHODS.has(method)) continue;
      for (const raw of (op as OperationObject).parameters ?? []) {
        const parameter = dereferenceParameter(document, raw);
        const schema = parameterSchema(document, parameter);
        const scalar = !schema.$ref && (['string', 'integer', 'number', 'boolean'].includes(schema.type as string) || schema['x-eov-type'] === 'string');
        if (!scalar || parameter.style !== undefined || parameter.explode !== undefined || parameter.content !== undefined || parameter.name.includes('[')) {
          problems.push(`${method.toUpperCase()} ${path} parameter ${parameter.name}`);
        }
      }
      for (const type of Object.keys((op as OperationObject).requestBody?.content ?? {})) {
        if (type !== 'application/json') problems.push(`${method.toUpperCase()} ${path} body ${type}`);
      }
    }
  }
  if (problems.length > 0) throw new Error(`The request validator does not reproduce what these parts of the contract use: ${problems.join(', ')}`);
}
