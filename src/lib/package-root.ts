import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { seaPackageRoot } from './sea-assets.js';

/** The package's own folder, found the same way from src/ (tsx) and dist/src/ (built). */
function findPackageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('social-gateway-mock: cannot find the package root');
    dir = parent;
  }
  return dir;
}

/** The package's folder; in the single executable, the folder its files were written to (src/lib/sea-assets.ts). */
export const PACKAGE_ROOT = seaPackageRoot() ?? findPackageRoot();

export function packagePath(...segments: string[]): string {
  return join(PACKAGE_ROOT, ...segments);
}
