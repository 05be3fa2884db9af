import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

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

export const PACKAGE_ROOT = findPackageRoot();

export function packagePath(...segments: string[]): string {
  return join(PACKAGE_ROOT, ...segments);
}
