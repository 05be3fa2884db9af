import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { contractSnapshot, CONTRACT_FILES, type OpenApiDocument } from '../../src/http/spec.js';
import { packagePath } from '../../src/lib/package-root.js';

describe('contractSnapshot', () => {
  const snapshot = contractSnapshot();

  it.each(CONTRACT_FILES)('holds %s exactly as the YAML parses, through JSON', (file) => {
    const fromYaml = parse(readFileSync(packagePath(file), 'utf8')) as OpenApiDocument;
    expect(JSON.parse(JSON.stringify(snapshot[file]?.document))).toEqual(fromYaml);
  });
});
