import { readFileSync, writeFileSync } from 'node:fs';
import { withEventCatalog } from '../src/docs/webhooks-doc.js';
import { packagePath } from '../src/lib/package-root.js';

const file = packagePath('docs', 'webhooks.md');
writeFileSync(file, withEventCatalog(readFileSync(file, 'utf8')));
console.log('wrote the event catalog of docs/webhooks.md');
