import { readFileSync } from 'node:fs';
import openapiTS, { astToString } from 'openapi-typescript';
import { packagePath } from '../src/lib/package-root.js';

/**
 * src/generated/openapi.ts: the contract's types, generated from openapi.yaml by
 * openapi-typescript. Never edited by hand; test/contract/generated.test.ts fails
 * when the committed file differs from what this renders.
 */
export async function renderGeneratedTypes(): Promise<string> {
  const ast = await openapiTS(readFileSync(packagePath('openapi.yaml'), 'utf8'));
  return [
    '/* eslint-disable */',
    '// Generated from openapi.yaml by `npm run generate` (openapi-typescript). Do not edit by hand.',
    '',
    astToString(ast),
  ].join('\n');
}
