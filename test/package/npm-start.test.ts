import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_API_KEY } from '../../src/server.js';
import { builtCheckout, checkout, cleanEnv } from '../helpers/packed.js';
import { processAlive } from '../helpers/process.js';

// The README's first command, `npm start`, in a checkout of this repository (its `prestart`
// builds dist/ first), stopped the two ways people stop it: a SIGTERM to npm (a CI runner,
// `kill`), and Ctrl-C in a terminal (SIGINT to the whole foreground process group: npm and the
// server alike). The checkout comes built (the dist/ `npm pack` built from the same sources), so
// prestart has nothing to compile: a build from nothing is the next describe's, in a checkout of
// its own.

let repo: string;
beforeAll(async () => {
  repo = await builtCheckout();
}, 600_000);
afterAll(async () => {
  if (repo) await rm(repo, { recursive: true, force: true });
});

describe('npm start', { timeout: 120_000 }, () => {
  it.each([
    ['SIGTERM sent to npm', (npmPid: number) => process.kill(npmPid, 'SIGTERM')],
    ['Ctrl-C (SIGINT to the process group)', (npmPid: number) => process.kill(-npmPid, 'SIGINT')],
  ])('stops on %s: npm exits 0, coverage written, port free, no process left', async (_how, stop) => {
    const dir = mkdtempSync(join(tmpdir(), 'sgw-npm-start-'));
    const ready = join(dir, 'ready.json');
    const coverage = join(dir, 'coverage.json');
    const npm = execa('npm', ['start', '--', '--port', '0', '--ready-file', ready, '--coverage-report', coverage], {
      cwd: repo,
      env: cleanEnv(),
      extendEnv: false,
      detached: true,
      reject: false,
      timeout: 120_000,
    });
    // The build's check comes first (prestart), then the server.
    await expect.poll(() => existsSync(ready), { timeout: 90_000, interval: 100 }).toBe(true);
    const { pid, url } = JSON.parse(readFileSync(ready, 'utf8')) as { pid: number; url: string };
    expect((await fetch(`${url}/v1/connections`, { headers: { 'x-api-key': DEFAULT_API_KEY } })).status).toBe(200);

    stop(npm.pid!);
    // Bounded by the project's run timeout; how long it takes is the bench's business, not a test's.
    const result = await npm;
    expect(result.exitCode, `${String(result.stderr)}`).toBe(0);
    expect(result.stdout).toContain('build: dist/ is up to date');
    expect(processAlive(pid)).toBe(false);
    expect(existsSync(ready)).toBe(false);
    const report = JSON.parse(readFileSync(coverage, 'utf8')) as { byOperation: Array<{ operationId: string; calls: number }> };
    expect(report.byOperation.find((operation) => operation.operationId === 'listConnections')?.calls).toBe(1);
    await expect(fetch(`${url}/__control/health`)).rejects.toThrow();
  });
});

/** `npm start -- --port 0` in the checkout, and its output until the banner names the server's URL. */
function npmStart(cwd: string) {
  const npm = execa('npm', ['start', '--', '--port', '0'], { cwd, env: cleanEnv(), extendEnv: false, detached: true, reject: false, timeout: 120_000, all: true });
  let output = '';
  const listening = new Promise<{ url: string; output: string }>((resolve, reject) => {
    npm.all.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const url = /API\s+(http:\/\/\S+)\/v1/.exec(output)?.[1];
      if (url) resolve({ url, output });
    });
    void npm.then((result) => reject(new Error(`npm start exited (${result.exitCode}) before listening:\n${output}`)));
  });
  return { npm, listening };
}

/** Every file under dist/, by path, with what a rewrite or a delete-and-rebuild would change: its inode and mtime. */
function distFiles(repo: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of readdirSync(join(repo, 'dist'), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const { ino, mtimeMs } = statSync(path);
    files[relative(join(repo, 'dist'), path)] = `${ino}:${mtimeMs}`;
  }
  return files;
}

// The build never deletes the dist/ a server is using, and builds nothing when nothing changed
// (docs/decisions/0032-npm-start-that-starts.md).
describe('two npm starts in one checkout', { timeout: 240_000 }, () => {
  let fresh: string;
  beforeAll(async () => {
    fresh = await checkout();
  }, 120_000);
  afterAll(async () => {
    if (fresh) await rm(fresh, { recursive: true, force: true });
  });

  it('both serve; one builds, the other waits for that build; a third start builds nothing; a rebuild replaces only what changed', async () => {
    const [first, second] = [npmStart(fresh), npmStart(fresh)];
    try {
      const servers = await Promise.all([first.listening, second.listening]);
      // Started together on a checkout with no dist/: whichever took the build's lock built, the other found it done.
      expect(servers.map(({ output }) => (output.includes('build: dist/ rebuilt') ? 'built' : output.includes('build: dist/ is up to date') ? 'up to date' : output)).sort()).toEqual(['built', 'up to date']);
      expect(servers[0].url).not.toBe(servers[1].url);

      const built = distFiles(fresh);
      const third = npmStart(fresh);
      const { output } = await third.listening;
      expect(output).toContain('build: dist/ is up to date');
      process.kill(third.npm.pid!, 'SIGTERM');
      expect((await third.npm).exitCode).toBe(0);
      expect(distFiles(fresh)).toEqual(built);

      // An edit while both serve: the build writes that file's output (and its own records) by a
      // rename, and leaves every other file of dist/ as it was.
      appendFileSync(join(fresh, 'src', 'cli', 'serve.ts'), '\n// edited while two servers run\n');
      const rebuild = await execa('npm', ['run', 'build'], { cwd: fresh, env: cleanEnv(), extendEnv: false, timeout: 120_000 });
      expect(rebuild.stdout).toContain('build: server code: ');
      const rebuilt = distFiles(fresh);
      expect(Object.keys(rebuilt).sort()).toEqual(Object.keys(built).sort());
      expect(Object.keys(built).filter((file) => rebuilt[file] !== built[file]).sort()).toEqual(['.build/server.tsbuildinfo', '.build/steps.json', 'src/cli/serve.js']);
      expect(readFileSync(join(fresh, 'dist', 'src', 'cli', 'serve.js'), 'utf8')).toContain('// edited while two servers run');

      // What a running server reads from dist/ at request time is still there for both.
      for (const { url } of servers) {
        for (const path of ['/__control/health', '/docs/assets/swagger-ui.css', '/__dashboard/vendor/preact.mjs', '/__dashboard/ui/main.js']) {
          expect((await fetch(`${url}${path}`)).status, `${url}${path}`).toBe(200);
        }
      }
    } finally {
      for (const { npm } of [first, second]) if (npm.exitCode === null) process.kill(npm.pid!, 'SIGTERM');
    }
    expect((await first.npm).exitCode).toBe(0);
    expect((await second.npm).exitCode).toBe(0);
  });
});
