import type { PlanName } from '../../store/plans.js';
import type { DeliveryRecord, DeliveryStatus } from './store.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * How long each plan keeps the delivery log (the reference: "kept for the plan's log
 * retention", duration not shown). Free keeps a long weekend, pay-as-you-go a month.
 */
export const LOG_RETENTION_MS: Record<PlanName, number> = {
  free: 3 * DAY,
  payg: 30 * DAY,
};

/** At most this many deliveries are kept per webhook, newest kept, whatever the plan: memory stays bounded. */
export const MAX_DELIVERIES_PER_WEBHOOK = 1000;

/** The log's default range: the last 7 days (the reference). */
export const DEFAULT_LOG_RANGE_MS = 7 * DAY;

/**
 * Histogram bucket sizes by the span shown: at most about 60 buckets, aligned to
 * UTC (whole minutes, hours, days), so charts of the same range always line up.
 */
export const HISTOGRAM_BUCKETS: ReadonlyArray<{ upToMs: number; bucketMs: number }> = [
  { upToMs: HOUR, bucketMs: MINUTE },
  { upToMs: 6 * HOUR, bucketMs: 5 * MINUTE },
  { upToMs: 2 * DAY, bucketMs: HOUR },
  { upToMs: 14 * DAY, bucketMs: 6 * HOUR },
  { upToMs: Number.POSITIVE_INFINITY, bucketMs: DAY },
];

export function bucketSizeFor(spanMs: number): number {
  for (const tier of HISTOGRAM_BUCKETS) if (spanMs <= tier.upToMs) return tier.bucketMs;
  return DAY;
}

/** The instant range the log shows: since inclusive, until exclusive. */
export interface LogWindow {
  sinceMs: number;
  untilMs: number;
}

/**
 * The log's effective range. `since` defaults to 7 days before `until` (or now);
 * a `since` older than the retention starts at the oldest kept instant. Nothing is
 * logged after now, so an open or future `until` ends just after now.
 */
export function logWindow(request: { sinceMs?: number; untilMs?: number }, nowMs: number, retentionMs: number): LogWindow {
  const end = Math.min(request.untilMs ?? Number.POSITIVE_INFINITY, nowMs + 1);
  const since = Math.max(request.sinceMs ?? (request.untilMs ?? nowMs) - DEFAULT_LOG_RANGE_MS, nowMs - retentionMs);
  return { sinceMs: since, untilMs: end };
}

export type StatusCounts = Record<DeliveryStatus, number>;

export function countByStatus(deliveries: Iterable<DeliveryRecord>): StatusCounts {
  const counts: StatusCounts = { pending: 0, succeeded: 0, failed: 0 };
  for (const delivery of deliveries) counts[delivery.status]++;
  return counts;
}

export interface HistogramBucket extends StatusCounts {
  start: string;
  end: string;
}

/** Counts per status in UTC-aligned buckets covering the window, oldest first, empty buckets included. */
export function histogram(deliveries: readonly DeliveryRecord[], window: LogWindow): HistogramBucket[] {
  if (window.untilMs <= window.sinceMs) return [];
  const size = bucketSizeFor(window.untilMs - window.sinceMs);
  const first = Math.floor(window.sinceMs / size) * size;
  const buckets: HistogramBucket[] = [];
  for (let start = first; start < window.untilMs; start += size) {
    buckets.push({ start: new Date(start).toISOString(), end: new Date(start + size).toISOString(), pending: 0, succeeded: 0, failed: 0 });
  }
  for (const delivery of deliveries) {
    const bucket = buckets[Math.floor((delivery.createdAtMs - first) / size)];
    if (bucket) bucket[delivery.status]++;
  }
  return buckets;
}

/**
 * Drops what the log no longer keeps, oldest first: past the retention, then past
 * the cap. The log is in creation order, so this only ever cuts from the front.
 */
export function prune(log: DeliveryRecord[], nowMs: number, retentionMs: number, max = MAX_DELIVERIES_PER_WEBHOOK): DeliveryRecord[] {
  let cut = 0;
  const oldestKept = nowMs - retentionMs;
  while (cut < log.length && (log[cut] as DeliveryRecord).createdAtMs < oldestKept) cut++;
  cut = Math.max(cut, log.length - max);
  return cut > 0 ? log.splice(0, cut) : [];
}
