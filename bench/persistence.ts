/**
 * npm run bench:persistence: what --data costs and what it keeps.
 *
 * 1. Latency of a write (POST /v1/profiles, then DELETE of it) in memory and with
 *    --data, one at a time and 20 at a time, with the default world (one workspace)
 *    and a larger one (21 workspaces, a bigger file to write before each answer).
 * 2. kill -9 right after a 2xx, restart, check the write: KILL_CYCLES times
 *    (default 10) on the real CLI.
 * 3. kill -9 in the middle of a load (LOAD_KILL_CYCLES, default 12): six writers in
 *    three workspaces and one adding whole fixture worlds; every third cycle the data
 *    file's directory is moved away first, so writes cannot be kept (they must answer
 *    503), and the kill comes while it is away. Each start checks that every id
 *    answered 201 before any kill is listed: acknowledged, lost (must be 0), refused.
 *
 *   WRITES (200)  KILL_CYCLES (10)  LOAD_KILL_CYCLES (12)  ONLY (latency | kill | load-kill)
 */
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMockServer, DEFAULT_API_KEY } from '../src/server.js';
import { spawnMock } from '../test/helpers/process.js';

const WRITES = Number(process.env.WRITES ?? 200);
const KILL_CYCLES = Number(process.env.KILL_CYCLES ?? 10);
const LOAD_KILL_CYCLES = Number(process.env.LOAD_KILL_CYCLES ?? 12);

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

/** Writers that run until the kill; `until` waits for a count of answers, never for time. */
function startLoad(base: string, tenants: string[]) {
  const acknowledged = new Map<string, string[]>(tenants.map((key) => [key, []]));
  const counts = { acks: 0, refused: 0, other: 0 };
  let stopped = false;
  let check: () => void = () => undefined;
  const writer = async (key: string, name: string) => {
    for (let i = 0; !stopped; i++) {
      try {
        const res = await fetch(`${base}/v1/profiles`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ name: `${name}${i}` }) });
        const body = (await res.json()) as { id?: string };
        if (res.status === 201 && body.id) {
          acknowledged.get(key)?.push(body.id);
          counts.acks++;
        } else if (res.status === 503) counts.refused++;
        else counts.other++;
      } catch {
        return;
      }
      check();
    }
  };
  const worlds = async () => {
    while (!stopped) {
      try {
        await (await fetch(`${base}/__control/workspaces`, { method: 'POST', headers: { 'x-api-key': DEFAULT_API_KEY, 'content-type': 'application/json' }, body: '{}' })).arrayBuffer();
      } catch {
        return;
      }
    }
  };
  const writers = [...tenants.flatMap((key, t) => [writer(key, `${t}a`), writer(key, `${t}b`)]), worlds()];
  return {
    acknowledged,
    counts,
    until(ready: () => boolean): Promise<void> {
      return new Promise((resolve) => {
        check = () => {
          if (ready()) resolve();
        };
        check();
      });
    },
    async stop() {
      stopped = true;
      await Promise.all(writers);
    },
  };
}

async function loadKillLoop(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sgw-bench-'));
  const data = join(dir, 'data');
  const file = join(data, 'state.json');
  mkdirSync(data);
  const args = ['--data', file, '--clock', '2026-03-02T09:00:00Z', '--clock-frozen', '--rate-limit', 'off'];
  const kept = new Map<string, string[]>();
  let tenants: string[] = [];
  let acknowledged = 0;
  let refused = 0;
  let lost = 0;
  for (let cycle = 1; cycle <= LOAD_KILL_CYCLES + 1; cycle++) {
    const mock = await spawnMock(args);
    const agent = new Agent({ keepAlive: false });
    for (const [key, ids] of kept) {
      const listed = new Set<string>();
      let cursor: string | null = null;
      do {
        const page = await fetch(`${mock.url}/v1/profiles?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { headers: { 'x-api-key': key } });
        const body = (await page.json()) as { data: Array<{ id: string }>; nextCursor: string | null };
        for (const profile of body.data) listed.add(profile.id);
        cursor = body.nextCursor;
      } while (cursor);
      lost += ids.filter((id) => !listed.has(id)).length;
    }
    if (cycle > LOAD_KILL_CYCLES) {
      await mock.kill('SIGTERM');
      break;
    }
    if (tenants.length === 0) {
      tenants = [DEFAULT_API_KEY];
      for (let i = 0; i < 2; i++) tenants.push(((await call(agent, mock.url, 'POST', '/__control/workspaces', { fixtures: false })).body as { apiKey: string }).apiKey);
    }
    const load = startLoad(mock.url, tenants);
    // A different point in the load each cycle, counted in answers.
    await load.until(() => load.counts.acks >= 20 + ((cycle * 37) % 60));
    const away = cycle % 3 === 0;
    if (away) {
      renameSync(data, `${data}-away`);
      // Twenty answers while it is away (each must be a 503: a 201 now would be lost by the kill).
      const answered = () => load.counts.acks + load.counts.refused + load.counts.other;
      const before = answered();
      await load.until(() => answered() >= before + 20);
    }
    await mock.kill('SIGKILL');
    await load.stop();
    if (away) renameSync(`${data}-away`, data);
    for (const [key, ids] of load.acknowledged) kept.set(key, [...(kept.get(key) ?? []), ...ids]);
    acknowledged += load.counts.acks;
    refused += load.counts.refused;
    agent.destroy();
  }
  console.log(`  kill -9 mid-load, ${LOAD_KILL_CYCLES} cycles (${Math.floor(LOAD_KILL_CYCLES / 3)} with the data directory gone): ${acknowledged} writes acknowledged, ${lost} lost, ${refused} answered 503`);
  rmSync(dir, { recursive: true, force: true });
}

const only = process.env.ONLY;
if (only === undefined || only === 'latency') {
  const dir = mkdtempSync(join(tmpdir(), 'sgw-bench-'));
  console.log(`persistence bench: ${WRITES} writes (each a create and a delete)`);
  await latency('in memory, 1 workspace', undefined, 0);
  await latency('--data, 1 workspace', join(dir, 'one.json'), 0);
  await latency('in memory, 21 workspaces', undefined, 20);
  await latency('--data, 21 workspaces', join(dir, 'many.json'), 20);
  rmSync(dir, { recursive: true, force: true });
}
if (only === undefined || only === 'kill') await killLoop();
if (only === undefined || only === 'load-kill') await loadKillLoop();
