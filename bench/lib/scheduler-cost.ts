import { jobHandlers } from '../../src/api/index.js';
import { collectGarbage } from '../../src/lib/collect-garbage.js';
import { createMockServer } from '../../src/server.js';
import { SCALE_CLOCK } from './scale-data.js';
import type { Workspace } from '../../src/workspaces/workspace.js';
import { call } from './client.js';
import { median } from './stats.js';

const DAY_MS = 86_400_000;
const NOOP_KIND = 'bench.noop';
/** Each measure is taken this many times (a fresh world each), and the median kept. */
const REPEATS = 3;

export interface SchedulerCost {
  jobs: number;
  /** `GET /__control/clock` while the jobs are pending (it reports the next due job). */
  clockViewMs: number;
  /** `POST /__control/clock/advance { by: P1D }` over HTTP, its answer listing every job run. */
  advanceOverHttpMs: number;
  /** `scheduler.advanceTo` called directly: the scheduler's own cost. Medians of three runs, all in this process. */
  advanceDirectMs: number;
  /** Jobs run per advance. */
  ran: number;
}

/**
 * `advance` over a day holding `jobs` due jobs of a trivial kind, in this process:
 * what the scheduler itself costs, before any capability's work is added to each
 * job. (Once posts exist, the scale run also measures 10k scheduled posts.)
 */
export async function measureSchedulerCost(jobs: number): Promise<SchedulerCost> {
  let ran = 0;
  jobHandlers.set(NOOP_KIND, () => {
    ran++;
  });
  try {
    const world = async () => {
      const server = await createMockServer({ seed: 1, clock: SCALE_CLOCK, clockFrozen: true, fixtures: false });
      const workspace = server.registry.defaultWorkspace;
      return { server, workspace, start: workspace.now() };
    };
    const fill = (workspace: Workspace, start: number) => {
      for (let i = 0; i < jobs; i++) workspace.scheduler.schedule(NOOP_KIND, start + 1000 + Math.floor((i * (DAY_MS - 2000)) / jobs), { n: i }, `job ${i}`);
    };

    const clockViews: number[] = [];
    const overHttpRuns: number[] = [];
    const directRuns: number[] = [];
    for (let run = 0; run < REPEATS; run++) {
      const overHttp = await world();
      const url = await overHttp.server.listen(0);
      // The first call of a route compiles its validators: warm both up on an empty queue.
      await call(url, 'GET', '/__control/clock');
      await call(url, 'POST', '/__control/clock/advance', { body: { ms: 0 } });
      fill(overHttp.workspace, overHttp.start);
      // Every timed section starts from a collected heap, so one does not pay for another's garbage.
      collectGarbage();
      let began = performance.now();
      const clock = await call(url, 'GET', '/__control/clock');
      clockViews.push(performance.now() - began);
      collectGarbage();
      began = performance.now();
      const advanced = await call(url, 'POST', '/__control/clock/advance', { body: { by: 'P1D' } });
      overHttpRuns.push(performance.now() - began);
      if (clock.status !== 200 || advanced.status !== 200) throw new Error(`control plane answered ${clock.status}/${advanced.status}`);
      await overHttp.server.close();

      const direct = await world();
      fill(direct.workspace, direct.start);
      collectGarbage();
      began = performance.now();
      await direct.workspace.scheduler.advanceTo(direct.start + DAY_MS);
      directRuns.push(performance.now() - began);
      await direct.server.close();
    }
    const clockViewMs = median(clockViews);
    const advanceOverHttpMs = median(overHttpRuns);
    const advanceDirectMs = median(directRuns);

    const round = (ms: number) => Math.round(ms * 10) / 10;
    return { jobs, clockViewMs: round(clockViewMs), advanceOverHttpMs: round(advanceOverHttpMs), advanceDirectMs: round(advanceDirectMs), ran: ran / REPEATS / 2 };
  } finally {
    jobHandlers.delete(NOOP_KIND);
  }
}
