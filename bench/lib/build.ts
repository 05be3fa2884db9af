import { spawnSync } from 'node:child_process';

/**
 * The bench measures the built mock (what `npx social-gateway-mock` runs). The build
 * (scripts/build.ts) brings dist/ up to date with the sources, and only reads them when it is.
 */
export function ensureBuilt(root: string, log: (line: string) => void): void {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build.ts'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  for (const line of result.stdout.split('\n')) if (line) log(line);
  if (result.status !== 0) throw new Error('the build (scripts/build.ts) failed');
}
