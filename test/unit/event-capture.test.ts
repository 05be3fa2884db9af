import { describe, expect, it } from 'vitest';
import { EventBus } from '../../src/events/bus.js';

describe('EventBus.capture', () => {
  function bus(keep: number) {
    let n = 0;
    const seen: string[] = [];
    const events = new EventBus<object>({}, [(_owner, e) => seen.push(e.id)], { workspaceId: 'ws_test', newEventId: () => `evt_${String(++n).padStart(32, '0')}`, nowIso: () => '2026-01-01T00:00:00.000Z' }, keep);
    return { events, seen };
  }

  it('answers every event emitted during the call, in order, even more than the bus keeps', () => {
    const { events, seen } = bus(2);
    events.emit('post.published', { before: true });
    const { result, events: emitted } = events.capture(() => {
      for (let i = 0; i < 5; i++) events.emit('post.published', { i });
      return 'done';
    });
    expect(result).toBe('done');
    expect(emitted.map((e) => e.data)).toEqual([0, 1, 2, 3, 4].map((i) => ({ i })));
    // The subscribers saw them all, and the bus kept its last two.
    expect(seen).toHaveLength(6);
    expect(events.recent().map((e) => e.data)).toEqual([{ i: 3 }, { i: 4 }]);
  });

  it('stops capturing when the call throws, and a call inside another reports to both', () => {
    const { events } = bus(10);
    expect(() => events.capture(() => {
      events.emit('post.failed', {});
      throw new Error('boom');
    })).toThrow('boom');
    const outer = events.capture(() => {
      events.emit('post.published', { at: 'outer' });
      const inner = events.capture(() => events.emit('post.published', { at: 'inner' }));
      expect(inner.events.map((e) => e.data)).toEqual([{ at: 'inner' }]);
    });
    expect(outer.events.map((e) => e.data)).toEqual([{ at: 'outer' }, { at: 'inner' }]);
    // Nothing emitted after the calls is captured by them.
    events.emit('post.published', { at: 'after' });
    expect(outer.events).toHaveLength(2);
  });
});
