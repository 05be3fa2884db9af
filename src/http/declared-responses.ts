import { HTTP_METHODS, type OpenApiDocument } from './spec.js';

/** What the contract declares one operation may answer: each status and, for an error status, the codes it may carry. */
export interface DeclaredOperation {
  operationId: string;
  method: string;
  path: string;
  /** Status → the error codes the operation declares for it in `x-error-codes` (empty for a success). */
  statuses: Map<number, string[]>;
}

/** An operation's `x-error-codes`: status → the codes it can answer with that status (decision 0036). */
export type ErrorCodesExtension = Record<string, string[]>;

interface ResponseObject {
  $ref?: string;
  /** Only the mock answers it (`500 CONTRACT_VIOLATION` under --strict-responses): not a status a client should see. */
  'x-mock-only'?: boolean;
}

function resolve(document: OpenApiDocument, response: ResponseObject): ResponseObject {
  let current = response;
  while (current.$ref) {
    const name = current.$ref.split('/').pop() ?? '';
    current = (document.components?.responses?.[name] ?? {}) as ResponseObject;
  }
  return current;
}

/** Is this response one only the mock gives (`x-mock-only`), never the service? */
export function isMockOnly(document: OpenApiDocument, response: unknown): boolean {
  return resolve(document, response as ResponseObject)['x-mock-only'] === true;
}

/** The code of an error body in either envelope: `{ error: { code } }` or the flat `{ error, code }`. */
export function errorCodeOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { error, code } = body as { error?: unknown; code?: unknown };
  if (typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string') return (error as { code: string }).code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * The error code of an answer when the operation does not declare it for the status
 * (`x-error-codes`), with the codes it does declare; undefined when the code is declared,
 * when there is none, or when the answer is not held to the list: a success, the mock's own
 * answers (`x-mock-only`), a contract without the extension (control.yaml). ContractChecker
 * and the proxy's comparer both ask it, so they refuse the same answers.
 */
export function undeclaredErrorCode(operation: unknown, response: unknown, status: number, body: unknown): { code: string; declared: string[] } | undefined {
  if (status < 400 || (response as ResponseObject | undefined)?.['x-mock-only'] === true) return undefined;
  const extension = (operation as { 'x-error-codes'?: ErrorCodesExtension } | undefined)?.['x-error-codes'];
  const code = errorCodeOf(body);
  if (!extension || code === undefined) return undefined;
  const declared = extension[String(status)] ?? [];
  return declared.includes(code) ? undefined : { code, declared };
}

/**
 * Every operation's declared statuses and, per error status, the codes its
 * `x-error-codes` names: the shared error responses list every code any operation
 * may answer, the extension says which of them this one can (decision 0036).
 * Coverage compares traffic with this; scenario rules are checked against it so an
 * injected error stays inside the contract.
 */
export function declaredOperations(document: OpenApiDocument): Map<string, DeclaredOperation> {
  const found = new Map<string, DeclaredOperation>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of HTTP_METHODS) {
      const op = item[method] as { operationId?: string; responses?: Record<string, ResponseObject>; 'x-error-codes'?: ErrorCodesExtension } | undefined;
      if (!op?.operationId) continue;
      const statuses = new Map<number, string[]>();
      for (const [key, raw] of Object.entries(op.responses ?? {})) {
        const status = Number(key);
        if (!Number.isInteger(status)) continue;
        // A mock-only answer is a bug report about the mock: coverage does not ask a suite to
        // provoke it, and a scenario rule may not inject it.
        if (isMockOnly(document, raw)) continue;
        statuses.set(status, status >= 400 ? [...(op['x-error-codes']?.[key] ?? [])].sort() : []);
      }
      found.set(op.operationId, { operationId: op.operationId, method: method.toUpperCase(), path, statuses });
    }
  }
  return found;
}
