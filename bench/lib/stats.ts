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
