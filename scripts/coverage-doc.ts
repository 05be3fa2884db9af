import { writeFileSync } from 'node:fs';
import { renderCoverageDoc } from '../src/docs/coverage-doc.js';
import { packagePath } from '../src/lib/package-root.js';

writeFileSync(packagePath('docs', 'coverage.md'), renderCoverageDoc());
console.log('wrote docs/coverage.md');
