import { writeFileSync } from 'node:fs';
import { packagePath } from '../src/lib/package-root.js';
import { renderGeneratedTypes } from './generated-types.js';

writeFileSync(packagePath('src', 'generated', 'openapi.ts'), await renderGeneratedTypes());
console.log('wrote src/generated/openapi.ts');
