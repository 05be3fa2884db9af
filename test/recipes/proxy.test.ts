import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { docBlocksUnder, freePort, runCommand, useRecipeProjects } from '../helpers/recipes.js';

// docs/proxy.md, run as written: the drift report's walk-through (a second mock made to drift, the
// client's calls through `proxy --record … -- sh -c …`, then `drift`) in a scratch project with the
// packed package installed, its output held to the doc's own, line for line.

const DOC = 'proxy.md';
const newProject = useRecipeProjects('proxy');

describe('docs/proxy.md', { timeout: 120_000 }, () => {
  it('"A run" of the drift report prints what the doc shows, and drift exits 1', async () => {
    const [script] = docBlocksUnder(DOC, 'A run', 'sh');
    const [shown] = docBlocksUnder(DOC, 'A run', 'console');
    // The one change: its fixed ports (another suite on this machine may hold them) become free ones.
    const [upstream, proxy] = [await freePort(), await freePort()];
    const code = script!.code.replaceAll('4311', String(upstream)).replaceAll('4312', String(proxy));
    const made = await newProject('drift');
    const session = await runCommand(made, ['sh', '-c', code]);
    expect(session.exitCode, String(session.all)).toBe(0);

    // The console block: the script's lines, `ls rec`, then `drift rec` and its status.
    const transcript = shown!.code.split('\n');
    const after = (prompt: string) => transcript.slice(transcript.indexOf(prompt) + 1, transcript.findIndex((line, i) => i > transcript.indexOf(prompt) && line.startsWith('$ ')));
    expect(String(session.stdout).trim().split('\n')).toEqual(after('$ sh drift-demo.sh'));
    expect(readdirSync(join(made.dir, 'rec')).sort().join(' ')).toBe(after('$ ls rec').join(' ').split(/\s+/).join(' '));
    const drift = await runCommand(made, ['npx', 'social-gateway-mock', 'drift', 'rec']);
    expect(drift.exitCode).toBe(Number(after('$ echo $?')[0]));
    expect(String(drift.stdout).trim().split('\n')).toEqual(after('$ npx social-gateway-mock drift rec').map((line) => line.replaceAll('4311', String(upstream))));
  });
});
