import { parse as parseQuery } from 'node:querystring';
import type { Request } from 'express';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { declaredResponseKey } from '../http/contract.js';
import { undeclaredErrorCode } from '../http/declared-responses.js';
import { nonFinitePath, requestContract } from '../http/contract-router.js';
import { OperationIndex, type Operation } from '../http/operations.js';
import { escapePointerToken, valueAtPointer } from '../lib/json-pointer.js';
import { RequestValidationError, RequestValidator } from '../http/request-validator.js';
import type { OpenApiDocument } from '../http/spec.js';
import { type RecordedExchange, type RecordedRequest, type RecordedResponse } from './recording.js';
import { REDACTED } from '../redaction/redactor.js';

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/*
 * The one analyser of an exchange against openapi.yaml: the proxy calls it on every request
 * it forwards, and `drift` on every exchange of a recording, so what the proxy flags live
 * and what the drift report lists afterwards cannot disagree.
 *
 * Requests are judged by the mock's own RequestValidator, so the proxy reports exactly what
 * the mock would refuse. Responses are judged by a walk of the declared schema rather than
 * by one ajv validation of the whole body: ajv loses track of which `oneOf` branch an error
 * came from once the branch is a `$ref`, and it says nothing of fields the schema does not
 * declare when the schema allows them; the walk names each difference by kind and place.
 * ajv still does the leaf checks (formats, patterns, bounds), set up as ContractChecker sets
 * it up, so the mock's own answers, which pass ContractChecker, pass here too.
 */

export const FINDING_KINDS = [
  'invalid-request',
  'unknown-operation',
  'undeclared-status',
  'undeclared-error-code',
  'undeclared-field',
  'undeclared-enum-value',
  'wrong-format',
  'wrong-type',
  'missing-required-field',
  'missing-required-header',
  'undeclared-header',
  'body-not-json',
  'constraint',
] as const;
export type FindingKind = (typeof FINDING_KINDS)[number];

export interface Finding {
  kind: FindingKind;
  side: 'request' | 'response';
  /** Where: `status`, `header x-foo`, `body/data/0/status` (JSON Pointer of the body, no leading '#'), `query limit`, `path id`. */
  field: string;
  /** One line a person understands: "status 418 is not declared for getPost". */
  message: string;
  /** The offending value when there is one (an undeclared enum value, a wrong format), for the drift report's examples. */
  value?: unknown;
  /**
   * True when the contract allows what was found, so it is drift but no violation: a field
   * where the schema allows additional properties, a value of an open enumeration outside its
   * `x-known-values`, an API header the response does not declare. A strict proxy lets these pass.
   */
  tolerated?: boolean;
}

export interface ComparedExchange {
  operationId: string | null;
  findings: Finding[];
}

type Schema = Record<string, unknown>;

/** What the schemas applying at one place of a body declare, merged (see undeclaredFields). */
interface DeclaredView {
  /** Additional properties allowed, or no `properties` at all: everything under it is declared. */
  freeForm: boolean;
  /** Each declared property, with the schemas (of any branch) that declare it. */
  properties: Map<string, Schema[]>;
  /** The schemas of an array's items, when any applies. */
  items?: Schema[];
}

interface HeaderObject {
  required?: boolean;
  schema?: Schema;
  $ref?: string;
}

interface ResponseObject {
  content?: Record<string, { schema?: Schema }>;
  headers?: Record<string, HeaderObject>;
  $ref?: string;
}

interface OperationObject {
  security?: Array<Record<string, unknown>>;
  responses?: Record<string, ResponseObject>;
}

interface SecurityScheme {
  type?: string;
  in?: string;
  name?: string;
  scheme?: string;
}

/**
 * Headers any HTTP server, proxy or CDN may add: never reported as undeclared, even when
 * their name looks like the API's own.
 */
const ORDINARY_HEADERS = new Set([
  'accept-ranges',
  'age',
  'allow',
  'alt-svc',
  'cache-control',
  'connection',
  'content-encoding',
  'content-language',
  'content-length',
  'content-security-policy',
  'content-type',
  'date',
  'etag',
  'expires',
  'keep-alive',
  'last-modified',
  'location',
  'permissions-policy',
  'pragma',
  'referrer-policy',
  'server',
  'server-timing',
  'set-cookie',
  'strict-transport-security',
  'trailer',
  'transfer-encoding',
  'vary',
  'via',
  'x-content-type-options',
  'x-frame-options',
  'x-powered-by',
  'x-xss-protection',
]);

/** The keywords the walk handles itself; every other one is a leaf constraint ajv checks. */
const WALKED_KEYWORDS = new Set([
  '$ref',
  'type',
  'nullable',
  'enum',
  'format',
  'properties',
  'additionalProperties',
  'required',
  'items',
  'allOf',
  'oneOf',
  'anyOf',
  'description',
  'example',
  'examples',
  'title',
  'default',
  'deprecated',
  'readOnly',
  'writeOnly',
  'discriminator',
  'externalDocs',
  'xml',
]);

const JSON_MEDIA = /^application\/(?:[\w.+-]+\+)?json$/i;

/**
 * Compares exchanges with an OpenAPI document. Everything that depends only on the document
 * (the operation index, the request validator, each leaf validator) is built once and
 * cached; `compare` itself does no I/O.
 */
export class ContractComparer {
  private readonly index: OperationIndex;
  private readonly requests: RequestValidator;
  private readonly ajv: Ajv;
  private readonly leafValidators = new WeakMap<Schema, ValidateFunction | null>();
  private readonly formatValidators = new Map<string, ValidateFunction>();
  private readonly views = new WeakMap<Schema[], DeclaredView>();
  /** A one-schema list per body schema, so that its view is found again. */
  private readonly roots = new WeakMap<Schema, Schema[]>();
  private readonly references = new Map<string, unknown>();
  /** Lower-case names of every header a response of the contract declares. */
  private readonly responseHeaderNames = new Set<string>();
  /** `x-<word>-` prefixes of the contract's own headers (`x-ratelimit-`, `x-gateway-`): the API's namespace. */
  private readonly apiHeaderPrefixes = new Set<string>();

  constructor(private readonly document: OpenApiDocument) {
    this.index = new OperationIndex(document);
    this.requests = new RequestValidator(requestContract(document));
    this.ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
    addFormats(this.ajv);
    this.learnHeaderNames();
  }

  compare(exchange: Pick<RecordedExchange, 'request' | 'response'>): ComparedExchange {
    const { request, response } = exchange;
    const match = this.index.match(request.method.toUpperCase(), request.path);
    if (match.kind !== 'found') {
      const why = match.kind === 'method-not-allowed' ? `the path takes ${match.allowed.join(', ')}` : 'no path of the contract matches';
      return {
        operationId: null,
        findings: [{ kind: 'unknown-operation', side: 'request', field: 'path', message: `${request.method} ${request.path} is no operation of the contract (${why})`, value: `${request.method} ${request.path}` }],
      };
    }
    const { operation, params } = match;
    const findings = tooDeep('request', () => this.checkRequest(request, operation, params));
    if (response) findings.push(...tooDeep('response', () => this.checkResponse(request, response, operation)));
    return { operationId: operation.operationId, findings: dedupe(findings) };
  }

  // ------------------------------------------------------------------ request

  private checkRequest(request: RecordedRequest, operation: Operation, params: Record<string, string>): Finding[] {
    const headers = lowerCaseKeys(request.headers);
    const missingCredentials = this.missingCredentials(operation, headers);
    if (missingCredentials) return [missingCredentials];
    if (request.method.toUpperCase() !== operation.method) return []; // HEAD answered by GET: the mock does not validate it either.

    let body: unknown;
    if (operation.bodyMediaTypes.length === 0) {
      // An operation that takes no body ignores one sent anyway, and its Content-Type.
      delete headers['content-type'];
    } else if (headers['content-type'] !== undefined) {
      const media = (headers['content-type'].split(';')[0] ?? '').trim().toLowerCase();
      if (!operation.bodyMediaTypes.includes(media)) {
        return [{ kind: 'invalid-request', side: 'request', field: 'header content-type', message: `${operation.operationId} takes ${operation.bodyMediaTypes.join(' or ')}, not ${media}`, value: media }];
      }
      headers['content-type'] = media;
      if (request.json === undefined && request.text !== undefined && request.text !== '') {
        return [{ kind: 'body-not-json', side: 'request', field: 'body', message: `the ${media} body of ${operation.operationId} does not parse`, value: request.text.slice(0, 80) }];
      }
      body = structuredClone(request.json);
    }

    // A hand-edited recording may leave the query out.
    const rawQuery = request.query ?? '';
    const query = { ...parseQuery(rawQuery) } as Record<string, unknown>;
    const originalUrl = rawQuery === '' ? request.path : `${request.path}?${rawQuery}`;
    // The validator reads an Express request; these are the fields it reads, as Express sets them.
    const req = { method: operation.method, path: request.path, baseUrl: '', originalUrl, url: originalUrl, headers, query, params: {}, body } as unknown as Request;
    try {
      this.requests.validate(req, operation, params);
    } catch (error) {
      if (!(error instanceof RequestValidationError)) throw error;
      return [requestFinding(error, operation, req)];
    }
    // As the contract router does next: `1e309` passes `maximum` as Infinity.
    const inQuery = nonFinitePath(req.query);
    if (inQuery !== undefined) return [{ kind: 'constraint', side: 'request', field: `query ${inQuery}`, message: `query ${inQuery} must be a finite number` }];
    const inBody = nonFinitePath(req.body);
    if (inBody !== undefined) {
      const field = inBody === '' ? 'body' : `body/${inBody.replace(/\[(\d+)\]/g, '.$1').split('.').map(escapePointerToken).join('/')}`;
      return [{ kind: 'constraint', side: 'request', field, message: `${field} must be a finite number` }];
    }
    return [];
  }

  /** The mock answers 401 to a request carrying none of the credentials the operation accepts. */
  private missingCredentials(operation: Operation, headers: Record<string, string>): Finding | undefined {
    const op = this.operationObject(operation);
    const requirements = op?.security ?? (this.document as { security?: OperationObject['security'] }).security ?? [];
    if (requirements.length === 0 || requirements.some((requirement) => Object.keys(requirement).length === 0)) return undefined;
    const schemes = (this.document.components?.securitySchemes ?? {}) as Record<string, SecurityScheme>;
    const names: string[] = [];
    for (const requirement of requirements) {
      const satisfied = Object.keys(requirement).every((name) => {
        const scheme = schemes[name];
        if (scheme?.type === 'apiKey' && scheme.in === 'header' && scheme.name) {
          names.push(`header ${scheme.name.toLowerCase()}`);
          return headers[scheme.name.toLowerCase()] !== undefined;
        }
        if (scheme?.type === 'http') {
          names.push(`Authorization ${scheme.scheme ?? ''}`.trim());
          return new RegExp(`^${scheme.scheme ?? ''}\\s`, 'i').test(headers.authorization ?? '');
        }
        return true; // A scheme this check does not read is given the benefit of the doubt.
      });
      if (satisfied) return undefined;
    }
    return { kind: 'invalid-request', side: 'request', field: names[0] ?? 'header authorization', message: `${operation.operationId} carries no credentials (${names.join(' or ')})` };
  }

  // ------------------------------------------------------------------ response

  private checkResponse(request: RecordedRequest, response: RecordedResponse, operation: Operation): Finding[] {
    const declared = this.responseFor(operation, response.status);
    if (!declared) {
      return [{ kind: 'undeclared-status', side: 'response', field: 'status', message: `status ${response.status} is not declared for ${operation.operationId}`, value: response.status }];
    }
    const findings: Finding[] = [];
    const headers = lowerCaseKeys(response.headers);
    findings.push(...this.checkHeaders(declared, headers));

    const media = (headers['content-type']?.split(';')[0] ?? '').trim().toLowerCase();
    const hasBody = response.json !== undefined || (response.text !== undefined && response.text !== '');
    // A HEAD answer carries the headers of the GET without its body.
    if (request.method.toUpperCase() === 'HEAD' || !hasBody) return findings;
    const content = declared.content ?? {};
    const entry = content[media] ?? (media === '' ? Object.values(content)[0] : undefined);
    if (!entry) {
      const expected = Object.keys(content);
      findings.push({
        kind: 'constraint',
        side: 'response',
        field: 'header content-type',
        message: expected.length === 0 ? `status ${response.status} of ${operation.operationId} declares no body, yet one came (${media || 'no Content-Type'})` : `the body came as ${media || 'no Content-Type'}, not ${expected.join(' or ')}`,
        value: media,
      });
      return findings;
    }
    const isJson = JSON_MEDIA.test(media || (Object.keys(content)[0] ?? ''));
    if (isJson && response.json === undefined) {
      findings.push({ kind: 'body-not-json', side: 'response', field: 'body', message: `the ${media || 'JSON'} body does not parse`, value: (response.text ?? '').slice(0, 80) });
      return findings;
    }
    if (entry.schema) findings.push(...this.checkBody(entry.schema, isJson ? response.json : response.text));
    const undeclared = isJson ? undeclaredErrorCode(this.operationObject(operation), declared, response.status, response.json) : undefined;
    if (undeclared) {
      const field = typeof (response.json as { error?: unknown }).error === 'object' ? 'body/error/code' : 'body/code';
      findings.push({
        kind: 'undeclared-error-code',
        side: 'response',
        field,
        message: `error code ${undeclared.code} is not one ${operation.operationId} declares for ${response.status} (x-error-codes: ${undeclared.declared.join(', ') || 'none'})`,
        value: undeclared.code,
      });
    }
    return findings;
  }

  private checkHeaders(declared: ResponseObject, headers: Record<string, string>): Finding[] {
    const findings: Finding[] = [];
    const names = new Set<string>();
    for (const [name, raw] of Object.entries(declared.headers ?? {})) {
      const lower = name.toLowerCase();
      names.add(lower);
      const header = this.resolve(raw) as HeaderObject;
      const value = headers[lower];
      if (value === undefined) {
        if (header.required) findings.push({ kind: 'missing-required-header', side: 'response', field: `header ${lower}`, message: `required header ${name} is missing` });
        continue;
      }
      if (header.schema) {
        const schema = this.resolve(header.schema) as Schema;
        this.validate(schema, coerceHeader(schema, value), `header ${lower}`, findings);
      }
    }
    for (const [name, value] of Object.entries(headers)) {
      if (names.has(name) || !this.isApiHeader(name)) continue;
      findings.push({ kind: 'undeclared-header', side: 'response', field: `header ${name}`, message: `header ${name} is not declared for this response`, value, tolerated: true });
    }
    return findings;
  }

  /**
   * An undeclared response header is reported only when it looks like the API's own: one the
   * contract declares on some other response, or one in the namespace of the contract's `x-`
   * headers (`x-ratelimit-…`, `x-gateway-…`). Everything else (what servers, proxies and CDNs
   * add: `x-request-id`, `cf-ray`, `x-cache`…) is noise for a drift report.
   */
  private isApiHeader(name: string): boolean {
    if (ORDINARY_HEADERS.has(name) || name.startsWith('access-control-')) return false;
    if (this.responseHeaderNames.has(name)) return true;
    for (const prefix of this.apiHeaderPrefixes) if (name.startsWith(prefix)) return true;
    return false;
  }

  /** Validation findings of the chosen schemas, then the fields nothing declares. */
  private checkBody(schema: Schema, body: unknown): Finding[] {
    const findings: Finding[] = [];
    this.validate(schema, body, 'body', findings);
    this.undeclaredFields(this.viewOf(this.rootList(schema)), body, 'body', findings);
    return findings;
  }

  /**
   * What ajv would find, by kind and place. A closed object's extra fields are found here (they
   * break the contract); `oneOf`/`anyOf` keep the findings of the branch that fits best.
   */
  private validate(raw: Schema, value: unknown, at: string, findings: Finding[]): void {
    const schema = this.resolve(raw) as Schema;
    if (value === null && schema.nullable === true) return;
    for (const member of (schema.allOf as Schema[] | undefined) ?? []) this.validate(member, value, at, findings);
    for (const keyword of ['oneOf', 'anyOf'] as const) {
      const branches = schema[keyword] as Schema[] | undefined;
      if (branches) this.validateUnion(keyword, branches, value, at, findings);
    }
    if (schema.type !== undefined && !hasType(value, schema.type as string)) {
      findings.push({ kind: 'wrong-type', side: 'response', field: at, message: `${at} is ${describeType(value)}, not ${schema.type as string}`, value });
      return;
    }
    if (Array.isArray(schema.enum) && !schema.enum.some((allowed) => allowed === value)) {
      findings.push({ kind: 'undeclared-enum-value', side: 'response', field: at, message: `${at} is ${JSON.stringify(value)}, not one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`, value });
    }
    const known = schema['x-known-values'];
    if (Array.isArray(known) && typeof value === 'string' && !known.includes(value)) {
      findings.push({ kind: 'undeclared-enum-value', side: 'response', field: at, message: `${at} is ${JSON.stringify(value)}, a value of an open enumeration the contract does not list`, value, tolerated: true });
    }
    if (typeof schema.format === 'string' && !this.formatValidator(schema.format)(value)) {
      findings.push({ kind: 'wrong-format', side: 'response', field: at, message: `${at} is not a valid ${schema.format}: ${JSON.stringify(value)}`, value });
    }
    const leaf = this.leafValidator(schema);
    if (leaf && !leaf(value)) {
      for (const error of leaf.errors ?? []) {
        const where = error.instancePath === '' ? at : `${at}${error.instancePath}`;
        findings.push({ kind: 'constraint', side: 'response', field: where, message: `${where} ${error.message ?? 'is invalid'}`, value: valueAtPointer(value, error.instancePath) });
      }
    }
    if (Array.isArray(value)) {
      if (schema.items) value.forEach((item, i) => this.validate(schema.items as Schema, item, `${at}/${i}`, findings));
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    const object = value as Record<string, unknown>;
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    for (const name of (schema.required as string[] | undefined) ?? []) {
      if (!Object.hasOwn(object, name)) findings.push({ kind: 'missing-required-field', side: 'response', field: `${at}/${escapePointerToken(name)}`, message: `${at}/${escapePointerToken(name)} is required and missing` });
    }
    for (const [name, inner] of Object.entries(object)) {
      const where = `${at}/${escapePointerToken(name)}`;
      const declared = Object.hasOwn(properties, name) ? properties[name] : undefined;
      if (declared) this.validate(declared, inner, where, findings);
      else if (schema.additionalProperties === false) findings.push({ kind: 'undeclared-field', side: 'response', field: where, message: `${where} is not declared by the contract`, value: inner });
      else if (typeof schema.additionalProperties === 'object' && schema.additionalProperties !== null) this.validate(schema.additionalProperties as Schema, inner, where, findings);
    }
  }

  private validateUnion(keyword: 'oneOf' | 'anyOf', branches: Schema[], value: unknown, at: string, findings: Finding[]): void {
    const results = branches.map((branch) => {
      const found: Finding[] = [];
      this.validate(branch, value, at, found);
      return found;
    });
    // A finding the contract tolerates does not disqualify a branch.
    const breaking = results.map((found) => found.filter((finding) => !finding.tolerated).length);
    const fitting = breaking.filter((count) => count === 0).length;
    if (keyword === 'oneOf' && fitting > 1) {
      findings.push({ kind: 'constraint', side: 'response', field: at, message: `${at} matches ${fitting} schemas of a oneOf, where exactly one must match` });
      return;
    }
    const best = breaking.indexOf(Math.min(...breaking));
    findings.push(...(results[best] ?? []));
  }

  /**
   * Fields no schema that applies at their place declares, whether or not the schema allows
   * them: the point is drift. Every `allOf`, `oneOf` and `anyOf` branch applies (a field
   * declared by any branch is declared), and a free-form object (additional properties
   * allowed, or no `properties` at all) declares everything under it.
   */
  private undeclaredFields(view: DeclaredView, value: unknown, at: string, findings: Finding[]): void {
    if (typeof value !== 'object' || value === null) return;
    if (Array.isArray(value)) {
      const items = view.items && this.viewOf(view.items);
      if (items) value.forEach((item, i) => this.undeclaredFields(items, item, `${at}/${i}`, findings));
      return;
    }
    if (view.freeForm) return;
    for (const name in value) {
      const where = `${at}/${escapePointerToken(name)}`;
      const declaring = view.properties.get(name);
      const inner = (value as Record<string, unknown>)[name];
      if (!declaring) findings.push({ kind: 'undeclared-field', side: 'response', field: where, message: `${where} is not declared by the contract`, value: inner, tolerated: true });
      else this.undeclaredFields(this.viewOf(declaring), inner, where, findings);
    }
  }

  /**
   * What the schemas applying at one place declare, merged; built once per list of schemas (the
   * lists themselves are built once, inside the views), as the proxy walks every answer.
   */
  private viewOf(schemas: Schema[]): DeclaredView {
    let view = this.views.get(schemas);
    if (view) return view;
    const applicable = this.applicable(schemas);
    const items = applicable.flatMap((schema) => (schema.items ? [schema.items as Schema] : []));
    const withProperties = applicable.filter((schema) => schema.properties !== undefined);
    const properties = new Map<string, Schema[]>();
    for (const schema of withProperties) {
      for (const [name, declared] of Object.entries(schema.properties as Record<string, Schema>)) properties.set(name, [...(properties.get(name) ?? []), declared]);
    }
    view = {
      freeForm: withProperties.length === 0 || applicable.some((schema) => schema.additionalProperties !== undefined && schema.additionalProperties !== false),
      properties,
      ...(items.length > 0 && { items }),
    };
    this.views.set(schemas, view);
    return view;
  }

  /** The schemas that apply at one place: each one given, its `$ref` followed, and every branch of its compositions. */
  private applicable(schemas: Schema[], found: Schema[] = []): Schema[] {
    for (const raw of schemas) {
      const schema = this.resolve(raw) as Schema;
      if (found.includes(schema)) continue;
      found.push(schema);
      for (const keyword of ['allOf', 'oneOf', 'anyOf'] as const) {
        const members = schema[keyword] as Schema[] | undefined;
        if (members) this.applicable(members, found);
      }
    }
    return found;
  }

  // ------------------------------------------------------------------ the document

  private operationObject(operation: Operation): OperationObject | undefined {
    return this.document.paths[operation.path]?.[operation.method.toLowerCase()] as OperationObject | undefined;
  }

  /** The declared response for a status, as ContractChecker picks it: the exact code, then `4XX`, then `default`. */
  private responseFor(operation: Operation, status: number): ResponseObject | undefined {
    const responses = this.operationObject(operation)?.responses ?? {};
    const key = declaredResponseKey(responses, status);
    return key === undefined ? undefined : (this.resolve(responses[key] as ResponseObject) as ResponseObject);
  }

  private rootList(schema: Schema): Schema[] {
    let list = this.roots.get(schema);
    if (!list) {
      list = [schema];
      this.roots.set(schema, list);
    }
    return list;
  }

  private resolve(node: unknown): unknown {
    let current = node;
    while (current && typeof current === 'object' && typeof (current as { $ref?: unknown }).$ref === 'string') {
      const ref = (current as { $ref: string }).$ref;
      let target = this.references.get(ref);
      if (target === undefined) {
        target = valueAtPointer(this.document, ref.replace(/^#/, ''));
        this.references.set(ref, target);
      }
      current = target;
    }
    return current;
  }

  private learnHeaderNames(): void {
    const names: string[] = Object.keys(this.document.components?.headers ?? {});
    for (const item of Object.values(this.document.paths)) {
      for (const op of Object.values(item)) {
        for (const response of Object.values((op as OperationObject | undefined)?.responses ?? {})) {
          names.push(...Object.keys((this.resolve(response) as ResponseObject | undefined)?.headers ?? {}));
        }
      }
    }
    for (const response of Object.values(this.document.components?.responses ?? {})) names.push(...Object.keys((response as ResponseObject).headers ?? {}));
    for (const parameter of Object.values(this.document.components?.parameters ?? {})) {
      const { in: where, name } = parameter as { in?: string; name?: string };
      if (where === 'header' && name) names.push(name);
    }
    for (const name of names) {
      const lower = name.toLowerCase();
      this.responseHeaderNames.add(lower);
      const prefix = /^x-[a-z0-9]+-/.exec(lower)?.[0];
      if (prefix) this.apiHeaderPrefixes.add(prefix);
    }
    for (const name of ORDINARY_HEADERS) this.responseHeaderNames.delete(name);
  }

  private formatValidator(format: string): ValidateFunction {
    let validate = this.formatValidators.get(format);
    if (!validate) {
      validate = this.ajv.compile({ format });
      this.formatValidators.set(format, validate);
    }
    return validate;
  }

  /** The schema's own constraints (pattern, bounds…), without what the walk checks itself; null when it has none. */
  private leafValidator(schema: Schema): ValidateFunction | null {
    let validate = this.leafValidators.get(schema);
    if (validate === undefined) {
      const leaf = Object.fromEntries(Object.entries(schema).filter(([keyword]) => !WALKED_KEYWORDS.has(keyword) && !keyword.startsWith('x-')));
      validate = Object.keys(leaf).length === 0 ? null : this.ajv.compile(leaf);
      this.leafValidators.set(schema, validate);
    }
    return validate;
  }
}

// ------------------------------------------------------------------ helpers

const REQUEST_KINDS: Record<string, FindingKind> = {
  required: 'missing-required-field',
  type: 'wrong-type',
  format: 'wrong-format',
  enum: 'undeclared-enum-value',
  additionalProperties: 'undeclared-field',
  ...Object.fromEntries(['maximum', 'minimum', 'exclusiveMaximum', 'exclusiveMinimum', 'multipleOf', 'minLength', 'maxLength', 'pattern', 'minItems', 'maxItems', 'uniqueItems', 'minProperties', 'maxProperties'].map((keyword) => [keyword, 'constraint' as const])),
};

/** The validator's first error (as the mock answers it), by kind and place: `/query/limit` → `query limit`. */
function requestFinding(error: RequestValidationError, operation: Operation, req: Request): Finding {
  if (error.status === 415) {
    return { kind: 'invalid-request', side: 'request', field: 'header content-type', message: `${operation.operationId} refuses this Content-Type (${error.message})` };
  }
  const item = error.errors[0] ?? { path: '', message: error.message };
  const keyword = item.errorCode?.replace(/\.openapi\.validation$/, '') ?? '';
  const [, area = '', ...rest] = item.path.split('/');
  const name = rest.join('/');
  const field = area === 'query' ? `query ${name}` : area === 'params' ? `path ${name}` : area === 'headers' ? `header ${name}` : area === 'body' ? ['body', ...rest].join('/') : item.path || 'request';
  const data = { query: req.query, params: req.params, headers: req.headers, body: req.body as unknown } as Record<string, unknown>;
  const value = keyword === 'required' ? undefined : valueAtPointer(data[area], rest.length === 0 ? '' : `/${rest.join('/')}`);
  // A parameter no operation of this path takes is undeclared whatever its value (a redacted one included).
  const kind = /^Unknown query parameter/.test(item.message) ? 'undeclared-field' : (REQUEST_KINDS[keyword] ?? 'invalid-request');
  const finding: Finding = { kind, side: 'request', field, message: `${field} ${item.message}` };
  return value === undefined ? finding : { ...finding, value };
}

/**
 * One side's findings, or, for a body nested deeper than the checks can walk (they recurse, and a
 * body a hundred thousand levels deep parses), one finding that says so: never an exception that
 * would turn the proxy's answer into a 500.
 */
function tooDeep(side: 'request' | 'response', check: () => Finding[]): Finding[] {
  try {
    return check();
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return [{ kind: 'constraint', side, field: 'body', message: `the ${side} body is nested too deeply to be checked against the contract` }];
  }
}

/** The kinds that judge a value itself, which a placeholder cannot stand for. */
const VALUE_KINDS: ReadonlySet<FindingKind> = new Set(['wrong-format', 'wrong-type', 'constraint', 'undeclared-enum-value', 'invalid-request']);

/**
 * Each finding once; and none about the shape of a value a recording replaced by REDACTED: a
 * hidden API key, token or session id cannot be judged (it would break a pattern or a format),
 * and saying so would only be noise in a drift report. A parameter or field the contract does not
 * have is reported whatever its value (a `token` sent where no operation takes one).
 */
function dedupe(findings: Finding[]): Finding[] {
  const seen = new Set<string>();
  return findings.filter((finding) => {
    if (VALUE_KINDS.has(finding.kind) && typeof finding.value === 'string' && finding.value.includes(REDACTED)) return false;
    const key = `${finding.side} ${finding.kind} ${finding.field}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function lowerCaseKeys(headers: Record<string, string>): Record<string, string> {
  const copy: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) copy[name.toLowerCase()] = value;
  return copy;
}

/** A header arrives as text; a header declared as a number or boolean is read as one first. */
function coerceHeader(schema: Schema, value: string): unknown {
  if ((schema.type === 'integer' || schema.type === 'number') && /^-?\d+(?:\.\d+)?(?:e[+-]?\d+)?$/i.test(value.trim())) return Number(value);
  if (schema.type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'array':
      return Array.isArray(value);
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'string':
      return typeof value === 'string';
    case 'boolean':
      return typeof value === 'boolean';
    default:
      return true;
  }
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (Number.isInteger(value)) return `the integer ${String(value)}`;
  return typeof value === 'object' ? 'an object' : `the ${typeof value} ${JSON.stringify(value)}`;
}
