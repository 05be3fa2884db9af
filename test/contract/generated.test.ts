import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { packagePath } from '../../src/lib/package-root.js';
import { renderGeneratedTypes } from '../../scripts/generated-types.js';

describe('src/generated/openapi.ts', () => {
  it('is what npm run generate produces from the current openapi.yaml', async () => {
    const committed = readFileSync(packagePath('src', 'generated', 'openapi.ts'), 'utf8');
    expect(committed === (await renderGeneratedTypes()), 'src/generated/openapi.ts is stale: run npm run generate').toBe(true);
  });
});
