/**
 * Loaded into the mock with `node --import` by `npm run bench:profile` when
 * BENCH_PROFILE_ALLOCATIONS=1: V8's sampling heap profiler with the objects the collector
 * has already taken counted too, so the profile says where the bytes were allocated (the
 * collector's work), not only what is still alive (what `--heap-prof` keeps). SIGUSR2
 * starts the sampling, at the start of the measured load; the profile is written to
 * SGW_ALLOCATION_PROFILE when the process is stopped with SIGINT, before the mock's own
 * shutdown runs.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import process from 'node:process';

const out = process.env.SGW_ALLOCATION_PROFILE;
const session = new Session();
session.connect();
let sampling = false;

process.on('SIGUSR2', () => {
  if (sampling) return;
  sampling = true;
  session.post('HeapProfiler.startSampling', { samplingInterval: 8192, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
});

process.prependListener('SIGINT', () => {
  if (!sampling || !out) return;
  sampling = false;
  // The in-process session answers at once: the file is written before the mock's shutdown begins.
  session.post('HeapProfiler.stopSampling', (error, result) => {
    if (error) process.stderr.write(`allocation sampling: ${error.message}\n`);
    else writeFileSync(out, JSON.stringify(result.profile));
  });
});
