import { describe, expect, it } from 'vitest';
import { DEFAULT_API_KEY } from '../../src/server.js';
import { spawnEntry, spawnMock, type MockProcess } from '../helpers/process.js';

/*
 * Decision 0061: the command line turns off V8's allocation-site pretenuring before the server
 * starts. V8 reports each pretenuring decision under --trace-pretenuring-statistics, a line that
 * ends `=> tenure` when it decides to make a site's objects in the old generation from then on.
 * The tests count the decisions made after the start banner, under a load that builds sixteen
 * worlds and reads each twice: none through `src/bin.ts`, and some through the command line's
 * `main` started without it, so that a count of none says something.
 */

const TRACE = '--trace-pretenuring-statistics';
const WORKSPACES = 16;

/** Builds and reads sixteen workspaces, stops the server, and counts the tenure decisions printed meanwhile. */
async function tenuredUnderLoad(mock: MockProcess): Promise<number> {
  const atBanner = mock.stdout().length;
  const keys: string[] = [];
  for (let i = 0; i < WORKSPACES; i++) {
    const res = await fetch(`${mock.url}/__control/workspaces`, { method: 'POST', headers: { 'x-api-key': DEFAULT_API_KEY, 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(201);
    keys.push(((await res.json()) as { apiKey: string }).apiKey);
  }
  for (let round = 0; round < 2; round++) {
    for (const key of keys) {
      for (const path of ['/v1/connections', '/v1/posts?limit=20']) {
        const res = await fetch(`${mock.url}${path}`, { headers: { 'x-api-key': key } });
        expect(res.status).toBe(200);
        await res.arrayBuffer();
      }
    }
  }
  await mock.kill('SIGINT');
  return mock.stdout().slice(atBanner).match(/=> tenure$/gm)?.length ?? 0;
}

describe("V8's allocation-site pretenuring", () => {
  it('is off in the command line: the load makes no tenure decision', { timeout: 90_000 }, async () => {
    const mock = await spawnMock(['--clock-frozen'], 60_000, [TRACE]);
    // The trace speaks (module loading collects before the flag is set), so silence is the flag's.
    expect(mock.stdout()).toMatch(/pretenuring: /);
    expect(await tenuredUnderLoad(mock)).toBe(0);
  });

  it('is on without src/bin.ts: the same load, through the same main, makes some', { timeout: 90_000 }, async () => {
    const script = [
      "import { main } from './src/cli/main.ts';",
      'await main(process.argv.slice(1), { out: (line) => console.log(line), err: (line) => console.error(line), env: process.env, cwd: process.cwd() });',
    ].join('\n');
    const mock = await spawnEntry([TRACE, '--import', 'tsx', '--input-type=module', '-e', script, '--', '--port', '0', '--clock-frozen']);
    expect(await tenuredUnderLoad(mock)).toBeGreaterThan(0);
  });
});
