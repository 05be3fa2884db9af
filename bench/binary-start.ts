import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startProcess, waitForOk, type Pinning, type ServerSpec } from './lib/processes.js';
import { median } from './lib/stats.js';

/*
 * `npm run bench:binary`: the single executable's start to its first answer against
 * `node dist/src/bin.js` (issue 38: within 25%). Runs alternate, so a busy machine weighs on both
 * alike; each start waits for GET /__control/health. Also the executable's very first start, which
 * writes its files out (src/lib/sea-assets.ts), in a fresh TMPDIR. Needs npm run build:binary.
 */

const ROOT = join(import.meta.dirname, '..');
const EXECUTABLE = join(ROOT, 'release', 'social-gateway-mock-linux-x64');
const RUNS = Number(process.env.BENCH_START_RUNS ?? 7);
const NO_PINNING: Pinning = { available: false, server: undefined, generator: undefined, note: '' };

async function startOnce(spec: (port: number) => ServerSpec): Promise<number> {
  const port = await freePort();
  const server = startProcess(spec(port), NO_PINNING);
  try {
    return await waitForOk(server, { url: `http://127.0.0.1:${port}/__control/health` });
  } finally {
    await server.stop();
  }
}

const flags = (port: number) => ['--port', String(port), '--log-level', 'error'];
const node = (port: number): ServerSpec => ({ command: process.execPath, args: [join(ROOT, 'dist', 'src', 'bin.js'), ...flags(port)], cwd: ROOT });
const binary = (env: NodeJS.ProcessEnv = {}) => (port: number): ServerSpec => ({ command: EXECUTABLE, args: flags(port), cwd: ROOT, env });

if (!existsSync(EXECUTABLE)) throw new Error('release/social-gateway-mock-linux-x64 is missing: npm run build:binary');
const fresh = mkdtempSync(join(tmpdir(), 'sgm-bench-'));
const first = await startOnce(binary({ TMPDIR: fresh }));
rmSync(fresh, { recursive: true, force: true });
const times = { node: [] as number[], binary: [] as number[] };
for (let run = 0; run < RUNS; run += 1) {
  times.node.push(await startOnce(node));
  times.binary.push(await startOnce(binary()));
}
const row = (name: string, values: number[]) => `| ${name} | ${median(values).toFixed(0)} | ${Math.min(...values).toFixed(0)} | ${Math.max(...values).toFixed(0)} |`;
console.log(`Start to the first answer (GET /__control/health), ${RUNS} runs each, alternating; ms`);
console.log('| | median | min | max |\n| --- | --- | --- | --- |');
console.log(row('node dist/src/bin.js', times.node));
console.log(row('release/social-gateway-mock-linux-x64', times.binary));
console.log(`The executable's first start (writes its files out): ${first.toFixed(0)} ms`);
console.log(`Ratio of medians, executable / node: ${(median(times.binary) / median(times.node)).toFixed(2)}`);
