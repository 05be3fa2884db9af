import { parse as parseQuery } from 'node:querystring';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { MAX_JSON_DEPTH } from '../../src/lib/nesting.js';
import type { OperationModel } from './operations.js';
import type { FuzzRequest } from './requests.js';
import { resolvePointer, type Schema } from './schema-arbitraries.js';
import type { WireRequest } from './wire.js';

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/**
 * What the contract says of a request, before sending it: `reject` with the status
 * the pipeline must answer when it is certain (414, 401, 405, 413), or any 4xx when
 * it is not; `accept` when nothing in it breaks the contract; `unknown` where the
 * contract does not decide (an empty body, a body without Content-Type).
 */
export type Verdict =
  | { kind: 'accept' }
  /** `transport`: refused by the HTTP server itself, before any operation or workspace is known. */
  | { kind: 'reject'; reason: string; statuses?: number[]; transport?: boolean }
  | { kind: 'unknown'; reason: string };

export interface OracleLimits {
  maxUrlBytes: number;
  bodyLimitBytes: number;
  /** Operations that take larger or deeper bodies than the defaults (a state to restore). */
  byOperation?: Partial<Record<string, { bodyLimitBytes?: number; bodyDepth?: number }>>;
}

/** The JSON types express.json reads (anything else is not parsed, so never too large). */
function parsedAsJson(mediaType: string): boolean {
  return mediaType === 'application/json' || /^application\/[^/]+\+json$/.test(mediaType);
}

/**
 * Judges requests with ajv against the same document the server validates with, as
 * express-openapi-validator does: parameters with type coercion (they arrive as
 * text), bodies without.
 */
export class ContractOracle {
  private readonly coercing: Ajv;
  private readonly strict: Ajv;
  private readonly cache = new Map<string, ValidateFunction>();
  private readonly responseValidators = new Map<string, ValidateFunction>();
  private readonly document: { paths: Record<string, Record<string, { responses?: Record<string, unknown> } | undefined>> };

  constructor(
    document: unknown,
    private readonly limits: OracleLimits,
  ) {
    this.document = document as typeof this.document;
    this.coercing = new Ajv({ strict: false, coerceTypes: true, allErrors: false, validateSchema: false });
    this.strict = new Ajv({ strict: false, allErrors: false, validateSchema: false });
    for (const ajv of [this.coercing, this.strict]) {
      addFormats(ajv);
      ajv.addSchema(document as object, 'contract');
    }
  }

  judge(op: OperationModel, request: FuzzRequest, wire: WireRequest): Verdict {
    // A raw byte outside visible ASCII in the request target is not HTTP: Node's parser refuses it.
    if (/[^\x21-\x7e]/.test(wire.target)) return { kind: 'reject', reason: 'a request target that is not ASCII', statuses: [400], transport: true };
    // Past the header limit (request line and headers together) the server itself answers 431.
    if (Buffer.byteLength(wire.target) > this.limits.maxUrlBytes) return { kind: 'reject', reason: 'URL over the limit', statuses: [414, 431] };
    const authFails = request.auth === 'unknown-key' || request.auth === 'wrong-key-first' || request.auth === 'hostile' || (request.auth === 'none' && op.contract === 'api');
    if (authFails) return { kind: 'reject', reason: `auth ${request.auth}`, statuses: [401] };
    if (request.method !== op.method && !(request.method === 'HEAD' && op.method === 'GET')) return { kind: 'reject', reason: `method ${request.method}`, statuses: [405] };

    const contentType = wire.headers['Content-Type'];
    const mediaType = contentType?.split(';')[0]?.trim().toLowerCase();
    const bodyLimitBytes = this.limits.byOperation?.[op.operationId]?.bodyLimitBytes ?? this.limits.bodyLimitBytes;
    if (op.body && wire.body && mediaType !== undefined && parsedAsJson(mediaType) && wire.body.length > bodyLimitBytes) {
      // A charset the body parser does not read is refused before the body is read, so before its size.
      const charset = /charset=([^;]+)/i.exec(contentType ?? '')?.[1]?.trim().toLowerCase();
      return { kind: 'reject', reason: 'body over the limit', statuses: charset === undefined || charset === 'utf-8' ? [413] : [413, 415] };
    }

    const problems: string[] = [];
    for (const parameter of op.parameters) {
      if (parameter.in === 'path') {
        if (!this.check(parameter.schema, wire.pathParams[parameter.name], true)) problems.push(`path ${parameter.name}`);
      }
      if (parameter.in === 'header') {
        const value = Object.entries(wire.headers).find(([name]) => name.toLowerCase() === parameter.name.toLowerCase())?.[1];
        if (value === undefined ? parameter.required : !this.check(parameter.schema, value, true)) problems.push(`header ${parameter.name}`);
      }
    }
    const query = this.queryOf(wire.target);
    const queryParameters = op.parameters.filter((p) => p.in === 'query');
    const querySchema: Schema = {
      type: 'object',
      additionalProperties: false,
      properties: Object.fromEntries(queryParameters.map((p) => [p.name, p.schema])),
      required: queryParameters.filter((p) => p.required).map((p) => p.name),
    };
    if (!this.check(querySchema, query, true)) problems.push('query');
    // `?status=` is refused as the validator does: a parameter without allowEmptyValue may not be empty.
    else if (queryParameters.some((p) => query[p.name] === '' || (Array.isArray(query[p.name]) && (query[p.name] as unknown[]).includes('')))) problems.push('empty query value');

    const body = this.judgeBody(op, request, wire, mediaType);
    if (body.kind === 'reject') problems.push(body.reason);
    if (problems.length > 0) return { kind: 'reject', reason: problems.join(', ') };
    if (body.kind === 'unknown') return body;
    return { kind: 'accept' };
  }

  private judgeBody(op: OperationModel, request: FuzzRequest, wire: WireRequest, mediaType: string | undefined): Verdict {
    // The server does not read a body the operation does not take: whatever it is, it changes nothing.
    if (!op.body) return { kind: 'accept' };
    if (!wire.body) return op.body.required ? { kind: 'reject', reason: 'body missing' } : { kind: 'accept' };
    if (mediaType === undefined) return { kind: 'unknown', reason: 'a body without Content-Type' };
    const charset = /charset=([^;]+)/i.exec(wire.headers['Content-Type'] ?? '')?.[1]?.trim().toLowerCase();
    if (!op.body.contentTypes.includes(mediaType)) return { kind: 'reject', reason: `content type ${mediaType}` };
    if (charset !== undefined && charset !== 'utf-8') return { kind: 'reject', reason: `charset ${charset}` };
    let value: unknown;
    if (request.body.kind === 'json') value = wire.json;
    else {
      // The body parser drops a leading byte order mark, as RFC 8259 lets it.
      const text = wire.body.toString('utf8').replace(/^\ufeff/, '');
      if (text.trim() === '') return { kind: 'unknown', reason: 'an empty JSON body' };
      try {
        value = JSON.parse(text);
      } catch {
        return { kind: 'reject', reason: 'malformed JSON' };
      }
    }
    // express.json is strict: only an object or an array at the top.
    if (typeof value !== 'object' || value === null) return { kind: 'reject', reason: 'a JSON body that is not an object or array' };
    // Past the nesting limit, refused before the schema is read; near it, the server may count a level more or less than we do.
    const maxDepth = this.limits.byOperation?.[op.operationId]?.bodyDepth ?? MAX_JSON_DEPTH;
    if (depthOf(value) > maxDepth + 8) return { kind: 'reject', reason: `a body nested deeper than ${maxDepth}`, statuses: [400] };
    return this.check(op.body.schema, value, false) ? { kind: 'accept' } : { kind: 'reject', reason: 'body breaks its schema' };
  }

  /** The query as Express 5 parses it (node:querystring), ready for the coercing check. */
  private queryOf(target: string): Record<string, unknown> {
    const at = target.indexOf('?');
    if (at === -1) return {};
    const parsed = parseQuery(target.slice(at + 1));
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(parsed)) Object.defineProperty(copy, key, { value: parsed[key], enumerable: true, writable: true, configurable: true });
    return copy;
  }

  /**
   * Whether an answer is one the contract declares for the operation, read independently of
   * the server's own check (strict responses): its status, and a JSON body against that
   * status's schema. Answers given before an operation is known (405, 414, 431) are not the
   * operation's. Undefined when it is; else what is wrong.
   */
  checkResponse(op: OperationModel, status: number, contentType: string | undefined, text: string): string | undefined {
    if (status === 405 || status === 414 || status === 431) return undefined;
    const pathPointer = `#/paths/${op.path.replace(/~/g, '~0').replace(/\//g, '~1')}/${op.method.toLowerCase()}/responses`;
    const responses = this.document.paths[op.path]?.[op.method.toLowerCase()]?.responses ?? {};
    const declared = [String(status), `${String(status)[0]}XX`, 'default'].find((key) => responses[key] !== undefined);
    if (declared === undefined) return `status ${status} is not declared for ${op.operationId}`;
    let response = responses[declared] as { $ref?: string; content?: Record<string, unknown> };
    let pointer = `${pathPointer}/${declared}`;
    while (response.$ref) {
      pointer = response.$ref;
      response = resolvePointer(this.document, response.$ref) as typeof response;
    }
    const mediaType = contentType?.split(';')[0]?.trim().toLowerCase();
    if (mediaType !== 'application/json' || !response.content?.['application/json']) return undefined;
    let validate = this.responseValidators.get(pointer);
    if (!validate) {
      validate = this.strict.compile({ $ref: `contract${pointer}/content/application~1json/schema` });
      this.responseValidators.set(pointer, validate);
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return 'a JSON answer that does not parse';
    }
    return validate(body) ? undefined : `the ${status} answer breaks its schema: ${this.strict.errorsText(validate.errors)}`;
  }

  private check(schema: Schema, value: unknown, coerce: boolean): boolean {
    const ajv = coerce ? this.coercing : this.strict;
    const key = `${coerce}:${JSON.stringify(schema)}`;
    let validate = this.cache.get(key);
    if (!validate) {
      validate = ajv.compile(rebase(schema) as object);
      this.cache.set(key, validate);
    }
    // Coercion rewrites the value in place; judge a copy.
    return validate(coerce ? structuredClone(value) : value);
  }
}

/** How deeply a JSON value nests (a scalar is 0), counted without recursion. */
function depthOf(value: unknown): number {
  let deepest = 0;
  const pending: Array<[unknown, number]> = [[value, 0]];
  while (pending.length > 0) {
    const [node, depth] = pending.pop() as [unknown, number];
    if (typeof node !== 'object' || node === null) continue;
    deepest = Math.max(deepest, depth + 1);
    for (const child of Object.values(node)) pending.push([child, depth + 1]);
  }
  return deepest;
}

/** Points local `$ref`s of a schema taken out of the document back into it. */
function rebase(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(rebase);
  if (typeof schema !== 'object' || schema === null) return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) copy[key] = key === '$ref' && typeof value === 'string' && value.startsWith('#') ? `contract${value}` : rebase(value);
  return copy;
}
