/**
 * `npm run bench:ab -- <bin.js of build 1> <bin.js of build 2> …`: builds of the mock
 * on the same workloads and the same start-up measure, taking turns (the order
 * rotates every round) so that a change in the machine's load falls on all of them
 * alike; medians per build and the change from the first build. This is how the
 * before/after figures in docs/performance.md were taken.
 *
 * BENCH_SECONDS (5), BENCH_CONNECTIONS (50), BENCH_AB_ROUNDS (4; 0 skips the load),
 * BENCH_WORKLOADS (connections), BENCH_START_RUNS (6; 0 skips start-up) change it.
 * A creating workload (posts-create, mixed) posts to a pool of BENCH_WORKSPACES (64) workspaces
 * whose clocks move a day every BENCH_ADVANCE_MS (200), as `npm run bench` does, so the
 * publishing is in each build's CPU per request.
 */
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { callJson, ClockDriver, DEFAULT_POOL_WORKSPACES, newestPostId, workspacePool, type ConnectionSummary } from './lib/client.js';
import { runLoad } from './lib/load.js';
import { detectPinning, freePort, sleep, startProcess, waitForOk } from './lib/processes.js';
import { markdownTable } from './lib/report.js';
import { DEFAULT_API_KEY, serverSpec } from './lib/servers.js';
import { median, pairedRatios, type RoundRun } from './lib/stats.js';
import { WORKLOADS } from './lib/workloads.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const entries = process.argv.slice(2);
if (entries.length < 2) throw new Error('usage: tsx bench/ab.ts <bin.js of build 1> <bin.js of build 2> [more builds]');
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const rounds = Number(process.env.BENCH_AB_ROUNDS ?? 4);
const startRuns = Number(process.env.BENCH_START_RUNS ?? 6);
const poolSize = Number(process.env.BENCH_WORKSPACES ?? DEFAULT_POOL_WORKSPACES);
const advanceMs = Number(process.env.BENCH_ADVANCE_MS ?? 200);
const workloads = (process.env.BENCH_WORKLOADS ?? 'connections').split(',').map((id) => {
  const found = WORKLOADS.find((w) => w.id === id.trim());
  if (!found || found.servers.every((server) => server !== 'mock')) throw new Error(`BENCH_WORKLOADS: '${id}' is not a workload of the mock`);
  return found;
});
const creates = workloads.some((workload) => workload.creates);

const pinning = detectPinning();
const probe = (port: number) => ({ url: `http://127.0.0.1:${port}/v1/connections`, headers: { 'x-api-key': DEFAULT_API_KEY } });
/** Each build by a short name: its folder relative to the project. */
const names = entries.map((entry) => relative(ROOT, dirname(dirname(dirname(join(ROOT, entry))))) || '.');
/** Round r runs the builds starting at r, so every build goes first as often as the others. */
const turn = (round: number) => entries.map((_, i) => (i + round) % entries.length);
/** Each build's rounds per workload: their medians, and the ratios round by round. */
const runs: RoundRun[][][] = entries.map(() => workloads.map(() => []));
const starts: number[][] = entries.map(() => []);
console.log(`${entries.map((entry, i) => `${names[i]} = ${entry}`).join('\n')}\n${rounds} rounds of ${seconds} s, ${connections} connections, ${startRuns} starts each; ${pinning.note}`);

for (let run = 0; run < startRuns; run++) {
  for (const i of turn(run)) {
    const port = await freePort();
    const server = startProcess(serverSpec('mock', ROOT, port, {}, { entry: entries[i] }), pinning);
    try {
      starts[i]?.push(Math.round(await waitForOk(server, probe(port))));
    } finally {
      await server.stop();
    }
    await sleep(200);
  }
}
if (startRuns > 0) console.log(`start to first 200 (ms): ${names.map((name, i) => `${name} ${starts[i]?.join(', ')}`).join(' | ')}`);

for (let round = 0; round < rounds; round++) {
  for (const i of turn(round)) {
    const port = await freePort();
    const server = startProcess(serverSpec('mock', ROOT, port, {}, { entry: entries[i] }), pinning);
    try {
      await waitForOk(server, probe(port));
      const url = `http://127.0.0.1:${port}`;
      // Posts go to a pool of workspaces whose clocks the driver moves meanwhile, as in `npm run bench`.
      const pool = creates
        ? await workspacePool(url, (await callJson<{ connections: ConnectionSummary[] }>(url, 'GET', '/v1/connections', { apiKey: DEFAULT_API_KEY })).connections, poolSize)
        : { target: { apiKey: DEFAULT_API_KEY, postId: await newestPostId(url), pairs: [] }, keys: [] };
      const target = pool.target;
      const driver = new ClockDriver(url, pool.keys, creates ? advanceMs : 0);
      if (creates) await driver.tick();
      driver.start();
      await runLoad({ url, connections, seconds: 2, requests: workloads[0]?.requests(target).map((r) => r.request) ?? [] });
      for (const [w, workload] of workloads.entries()) {
        const cpuBefore = server.cpuSeconds() ?? NaN;
        const result = await runLoad({ url, connections, seconds, requests: workload.requests(target).map((r) => r.request) });
        const cpuSeconds = (server.cpuSeconds() ?? NaN) - cpuBefore;
        const cpuUs = Math.round((cpuSeconds / result.total) * 1e6);
        runs[i]?.[w]?.push({ result: { total: result.total, seconds: result.seconds }, cpu: Number.isNaN(cpuSeconds) ? undefined : cpuSeconds });
        console.log(`round ${round + 1} ${names[i]} ${workload.title}: ${result.requestsPerSecond} req/s, p50 ${result.p50Ms} ms, ${cpuUs} µs CPU/request${result.non2xx > 0 ? ` (${result.non2xx} non-2xx)` : ''}`);
      }
      await driver.stop();
      if (driver.failures > 0) console.log(`round ${round + 1} ${names[i]}: ${driver.failures} clock advances failed`);
    } finally {
      await server.stop();
    }
  }
}

const change = (first: number, value: number) => (first > 0 ? `${value >= first ? '+' : ''}${Math.round(((value - first) / first) * 100)}%` : '');
const rows: string[][] = [];
const row = (label: string, values: number[]) => {
  const first = values[0] ?? NaN;
  rows.push([label, ...values.map((value, i) => (i === 0 ? String(value) : `${value} (${change(first, value)})`))]);
};
if (rounds > 0) {
  for (const [w, workload] of workloads.entries()) {
    const byBuild = runs.map((perBuild) => perBuild[w] ?? []);
    row(`${workload.title}: req/s`, byBuild.map((list) => Math.round(median(list.map((run) => run.result.total / run.result.seconds)))));
    row(`${workload.title}: CPU µs/request`, byBuild.map((list) => Math.round(median(list.map((run) => ((run.cpu ?? NaN) / run.result.total) * 1e6)))));
  }
}
if (startRuns > 0) row('start to first 200 (ms)', starts.map((runs) => Math.round(median(runs))));
console.log(`\nmedians (change from ${names[0]}):\n${markdownTable(['measure', ...names], rows, new Set(names.map((_, i) => i + 1)))}`);

// Each build against the first round by round: a round's builds ran seconds apart, so the median of their
// ratios leaves out a round the host slowed for one of them, which the medians above do not (npm run bench's way).
if (rounds > 0 && entries.length > 1) {
  const pct = (ratio: number | undefined) => (ratio === undefined ? '–' : `${ratio >= 1 ? '+' : ''}${Math.round((ratio - 1) * 100)}%`);
  const paired: string[][] = [];
  for (const [w, workload] of workloads.entries()) {
    const against = names.slice(1).map((_, k) => pairedRatios(runs[0]?.[w] ?? [], runs[k + 1]?.[w] ?? []));
    paired.push([`${workload.title}: req/s`, ...against.map((p) => `${pct(p.ratio)} (rounds ${p.roundRatios.join(', ')})`)]);
    // cpuRatio is the first build's CPU per request over this one's: its change in CPU is the inverse.
    paired.push([`${workload.title}: CPU µs/request`, ...against.map((p) => pct(p.cpuRatio === undefined ? undefined : 1 / p.cpuRatio))]);
  }
  console.log(`\nround by round (the median of each round's ratio to ${names[0]}):\n${markdownTable(['measure', ...names.slice(1)], paired, new Set(names.slice(1).map((_, i) => i + 1)))}`);
}
