import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { BUILT_DASHBOARD_VENDOR, DASHBOARD_VENDOR_FILES, installedPreact, withoutSourceMapComment } from '../src/dashboard/router.js';
import { PACKAGE_ROOT } from '../src/lib/package-root.js';

// Part of `npm run build`: Preact's own ESM files (and its licence) copied into the package, so
// the dashboard works offline and preact stays a dev dependency (docs/decisions/0021-dashboard.md).
const source = installedPreact();
if (!source) throw new Error('preact is not installed: run npm install');
const { version } = JSON.parse(readFileSync(join(source, 'package.json'), 'utf8')) as { version: string };

// Afresh each build, so a file no longer shipped does not linger in the package.
rmSync(BUILT_DASHBOARD_VENDOR, { recursive: true, force: true });
mkdirSync(BUILT_DASHBOARD_VENDOR, { recursive: true });
for (const [name, path] of Object.entries(DASHBOARD_VENDOR_FILES)) {
  writeFileSync(join(BUILT_DASHBOARD_VENDOR, name), withoutSourceMapComment(readFileSync(join(source, path), 'utf8')));
}
console.log(`wrote ${relative(PACKAGE_ROOT, BUILT_DASHBOARD_VENDOR)} (preact ${version})`);
