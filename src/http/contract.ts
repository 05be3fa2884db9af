import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { escapePointerToken, valueAtPointer } from '../lib/json-pointer.js';
import { undeclaredErrorCode } from './declared-responses.js';
import type { OpenApiDocument } from './spec.js';
import type { Operation } from './operations.js';

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

export interface ContractViolation {
  operationId: string;
  status: number;
  problems: string[];
}

interface HeaderObject {
  required?: boolean;
  $ref?: string;
}

interface ResponseObject {
  content?: Record<string, { schema?: unknown }>;
  headers?: Record<string, HeaderObject>;
  $ref?: string;
}

/**
 * Checks a response against the contract: the status must be declared for the
 * operation, the body must match its schema, a declared-empty response must be
 * empty, required headers must be present, and an error's code must be one the
 * operation declares for that status in `x-error-codes` (decision 0036). Validators compile once per
 * (operation, status) and are cached.
 */
export class ContractChecker {
  private readonly ajv: Ajv;
  private readonly cache = new Map<string, ValidateFunction | null>();

  constructor(
    private readonly document: OpenApiDocument,
    private readonly specId: string,
  ) {
    this.ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
    addFormats(this.ajv);
    this.ajv.addSchema(document as object, specId);
  }

  check(operation: Operation, status: number, body: unknown, headers: Record<string, unknown>, mediaType = 'application/json'): ContractViolation | undefined {
    const problems: string[] = [];
    const declared = this.responseFor(operation, status);
    if (!declared) {
      problems.push(`status ${status} is not declared for ${operation.operationId}`);
    } else {
      const { response, pointer } = declared;
      // Parameters (`; charset=utf-8`) do not pick a different content entry.
      const media = mediaType.split(';')[0]?.trim() ?? mediaType;
      const content = response.content?.[media];
      if (!content) {
        if (body !== undefined) problems.push(`the contract declares no ${media} body for this response, but one was sent`);
      } else {
        const validate = this.validator(`${pointer}/content/${escapePointerToken(media)}/schema`);
        if (validate && !validate(body)) {
          for (const error of validate.errors ?? []) problems.push(`body${error.instancePath} ${error.message ?? 'is invalid'}`);
        }
      }
      for (const [name, declaredHeader] of Object.entries(response.headers ?? {})) {
        const header = (declaredHeader.$ref ? valueAtPointer(this.document, declaredHeader.$ref) : declaredHeader) as HeaderObject;
        if (header.required && headers[name.toLowerCase()] === undefined) problems.push(`required header ${name} is missing`);
      }
      const op = this.document.paths[operation.path]?.[operation.method.toLowerCase()];
      const undeclared = undeclaredErrorCode(op, response, status, body);
      if (undeclared) problems.push(`error code ${undeclared.code} is not one ${operation.operationId} declares for ${status} (x-error-codes: ${undeclared.declared.join(', ') || 'none'})`);
    }
    return problems.length > 0 ? { operationId: operation.operationId, status, problems } : undefined;
  }

  private responseFor(operation: Operation, status: number): { response: ResponseObject; pointer: string } | undefined {
    const method = operation.method.toLowerCase();
    const op = this.document.paths[operation.path]?.[method] as { responses?: Record<string, ResponseObject> } | undefined;
    const responses = op?.responses ?? {};
    const key = declaredResponseKey(responses, status);
    if (!key) return undefined;
    let response = responses[key] as ResponseObject;
    let pointer = `#/paths/${escapePointerToken(operation.path)}/${method}/responses/${key}`;
    // Follow a $ref to components.responses so headers and content are read from the target.
    while (response.$ref) {
      pointer = response.$ref;
      response = valueAtPointer(this.document, response.$ref) as ResponseObject;
    }
    return { response, pointer };
  }

  private validator(pointer: string): ValidateFunction | null {
    let validate = this.cache.get(pointer);
    if (validate === undefined) {
      validate = this.ajv.compile({ $ref: `${this.specId}${pointer}` });
      this.cache.set(pointer, validate);
    }
    return validate;
  }
}

/** Which of an operation's declared responses answers a status: the exact code, then `4XX`, then `default`. */
export function declaredResponseKey(responses: Readonly<Record<string, unknown>>, status: number): string | undefined {
  return [String(status), `${String(status)[0]}XX`, 'default'].find((key) => responses[key] !== undefined);
}
