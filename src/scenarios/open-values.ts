import type { Operation } from '../http/operations.js';
import type { OpenApiDocument } from '../http/spec.js';
import type { UnknownValues } from './scenario.js';

/**
 * The open enumerations of openapi.yaml (the reference's Versioning rule: "new values
 * can be added; clients must handle values they do not know"), by component name.
 */
const OPEN_ENUMERATIONS: Record<string, keyof UnknownValues> = {
  Platform: 'platform',
  AccountStatus: 'accountStatus',
  AutomationKind: 'automationKind',
};

interface Schema {
  $ref?: string;
  type?: string;
  enum?: unknown[];
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  required?: string[];
  items?: Schema;
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
}

interface ResponseObject {
  $ref?: string;
  content?: Record<string, { schema?: Schema }>;
}

/**
 * Rewrites a real answer so that it carries values clients have never seen, guided by
 * the response schema: only a value whose schema is one of the open enumerations is
 * replaced, so the answer still validates against the contract (strict responses
 * prove it on every test run), while a closed enumeration that happens to use the
 * same field name (a constant `platform: tiktok`) is left alone.
 */
export class OpenValueRewriter {
  constructor(private readonly document: OpenApiDocument) {}

  rewrite(operation: Operation, status: number, body: unknown, values: UnknownValues): unknown {
    const schema = this.responseSchema(operation, status);
    if (!schema || body === undefined) return body;
    return this.walk(schema, structuredClone(body), values, 0);
  }

  private responseSchema(operation: Operation, status: number): Schema | undefined {
    const op = this.document.paths[operation.path]?.[operation.method.toLowerCase()] as { responses?: Record<string, ResponseObject> } | undefined;
    let response = op?.responses?.[String(status)];
    while (response?.$ref) response = this.resolve(response.$ref) as ResponseObject;
    return response?.content?.['application/json']?.schema;
  }

  private resolve(ref: string): unknown {
    let node: unknown = this.document;
    for (const part of ref.replace(/^#\//, '').split('/')) node = (node as Record<string, unknown>)[part];
    return node;
  }

  private walk(schema: Schema, value: unknown, values: UnknownValues, depth: number): unknown {
    if (depth > 40) return value;
    if (schema.$ref) {
      const name = schema.$ref.split('/').pop() ?? '';
      const key = OPEN_ENUMERATIONS[name];
      if (key !== undefined && typeof value === 'string') return values[key] ?? value;
      return this.walk(this.resolve(schema.$ref) as Schema, value, values, depth + 1);
    }
    let result = value;
    for (const branch of schema.allOf ?? []) result = this.walk(branch, result, values, depth + 1);
    const alternatives = schema.oneOf ?? schema.anyOf;
    if (alternatives) {
      const branch = alternatives.find((candidate) => this.fits(candidate, result, 0));
      if (branch) result = this.walk(branch, result, values, depth + 1);
    }
    if (Array.isArray(result) && schema.items) {
      const items = schema.items;
      return result.map((item) => this.walk(items, item, values, depth + 1));
    }
    if (isObject(result) && (schema.properties || typeof schema.additionalProperties === 'object')) {
      const out: Record<string, unknown> = {};
      for (const [key, child] of Object.entries(result)) {
        const childSchema = schema.properties?.[key] ?? (typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined);
        out[key] = childSchema ? this.walk(childSchema, child, values, depth + 1) : child;
      }
      return out;
    }
    return result;
  }

  /** A cheap structural test to pick the branch of a oneOf/anyOf that describes the value. */
  private fits(schema: Schema, value: unknown, depth: number): boolean {
    if (depth > 10) return true;
    if (schema.$ref) return this.fits(this.resolve(schema.$ref) as Schema, value, depth + 1);
    if (schema.allOf && !schema.allOf.every((branch) => this.fits(branch, value, depth + 1))) return false;
    const alternatives = schema.oneOf ?? schema.anyOf;
    if (alternatives && !alternatives.some((branch) => this.fits(branch, value, depth + 1))) return false;
    if (schema.enum && !schema.enum.includes(value)) return false;
    switch (schema.type) {
      case 'object':
        if (!isObject(value)) return false;
        break;
      case 'array':
        return Array.isArray(value);
      case 'string':
        return typeof value === 'string';
      case 'integer':
      case 'number':
        return typeof value === 'number';
      case 'boolean':
        return typeof value === 'boolean';
    }
    if (isObject(value)) {
      if ((schema.required ?? []).some((key) => !(key in value))) return false;
      if (schema.additionalProperties === false && schema.properties) {
        const known = schema.properties;
        if (Object.keys(value).some((key) => !(key in known))) return false;
      }
      for (const [key, child] of Object.entries(schema.properties ?? {})) {
        if (key in value && child.enum && !child.enum.includes(value[key])) return false;
      }
    }
    return true;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
