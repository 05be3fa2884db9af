import { HTTP_METHODS, type OpenApiDocument } from '../../src/http/spec.js';
import { resolvePointer, type Schema } from './schema-arbitraries.js';

/** One parameter of an operation, `$ref`s followed. */
export interface ParameterModel {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schema: Schema;
}

/** What the fuzz needs to know of one operation, read from its contract. */
export interface OperationModel {
  contract: 'api' | 'control';
  operationId: string;
  method: string;
  /** The template, `/v1/posts/{id}`. */
  path: string;
  /** Methods the template answers, for requests aimed at a method it does not. */
  pathMethods: string[];
  parameters: ParameterModel[];
  /** `schemaPointer`: where the JSON body's schema sits in the document (`#/…`), for a validator to compile it in place. */
  body?: { required: boolean; contentTypes: string[]; schema: Schema; schemaPointer: string };
}

interface RawParameter {
  $ref?: string;
  name: string;
  in: ParameterModel['in'];
  required?: boolean;
  schema?: Schema;
}

interface RawOperation {
  operationId?: string;
  parameters?: RawParameter[];
  requestBody?: { $ref?: string; required?: boolean; content?: Record<string, { schema?: Schema }> };
}

/** One JSON Pointer token (RFC 6901). */
function pointerToken(text: string): string {
  return text.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Every operation of a contract as the fuzz models it, in document order. */
export function operationModels(document: OpenApiDocument, contract: 'api' | 'control'): OperationModel[] {
  const models: OperationModel[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    const pathMethods = HTTP_METHODS.filter((method) => item[method] !== undefined).map((method) => method.toUpperCase());
    const shared = (item.parameters as RawParameter[] | undefined) ?? [];
    for (const method of HTTP_METHODS) {
      const op = item[method] as RawOperation | undefined;
      if (!op?.operationId) continue;
      const parameters = [...shared, ...(op.parameters ?? [])].map((raw) => {
        const parameter = (raw.$ref ? resolvePointer(document, raw.$ref) : raw) as RawParameter;
        return { name: parameter.name, in: parameter.in, required: parameter.required ?? parameter.in === 'path', schema: parameter.schema ?? {} };
      });
      const requestBody = op.requestBody?.$ref ? (resolvePointer(document, op.requestBody.$ref) as RawOperation['requestBody']) : op.requestBody;
      const content = requestBody?.content ?? {};
      const json = content['application/json'];
      models.push({
        contract,
        operationId: op.operationId,
        method: method.toUpperCase(),
        path,
        pathMethods,
        parameters,
        ...(requestBody && {
          body: {
            required: requestBody.required ?? false,
            contentTypes: Object.keys(content),
            schema: json?.schema ?? {},
            // A named body (components/requestBodies) or the operation's own, wherever the schema is written.
            schemaPointer: `${op.requestBody?.$ref ?? `#/paths/${pointerToken(path)}/${method}/requestBody`}/content/application~1json/schema`,
          },
        }),
      });
    }
  }
  return models;
}

/** Error codes the contract names: ErrorResponse's known values and the flat 429's code. */
export function knownErrorCodes(document: OpenApiDocument): Set<string> {
  const schemas = (document.components?.schemas ?? {}) as Record<string, Schema>;
  const nested = schemas.ErrorResponse?.properties?.error?.properties?.code?.['x-known-values'] ?? [];
  const flat = schemas.RateLimitError?.properties?.code?.enum ?? [];
  return new Set([...nested, ...flat].map(String));
}

/**
 * A request target for the operation: each `{param}` of its path replaced by
 * `pathValue(param, segment before it)` (the segment names the kind of record:
 * `posts`, `accounts`), and, when `queryValue` is given, its required query parameters.
 * Undefined when a path parameter has no value.
 */
export function requestTarget(op: OperationModel, pathValue: (param: string, kind: string) => string | undefined, queryValue?: (param: ParameterModel) => string): string | undefined {
  const segments = op.path.split('/');
  const filled: string[] = [];
  for (const [i, segment] of segments.entries()) {
    const param = /^\{(\w+)\}$/.exec(segment)?.[1];
    if (param === undefined) {
      filled.push(segment);
      continue;
    }
    const value = pathValue(param, segments[i - 1] ?? '');
    if (value === undefined) return undefined;
    filled.push(encodeURIComponent(value));
  }
  const query = queryValue ? op.parameters.filter((p) => p.in === 'query' && p.required).map((p) => `${p.name}=${encodeURIComponent(queryValue(p))}`) : [];
  return query.length > 0 ? `${filled.join('/')}?${query.join('&')}` : filled.join('/');
}
