import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_API_KEY } from '../../src/server.js';
import { docBlocksUnder, freePort, runCommand, setScripts, useRecipeProjects, writeDocFiles } from '../helpers/recipes.js';
import { listening } from '../proxy/helpers.js';

// docs/proxy.md, run as written, in a scratch project with the packed package installed: the drift
// report's walk-through (a second mock made to drift, the client's calls through `proxy --record …
// -- sh -c …`, then `drift`), its output held to the doc's own, line for line; and a vitest-kit
// suite recorded through `proxy -- <command>`, directly and through a nested `run --`.

const DOC = 'proxy.md';

/** The id of the upstream's account on a network, as its API lists it. */
async function upstreamConnection(url: string, platform: string): Promise<string> {
  const res = await fetch(`${url}/v1/connections`, { headers: { 'x-api-key': DEFAULT_API_KEY } });
  const { connections } = (await res.json()) as { connections: Array<{ id: string; platform: string }> };
  const found = connections.find((connection) => connection.platform === platform);
  if (!found) throw new Error(`the upstream has no ${platform} account`);
  return found.id;
}
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

  describe('Recording a suite written for the mock', () => {
    const HEADING = 'Recording a suite written for the mock';

    it('passes whole under run --, and records through proxy -- <command> with the mock-only test skipped, directly and under a nested run', async () => {
      const made = await newProject('kit-suite');
      await writeDocFiles(DOC, 'kit-suite/', made.dir);
      const [block] = docBlocksUnder(DOC, HEADING, 'sh');
      const [onMock, throughProxy, listing] = block!.code.trim().split('\n');
      // The "real service" is a second mock, in this process: its journal shows what reached it.
      const upstream = await listening({});
      try {
        const env = { GATEWAY_KEY: DEFAULT_API_KEY };
        const mocked = await runCommand(made, ['bash', '-c', onMock!], env);
        expect(mocked.exitCode, String(mocked.all)).toBe(0);
        expect(String(mocked.all)).toMatch(/Tests +3 passed \(3\)/);

        const recorded = throughProxy!.replace('https://gateway.example.com', upstream.url);
        expect(recorded).not.toBe(throughProxy);
        const proxied = await runCommand(made, ['bash', '-c', recorded], env);
        expect(proxied.exitCode, String(proxied.all)).toBe(0);
        expect(String(proxied.all)).toMatch(/Tests +2 passed \| 1 skipped \(3\)/);
        // The reporter counts the skip; the test's own output says why.
        expect(String(proxied.all)).toContain(`skipped: mock.control.advanceClock needs the mock's own world (a workspace, its clock, rules and control plane); behind social-gateway-mock proxy the API is the real service at ${upstream.url}, which has none`);
        const shown = listing!.split('#')[1]!.trim().split(/\s+/);
        expect(readdirSync(join(made.dir, 'rec')).sort()).toEqual(shown);
        // The suite's calls reached the real service, with its key, through the proxy: no mock of the kit's own answered them.
        const reached = () => upstream.server.registry.defaultWorkspace.journal.entries().map((entry) => `${entry.operationId} ${entry.status}`);
        expect(reached()).toEqual(['listConnections 200', 'createPost 400']);
        expect(upstream.server.registry.size).toBe(1);

        // An `npm test` that is itself `social-gateway-mock run -- vitest run`: the nested run starts nothing.
        await setScripts(made, { test: 'social-gateway-mock run -- vitest run' });
        rmSync(join(made.dir, 'rec'), { recursive: true });
        const nested = await runCommand(made, ['bash', '-c', recorded.replace('-- npx vitest run', '-- npm test')], env);
        expect(nested.exitCode, String(nested.all)).toBe(0);
        expect(String(nested.all)).toContain('run is under proxy -- <command>');
        expect(String(nested.all)).toMatch(/Tests +2 passed \| 1 skipped \(3\)/);
        expect(readdirSync(join(made.dir, 'rec')).sort()).toEqual(shown);
        expect(reached()).toEqual(['listConnections 200', 'createPost 400', 'listConnections 200', 'createPost 400']);
      } finally {
        await upstream.close();
      }
    });

    it('fails every test with what to do when the proxy was given no key', async () => {
      const made = await newProject('kit-suite-no-key');
      await writeDocFiles(DOC, 'kit-suite/', made.dir);
      const upstream = await listening({});
      try {
        const result = await runCommand(made, ['npx', 'social-gateway-mock', 'proxy', '--upstream', upstream.url, '--', 'npx', 'vitest', 'run']);
        expect(result.exitCode).toBe(1);
        expect(String(result.all)).toContain('the kit has no key to send: start the proxy with SOCIAL_GATEWAY_MOCK_UPSTREAM_KEY=');
        expect(String(result.all)).toMatch(/Tests +3 failed \(3\)/);
        expect(upstream.server.registry.defaultWorkspace.journal.entries()).toEqual([]);
      } finally {
        await upstream.close();
      }
    });
  });
  describe('Replaying a kit suite, test by test', () => {
    const HEADING = 'Replaying a kit suite, test by test';

    it("records a kit suite against an upstream that answers otherwise than the mock, and every test sees the upstream's answers on replay, in any order", { timeout: 900_000 }, async () => {
      const made = await newProject('replay-suite');
      await writeDocFiles(DOC, 'replay-suite/', made.dir);
      const [block] = docBlocksUnder(DOC, HEADING, 'sh');
      const [record, convert, replay, shuffled] = block!.code.trim().split('\n');
      // The "real service": a mock of another seed, so its ids and world differ from the ones the kit's workspaces start with.
      const upstream = await listening({ seed: 42 });
      try {
        const env = { GATEWAY_KEY: DEFAULT_API_KEY };
        const recorded = await runCommand(made, ['bash', '-c', record!.replace('https://gateway.example.com', upstream.url)], env);
        expect(recorded.exitCode, String(recorded.all)).toBe(0);
        expect(String(recorded.all)).toMatch(/Tests +3 passed \(3\)/);
        const snapshots = readFileSync(join(made.dir, 'test', '__snapshots__', 'posts.test.ts.snap'), 'utf8');
        // The snapshots hold the upstream's world: its bluesky account's id, which the mock's own world does not have.
        const upstreamBluesky = await upstreamConnection(upstream.url, 'bluesky');
        expect(snapshots).toContain(upstreamBluesky);

        const converted = await runCommand(made, ['bash', '-c', convert!]);
        expect(converted.exitCode, String(converted.all)).toBe(0);
        const reached = upstream.server.registry.defaultWorkspace.journal.entries().length;

        for (const line of [replay!, shuffled!]) {
          const replayed = await runCommand(made, ['bash', '-c', line]);
          expect(replayed.exitCode, String(replayed.all)).toBe(0);
          expect(String(replayed.all)).toMatch(/Tests +3 passed \(3\)/);
          expect(String(replayed.all)).not.toContain('never fired');
          expect(String(replayed.all)).not.toContain('nothing was replayed');
        }
        // Offline: nothing of the replays reached the upstream.
        expect(upstream.server.registry.defaultWorkspace.journal.entries().length).toBe(reached);

        // Without the scenario the mock answers from its own world, and the snapshots catch it: the replay is what passed.
        const unreplayed = await runCommand(made, ['npx', 'social-gateway-mock', 'run', '--', 'npx', 'vitest', 'run']);
        expect(unreplayed.exitCode).not.toBe(0);
        expect(String(unreplayed.all)).toMatch(/Snapshot .* mismatched/);

        // One test alone leaves the other tests' rules unfired: named, and a failing exit with the flag.
        const partial = await runCommand(made, ['bash', '-c', `${replay!} -t 'lists the connected accounts'`]);
        expect(partial.exitCode).toBe(1);
        expect(String(partial.all)).toMatch(/Tests +1 passed \| 2 skipped \(3\)/);
        expect(String(partial.all)).toMatch(/rule rec-\d{6}-createPost of scenario recorded never fired \(in none of the \d+ workspaces that loaded it\)/);
        expect(String(partial.all)).toContain('scenario rules never fired: failing, as --fail-on-unfired-rules asks');
      } finally {
        await upstream.close();
      }
    });
  });
});
