import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { PACKAGE_ROOT } from '../src/lib/package-root.js';
import { CONTRACT_SNAPSHOT_FILE, contractSnapshot } from '../src/http/spec.js';

// Part of `npm run build`: the contracts parsed ahead of time, so the mock starts without parsing YAML.
writeFileSync(CONTRACT_SNAPSHOT_FILE, JSON.stringify(contractSnapshot()));
console.log(`wrote ${relative(PACKAGE_ROOT, CONTRACT_SNAPSHOT_FILE)}`);
