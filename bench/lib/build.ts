import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function newestMtime(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

/**
 * The bench measures the built mock (what `npx social-gateway-mock` runs). Builds it
 * when dist/ is missing or older than any source it is compiled from.
 */
export function ensureBuilt(root: string, log: (line: string) => void): void {
  const entry = join(root, 'dist', 'src', 'bin.js');
  // The contracts count too: the build snapshots them (dist/src/contracts.json).
  const sources = ['src', 'openapi.yaml', 'control.yaml', 'tsconfig.json', 'tsconfig.build.json', 'package.json'].map((name) => join(root, name));
  const built = existsSync(entry) ? statSync(entry).mtimeMs : 0;
  const stale = built === 0 ? 'missing' : sources.some((source) => newestMtime(source) > built) ? 'older than src/' : undefined;
  if (!stale) return;
  log(`dist/ is ${stale}: npm run build`);
  const result = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0) throw new Error('npm run build failed');
}
