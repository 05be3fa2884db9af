import { writeFileSync } from 'node:fs';
import { packagePath } from '../src/lib/package-root.js';
import { renderGeneratedFiles } from './generated-types.js';

for (const file of await renderGeneratedFiles()) {
  writeFileSync(packagePath(...file.path.split('/')), file.text);
  console.log(`wrote ${file.path}`);
}
