import autocannon, { type AutocannonRequest } from 'autocannon';
import { percentile } from './stats.js';

export interface LoadOptions {
  url: string;
  connections: number;
  seconds: number;
  requests: AutocannonRequest[];
}

export interface LoadResult {
  requestsPerSecond: number;
  /** Latency of every response, from autocannon's own per-request timing (sub-millisecond). */
  p50Ms: number;
  p99Ms: number;
  total: number;
  non2xx: number;
  /** Connection errors and timeouts. */
  errors: number;
  statuses: Record<string, number>;
  seconds: number;
  /**
   * Bytes of an answer, status line and headers included, on average: the servers do not answer
   * alike (the mock's posts page is twenty posts, Prism's its contract's example of one), and
   * every byte crosses the kernel's loopback on the server's CPU.
   */
  bytesPerResponse: number;
}

/** Grows without copying per response: a few hundred thousand latencies per run. */
class Samples {
  private data = new Float64Array(1 << 16);
  length = 0;

  push(value: number): void {
    if (this.length === this.data.length) {
      const bigger = new Float64Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = value;
  }

  sorted(): Float64Array {
    return this.data.slice(0, this.length).sort();
  }
}

/**
 * One load run with autocannon's library, in this process (pinned to the
 * generator's core). The latencies are collected here rather than read from
 * autocannon's histogram, which keeps whole milliseconds only.
 */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const latencies = new Samples();
  let bytes = 0;
  const instance = autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.seconds,
    timeout: 30,
    requests: options.requests,
  });
  instance.on('response', (_client, _status, responseBytes, responseTime) => {
    latencies.push(responseTime);
    bytes += responseBytes;
  });
  const result = await instance;
  const sorted = latencies.sorted();
  const statuses: Record<string, number> = {};
  for (const [status, { count }] of Object.entries(result.statusCodeStats ?? {})) statuses[status] = Number(count);
  return {
    requestsPerSecond: Math.round(result.requests.total / result.duration),
    p50Ms: round(percentile(sorted, 0.5)),
    p99Ms: round(percentile(sorted, 0.99)),
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    statuses,
    seconds: result.duration,
    bytesPerResponse: latencies.length > 0 ? Math.round(bytes / latencies.length) : 0,
  };
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
