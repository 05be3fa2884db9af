import type { ControlClient } from './control-client.js';

/** What a sleep on the virtual clock needs of a control client. */
export type ClockMover = Pick<ControlClient, 'advanceClock'>;

/**
 * A `sleep(ms)` that moves a workspace's virtual clock instead of waiting: inject it into
 * a client under test wherever it would wait (a retry's back-off, `Retry-After`, a poll's
 * interval), so a test of that client runs on a frozen clock with no real wait. Each call
 * advances the clock by `ms` (whole milliseconds, rounded up), runs every job that falls due
 * on the way and resolves once their webhook deliveries are done, as `advanceClock` does.
 * A negative or non-finite `ms` is a bug in the caller's arithmetic: it rejects with a
 * `RangeError` rather than return at once as `setTimeout` would.
 *
 * @example
 * ```ts
 * import { clockSleep } from 'social-gateway-mock';
 *
 * const client = createMyClient({ baseUrl: mock.baseUrl, apiKey: mock.apiKey, sleep: clockSleep(mock.control) });
 * ```
 */
export function clockSleep(control: ClockMover): (ms: number) => Promise<void> {
  return async (ms: number) => {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`clockSleep: cannot sleep ${ms} ms; give a finite number of at least 0`);
    await control.advanceClock({ ms: Math.ceil(ms) });
  };
}
