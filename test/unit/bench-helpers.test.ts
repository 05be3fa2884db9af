import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { areaOf, inclusiveTimes, summariseProfile, type CpuProfile } from '../../bench/lib/cpuprofile.js';
import { formatGcSummary, summariseGcTrace } from '../../bench/lib/gc-trace.js';
import { allocationSites } from '../../bench/lib/heapprofile.js';
import { budgetTable, evaluateTargets, markdownTable, ratios, type Measurement } from '../../bench/lib/report.js';
import { LatencyHistogram, median, pairedRatios, percentile } from '../../bench/lib/stats.js';
import { runLoad } from '../../bench/lib/load.js';
import { destinationPairs, interleave } from '../../bench/lib/client.js';
import type { LoadResult } from '../../bench/lib/load.js';

/** root → handler (ours) → stringify (express); root → (idle); root → (garbage collector). */
function profile(): CpuProfile {
  const frame = (functionName: string, url = '', lineNumber = 0) => ({ functionName, url, lineNumber });
  return {
    nodes: [
      { id: 1, callFrame: frame('(root)'), children: [2, 4, 5] },
      { id: 2, callFrame: frame('handle', 'file:///app/dist/src/http/respond.js', 9), children: [3] },
      { id: 3, callFrame: frame('stringify', 'file:///app/node_modules/express/lib/response.js', 1025) },
      { id: 4, callFrame: frame('(idle)') },
      { id: 5, callFrame: frame('(garbage collector)') },
    ],
    startTime: 1_000,
    endTime: 2_000,
    samples: [2, 3, 3, 4, 5, 3],
    timeDeltas: [100, 100, 100, 400, 100, 200],
  };
}

describe('areaOf', () => {
  it.each([
    [{ functionName: 'x', url: 'file:///a/node_modules/express/lib/router.js', lineNumber: 0 }, 'express'],
    [{ functionName: 'x', url: 'file:///a/node_modules/@stoplight/prism-cli/dist/x.js', lineNumber: 0 }, '@stoplight/prism-cli'],
    [{ functionName: 'x', url: 'file:///a/node_modules/eov/node_modules/ajv/dist/core.js', lineNumber: 0 }, 'ajv'],
    [{ functionName: 'x', url: 'node:internal/http', lineNumber: 0 }, 'node'],
    [{ functionName: 'x', url: 'file:///app/dist/src/server.js', lineNumber: 0 }, 'project'],
    [{ functionName: 'writev', url: '', lineNumber: 0 }, '(native)'],
    [{ functionName: '(garbage collector)', url: '', lineNumber: 0 }, '(garbage collector)'],
  ])('%j belongs to %s', (frame, area) => {
    expect(areaOf(frame)).toBe(area);
  });
});

describe('summariseProfile', () => {
  it('sums self time from the sample deltas, leaving idle time out of the shares', () => {
    const summary = summariseProfile(profile());
    expect(summary).toMatchObject({ totalMs: 1, idleMs: 0.4, busyMs: 0.6 });
    expect(summary.functions).toEqual([
      { name: 'stringify (express/lib/response.js:1026)', area: 'express', selfMs: 0.4, selfPct: 66.7 },
      { name: '(garbage collector)', area: '(garbage collector)', selfMs: 0.1, selfPct: 16.7 },
      { name: 'handle (dist/src/http/respond.js:10)', area: 'project', selfMs: 0.1, selfPct: 16.7 },
    ]);
    expect(summary.areas.map((a) => a.area)).toEqual(['express', '(garbage collector)', 'project']);
  });

  it('counts only the samples inside a window', () => {
    // Sample times: 1100, 1200, 1300, 1700, 1800, 2000.
    const summary = summariseProfile(profile(), 10, { fromUs: 1150, toUs: 1750 });
    expect(summary.busyMs).toBe(0.2);
    expect(summary.idleMs).toBe(0.4);
  });
});

describe('inclusiveTimes', () => {
  it('counts every sample under a function once', () => {
    expect(inclusiveTimes(profile(), (frame) => areaOf(frame) === 'project')).toEqual([{ name: 'handle (dist/src/http/respond.js:10)', totalMs: 0.5, totalPct: 83.3 }]);
  });
});

describe('allocationSites', () => {
  it("puts the bytes under the nearest of the project's functions, and outside it under the allocating frame", () => {
    const frame = (functionName: string, url = '', lineNumber = 0) => ({ functionName, url, lineNumber });
    const node = (callFrame: ReturnType<typeof frame>, selfSize: number, children: Parameters<typeof allocationSites>[0]['head'][] = []) => ({ callFrame, selfSize, children });
    const { totalBytes, sites } = allocationSites({
      head: node(frame('(root)'), 0, [
        node(frame('newId', 'file:///app/dist/src/workspaces/workspace.js', 91), 300, [node(frame('hash', 'node:internal/crypto/hash', 220), 500)]),
        node(frame('parserOnIncoming', 'node:_http_server', 1025), 200, [node(frame('send', 'file:///app/dist/src/http/respond.js', 31), 100)]),
      ]),
    });
    expect(totalBytes).toBe(1100);
    expect(sites.map((site) => [site.name, site.bytes])).toEqual([
      ['newId (dist/src/workspaces/workspace.js:92)', 800],
      ['parserOnIncoming (node:_http_server:1026) [outside the project]', 200],
      ['send (dist/src/http/respond.js:32)', 100],
    ]);
    expect(sites[0]?.pct).toBeCloseTo(72.7, 1);
  });
});

describe('percentile and median', () => {
  it.each<[number[], number, number]>([
    [[1, 2, 3, 4], 0.5, 2],
    [[1, 2, 3, 4], 0.99, 4],
    [[5], 0.5, 5],
  ])('percentile(%j, %d) is %d', (values, q, expected) => {
    expect(percentile(values, q)).toBe(expected);
  });

  it('is NaN for no values', () => {
    expect(percentile([], 0.5)).toBeNaN();
    expect(median([])).toBeNaN();
  });

  it.each<[number[], number]>([
    [[3, 1, 2], 2],
    [[4, 1, 3, 2], 2.5],
  ])('median(%j) is %d', (values, expected) => {
    expect(median(values)).toBe(expected);
  });
});

describe('LatencyHistogram', () => {
  it('gives every quantile within 1% above the exact one, and the exact maximum', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    // Sub-millisecond to many seconds, skewed like request latencies.
    const values = Array.from({ length: 20_000 }, () => 0.05 * Math.exp(random() * 12));
    const histogram = new LatencyHistogram();
    for (const value of values) histogram.record(value);
    const sorted = [...values].sort((a, b) => a - b);
    expect(histogram.count).toBe(values.length);
    expect(histogram.max).toBe(sorted[sorted.length - 1]);
    for (const q of [0.01, 0.5, 0.9, 0.99, 0.999, 1]) {
      const exact = percentile(sorted, q);
      const estimate = histogram.quantile(q);
      expect(estimate).toBeGreaterThanOrEqual(exact);
      expect(estimate).toBeLessThanOrEqual(exact * 1.01);
    }
  });

  it('keeps values below its first bucket and above its last', () => {
    const histogram = new LatencyHistogram();
    expect(histogram.quantile(0.5)).toBeNaN();
    histogram.record(0);
    histogram.record(5e6);
    expect(histogram.quantile(0.5)).toBeLessThanOrEqual(0.001);
    expect(histogram.quantile(1)).toBe(5e6);
  });
});

function measured(server: Measurement['server'], workload: string, requestsPerSecond: number, cpuUsPerRequest?: number): Measurement {
  return {
    server,
    workload,
    title: workload,
    connections: 50,
    status: 'ok',
    result: { requestsPerSecond, p50Ms: 1, p99Ms: 2, total: requestsPerSecond * 10, non2xx: 0, errors: 0, statuses: { '200': requestsPerSecond * 10 }, seconds: 10, bytesPerResponse: 400 },
    ...(cpuUsPerRequest !== undefined && { cpuUsPerRequest }),
  };
}

describe('ratios', () => {
  const list = ratios([
    measured('mock', 'accounts-list', 4000, 250),
    measured('prism', 'accounts-list', 2000, 500),
    measured('express', 'accounts-list', 4400, 200),
    measured('ceiling', 'accounts-list', 40000),
    { server: 'mock', workload: 'posts-create', title: 'posts-create', connections: 50, status: 'not-implemented', detail: 'createPost' },
    measured('prism', 'posts-create', 1000),
    measured('mock', 'posts-list', 4000, 250),
    measured('prism', 'posts-list', 2000, 500),
  ]);

  it('compares throughput and requests per CPU-second with each reference', () => {
    expect(list[0]).toMatchObject({
      workload: 'accounts-list',
      throughput: { mockOverPrism: 2, mockOverCeiling: 0.1, mockOverExpress: 0.91, pipelineOverheadPct: 10 },
      cpu: { mockOverPrism: 2, mockOverCeiling: undefined, mockOverExpress: 0.8, pipelineOverheadPct: 25 },
    });
  });

  it('leaves a ratio out when the mock was not measured', () => {
    expect(list[1]).toMatchObject({ workload: 'posts-create', throughput: { mockOverPrism: undefined } });
  });

  it('judges every workload against 5× Prism (issue 37), and says which wait', () => {
    const targets = evaluateTargets(list, [
      { server: 'mock', runs: [400], medianMs: 400 },
      { server: 'prism', runs: [1000], medianMs: 1000 },
    ]);
    expect(targets.map((t) => [t.target, t.scope, t.met])).toEqual([
      ['throughput ≥ 5× Prism', 'accounts-list', false],
      ['pipeline ≤ 25% over Express + validator', 'accounts-list', true],
      ['throughput ≥ 5× Prism', 'posts-create', undefined],
      ['throughput ≥ 5× Prism', 'posts-list', false],
      ['start to first 200 ≤ ½ of Prism', 'median of runs', true],
      ['start to first 200 < 2000 ms', 'median of 1 whole processes', true],
    ]);
  });
});

describe('ratios where the mock publishes what the workload creates', () => {
  // 1,300 µs a request, 300 of them the clock driver's publishing beside it; the baseline 900.
  const list = ratios([{ ...measured('mock', 'creates', 700, 1300), publishingUsPerRequest: 300 }, measured('express', 'creates', 1000, 900)]);

  it('compares the pipeline by CPU with the publishing aside too', () => {
    expect(list[0]?.cpu.pipelineOverheadPct).toBe(44);
    expect(list[0]?.serving?.pipelineOverheadPct).toBe(11);
  });

  it('judges the pipeline target on that figure, saying so', () => {
    const [target] = evaluateTargets(list, []);
    expect(target).toMatchObject({ target: 'pipeline ≤ 25% over Express + validator', met: true });
    expect(target?.value).toContain('publishing beside the requests aside +11%');
  });

  it('leaves it out where nothing publishes', () => {
    expect(ratios([measured('mock', 'reads', 700, 1300), measured('express', 'reads', 1000, 900)])[0]?.serving).toBeUndefined();
  });
});

/** A server's measurement of five rounds of 2 s at these rates, each request costing `cpuUs` of CPU. */
function measuredRounds(server: Measurement['server'], workload: string, rates: number[], cpuUs: number): Measurement {
  const rounds = rates.map((rate) => ({ result: { total: rate * 2, seconds: 2 }, cpu: (rate * 2 * cpuUs) / 1e6 }));
  const total = rounds.reduce((sum, round) => sum + round.result.total, 0);
  return { ...measured(server, workload, Math.round(total / (2 * rates.length)), cpuUs), rounds };
}

describe('ratios of servers measured in the same rounds', () => {
  // Prism's third round ran on a fast spell of the host: pooled, it makes the mock 4.17× Prism.
  const list = ratios([measuredRounds('mock', 'posts-create', [5000, 5000, 5000, 5000, 5000], 180), measuredRounds('prism', 'posts-create', [1000, 1000, 2000, 1000, 1000], 900)]);

  it('is the median of the rounds\' ratios, so one disturbed round does not decide it', () => {
    expect(list[0]?.rps).toMatchObject({ mock: 5000, prism: 1200 });
    expect(list[0]?.throughput.mockOverPrism).toBe(5);
    expect(list[0]?.cpu.mockOverPrism).toBe(5);
    expect(evaluateTargets(list, [])[0]).toMatchObject({ target: 'throughput ≥ 5× Prism', met: true });
  });

  it('compares pooled figures where the rounds differ in number', () => {
    const uneven = ratios([measuredRounds('mock', 'posts-create', [5000, 5000, 5000, 5000, 5000], 180), measuredRounds('prism', 'posts-create', [1000, 2000], 900)]);
    expect(uneven[0]?.throughput.mockOverPrism).toBe(3.33);
  });

  it('judges the pipeline on the baseline over the mock, round by round too', () => {
    const overhead = ratios([measuredRounds('mock', 'reads', [4000, 4000, 1000, 4000, 4000], 250), measuredRounds('express', 'reads', [4400, 4400, 4400, 4400, 4400], 200)]);
    expect(overhead[0]?.throughput.pipelineOverheadPct).toBe(10);
  });
});

describe('budgetTable', () => {
  it("says how much of the mock's own work must go for the Prism target, beyond what node:http alone takes", () => {
    // Node alone 50 µs, the mock 200, Prism 600: at 5× the mock may take 120, 70 of them beyond Node, where it spends 150.
    const table = budgetTable(ratios([measured('mock', 'posts-create', 5000, 200), measured('ceiling', 'posts-create', 20000, 50), measured('prism', 'posts-create', 1666, 600)]));
    expect(table?.split('\n')[2]).toMatch(/^\| posts-create +\| +50 \| +200 \| +150 \| +120 \(5×\) \| +70 \| +−53% \|$/);
  });

  it('says it fits when the target leaves more beyond Node than the mock spends, and when it leaves none', () => {
    const rows = (prismUs: number) =>
      budgetTable(ratios([measured('mock', 'connections', 10000, 100), measured('ceiling', 'connections', 25000, 40), measured('prism', 'connections', 1000, prismUs)]))?.split('\n')[2];
    expect(rows(1000)).toMatch(/\| +fits \|$/);
    expect(rows(150)).toMatch(/\| +no room beyond Node \|$/);
  });

  it('has nothing to say without the ceiling', () => {
    expect(budgetTable(ratios([measured('mock', 'posts-create', 5000, 200), measured('prism', 'posts-create', 1666, 600)]))).toBeUndefined();
  });
});

describe('pairedRatios (growth)', () => {
  /** A run of `seconds` that answered `total` requests on `cpu` seconds of the server's CPU. */
  const run = (total: number, cpu?: number, seconds = 1) => ({ result: { total, seconds } as LoadResult, cpu });

  it('takes the median of the rounds, so one slow slot on the largest size does not decide the row', () => {
    // The host halved its speed during the largest size's second round: pooled, 100k would read 0.67×.
    const smallest = [run(1000, 0.1), run(1000, 0.1), run(1000, 0.1)];
    const largest = [run(950, 0.1), run(500, 0.1), run(1000, 0.1)];
    expect(pairedRatios(smallest, largest)).toEqual({ ratio: 0.95, cpuRatio: 0.95, roundRatios: [0.95, 0.5, 1] });
  });

  it('compares each round with itself, so a host that slows for a whole round moves neither size apart', () => {
    const smallest = [run(1000), run(400), run(1000)];
    const largest = [run(700), run(280), run(700)];
    expect(pairedRatios(smallest, largest).ratio).toBe(0.7);
  });

  it('says nothing by CPU when a round had no CPU reading', () => {
    expect(pairedRatios([run(100, 0.01), run(100)], [run(90, 0.01), run(90, 0.01)]).cpuRatio).toBeUndefined();
  });
});

describe('markdownTable', () => {
  it('pads columns and right-aligns the ones asked', () => {
    expect(markdownTable(['name', 'n'], [['a', '1'], ['bbb', '22']], new Set([1]))).toBe(['| name |  n |', '|------|---:|', '| a    |  1 |', '| bbb  | 22 |'].join('\n'));
  });
});

describe('destinationPairs', () => {
  const connection = (id: string, platform: string, status = 'active', canAutoRenew = true, tokenExpiresAt: string | null = null) => ({ id, platform, status, canAutoRenew, tokenExpiresAt });

  it('pairs active text-network accounts whose token cannot run out, never two on one network', () => {
    const pairs = destinationPairs('key', [
      connection('tw', 'twitter'),
      connection('bs', 'bluesky'),
      connection('ig', 'instagram'),
      connection('li', 'linkedin', 'expired'),
      connection('th', 'threads', 'active', false, '2026-01-01T00:00:00Z'),
      connection('tw2', 'twitter'),
    ]);
    expect(pairs.map((p) => `${p.first}+${p.second}`)).toEqual(['tw+bs', 'bs+tw2']);
  });

  it('interleaves workspaces so consecutive posts go to different ones', () => {
    const a = [{ apiKey: 'a', first: '1', second: '2' }, { apiKey: 'a', first: '3', second: '4' }];
    const b = [{ apiKey: 'b', first: '5', second: '6' }];
    expect(interleave([a, b]).map((p) => p.apiKey)).toEqual(['a', 'b', 'a']);
  });
});

describe('runLoad', () => {
  /** What a client reads for one GET of `/`: status line, headers and body, on a kept-alive connection as autocannon's. */
  function rawAnswer(port: number, bodyBytes: number): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write('GET / HTTP/1.1\r\nHost: localhost\r\n\r\n'));
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        const all = Buffer.concat(chunks);
        const end = all.indexOf('\r\n\r\n');
        if (end !== -1 && all.length >= end + 4 + bodyBytes) {
          socket.destroy();
          resolve(all);
        }
      });
      socket.on('error', reject);
    });
  }

  it('reports the bytes of an answer, its status line and headers included', { timeout: 15_000 }, async () => {
    const body = 'x'.repeat(1_000);
    const server = createServer((_req, res) => {
      res.sendDate = false;
      res.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const raw = await rawAnswer(port, body.length);
      expect(raw.length).toBeGreaterThan(body.length);
      const result = await runLoad({ url: `http://127.0.0.1:${port}`, connections: 1, seconds: 1, requests: [{ method: 'GET', path: '/' }] });
      expect(result.total).toBeGreaterThan(0);
      expect(result.bytesPerResponse).toBe(raw.length);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('summariseGcTrace', () => {
  // Two scavenges and a mark-compact as node --trace-gc-nvp prints them (fields cut short), among other output.
  const trace = [
    'listening on http://127.0.0.1:4010',
    '[14361:0x42e40490]       46 ms: pause=3.5 mutator=36.7 gc=s reduce_memory=0 scavenge=2.58 allocated=3960536 promoted=1000 new_space_survived=490584 promotion_ratio=0.0%',
    '[14361:0x42e40490]       52 ms: pause=2.5 mutator=2.8 gc=s reduce_memory=0 allocated=2039464 promoted=3000 new_space_survived=9416',
    '[14361:0x42e40490]      900 ms: pause=12 mutator=800 gc=mc reduce_memory=0 allocated=100 promoted=0',
  ].join('\n');

  it('sums each kind of collection per request: pauses, and the bytes allocated, surviving and promoted', () => {
    const [scavenge, markCompact] = summariseGcTrace(trace, 1000);
    expect(scavenge).toEqual({ kind: 's', count: 2, pauseUsPerRequest: 6, allocatedBytesPerRequest: 6000, promotedBytesPerRequest: 4, survivedBytesPerRequest: 500 });
    expect(markCompact).toMatchObject({ kind: 'mc', count: 1, pauseUsPerRequest: 12, promotedBytesPerRequest: 0 });
    expect(formatGcSummary(summariseGcTrace(trace, 1000))).toContain('scavenge        2 times: 6 µs of pause a request; 6000 B allocated, 500 B survived and 4 B promoted a request');
  });

  it('reads no collection from output that has none, and divides by no request as nothing', () => {
    expect(summariseGcTrace('listening on http://127.0.0.1:4010\n', 10)).toEqual([]);
    expect(formatGcSummary([])).toBe('  no collection during the load');
    expect(summariseGcTrace(trace, 0)[0]).toMatchObject({ count: 2, pauseUsPerRequest: 0, promotedBytesPerRequest: 0 });
  });
});
