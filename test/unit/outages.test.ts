import { Containment } from '../../src/lib/containment.js';
import { describe, expect, it } from 'vitest';
import { Database } from '../../src/store/database.js';
import { activeOutage, addOutage, assertNetworkUp, clearOutages } from '../../src/platforms/outages.js';
import { WorkspaceRegistry } from '../../src/workspaces/registry.js';

async function workspace() {
  const registry = new WorkspaceRegistry({
    database: await Database.open(),
    seed: 1,
    defaultApiKey: 'sgw_test_default',
    defaults: { plan: 'payg', clockStartMs: 1_000_000, clockFrozen: true, fixtures: false },
    populate: () => undefined,
    runtime: { realTime: () => 0, journalSize: 10, jobHandlers: new Map(), eventSubscribers: [], containment: new Containment(), onChange: () => undefined, onJobError: () => undefined },
  });
  return registry.defaultWorkspace;
}

describe('network outages', () => {
  it('is in force only inside its window, for its network only', async () => {
    const ws = await workspace();
    addOutage(ws, { platform: 'tiktok', fromMs: 1_000_500, untilMs: 1_002_000, message: 'maintenance' });
    expect(activeOutage(ws, 'tiktok')).toBeUndefined();
    await ws.scheduler.advanceTo(1_000_500);
    expect(activeOutage(ws, 'tiktok')?.message).toBe('maintenance');
    expect(activeOutage(ws, 'bluesky')).toBeUndefined();
    await ws.scheduler.advanceTo(1_002_000);
    expect(activeOutage(ws, 'tiktok')).toBeUndefined();
  });

  it('makes a read answer 502 PLATFORM_ERROR naming the network, until cleared', async () => {
    const ws = await workspace();
    addOutage(ws, { platform: 'pinterest', fromMs: 0, untilMs: null, message: 'upstream timeout' });
    expect(() => assertNetworkUp(ws, 'pinterest')).toThrow(expect.objectContaining({ status: 502, code: 'PLATFORM_ERROR', extra: { details: { platform: 'pinterest' } } }));
    clearOutages(ws, 'pinterest');
    expect(() => assertNetworkUp(ws, 'pinterest')).not.toThrow();
  });
});
