import { describe, expect, it } from 'vitest';
import { formatReport, runSoak } from '../bench/soak.js';

/*
 * Three seconds of `npm run soak` at 20 connections, so the script cannot rot
 * between the runs someone makes of the full minute (docs/reliability.md).
 */
describe('npm run soak, as a 3-second smoke', () => {
  it('drives the mixed workload with no 5xx, no socket error and no unhandled rejection', { timeout: 60_000 }, async () => {
    const report = await runSoak({ seconds: 3, connections: 20, sampleEveryMs: 1000, seed: 1, log: () => undefined });
    expect(report.problems, formatReport(report)).toEqual([]);
    expect(report.requests).toBeGreaterThan(20);
    expect(Object.keys(report.operations)).toEqual(expect.arrayContaining(['listConnections', 'createProfile', 'deleteProfile', 'listPosts', 'createScheduledPost', 'advanceClock', 'inbound messages']));
    expect(report.deliveriesReceived).toBeGreaterThan(0);
    expect(report.memory.length).toBeGreaterThanOrEqual(2);
  });
});
