import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_API_KEY } from '../../src/server.js';
import { checkout, cleanEnv } from '../helpers/packed.js';
import { processAlive } from '../helpers/process.js';

// The README's first command, `npm start`, in a checkout of this repository (its `prestart`
// builds dist/ first), stopped the two ways people stop it: a SIGTERM to npm (a CI runner,
// `kill`), and Ctrl-C in a terminal (SIGINT to the whole foreground process group: npm and the
// server alike).

let repo: string;
beforeAll(async () => {
  repo = await checkout();
}, 120_000);
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
    // The build comes first (prestart), then the server.
    await expect.poll(() => existsSync(ready), { timeout: 90_000, interval: 100 }).toBe(true);
    const { pid, url } = JSON.parse(readFileSync(ready, 'utf8')) as { pid: number; url: string };
    expect((await fetch(`${url}/v1/connections`, { headers: { 'x-api-key': DEFAULT_API_KEY } })).status).toBe(200);

    stop(npm.pid!);
    // Bounded by the project's run timeout; how long it takes is the bench's business, not a test's.
    const result = await npm;
    expect(result.exitCode, `${String(result.stderr)}`).toBe(0);
    expect(processAlive(pid)).toBe(false);
    expect(existsSync(ready)).toBe(false);
    const report = JSON.parse(readFileSync(coverage, 'utf8')) as { byOperation: Array<{ operationId: string; calls: number }> };
    expect(report.byOperation.find((operation) => operation.operationId === 'listConnections')?.calls).toBe(1);
    await expect(fetch(`${url}/__control/health`)).rejects.toThrow();
  });
});
