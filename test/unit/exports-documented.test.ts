import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as library from '../../src/index.js';
import { packagePath } from '../../src/lib/package-root.js';

/** The row of docs/typescript.md's entry-point table that says what `import … from 'social-gateway-mock'` holds. */
function documentedRow(): string {
  const page = readFileSync(packagePath('docs', 'typescript.md'), 'utf8');
  const row = page.split('\n').find((line) => line.startsWith('| `social-gateway-mock` |'));
  expect(row, "docs/typescript.md's table has no row for social-gateway-mock").toBeDefined();
  return row as string;
}

describe("docs/typescript.md's table of the package's exports", () => {
  // A new user looked for clockSleep there and found it only in a recipe further down.
  it('names every value the package exports', () => {
    const row = documentedRow();
    const missing = Object.keys(library).filter((name) => !row.includes(`\`${name}\``) && !row.includes(`\`${name}(`));
    expect(missing).toEqual([]);
    expect(row).toContain('`clockSleep(control)`');
  });
});
