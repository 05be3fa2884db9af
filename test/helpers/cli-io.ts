import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CliIo } from '../../src/cli/main.js';

/** The command line's streams, kept as lines, with an environment and a working folder (a fresh one of the test's own unless given). */
export function cliIo(env: NodeJS.ProcessEnv = {}, cwd = mkdtempSync(join(tmpdir(), 'sgw-cli-'))) {
  const out: string[] = [];
  const err: string[] = [];
  const streams: CliIo = { out: (line) => out.push(line), err: (line) => err.push(line), env, cwd };
  return { streams, out, err, cwd };
}
