/**
 * A sliding window of request times: each request ages out on its own `windowMs`
 * after it arrived, never at a fixed minute boundary. Times come from the virtual
 * clock and never decrease, so the queue stays sorted and pruning is O(1) amortised.
 */
export class SlidingWindow {
  private times: number[] = [];
  private head = 0;

  constructor(readonly windowMs: number) {}

  /** Requests still inside the window at `nowMs`. */
  count(nowMs: number): number {
    this.prune(nowMs);
    return this.times.length - this.head;
  }

  record(nowMs: number): void {
    this.times.push(nowMs);
  }

  /** When the oldest request in the window ages out; undefined for an empty window. */
  oldestExpiry(nowMs: number): number | undefined {
    this.prune(nowMs);
    const oldest = this.times[this.head];
    return oldest === undefined ? undefined : oldest + this.windowMs;
  }

  /** Fills the window to `total` requests at `nowMs` (the control plane's drain). */
  fillTo(total: number, nowMs: number): void {
    for (let n = this.count(nowMs); n < total; n++) this.times.push(nowMs);
  }

  clear(): void {
    this.times = [];
    this.head = 0;
  }

  private prune(nowMs: number): void {
    const cutoff = nowMs - this.windowMs;
    while (this.head < this.times.length && (this.times[this.head] as number) <= cutoff) this.head++;
    // Compact now and then so the array does not grow without bound.
    if (this.head > 1024 && this.head * 2 > this.times.length) {
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
  }
}
