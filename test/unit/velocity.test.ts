import { Containment } from '../../src/lib/containment.js';
import { describe, expect, it } from 'vitest';
import { Database } from '../../src/store/database.js';
import { recordPublishes, reserve, settle, velocityRefusal, velocityUsage } from '../../src/api/posts/velocity.js';
import { WorkspaceRegistry } from '../../src/workspaces/registry.js';

async function workspace(startIso: string) {
  const registry = new WorkspaceRegistry({
    database: await Database.open(),
    seed: 1,
    defaultApiKey: 'sgw_test_default',
    defaults: { plan: 'payg', clockStartMs: Date.parse(startIso), clockFrozen: true, fixtures: false },
    populate: () => undefined,
    runtime: { realTime: () => 0, journalSize: 10, jobHandlers: new Map(), eventSubscribers: [], containment: new Containment(), onChange: () => undefined, onJobError: () => undefined },
  });
  return registry.defaultWorkspace;
}

const twitter = { id: 'acct-x', platform: 'twitter' };
const MIN = 60_000;

describe('posting velocity', () => {
  it('allows 25 in a rolling hour and names the wait for the 26th', async () => {
    const ws = await workspace('2026-03-02T10:00:00Z');
    for (let i = 0; i < 25; i++) {
      expect(velocityRefusal(ws, twitter, 1)).toBeUndefined();
      reserve(ws, twitter.id, `d${i}`);
      settle(ws, twitter.id, `d${i}`, true);
      await ws.scheduler.advanceTo(ws.now() + MIN);
    }
    // The first publish was at 10:00; it ages out at 11:00, 35 minutes from now (10:25).
    expect(velocityRefusal(ws, twitter, 1)).toEqual({ accountId: 'acct-x', platform: 'twitter', window: 'hour', limit: 25, retryAfterSeconds: 35 * 60 });
    await ws.scheduler.advanceTo(Date.parse('2026-03-02T11:00:00Z'));
    expect(velocityRefusal(ws, twitter, 1)).toBeUndefined();
    expect(velocityRefusal(ws, twitter, 2)).toMatchObject({ window: 'hour', retryAfterSeconds: 60 });
  });

  it('holds places for admitted destinations, so parallel publishes cannot overshoot', async () => {
    const ws = await workspace('2026-03-02T10:00:00Z');
    let admitted = 0;
    for (let i = 0; i < 30; i++) {
      if (velocityRefusal(ws, twitter, 1)) continue;
      reserve(ws, twitter.id, `d${i}`);
      admitted++;
    }
    expect(admitted).toBe(25);
    expect(velocityUsage(ws, twitter.id)).toMatchObject({ inFlight: 25, today: 0 });
  });

  it('counts only what went out for a post merely accepted now, and what is on its way out for one that leaves', async () => {
    const ws = await workspace('2026-03-02T10:00:00Z');
    recordPublishes(ws, twitter.id, 20);
    for (let i = 0; i < 5; i++) reserve(ws, twitter.id, `d${i}`);
    // A destination reserved twice (a data file from before the revision) holds one place.
    reserve(ws, twitter.id, 'd0');
    expect(velocityUsage(ws, twitter.id).inFlight).toBe(5);
    expect(velocityRefusal(ws, twitter, 1, { goingOut: false })).toBeUndefined();
    expect(velocityRefusal(ws, twitter, 1)).toMatchObject({ window: 'hour' });
    expect(velocityRefusal(ws, twitter, 6, { goingOut: false })).toMatchObject({ window: 'hour' });
  });

  it('frees the place of a destination that failed: failures do not count', async () => {
    const ws = await workspace('2026-03-02T10:00:00Z');
    recordPublishes(ws, twitter.id, 24);
    reserve(ws, twitter.id, 'a');
    expect(velocityRefusal(ws, twitter, 1)).toBeDefined();
    settle(ws, twitter.id, 'a', false);
    expect(velocityRefusal(ws, twitter, 1)).toBeUndefined();
    expect(velocityUsage(ws, twitter.id).lastHour).toHaveLength(24);
  });

  it('counts a request with several destinations on one account once per destination', async () => {
    const ws = await workspace('2026-03-02T10:00:00Z');
    recordPublishes(ws, twitter.id, 20);
    expect(velocityRefusal(ws, twitter, 5)).toBeUndefined();
    expect(velocityRefusal(ws, twitter, 6)).toMatchObject({ window: 'hour' });
  });

  it.each([
    ['pinterest', 25],
    ['threads', 250],
    ['instagram', 100],
    ['facebook', 100],
    ['twitter', 50],
    ['reddit', 50],
    ['mastodon', 50],
  ])('caps %s at %d a UTC day, resetting at midnight', async (platform, cap) => {
    const ws = await workspace('2026-03-02T00:30:00Z');
    const account = { id: `acct-${platform}`, platform };
    // At most 25 an hour, so the hourly pace never binds first; even 250 fit in the day.
    for (let published = 0; published < cap; published += 25) {
      recordPublishes(ws, account.id, Math.min(25, cap - published));
      await ws.scheduler.advanceTo(ws.now() + 3600_001);
    }
    const refusal = velocityRefusal(ws, account, 1);
    expect(refusal).toMatchObject({ window: 'day', limit: cap });
    expect(refusal?.retryAfterSeconds).toBe(Math.ceil((Date.parse('2026-03-03T00:00:00Z') - ws.now()) / 1000));
    await ws.scheduler.advanceTo(Date.parse('2026-03-03T00:00:00Z'));
    expect(velocityRefusal(ws, account, 1)).toBeUndefined();
  });
});
