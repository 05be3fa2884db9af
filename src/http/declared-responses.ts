import { HTTP_METHODS, type OpenApiDocument } from './spec.js';

/** What the contract declares one operation may answer: each status and the error codes its examples show. */
export interface DeclaredOperation {
  operationId: string;
  method: string;
  path: string;
  /** Status → error codes named by that response's examples (empty for a success). */
  statuses: Map<number, string[]>;
}

interface ResponseObject {
  $ref?: string;
  /** Only the mock answers it (`500 CONTRACT_VIOLATION` under --strict-responses): not a status a client should see. */
  'x-mock-only'?: boolean;
  content?: Record<string, { example?: unknown; examples?: Record<string, { value?: unknown }> }>;
}

function resolve(document: OpenApiDocument, response: ResponseObject): ResponseObject {
  let current = response;
  while (current.$ref) {
    const name = current.$ref.split('/').pop() ?? '';
    current = (document.components?.responses?.[name] ?? {}) as ResponseObject;
  }
  return current;
}

/** The code of an error body in either envelope: `{ error: { code } }` or the flat `{ error, code }`. */
export function errorCodeOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { error, code } = body as { error?: unknown; code?: unknown };
  if (typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string') return (error as { code: string }).code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Every operation's declared statuses and, per error status, the codes its examples
 * name (the contract lists each code it can answer as an example). Coverage compares
 * traffic with this; scenario rules are checked against it so an injected error stays
 * inside the contract.
 */
export function declaredOperations(document: OpenApiDocument): Map<string, DeclaredOperation> {
  const found = new Map<string, DeclaredOperation>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of HTTP_METHODS) {
      const op = item[method] as { operationId?: string; responses?: Record<string, ResponseObject> } | undefined;
      if (!op?.operationId) continue;
      const statuses = new Map<number, string[]>();
      for (const [key, raw] of Object.entries(op.responses ?? {})) {
        const status = Number(key);
        if (!Number.isInteger(status)) continue;
        const response = resolve(document, raw);
        // A mock-only answer is a bug report about the mock: coverage does not ask a suite to
        // provoke it, and a scenario rule may not inject it.
        if (response['x-mock-only'] === true) continue;
        const codes = new Set<string>();
        for (const media of Object.values(response.content ?? {})) {
          const examples = [media.example, ...Object.values(media.examples ?? {}).map((example) => example.value)];
          for (const example of examples) {
            const code = errorCodeOf(example);
            if (code !== undefined && status >= 400) codes.add(code);
          }
        }
        statuses.set(status, [...codes].sort());
      }
      found.set(op.operationId, { operationId: op.operationId, method: method.toUpperCase(), path, statuses });
    }
  }
  return found;
}
