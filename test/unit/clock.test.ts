import fc from 'fast-check';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { parseIsoDuration } from '../../src/clock/duration.js';
import { PriorityQueue } from '../../src/clock/priority-queue.js';
import { JOBS_BETWEEN_YIELDS, Scheduler, type JobRecord } from '../../src/clock/scheduler.js';
import { VirtualClock } from '../../src/clock/virtual-clock.js';

/** A full garbage collection, now: the flag is set for a context made after it, which then has `gc`. */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

/** A wall clock the test moves by hand. */
function fakeWall(start = 1_000) {
  let now = start;
  return { read: () => now, pass: (ms: number) => (now += ms) };
}

describe('VirtualClock', () => {
  it('runs with the wall clock from its anchor', () => {
    const wall = fakeWall();
    const clock = new VirtualClock({ nowMs: 50_000, frozen: false }, wall.read);
    wall.pass(250);
    expect(clock.now()).toBe(50_250);
  });

  it('stands still while frozen and resumes from where it stood', () => {
    const wall = fakeWall();
    const clock = new VirtualClock({ nowMs: 0, frozen: false }, wall.read);
    wall.pass(100);
    clock.freeze();
    wall.pass(5_000);
    expect(clock.now()).toBe(100);
    clock.resume();
    wall.pass(10);
    expect(clock.now()).toBe(110);
  });

  it('never moves backwards', () => {
    const clock = new VirtualClock({ nowMs: 1_000, frozen: true });
    clock.moveTo(500);
    expect(clock.now()).toBe(1_000);
    clock.moveTo(2_000);
    expect(clock.now()).toBe(2_000);
  });
});

describe('parseIsoDuration', () => {
  it.each([
    ['PT2H', 7_200_000],
    ['PT90S', 90_000],
    ['P1DT30M', 86_400_000 + 1_800_000],
    ['P2W', 14 * 86_400_000],
    ['PT0.5S', 500],
  ])('%s is %d ms', (text, ms) => {
    expect(parseIsoDuration(text)).toBe(ms);
  });

  it.each(['2h', 'P1M', 'P1Y', 'PT', '', 'PT-5M'])('refuses %j', (text) => {
    expect(parseIsoDuration(text)).toBeUndefined();
  });

  it('reads the same duration alike however often, and another one afresh', () => {
    expect([parseIsoDuration('P1D'), parseIsoDuration('P1D'), parseIsoDuration('P1M'), parseIsoDuration('P1M'), parseIsoDuration('PT1S'), parseIsoDuration('P1D')]).toEqual([
      86_400_000,
      86_400_000,
      undefined,
      undefined,
      1_000,
      86_400_000,
    ]);
  });
});

describe('PriorityQueue', () => {
  it('pops in order whatever the push order', () => {
    const queue = new PriorityQueue<number>((a, b) => a < b);
    for (const n of [5, 1, 9, 3, 7, 2, 8, 0, 6, 4]) queue.push(n);
    const out: number[] = [];
    while (queue.size > 0) out.push(queue.pop() as number);
    expect(out).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('removes what a predicate selects and keeps the order', () => {
    const queue = new PriorityQueue<number>((a, b) => a < b);
    for (const n of [4, 2, 6, 1, 5, 3]) queue.push(n);
    expect(queue.removeWhere((n) => n % 2 === 0)).toBe(3);
    expect([queue.pop(), queue.pop(), queue.pop(), queue.pop()]).toEqual([1, 3, 5, undefined]);
  });

  it('lists its first items in pop order without popping them', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 50 }), { maxLength: 200 }), fc.integer({ min: 0, max: 250 }), (items, count) => {
        // Ties broken by insertion order, as the scheduler breaks them by seq.
        const queue = new PriorityQueue<[number, number]>((a, b) => a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]));
        items.forEach((item, i) => queue.push([item, i]));
        const sorted = items.map((item, i): [number, number] => [item, i]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
        expect(queue.first(count)).toEqual(sorted.slice(0, count));
        expect(queue.size).toBe(items.length);
      }),
    );
  });
});

describe('Scheduler', () => {
  function setup(start = 0) {
    const clock = new VirtualClock({ nowMs: start, frozen: true });
    const log: string[] = [];
    const jobs: Record<string, JobRecord> = {};
    let n = 0;
    const handlers = new Map([
      ['note', (_c: null, job: JobRecord) => void log.push(`${String(job.data.name)}@${clock.now()}`)],
      [
        'chain',
        (_c: null, job: JobRecord) => {
          log.push(`chain@${clock.now()}`);
          // A job may schedule more work; it runs in the same advance when due in range.
          scheduler.schedule('note', clock.now() + 10, { name: 'child' });
          void job;
        },
      ],
      [
        'boom',
        () => {
          throw new Error('kaput');
        },
      ],
    ]);
    const scheduler: Scheduler<null> = new Scheduler<null>({ clock, jobs, handlers, context: () => null, newId: () => `job${n++}`, onJobError: () => undefined });
    return { clock, log, jobs, scheduler };
  }

  it('runs due jobs in time order, each at its own instant, and ends at the target', async () => {
    const { clock, log, scheduler } = setup();
    scheduler.schedule('note', 300, { name: 'c' });
    scheduler.schedule('note', 100, { name: 'a' });
    scheduler.schedule('note', 200, { name: 'b' });
    scheduler.schedule('note', 900, { name: 'later' });
    const ran = await scheduler.advanceTo(500);
    expect(log).toEqual(['a@100', 'b@200', 'c@300']);
    expect(ran.map((job) => job.dueAt)).toEqual(['1970-01-01T00:00:00.100Z', '1970-01-01T00:00:00.200Z', '1970-01-01T00:00:00.300Z']);
    expect(clock.now()).toBe(500);
    expect(scheduler.size).toBe(1);
  });

  it('lets the event loop in during a long run, so other work is not held up until it ends', async () => {
    const { log, scheduler } = setup();
    const count = JOBS_BETWEEN_YIELDS * 3;
    for (let i = 0; i < count; i++) scheduler.schedule('note', i + 1, { name: String(i) });
    let otherWorkRanAfterJob: number | undefined;
    // Another workspace's request, in effect: it is answered while the run is still going.
    setImmediate(() => (otherWorkRanAfterJob = log.length));
    const ran = await scheduler.advanceTo(count + 1);
    expect(ran).toHaveLength(count);
    expect(otherWorkRanAfterJob).toBe(JOBS_BETWEEN_YIELDS);
  });

  it('lists the first jobs of a long move and counts the rest, keeping no entry of those it does not list', async () => {
    const { log, scheduler } = setup();
    const count = JOBS_BETWEEN_YIELDS * 3;
    for (let i = 0; i < count; i++) scheduler.schedule('note', i + 1, { name: String(i) });
    const { ran, total } = await scheduler.advance(count + 1, 10);
    expect(log).toHaveLength(count);
    expect(total).toBe(count);
    expect(ran.map((job) => job.dueAt)).toEqual(Array.from({ length: 10 }, (_, i) => new Date(i + 1).toISOString()));
  });

  it('keeps nothing of a run once it has answered: the next run waits for its end, not its report', async () => {
    const { scheduler } = setup();
    for (let i = 0; i < JOBS_BETWEEN_YIELDS; i++) scheduler.schedule('note', i + 1, { name: String(i) });
    // Ten virtual years' report was 74 MB, held by the scheduler until its workspace's next run.
    const report = new WeakRef(await scheduler.advanceTo(JOBS_BETWEEN_YIELDS + 1));
    await new Promise((resolve) => setImmediate(resolve));
    collectGarbage();
    expect(report.deref()).toBeUndefined();
  });

  it('tells the job that runs next: the earliest, the first scheduled among equals', () => {
    const { scheduler } = setup();
    expect(scheduler.next()).toBeUndefined();
    scheduler.schedule('note', 300, { name: 'late' });
    scheduler.schedule('note', 100, { name: 'first' });
    scheduler.schedule('note', 100, { name: 'second' });
    expect(scheduler.next()?.data.name).toBe('first');
    expect(scheduler.next()).toBe(scheduler.pending()[0]);
  });

  it('keeps first-scheduled-first-run for jobs due at the same instant', async () => {
    const { log, scheduler } = setup();
    for (const name of ['one', 'two', 'three']) scheduler.schedule('note', 50, { name });
    await scheduler.advanceTo(50);
    expect(log).toEqual(['one@50', 'two@50', 'three@50']);
  });

  it('runs work that a job schedules when it falls inside the same advance', async () => {
    const { log, scheduler } = setup();
    scheduler.schedule('chain', 100, {});
    await scheduler.advanceTo(105);
    expect(log).toEqual(['chain@100']);
    await scheduler.advanceTo(200);
    expect(log).toEqual(['chain@100', 'child@110']);
  });

  it('reports a failing job and goes on with the rest', async () => {
    const { log, scheduler } = setup();
    scheduler.schedule('boom', 10, {});
    scheduler.schedule('note', 20, { name: 'after' });
    const ran = await scheduler.advanceTo(30);
    expect(ran[0]).toMatchObject({ kind: 'boom', ok: false, error: 'kaput' });
    expect(log).toEqual(['after@20']);
  });

  it('writes the persisted job table from its jobs, in the order they were scheduled, and rebuilds from it', async () => {
    const { clock, scheduler } = setup();
    scheduler.schedule('note', 30, { name: 'x' });
    scheduler.schedule('note', 20, { name: 'y' });
    scheduler.schedule('note', 40, { name: 'z' });
    const table = scheduler.jobTable();
    expect(Object.values(table).map((job) => job.data.name)).toEqual(['x', 'y', 'z']);
    expect(Object.entries(table).every(([id, job]) => job.id === id)).toBe(true);
    await scheduler.advanceTo(20);
    expect(Object.values(scheduler.jobTable()).map((job) => job.data.name)).toEqual(['x', 'z']);
    scheduler.cancel((job) => job.data.name === 'z');
    const reloaded = new Scheduler<null>({ clock, jobs: scheduler.jobTable(), handlers: new Map([['note', () => undefined]]), context: () => null, newId: () => 'z', onJobError: () => undefined });
    expect(reloaded.pending().map((job) => job.data.name)).toEqual(['x']);
  });

  it('cancels what a predicate selects', async () => {
    const { log, scheduler } = setup();
    scheduler.schedule('note', 10, { name: 'keep' });
    scheduler.schedule('note', 20, { name: 'drop' });
    expect(scheduler.cancel((job) => job.data.name === 'drop')).toBe(1);
    await scheduler.advanceTo(100);
    expect(log).toEqual(['keep@10']);
  });

  it('refuses a job kind nobody handles', () => {
    const { scheduler } = setup();
    expect(() => scheduler.schedule('unknown', 1, {})).toThrow(/No handler/);
  });
});
