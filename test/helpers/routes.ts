import { apiRoutes } from '../../src/api/index.js';
import { OperationIndex, type Operation } from '../../src/http/operations.js';
import { loadSpec } from '../../src/http/spec.js';

/** Every operation of openapi.yaml, as the server routes them. */
export const apiOperations: readonly Operation[] = new OperationIndex(loadSpec('openapi.yaml').document).operations;

const implemented = new Set(apiRoutes.map((definition) => definition.operationId));

/**
 * Whether this build implements the operation (else it answers 501). Tests of
 * operations other branches build use it to skip until they arrive, and say so.
 */
export function routed(operationId: string): boolean {
  return implemented.has(operationId);
}
