/** The q-quantile (0..1) of ascending values, nearest rank; NaN when empty. */
export function percentile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] as number;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** One server's run of one round: its answers in its seconds, and its CPU seconds over them (undefined without /proc). */
export interface RoundRun {
  result: { total: number; seconds: number };
  cpu: number | undefined;
}

function ratioOf(a: number | undefined, b: number | undefined): number | undefined {
  return a !== undefined && b !== undefined && b > 0 ? Math.round((a / b) * 100) / 100 : undefined;
}

/**
 * `other` over `base`, round by round, and the median of the rounds' ratios: by rate (other's
 * req/s over base's) and by CPU (base's CPU per request over other's). The two runs of a round are
 * taken seconds apart, so their ratio compares them on one host speed, and the median leaves out a
 * round that something else disturbed; pooling every round's requests lets one disturbed round weigh
 * on the answer. The growth measure compares its largest size with its smallest so, and `npm run
 * bench` the mock with each reference server.
 */
export function pairedRatios(base: readonly RoundRun[], other: readonly RoundRun[]): { ratio: number | undefined; cpuRatio: number | undefined; roundRatios: number[] } {
  const rate = (run: RoundRun) => (run.result.seconds > 0 ? run.result.total / run.result.seconds : 0);
  const cpuPerRequest = (run: RoundRun) => (run.cpu !== undefined && run.result.total > 0 ? run.cpu / run.result.total : undefined);
  const rounds = Math.min(base.length, other.length);
  const byRate: number[] = [];
  const byCpu: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const [first, second] = [base[r] as RoundRun, other[r] as RoundRun];
    const rateRatio = ratioOf(rate(second), rate(first));
    if (rateRatio !== undefined) byRate.push(rateRatio);
    const cpuRatio = ratioOf(cpuPerRequest(first), cpuPerRequest(second));
    if (cpuRatio !== undefined) byCpu.push(cpuRatio);
  }
  const middle = (values: number[]) => (values.length > 0 ? Math.round(median(values) * 100) / 100 : undefined);
  return { ratio: middle(byRate), cpuRatio: byCpu.length === rounds ? middle(byCpu) : undefined, roundRatios: byRate };
}

/**
 * Latencies in constant memory: counts in buckets 1% wide (from 1 µs to about 17
 * minutes), so a long run keeps no list of every request. A quantile is the upper
 * bound of its bucket, never below the true value and at most 1% above it.
 */
export class LatencyHistogram {
  private static readonly MIN_MS = 0.001;
  private static readonly GROWTH = 1.01;
  private static readonly BUCKETS = Math.ceil(Math.log(1e6 / LatencyHistogram.MIN_MS) / Math.log(LatencyHistogram.GROWTH)) + 1;
  private readonly counts = new Float64Array(LatencyHistogram.BUCKETS);
  count = 0;
  max = 0;

  record(ms: number): void {
    const index = ms <= LatencyHistogram.MIN_MS ? 0 : Math.ceil(Math.log(ms / LatencyHistogram.MIN_MS) / Math.log(LatencyHistogram.GROWTH));
    const bucket = Math.min(index, LatencyHistogram.BUCKETS - 1);
    this.counts[bucket] = (this.counts[bucket] as number) + 1;
    this.count++;
    if (ms > this.max) this.max = ms;
  }

  /** The q-quantile (0..1), nearest rank as `percentile`; NaN when empty. */
  quantile(q: number): number {
    if (this.count === 0) return NaN;
    const rank = Math.min(this.count, Math.max(1, Math.ceil(q * this.count)));
    let seen = 0;
    for (let index = 0; index < this.counts.length; index++) {
      seen += this.counts[index] as number;
      // The last bucket also holds everything past its bound: its quantile is the maximum.
      if (seen >= rank) return index === this.counts.length - 1 ? this.max : Math.min(this.max, LatencyHistogram.MIN_MS * LatencyHistogram.GROWTH ** index);
    }
    return this.max;
  }
}
