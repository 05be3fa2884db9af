import { describe, expect, it } from 'vitest';
import { formatReport, runSoak } from '../../bench/soak.js';

/*
 * Three seconds of `npm run soak` at 6 concurrent jobs, with a 1.5 s --workspace-ttl,
 * so the script cannot rot between the runs someone makes of the full ten minutes
 * (docs/reliability.md). Every check but memory's applies: a run this short has not
 * warmed up enough for a memory figure to mean anything.
 */
describe('npm run soak, as a 3-second smoke', () => {
  it('creates, forks, uses, deletes and expires workspaces with no 5xx and nothing left behind', { timeout: 60_000 }, async () => {
    const report = await runSoak({ seconds: 3, connections: 6, ttlMs: 1_500, sampleEveryMs: 1_000, seed: 1, log: () => undefined });
    const shown = formatReport(report);
    expect(report.problems, shown).toEqual([]);
    expect(report.workspaces.created, shown).toBeGreaterThan(2);
    expect(report.workspaces.forked, shown).toBeGreaterThan(0);
    expect(report.workspaces.deleted, shown).toBeGreaterThan(0);
    expect(report.workspaces.expired, shown).toBeGreaterThan(0);
    expect(report.streams.endedByServer, shown).toBeGreaterThan(0);
    expect(report.deliveries.received, shown).toBeGreaterThan(0);
    expect(Object.keys(report.operations)).toEqual(expect.arrayContaining(['createProfile', 'listPosts', 'createPost', 'advanceClock', 'streamEvents', 'deleteWorkspace', 'keyAfterEnd']));
    // Both moments were measured, with every soak workspace gone.
    expect(report.start?.liveWorkspaces).toBe(1);
    expect(report.end?.resources, shown).toBeDefined();
  });
});
