/**
 * npm run bench:persistence: what --data costs and what it keeps.
 *
 * 1. Latency of a write (POST /v1/profiles, then DELETE of it) in memory and with
 *    --data, one at a time and 20 at a time, with the default world (one workspace)
 *    and a larger one (21 workspaces, a bigger file to write before each answer).
 * 2. kill -9 right after a 2xx, restart, check the write: KILL_CYCLES times
 *    (default 10) on the real CLI.
 *
 *   WRITES (200)  KILL_CYCLES (10)  ONLY (latency | kill)
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMockServer, DEFAULT_API_KEY } from '../src/server.js';
import { spawnMock } from '../test/helpers/process.js';

const WRITES = Number(process.env.WRITES ?? 200);
const KILL_CYCLES = Number(process.env.KILL_CYCLES ?? 10);

function call(agent: Agent, base: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const { port } = new URL(base);
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = httpRequest({ hostname: '127.0.0.1', port, path, method, agent, headers: { 'x-api-key': DEFAULT_API_KEY, ...(payload && { 'Content-Type': 'application/json', 'Content-Length': String(payload.length) }) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, body: text === '' ? undefined : (JSON.parse(text) as unknown) });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

function stats(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => (sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0).toFixed(2);
  return `p50 ${at(50)} ms, p99 ${at(99)} ms`;
}

async function latency(label: string, dataFile: string | undefined, extraWorkspaces: number): Promise<void> {
  const mock = await createMockServer({ seed: 1, clock: '2026-03-02T09:00:00Z', clockFrozen: true, rateLimit: false, ...(dataFile && { dataFile }) });
  const base = await mock.listen(0);
  const agent = new Agent({ keepAlive: true, maxSockets: 20 });
  for (let i = 0; i < extraWorkspaces; i++) await call(agent, base, 'POST', '/__control/workspaces', {});
  const write = async (name: string) => {
    const t0 = performance.now();
    const created = await call(agent, base, 'POST', '/v1/profiles', { name });
    const t1 = performance.now();
    await call(agent, base, 'DELETE', `/v1/profiles/${(created.body as { id: string }).id}`);
    return [t1 - t0, performance.now() - t1];
  };
  const sequential: number[] = [];
  for (let i = 0; i < WRITES; i++) sequential.push(...(await write(`seq ${i}`)));
  const started = performance.now();
  const concurrent: number[] = [];
  for (let batch = 0; batch < WRITES / 20; batch++) {
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => write(`par ${batch}-${i}`)));
    for (const pair of results) concurrent.push(...pair);
  }
  const perSecond = Math.round(concurrent.length / ((performance.now() - started) / 1000));
  const size = dataFile ? `, file ${Math.round(statSync(dataFile).size / 1024)} KB` : '';
  console.log(`  ${label.padEnd(34)} one at a time: ${stats(sequential)} | 20 at a time: ${stats(concurrent)}, ${perSecond} writes/s${size}`);
  agent.destroy();
  await mock.close();
}

async function killLoop(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sgw-bench-'));
  const file = join(dir, 'state.json');
  const written: string[] = [];
  let survived = 0;
  const startTimes: number[] = [];
  for (let cycle = 1; cycle <= KILL_CYCLES; cycle++) {
    const t0 = performance.now();
    const mock = await spawnMock(['--data', file, '--clock', '2026-03-02T09:00:00Z', '--clock-frozen']);
    startTimes.push(performance.now() - t0);
    const agent = new Agent({ keepAlive: false });
    const listed = await call(agent, mock.url, 'GET', '/v1/profiles?limit=100');
    const names = new Set(((listed.body as { data: Array<{ name: string }> }).data ?? []).map((profile) => profile.name));
    if (written.every((name) => names.has(name))) survived = written.length;
    else console.log(`  cycle ${cycle}: lost ${written.filter((name) => !names.has(name)).join(', ')}`);
    const name = `kill ${cycle}`;
    const created = await call(agent, mock.url, 'POST', '/v1/profiles', { name });
    await mock.kill('SIGKILL');
    if (created.status === 201) written.push(name);
  }
  // The last write has no restart after it: read it from the file the kill left.
  const onDisk = readFileSync(file, 'utf8');
  const lastOnDisk = written.length > 0 && onDisk.includes(`"name": "${written[written.length - 1] as string}"`);
  console.log(
    `  kill -9 right after a 201, ${KILL_CYCLES} cycles: ${survived}/${written.length - 1} acknowledged writes found by the next start, the last ${lastOnDisk ? 'found' : 'NOT found'} in the file; start ${stats(startTimes)}`,
  );
  rmSync(dir, { recursive: true, force: true });
}

const only = process.env.ONLY;
if (only !== 'kill') {
  const dir = mkdtempSync(join(tmpdir(), 'sgw-bench-'));
  console.log(`persistence bench: ${WRITES} writes (each a create and a delete)`);
  await latency('in memory, 1 workspace', undefined, 0);
  await latency('--data, 1 workspace', join(dir, 'one.json'), 0);
  await latency('in memory, 21 workspaces', undefined, 20);
  await latency('--data, 21 workspaces', join(dir, 'many.json'), 20);
  rmSync(dir, { recursive: true, force: true });
}
if (only !== 'latency') await killLoop();
