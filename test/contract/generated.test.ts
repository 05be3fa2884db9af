import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { packagePath } from '../../src/lib/package-root.js';
import { renderGeneratedFiles } from '../../scripts/generated-types.js';

const files = await renderGeneratedFiles();

describe('src/generated/ (and the dashboard\'s copy of the control table)', () => {
  it.each(files.map((file) => [file.path, file.text]))('%s is what npm run generate produces from the current contracts', (path, text) => {
    const committed = readFileSync(packagePath(...path.split('/')), 'utf8');
    expect(committed === text, `${path} is stale: run npm run generate`).toBe(true);
  });

  it('holds nothing the generator does not write', () => {
    // A file left behind by an older generator would never be checked again.
    const inGenerated = files.filter((file) => file.path.startsWith('src/generated/'));
    expect(readdirSync(packagePath('src', 'generated')).sort()).toEqual(inGenerated.map((file) => file.path.split('/').pop()).sort());
  });
});
