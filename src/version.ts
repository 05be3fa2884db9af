import { readFileSync } from 'node:fs';
import { packagePath } from './lib/package-root.js';

/** The package version, reported by --version and the health endpoint. */
export const VERSION = (JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { version: string }).version;
