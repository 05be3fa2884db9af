import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';

/*
 * .ci/run installs the system tools in the background while npm ci and the checks run. When a step
 * fails, the script must still wait for that install rather than leave it running behind it (an
 * apt-get stopped halfway leaves dpkg locked). Here .ci/run runs in a copy of its folder with stand-ins
 * on the PATH: no tool is installed, apt-get takes a moment and leaves a mark when done, and npm ci fails.
 */

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function stub(bin: string, name: string, script: string): void {
  const file = join(bin, name);
  writeFileSync(file, `#!/bin/bash\n${script}\n`);
  chmodSync(file, 0o755);
}

describe('.ci/run', () => {
  it('waits for its background install when npm ci fails, and ends with the failure', async () => {
    const root = mkdtempSync(join(tmpdir(), 'sgw-ci-run-'));
    made.push(root);
    mkdirSync(join(root, '.ci'));
    copyFileSync(join(import.meta.dirname, '..', '..', '.ci', 'run'), join(root, '.ci', 'run'));
    const bin = join(root, 'bin');
    mkdirSync(bin);
    const done = join(root, 'apt-get-done');
    for (const tool of ['bash', 'mktemp', 'rm', 'cat', 'sleep', 'touch', 'id', 'dirname']) {
      const found = (await execa('bash', ['-c', `command -v ${tool}`])).stdout.trim();
      stub(bin, tool, `exec ${found} "$@"`);
    }
    stub(bin, 'apt-get', `sleep 1\n[ "$1" = install ] && touch ${JSON.stringify(done)}\nexit 0`);
    stub(bin, 'sudo', '"$@"');
    stub(bin, 'npm', '[ "$1" = ci ] && { echo "npm ci: failed on purpose" >&2; exit 1; }\nexit 0');

    const run = await execa(join(root, '.ci', 'run'), [], { env: { PATH: bin, HOME: root }, extendEnv: false, reject: false, all: true });

    expect(run.exitCode, run.all).toBe(1);
    expect(run.all).toContain('npm ci: failed on purpose');
    // The install had ended when the script did: it was waited for, not left behind.
    expect(existsSync(done)).toBe(true);
  });
});
