/**
 * `npm run bench:profile`: the built mock under `node --cpu-prof`, loaded with one
 * workload (GET /v1/connections unless BENCH_PROFILE_WORKLOAD names another), then
 * a summary of where a request's time goes: self time by package and by function,
 * and the total time under each of the mock's own functions. Only the samples
 * taken during the load count (start-up is left out). The .cpuprofile itself is
 * kept in bench/results/ for Chrome DevTools or speedscope.
 *
 * BENCH_PROFILE_ALLOCATIONS=1 also samples where the bytes are allocated during the load
 * (bench/servers/allocation-sampling.mjs: collected objects counted, so it is the
 * collector's work, not what is left alive) and lists the sites by the nearest of the
 * mock's functions; the .heapprofile is kept beside the .cpuprofile.
 *
 * BENCH_PROFILE_GC=1 also runs the mock with --trace-gc-nvp and sums what the collector did
 * during the load, per request (bench/lib/gc-trace.ts): how often each kind of collection ran,
 * its pauses, and the bytes allocated, surviving a scavenge and promoted to the old generation.
 * The promoted bytes are what a request leaves alive (a created post, its kept events, its
 * jobs): a figure the host's load hardly moves, unlike the CPU time.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ensureBuilt } from './lib/build.js';
import { callJson, ClockDriver, DEFAULT_POOL_WORKSPACES, newestPostId, workspacePool, type ConnectionSummary } from './lib/client.js';
import { areaOf, formatSummary, inclusiveTimes, summariseProfile, type CpuProfile } from './lib/cpuprofile.js';
import { formatGcSummary, summariseGcTrace } from './lib/gc-trace.js';
import { allocationSites, type SamplingHeapProfile } from './lib/heapprofile.js';
import { runLoad } from './lib/load.js';
import { detectPinning, freePort, startProcess, waitForOk } from './lib/processes.js';
import { DEFAULT_API_KEY, serverSpec } from './lib/servers.js';
import { WORKLOADS } from './lib/workloads.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const workloadId = process.env.BENCH_PROFILE_WORKLOAD ?? 'connections';
const allocations = process.env.BENCH_PROFILE_ALLOCATIONS === '1';
const gcTrace = process.env.BENCH_PROFILE_GC === '1';
const workload = WORKLOADS.find((w) => w.id === workloadId);
if (!workload) throw new Error(`BENCH_PROFILE_WORKLOAD: unknown '${workloadId}' (known: ${WORKLOADS.map((w) => w.id).join(', ')})`);

/** The profiler's timestamps and process.hrtime are both the monotonic clock, in µs here. */
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

const pinning = detectPinning();
console.log(`profiling the mock on ${workload.title} for ${seconds} s, ${connections} connections; ${pinning.note}`);
ensureBuilt(ROOT, console.log);

const profileDir = mkdtempSync(join(tmpdir(), 'sgw-profile-'));
const port = await freePort();
const baseUrl = `http://127.0.0.1:${port}`;
const allocationFile = join(profileDir, 'allocations.heapprofile');
const sampler = pathToFileURL(join(ROOT, 'bench', 'servers', 'allocation-sampling.mjs')).href;
const spec = serverSpec('mock', ROOT, port, {}, { node: ['--cpu-prof', '--cpu-prof-dir', profileDir, ...(allocations ? ['--import', sampler] : []), ...(gcTrace ? ['--trace-gc-nvp'] : [])] });
const server = startProcess({ ...spec, env: allocations ? { SGW_ALLOCATION_PROFILE: allocationFile } : {} }, pinning);
// The collector's lines printed during the load alone (--trace-gc-nvp writes them to stdout).
let gcLines = '';
const keepGcLines = (chunk: Buffer) => {
  gcLines += chunk.toString();
};
let loadRequests = 0;
let window: { fromUs: number; toUs: number };
try {
  await waitForOk(server, { url: `${baseUrl}/v1/connections`, headers: { 'x-api-key': DEFAULT_API_KEY } });
  // Posts go to a pool of workspaces whose clocks move on meanwhile, as in `npm run bench`: the profile includes the publishing.
  const pool = workload.creates
    ? await workspacePool(baseUrl, (await callJson<{ connections: ConnectionSummary[] }>(baseUrl, 'GET', '/v1/connections', { apiKey: DEFAULT_API_KEY })).connections, DEFAULT_POOL_WORKSPACES)
    : { target: { apiKey: DEFAULT_API_KEY, postId: await newestPostId(baseUrl), pairs: [] }, keys: [] };
  const driver = new ClockDriver(baseUrl, pool.keys, workload.creates ? 200 : 0);
  const requests = workload.requests(pool.target).map((r) => r.request);
  if (workload.creates) await driver.tick();
  driver.start();
  await runLoad({ url: baseUrl, connections, seconds: 2, requests });
  const fromUs = monotonicUs();
  if (allocations) server.child.kill('SIGUSR2');
  if (gcTrace) server.child.stdout?.on('data', keepGcLines);
  const result = await runLoad({ url: baseUrl, connections, seconds, requests });
  server.child.stdout?.off('data', keepGcLines);
  loadRequests = result.total;
  window = { fromUs, toUs: monotonicUs() };
  await driver.stop();
  if (driver.ticks > 0) console.log(`clock driver: ${driver.ticks} ticks × ${pool.keys.length} workspaces, ${driver.jobsRun} jobs run`);
  console.log(`${result.requestsPerSecond} req/s under the profiler (p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms; ${result.non2xx} non-2xx)`);
} finally {
  // SIGINT: the mock shuts down gracefully and exits, which writes the profile.
  await server.stop('SIGINT');
}

const file = readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
if (!file) throw new Error(`no .cpuprofile was written in ${profileDir}:\n${server.log}`);
const profile = JSON.parse(readFileSync(join(profileDir, file), 'utf8')) as CpuProfile;
const inside = window.fromUs >= profile.startTime && window.toUs <= profile.endTime + 5_000_000;
const summary = summariseProfile(profile, 30, inside ? window : undefined);
const ours = inclusiveTimes(profile, (frame) => areaOf(frame) === 'project', 25, inside ? window : undefined);

console.log(inside ? '\nsamples taken during the load only:' : '\nthe load window does not line up with the profile clock: every sample counts (start-up included)');
console.log(formatSummary(summary));
console.log('\ntotal time under the mock\'s own functions:');
for (const fn of ours) console.log(`  ${fn.totalPct.toFixed(1).padStart(5)}%  ${fn.name}`);

const gc = gcTrace ? summariseGcTrace(gcLines, loadRequests) : undefined;
if (gc) {
  console.log(`\nthe collector during the load (--trace-gc-nvp, per request of ${loadRequests}):`);
  console.log(formatGcSummary(gc));
}

const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const results = join(ROOT, 'bench', 'results');
mkdirSync(results, { recursive: true });
renameSync(join(profileDir, file), join(results, `profile-${stamp}.cpuprofile`));
writeFileSync(join(results, `profile-${stamp}.json`), `${JSON.stringify({ kind: 'profile', workload: workload.id, seconds, connections, windowed: inside, summary, ours, ...(gc && { gc }) }, null, 2)}\n`);
if (allocations) {
  if (!existsSync(allocationFile)) throw new Error(`no allocation profile was written:\n${server.log}`);
  const { totalBytes, sites } = allocationSites(JSON.parse(readFileSync(allocationFile, 'utf8')) as SamplingHeapProfile);
  console.log(`\nbytes allocated during the load (sampled: ${(totalBytes / 1e6).toFixed(1)} MB), by the nearest of the mock's functions:`);
  for (const site of sites) console.log(`  ${site.pct.toFixed(1).padStart(5)}%  ${site.name}`);
  renameSync(allocationFile, join(results, `profile-${stamp}.heapprofile`));
}
rmSync(profileDir, { recursive: true, force: true });
console.log(`\nwrote bench/results/profile-${stamp}.cpuprofile${allocations ? ', .heapprofile' : ''} and .json`);
