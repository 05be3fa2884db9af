import { describe, expect, it } from 'vitest';
import { clockSleep, type ClockMover } from '../../src/client/clock-sleep.js';
import { createControlClient } from '../../src/client/control-client.js';
import { useMock } from '../helpers/mock.js';

/** A control client that only records the advances asked of it. */
function recorder(): { control: ClockMover; asked: unknown[] } {
  const asked: unknown[] = [];
  const control: ClockMover = {
    advanceClock: async (body) => {
      asked.push(body);
      return undefined as never;
    },
  };
  return { control, asked };
}

describe('clockSleep', () => {
  it.each([
    [30_000, 30_000],
    [0, 0],
    [1.2, 2],
  ])('sleeps %s ms as an advance of %s whole ms', async (ms, advanced) => {
    const { control, asked } = recorder();
    await clockSleep(control)(ms);
    expect(asked).toEqual([{ ms: advanced }]);
  });

  it.each([-1, Number.NaN, Number.POSITIVE_INFINITY])('refuses %s ms without moving the clock', async (ms) => {
    const { control, asked } = recorder();
    await expect(clockSleep(control)(ms)).rejects.toThrow(RangeError);
    expect(asked).toEqual([]);
  });

  describe('on a server', () => {
    const mock = useMock({}, { listen: true });

    it('moves the workspace clock by the sleep, running what falls due', async () => {
      const control = createControlClient({ baseUrl: mock.url });
      const { apiKey } = await control.createWorkspace({ clock: { start: '2026-03-02T09:00:00Z', frozen: true } });
      const workspace = control.forWorkspace(apiKey);
      await clockSleep(workspace)(90_000);
      expect((await workspace.getClock()).now).toBe('2026-03-02T09:01:30.000Z');
      control.close();
    });
  });
});
