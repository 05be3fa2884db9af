import { afterEach, describe, expect, it, vi } from 'vitest';
import { Scheduler, type JobHandler, type JobRecord } from '../../src/clock/scheduler.js';
import { VirtualClock } from '../../src/clock/virtual-clock.js';

/** A promise and its resolver, standing in for a request whose answer the test controls. */
function deferred() {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

function setup(clock: VirtualClock, handlers: Array<[string, JobHandler<null>]>) {
  let n = 0;
  return new Scheduler<null>({ clock, jobs: {}, handlers: new Map(handlers), context: () => null, newId: () => `job${n++}`, onJobError: () => undefined });
}

afterEach(() => {
  vi.useRealTimers();
});

describe('Scheduler.track', () => {
  it('makes advanceTo wait for tracked I/O and run what it schedules in the same advance', async () => {
    const clock = new VirtualClock({ nowMs: 0, frozen: true });
    const log: string[] = [];
    const scheduler: Scheduler<null> = setup(clock, [
      ['note', (_c, job: JobRecord) => void log.push(`${String(job.data.name)}@${clock.now()}`)],
      [
        'request',
        () => {
          log.push(`request@${clock.now()}`);
          // The job does not await its I/O; the I/O schedules the follow-up when it ends.
          scheduler.track(Promise.resolve().then(() => void scheduler.schedule('note', clock.now() + 100, { name: 'retry' })));
        },
      ],
    ]);
    scheduler.schedule('request', 10, {});
    scheduler.schedule('note', 200, { name: 'later' });
    await scheduler.advanceTo(500);
    expect(log).toEqual(['request@10', 'retry@110', 'later@200']);
    expect(scheduler.inFlightCount).toBe(0);
  });

  it('waits for I/O tracked before the advance began', async () => {
    const clock = new VirtualClock({ nowMs: 0, frozen: true });
    const scheduler = setup(clock, []);
    const request = deferred();
    let done = false;
    scheduler.track(request.promise.then(() => void (done = true)));
    const advancing = scheduler.advanceTo(0);
    expect(scheduler.inFlightCount).toBe(1);
    request.resolve();
    await advancing;
    expect(done).toBe(true);
  });

  it('lets the timer of a running clock go on without waiting for it', async () => {
    const clock = new VirtualClock({ nowMs: 0, frozen: true });
    const request = deferred();
    const scheduler: Scheduler<null> = setup(clock, [['request', () => scheduler.track(request.promise)]]);
    scheduler.schedule('request', 0, {});
    const ran = await scheduler.runDue();
    expect(ran).toHaveLength(1);
    expect(scheduler.inFlightCount).toBe(1);
    request.resolve();
    await scheduler.advanceTo(0);
    expect(scheduler.inFlightCount).toBe(0);
  });

  it('counts a failed piece of I/O as settled', async () => {
    const clock = new VirtualClock({ nowMs: 0, frozen: true });
    const scheduler = setup(clock, []);
    scheduler.track(Promise.reject(new Error('connection refused')));
    await scheduler.advanceTo(0);
    expect(scheduler.inFlightCount).toBe(0);
  });
});

describe('Scheduler.advanceTo on a running clock', () => {
  it('re-arms the timer from the instant it moved to', async () => {
    vi.useFakeTimers();
    let wall = 0;
    const clock = new VirtualClock({ nowMs: 0, frozen: false }, () => wall);
    const log: number[] = [];
    const scheduler = setup(clock, [['note', () => void log.push(clock.now())]]);
    scheduler.schedule('note', 60_000, {});
    await scheduler.advanceTo(59_950);
    expect(log).toEqual([]);
    wall += 50;
    await vi.advanceTimersByTimeAsync(50);
    expect(log).toEqual([60_000]);
    scheduler.stop();
  });
});
