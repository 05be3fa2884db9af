import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { PACKAGE_ROOT } from '../src/lib/package-root.js';
import { BUILT_DOCS_ASSETS, DOCS_ASSET_FILES, DOCS_LICENSE_FILES } from '../src/docs/docs-page.js';

// Part of `npm run build`: Swagger UI's files copied into the package, so that swagger-ui-dist,
// and the analytics package its install script runs, stay dev dependencies
// (docs/decisions/0010-packaging.md).
const require = createRequire(import.meta.url);
const source = dirname(require.resolve('swagger-ui-dist/package.json'));
const { version } = JSON.parse(readFileSync(join(source, 'package.json'), 'utf8')) as { version: string };

// Afresh each build, so a file Swagger UI no longer has does not linger in the package.
rmSync(BUILT_DOCS_ASSETS, { recursive: true, force: true });
mkdirSync(BUILT_DOCS_ASSETS, { recursive: true });
for (const file of [...DOCS_ASSET_FILES, ...DOCS_LICENSE_FILES]) {
  let text = readFileSync(join(source, file), 'utf8');
  // The source maps they name are not copied: without the comment a browser's developer
  // tools do not ask for them and log a 404.
  if (file.endsWith('.css') || file.endsWith('.js')) text = text.replace(/\/[*/]# sourceMappingURL=[^\s*]+(?:\s*\*\/)?\s*$/, '');
  writeFileSync(join(BUILT_DOCS_ASSETS, file), text);
}
console.log(`wrote ${relative(PACKAGE_ROOT, BUILT_DOCS_ASSETS)} (swagger-ui-dist ${version})`);
