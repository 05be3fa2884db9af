/**
 * `npm run bench:growth` (issue 37): one workspace at 100, 10,000 and 100,000 posts (comments,
 * conversations and uploaded media in proportion), each operation's throughput, p99 and server CPU per request at
 * each size in one run, and the ratio of the largest size to the smallest (the target: ≥ 0.8 for
 * every operation); memory per post at the largest size. One server per size, all on the server
 * core, each workload loading them all at once, in rounds (bench/lib/growth.ts). Writes bench/results/growth-<timestamp>.json.
 *
 * BENCH_GROWTH_SIZES (100,10000,100000), BENCH_GROWTH_SECONDS (10 per size and workload),
 * BENCH_GROWTH_ROUNDS (5; the ratio is the median of the rounds'), BENCH_GROWTH_CONNECTIONS (10), BENCH_GROWTH_WARMUP_SECONDS (2, of reads
 * on each server first) and BENCH_MOCK_ENTRY change it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBuilt } from './lib/build.js';
import { growthNote, growthSettings, growthTable, measureGrowth } from './lib/growth.js';
import { detectPinning } from './lib/processes.js';
import { mockEntry } from './lib/servers.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const log = (line: string) => console.log(line);

const began = performance.now();
const settings = growthSettings({ seconds: 10, rounds: 5 });
const pinning = detectPinning();
const loadBefore = loadavg()[0] ?? 0;
log(`social-gateway-mock bench:growth: Node ${process.version}, ${cpus().length} cores; ${pinning.note}; load average ${loadBefore.toFixed(1)}`);
log(`sizes ${settings.sizes.join(', ')} posts; ${settings.seconds} s per size and workload in ${settings.rounds} rounds, ${settings.connections} connections; build ${mockEntry()}`);
ensureBuilt(ROOT, log);
{
  const result = await measureGrowth(settings, ROOT, pinning, log);
  log('\n## Growth (one workspace, in one run)\n');
  log(growthTable(result));
  log(`\n${growthNote(result)}`);
  const dir = join(ROOT, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `growth-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  const machine = { node: process.version, cores: cpus().length, cpu: cpus()[0]?.model, pinning, loadAverageBefore: loadBefore, loadAverageAfter: loadavg()[0] };
  writeFileSync(file, `${JSON.stringify({ kind: 'growth', at: new Date().toISOString(), machine, settings, mockEntry: mockEntry(), result }, null, 2)}\n`);
  log(`\nload average ${loadBefore.toFixed(1)} before, ${(loadavg()[0] ?? 0).toFixed(1)} after; wrote ${file} (${Math.round((performance.now() - began) / 1000)} s in all)`);
}
