import { apiRoutes } from '../../src/api/index.js';

const implemented = new Set(apiRoutes.map((definition) => definition.operationId));

/**
 * Whether this build implements the operation (else it answers 501). Tests of
 * operations other branches build use it to skip until they arrive, and say so.
 */
export function routed(operationId: string): boolean {
  return implemented.has(operationId);
}
