/**
 * A sliding window of request times: each request ages out on its own `windowMs`
 * after it arrived, never at a fixed minute boundary. Times come from the virtual
 * clock and never decrease, so the queue stays sorted and pruning is O(1) amortised.
 * Requests that arrive at the same instant share one entry: on a frozen clock with
 * the limit off (a load test), a million requests are one entry, not a million, so
 * memory is bounded by the window's length in milliseconds, not by the traffic.
 */
export class SlidingWindow {
  /** Distinct arrival times, ascending. */
  private times: number[] = [];
  /** Requests that arrived at each of `times`. */
  private counts: number[] = [];
  private head = 0;
  /** Requests from `head` on. */
  private total = 0;

  constructor(readonly windowMs: number) {}

  /** Requests still inside the window at `nowMs`. */
  count(nowMs: number): number {
    this.prune(nowMs);
    return this.total;
  }

  record(nowMs: number): void {
    this.add(nowMs, 1);
  }

  /** Takes back one request of the newest arrival time still in the window (a request that turned out not to count). */
  forget(nowMs: number): void {
    this.prune(nowMs);
    const last = this.times.length - 1;
    if (last < this.head) return;
    const left = (this.counts[last] as number) - 1;
    if (left > 0) this.counts[last] = left;
    else {
      this.times.pop();
      this.counts.pop();
    }
    this.total--;
  }

  /** When the oldest request in the window ages out; undefined for an empty window. */
  oldestExpiry(nowMs: number): number | undefined {
    this.prune(nowMs);
    const oldest = this.times[this.head];
    return oldest === undefined ? undefined : oldest + this.windowMs;
  }

  /** Fills the window to `total` requests at `nowMs` (the control plane's drain). */
  fillTo(total: number, nowMs: number): void {
    const missing = total - this.count(nowMs);
    if (missing > 0) this.add(nowMs, missing);
  }

  clear(): void {
    this.times = [];
    this.counts = [];
    this.head = 0;
    this.total = 0;
  }

  /** Distinct arrival times held: at most one per millisecond of the window. */
  get entries(): number {
    return this.times.length - this.head;
  }

  private add(nowMs: number, n: number): void {
    const last = this.times.length - 1;
    if (last >= this.head && this.times[last] === nowMs) this.counts[last] = (this.counts[last] as number) + n;
    else {
      this.times.push(nowMs);
      this.counts.push(n);
    }
    this.total += n;
  }

  private prune(nowMs: number): void {
    const cutoff = nowMs - this.windowMs;
    while (this.head < this.times.length && (this.times[this.head] as number) <= cutoff) {
      this.total -= this.counts[this.head] as number;
      this.head++;
    }
    // Compact now and then so the arrays do not grow without bound.
    if (this.head > 1024 && this.head * 2 > this.times.length) {
      this.times = this.times.slice(this.head);
      this.counts = this.counts.slice(this.head);
      this.head = 0;
    }
  }
}
