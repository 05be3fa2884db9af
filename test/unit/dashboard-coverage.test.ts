import { afterEach, describe, expect, it, vi } from 'vitest';
import { coverageMarkdown, CoverageTracker } from '../../src/coverage/coverage.js';
import { coalescedRefresh, coverageRow, gapsOf, operationsParam, ratioText, scopeText, shownRows, type CoverageReport } from '../../src/dashboard/ui/coverage-grid.js';
import { loadSpec } from '../../src/http/spec.js';

/* The Coverage view's pure logic (src/dashboard/ui/coverage-grid.ts), against the report the server and the CI job write. */

/** A server's tracker after a 200 of listConnections, a 404 of getPost, an undeclared 418 and a dropped getPost. */
function tracked(): CoverageTracker {
  const tracker = new CoverageTracker(loadSpec('openapi.yaml').document);
  tracker.recordResponse({ workspaceId: 'ws_default', operationId: 'listConnections', status: 200, errorCode: null });
  tracker.recordResponse({ workspaceId: 'ws_default', operationId: 'getPost', status: 404, errorCode: 'NOT_FOUND' });
  tracker.recordResponse({ workspaceId: 'ws_default', operationId: 'getPost', status: 418, errorCode: 'TEAPOT' });
  tracker.recordResponse({ workspaceId: 'ws_default', operationId: 'getPost', status: 0, errorCode: null });
  return tracker;
}

/** The Markdown report's operation rows, by operationId: its seven cells. */
function markdownRows(report: CoverageReport): Map<string, string[]> {
  const rows = new Map<string, string[]>();
  for (const line of coverageMarkdown(report).split('\n')) {
    const match = /^\| (✗ )?`(\w+)` \| `/.exec(line);
    if (!match?.[2]) continue;
    const cells = line.slice(2, -2).split(' | ').map((cell) => cell.replace(/\\\|/g, '|'));
    rows.set(match[2], cells);
  }
  return rows;
}

describe('coverageRow', () => {
  it('words every operation as the Markdown report does: ✗, calls, statuses and codes seen, and those not seen', () => {
    const report = tracked().report();
    const markdown = markdownRows(report);
    expect(markdown.size).toBe(report.byOperation.length);
    for (const operation of report.byOperation) {
      const row = coverageRow(operation);
      const [name, route, calls, statuses, missingStatuses, codes, missingCodes] = markdown.get(operation.operationId) ?? [];
      expect(name?.startsWith('✗ ')).toBe(!row.exercised);
      expect(route).toBe(`\`${row.method} ${row.path}\``);
      expect(calls).toBe(String(row.calls));
      expect(statuses).toBe(row.statusesSeen);
      expect(missingStatuses).toBe(row.missingStatuses.join(', '));
      expect(codes).toBe(row.errorCodesSeen);
      expect(missingCodes).toBe(row.missingErrorCodes.join(', '));
    }
  });

  it('marks undeclared statuses and codes, and lists no answer once, after the statuses (not also as a status 0)', () => {
    const getPost = tracked()
      .report()
      .byOperation.find((operation) => operation.operationId === 'getPost');
    if (!getPost) throw new Error('getPost is not in the report');
    const row = coverageRow(getPost);
    expect(row.statusesSeen).toBe('404 ×1, 418 ×1 (undeclared), no answer ×1');
    expect(row.errorCodesSeen).toBe('NOT_FOUND ×1, TEAPOT ×1 (undeclared)');
    expect(row.missingStatuses).toContain(200);
    expect(row.exercised).toBe(true);
    expect(row.hasGap).toBe(true);
  });
});

describe('gapsOf', () => {
  const base = { operationId: 'getPost', method: 'GET', path: '/v1/posts/{postId}', calls: 1, noResponse: 0, injected: 0, statuses: [], errorCodes: [] };
  it.each([
    [{ exercised: false, missingStatuses: [200, 404], missingErrorCodes: ['NOT_FOUND'] }, ['was never called with a declared status', 'never saw status 200, 404', 'never saw error code NOT_FOUND']],
    [{ exercised: true, missingStatuses: [401], missingErrorCodes: [] }, ['never saw status 401']],
    [{ exercised: true, missingStatuses: [], missingErrorCodes: [] }, []],
  ])('words %j as the --coverage-ops lines do', (gaps, expected) => {
    expect(gapsOf({ ...base, ...gaps })).toEqual(expected);
  });
});

describe('shownRows', () => {
  const rows = tracked().report().byOperation.map(coverageRow);
  it.each([
    ['all', '', rows.length],
    ['gaps', '', rows.filter((row) => row.hasGap).length],
    ['unexercised', '', rows.filter((row) => !row.exercised).length],
    ['all', 'listconnections', 1],
    ['all', 'TEAPOT', 1],
    ['unexercised', 'listConnections', 0],
  ] as const)('shows %s matching %j: %d rows', (show, text, count) => {
    expect(shownRows(rows, show, text)).toHaveLength(count);
  });
  it('keeps exactly the rows with a gap under "gaps"', () => {
    expect(shownRows(rows, 'gaps', '').every((row) => row.hasGap && row.gaps.length > 0)).toBe(true);
    expect(shownRows(rows, 'unexercised', '').every((row) => !row.exercised)).toBe(true);
  });
});

describe('totals and scope', () => {
  it('reads a ratio as the summary does', () => {
    expect(ratioText({ exercised: 3, total: 40, percent: 7.5 })).toBe('3 of 40 (7.5%)');
  });
  it.each([
    [{ scope: 'server', workspaceId: null, workspacesWithTraffic: 1, endedWorkspaces: { count: 0, calls: 0 } }, 'Whole server: 1 workspace had traffic.'],
    [{ scope: 'server', workspaceId: null, workspacesWithTraffic: 2, endedWorkspaces: { count: 0, calls: 0 }, limitedTo: ['getPost'] }, 'Whole server: 2 workspaces had traffic. Limited to the 1 operation the client uses.'],
    [{ scope: 'server', workspaceId: null, workspacesWithTraffic: 10, endedWorkspaces: { count: 10, calls: 40 } }, 'Whole server: 10 workspaces had traffic (10 of them since deleted or evicted, their calls still counted).'],
    [{ scope: 'server', workspaceId: null, workspacesWithTraffic: 3, endedWorkspaces: { count: 1, calls: 4 } }, 'Whole server: 3 workspaces had traffic (1 of them since deleted or evicted, their calls still counted).'],
    [{ scope: 'workspace', workspaceId: 'ws_x', workspacesWithTraffic: 1, endedWorkspaces: { count: 0, calls: 0 } }, 'Workspace ws_x.'],
  ])('says what %j counts', (report, expected) => {
    expect(scopeText(report as unknown as CoverageReport)).toBe(expected);
  });
  it.each([
    ['', null],
    ['  ', null],
    ['getPost', 'getPost'],
    ['createPost, getPost  listPosts', 'createPost,getPost,listPosts'],
  ])('turns %j into the operations parameter %j', (typed, expected) => {
    expect(operationsParam(typed)).toBe(expected);
  });
});

describe('coalescedRefresh', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('makes one fetch for a burst of 10,000 pokes, and one more for a poke during it', async () => {
    vi.useFakeTimers();
    let calls = 0;
    let finish: () => void = () => undefined;
    const refresh = coalescedRefresh(() => {
      calls++;
      return new Promise<void>((resolve) => (finish = resolve));
    }, 300);
    for (let index = 0; index < 10_000; index++) refresh.poke();
    expect(calls).toBe(0);
    await vi.advanceTimersByTimeAsync(300);
    expect(calls).toBe(1);
    // Pokes while the fetch is out wait for it, then make a single one more.
    for (let index = 0; index < 100; index++) refresh.poke();
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls).toBe(1);
    finish();
    await vi.advanceTimersByTimeAsync(300);
    expect(calls).toBe(2);
    finish();
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls).toBe(2);
  });

  it('fetches nothing once cancelled', async () => {
    vi.useFakeTimers();
    let calls = 0;
    const refresh = coalescedRefresh(async () => {
      calls++;
    }, 300);
    refresh.poke();
    refresh.cancel();
    refresh.poke();
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls).toBe(0);
  });
});
