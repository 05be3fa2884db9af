import type { LoadResult } from './load.js';
import { pairedRatios, type RoundRun } from './stats.js';
import { WORKLOADS, type ServerId } from './workloads.js';

/** What one server did on one workload. */
export interface Measurement {
  server: ServerId;
  workload: string;
  title: string;
  connections: number;
  /** `not-implemented`: the build under test answers 501 for an operation the workload calls. */
  status: 'ok' | 'not-implemented' | 'error';
  detail?: string;
  result?: LoadResult;
  /** Resident memory of the server right after the run, and its peak so far. */
  rssMb?: number;
  peakRssMb?: number;
  /** Server CPU time (user + system) per request answered, in µs. */
  cpuUsPerRequest?: number;
  /** Server CPU time over the run's wall time: near 1 when the server had its core to itself and was the bottleneck. */
  cpuShare?: number;
  /**
   * Of `cpuUsPerRequest`, what the clock driver's ticks cost while posts were
   * created (publishing them, a virtual day of token renewals), timed alone
   * after the load: work done beside the requests, which the baseline does not do.
   */
  publishingUsPerRequest?: number;
  /** Each round's answers, seconds and CPU, in the order the rounds ran: the ratios compare the servers round by round. */
  rounds?: RoundRun[];
}

/** The mock against the three references on one workload, by one measure. */
export interface Comparison {
  mockOverPrism: number | undefined;
  mockOverCeiling: number | undefined;
  mockOverExpress: number | undefined;
  /**
   * What the mock's pipeline adds to a request's cost over the plain Express +
   * validator app, in percent: cost per request is 1 / rate, so express/mock - 1.
   */
  pipelineOverheadPct: number | undefined;
}

export interface Ratio {
  workload: string;
  title: string;
  /** Requests per second of each server (undefined when not measured). */
  rps: Partial<Record<ServerId, number>>;
  /** Requests per CPU-second of each server: throughput with the competition for the core taken out. */
  perCpuSecond: Partial<Record<ServerId, number>>;
  /** By throughput (the issue's measure). */
  throughput: Comparison;
  /** By requests per CPU-second of the server (steadier on a busy machine). */
  cpu: Comparison;
  /** By CPU per request with the mock's publishing (clock-driver ticks) taken out; only where posts are created. */
  serving: Comparison | undefined;
}

function find(measurements: readonly Measurement[], server: ServerId, workload: string): Measurement | undefined {
  return measurements.find((m) => m.server === server && m.workload === workload && m.status === 'ok');
}

/** Requests per CPU-second of the server, from its CPU time per request (less the publishing beside it, if asked). */
export function perCpuSecond(m: Measurement | undefined, publishingAside = false): number | undefined {
  if (m?.cpuUsPerRequest === undefined) return undefined;
  const us = m.cpuUsPerRequest - (publishingAside ? (m.publishingUsPerRequest ?? 0) : 0);
  return us > 0 ? Math.round(1e6 / us) : undefined;
}

function ratio(a: number | undefined, b: number | undefined): number | undefined {
  return a !== undefined && b !== undefined && b > 0 ? Math.round((a / b) * 100) / 100 : undefined;
}

function compare(values: Partial<Record<ServerId, number>>): Comparison {
  const overhead = ratio(values.express, values.mock);
  return {
    mockOverPrism: ratio(values.mock, values.prism),
    mockOverCeiling: ratio(values.mock, values.ceiling),
    mockOverExpress: ratio(values.mock, values.express),
    pipelineOverheadPct: overhead === undefined ? undefined : Math.round((overhead - 1) * 100),
  };
}

/**
 * Where the mock and a reference ran the same rounds, its pooled comparisons give way to the median
 * of the rounds' ratios (pairedRatios): a round's two runs are seconds apart, on one host speed,
 * where the pooled figures of two servers sum up different moments of a host whose speed swings by
 * a factor of two within seconds.
 */
function pairRounds(measurements: readonly Measurement[], workload: string, throughput: Comparison, cpu: Comparison): void {
  const mock = find(measurements, 'mock', workload);
  const paired = (base: Measurement | undefined, other: Measurement | undefined) =>
    base?.rounds && other?.rounds && base.rounds.length > 0 && base.rounds.length === other.rounds.length ? pairedRatios(base.rounds, other.rounds) : undefined;
  const fields = { prism: 'mockOverPrism', ceiling: 'mockOverCeiling', express: 'mockOverExpress' } as const;
  for (const [server, field] of Object.entries(fields) as Array<[ServerId, (typeof fields)[keyof typeof fields]]>) {
    const rounds = paired(find(measurements, server, workload), mock);
    if (!rounds) continue;
    throughput[field] = rounds.ratio;
    cpu[field] = rounds.cpuRatio;
  }
  // What the pipeline adds over the baseline: the baseline over the mock, less one.
  const added = paired(mock, find(measurements, 'express', workload));
  const pct = (value: number | undefined) => (value === undefined ? undefined : Math.round((value - 1) * 100));
  if (added) {
    throughput.pipelineOverheadPct = pct(added.ratio);
    cpu.pipelineOverheadPct = pct(added.cpuRatio);
  }
}

/** The ratios of the mock to each reference, per workload run at full load. */
export function ratios(measurements: readonly Measurement[]): Ratio[] {
  const workloads = [...new Map(measurements.filter((m) => m.connections > 1).map((m) => [m.workload, m.title])).entries()];
  return workloads.map(([workload, title]) => {
    const rps: Partial<Record<ServerId, number>> = {};
    const cpu: Partial<Record<ServerId, number>> = {};
    const serving: Partial<Record<ServerId, number>> = {};
    for (const server of ['mock', 'prism', 'ceiling', 'express'] as const) {
      const m = find(measurements, server, workload);
      if (m?.result) rps[server] = m.result.requestsPerSecond;
      const perCpu = perCpuSecond(m);
      if (perCpu !== undefined) cpu[server] = perCpu;
      const aside = perCpuSecond(m, true);
      if (aside !== undefined) serving[server] = aside;
    }
    const publishes = find(measurements, 'mock', workload)?.publishingUsPerRequest !== undefined;
    const throughput = compare(rps);
    const perCpu = compare(cpu);
    pairRounds(measurements, workload, throughput, perCpu);
    // The publishing is timed once, after the load, so the pipeline with it aside compares the pooled figures.
    return { workload, title, rps, perCpuSecond: cpu, throughput, cpu: perCpu, serving: publishes ? compare(serving) : undefined };
  });
}

/** A Markdown table with padded columns (readable in a terminal and in docs). */
export function markdownTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>, alignRight: ReadonlySet<number> = new Set()): string {
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]) => `| ${cells.map((cell, i) => (alignRight.has(i) ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (alignRight.has(i) ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

const number = (value: number | undefined, digits = 0) => (value === undefined || Number.isNaN(value) ? '–' : value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }));

function statusNote(m: Measurement): string {
  if (m.status === 'not-implemented') return `not implemented${m.detail ? ` (${m.detail})` : ''}`;
  if (m.status === 'error') return `error: ${m.detail ?? ''}`;
  const result = m.result;
  if (!result) return '';
  const bad = Object.entries(result.statuses).filter(([status]) => !status.startsWith('2'));
  const notes = bad.map(([status, count]) => `${number(count)}× ${status}`);
  if (result.errors > 0) notes.push(`${number(result.errors)} errors`);
  return notes.join(', ');
}

/** One row per server × workload: throughput, latency, memory and anything that was not a 2xx. */
export function measurementTable(measurements: readonly Measurement[]): string {
  const rows = measurements.map((m) => {
    const r = m.status === 'ok' ? m.result : undefined;
    const cpu = r ? m : undefined;
    return [
      m.title,
      String(m.connections),
      m.server,
      number(r?.requestsPerSecond),
      number(r?.p50Ms, 2),
      number(r?.p99Ms, 2),
      number(r?.bytesPerResponse),
      number(m.rssMb),
      number(cpu?.cpuUsPerRequest),
      number(cpu?.publishingUsPerRequest),
      cpu?.cpuShare === undefined ? '–' : `${Math.round(cpu.cpuShare * 100)}%`,
      statusNote(m),
    ];
  });
  return markdownTable(
    ['workload', 'conns', 'server', 'req/s', 'p50 ms', 'p99 ms', 'bytes/answer', 'RSS MB', 'CPU µs/req', 'of which publishing', 'CPU use', 'notes'],
    rows,
    new Set([1, 3, 4, 5, 6, 7, 8, 9, 10]),
  );
}

export function ratioTable(list: readonly Ratio[]): string {
  const x = (value: number | undefined) => (value === undefined ? '–' : `${value.toFixed(2)}×`);
  const pct = (value: number | undefined) => (value === undefined ? '–' : `${value > 0 ? '+' : ''}${value}%`);
  const rows = list.map((r) => [
    r.title,
    x(r.throughput.mockOverPrism),
    x(r.cpu.mockOverPrism),
    x(r.throughput.mockOverCeiling),
    x(r.throughput.mockOverExpress),
    pct(r.throughput.pipelineOverheadPct),
    pct(r.cpu.pipelineOverheadPct),
    pct(r.serving?.pipelineOverheadPct),
  ]);
  return markdownTable(
    ['workload', 'mock/Prism req/s', 'mock/Prism per CPU-s', 'mock/ceiling req/s', 'mock/express req/s', 'pipeline overhead (req/s)', 'pipeline overhead (CPU)', 'same, publishing aside (CPU)'],
    rows,
    new Set([1, 2, 3, 4, 5, 6, 7]),
  );
}

/**
 * Per workload with the ceiling measured, in CPU µs per request: what node:http alone takes (the
 * ceiling), what the mock takes and how much of it is beyond Node's part, and what the mock may take
 * at the Prism target (Prism's µs over the target's multiple) and so may spend beyond Node's part.
 * When that last is smaller than what the mock spends now, the table says by how much its own work
 * must shrink. Undefined when no workload had the mock, the ceiling and Prism.
 */
export function budgetTable(list: readonly Ratio[]): string | undefined {
  const us = (perSecond: number | undefined) => (perSecond === undefined ? undefined : 1e6 / perSecond);
  const rows: string[][] = [];
  for (const r of list) {
    const least = WORKLOADS.find((w) => w.id === r.workload)?.overPrism;
    const [mock, ceiling, prism] = [us(r.perCpuSecond.mock), us(r.perCpuSecond.ceiling), us(r.perCpuSecond.prism)];
    if (least === undefined || mock === undefined || ceiling === undefined || prism === undefined) continue;
    const own = mock - ceiling;
    const allowed = prism / least;
    const left = allowed - ceiling;
    rows.push([
      r.title,
      number(ceiling),
      number(mock),
      number(own),
      `${number(allowed)} (${least}×)`,
      number(left),
      left >= own ? 'fits' : left <= 0 ? 'no room beyond Node' : `−${Math.round((1 - left / own) * 100)}%`,
    ]);
  }
  if (rows.length === 0) return undefined;
  return markdownTable(['workload', 'ceiling (Node alone)', 'mock', 'mock beyond Node', 'mock at the target', 'target beyond Node', 'mock\'s own work to go'], rows, new Set([1, 2, 3, 4, 5, 6]));
}

export interface StartupResult {
  server: ServerId;
  /** Spawn to first 200, in ms, one per run. */
  runs: number[];
  medianMs: number;
}

export function startupTable(results: readonly StartupResult[]): string {
  const mock = results.find((r) => r.server === 'mock');
  const rows = results.map((r) => [
    r.server,
    String(r.runs.length),
    number(r.medianMs),
    number(Math.min(...r.runs)),
    number(Math.max(...r.runs)),
    mock && r.server !== 'mock' ? `${(mock.medianMs / r.medianMs).toFixed(2)}×` : '',
  ]);
  return markdownTable(['server', 'runs', 'median ms', 'min ms', 'max ms', 'mock/this'], rows, new Set([1, 2, 3, 4, 5]));
}

/** One target of the issue, judged on figures of one run; `met` undefined: not measurable yet. */
export interface TargetResult {
  target: string;
  scope: string;
  value: string;
  met: boolean | undefined;
}

/** The throughput and start-up targets (the scale targets are judged by the scale run). */
export function evaluateTargets(list: readonly Ratio[], startup: readonly StartupResult[]): TargetResult[] {
  const out: TargetResult[] = [];
  const x = (value: number | undefined) => (value === undefined ? '?' : `${value.toFixed(2)}×`);
  const pct = (value: number | undefined) => (value === undefined ? '?' : `${value > 0 ? '+' : ''}${value}%`);
  for (const r of list) {
    const least = WORKLOADS.find((w) => w.id === r.workload)?.overPrism;
    if (r.rps.prism !== undefined && least !== undefined) {
      const value = r.throughput.mockOverPrism;
      out.push({
        target: `throughput ≥ ${least}× Prism`,
        scope: r.title,
        value: value === undefined ? 'mock not measured' : `${x(value)} (per CPU-s ${x(r.cpu.mockOverPrism)})`,
        met: value === undefined ? undefined : value >= least,
      });
    }
    if (r.rps.express !== undefined) {
      const value = r.throughput.pipelineOverheadPct;
      // Where posts are created, the mock also publishes them on the clock driver's ticks (the baseline stores nothing): the pipeline is its CPU per request without that.
      const aside = r.serving?.pipelineOverheadPct;
      out.push({
        target: 'pipeline ≤ 25% over Express + validator',
        scope: r.title,
        value:
          value === undefined
            ? 'mock not measured'
            : `${pct(value)} (CPU ${pct(r.cpu.pipelineOverheadPct)}${r.serving ? `; CPU with the publishing beside the requests aside ${pct(aside)}` : ''})`,
        met: value === undefined ? undefined : r.serving ? aside !== undefined && aside <= 25 : value <= 25,
      });
    }
  }
  const mock = startup.find((s) => s.server === 'mock');
  const prism = startup.find((s) => s.server === 'prism');
  if (mock && prism) {
    const share = mock.medianMs / prism.medianMs;
    out.push({ target: 'start to first 200 ≤ ½ of Prism', scope: 'median of runs', value: `${mock.medianMs} ms vs ${prism.medianMs} ms (${share.toFixed(2)}×)`, met: share <= 0.5 });
  }
  if (mock) out.push({ target: `start to first 200 < ${START_GOAL_MS} ms`, scope: `median of ${mock.runs.length} whole processes`, value: `${mock.medianMs} ms`, met: mock.medianMs < START_GOAL_MS });
  return out;
}

/** Issue 37: `npm start` from a built checkout answers within 2 s. */
export const START_GOAL_MS = 2000;
/** Issue 37: at the largest size every operation keeps at least this share of its rate at the smallest. */
export const GROWTH_GOAL = 0.8;

/** One target per operation of a growth run: its largest-over-smallest rate. */
export function growthTargets(rows: ReadonlyArray<{ title: string; ratio: number | undefined; cpuRatio: number | undefined }>, sizes: readonly number[]): TargetResult[] {
  const span = `${(sizes[0] ?? 0).toLocaleString('en-US')} → ${(sizes.at(-1) ?? 0).toLocaleString('en-US')} posts`;
  return rows.map((row) => ({
    target: `growth: rate at the largest size ≥ ${GROWTH_GOAL}× the smallest`,
    scope: `${row.title} (${span})`,
    value: `${row.ratio === undefined ? '?' : `${row.ratio.toFixed(2)}×`} (by CPU per request ${row.cpuRatio === undefined ? '?' : `${row.cpuRatio.toFixed(2)}×`})`,
    met: row.ratio === undefined ? undefined : row.ratio >= GROWTH_GOAL,
  }));
}

export function targetTable(results: readonly TargetResult[]): string {
  const verdict = (met: boolean | undefined) => (met === undefined ? 'waits (not implemented)' : met ? 'met' : 'MISSED');
  return markdownTable(
    ['target', 'scope', 'value', 'verdict'],
    results.map((r) => [r.target, r.scope, r.value, verdict(r.met)]),
  );
}
