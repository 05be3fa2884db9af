import type { components } from '../../generated/openapi.js';
import { ApiError } from '../../lib/errors.js';
import type { TimeRange } from '../../http/lists.js';
import { metricsAt, type NormalizedMetrics } from '../posts/metrics.js';
import type { DestinationRecord } from '../posts/records.js';

/*
 * Daily readings, the stuff of timelines. The network reads each published
 * destination's metrics once per UTC day, at the day's end (00:00 UTC of the next
 * day): day D's point holds the totals on the deterministic curve of
 * src/api/posts/metrics.ts at that instant. So the publish day has a reading, days
 * before it have none, and today has none until midnight UTC passes. A remotely
 * deleted destination has readings up to its deletion.
 */

export const DAY_MS = 86_400_000;
/** The reference's longest timeline, also the default span. */
export const TIMELINE_MAX_DAYS = 90;

/** The timeline's metric keys: NormalizedMetrics with `plays` named `views`, and numbers only. */
export const TIMELINE_METRICS = ['impressions', 'reach', 'likes', 'comments', 'shares', 'saves', 'views', 'engagement'] as const;
export type TimelineMetricName = (typeof TIMELINE_METRICS)[number];
export type TimelineMetrics = components['schemas']['TimelineMetrics'];
export type TimelineDelta = components['schemas']['TimelineDelta'];
/** A day's reading; its delta is the change since the previous point, null for every key on the first point. */
export type TimelinePoint = components['schemas']['TimelinePoint'];

/** The UTC days a timeline covers, both ends included. */
export interface DayRange {
  from: string;
  to: string;
  /** Start (00:00 UTC) of the first and of the last day. */
  fromMs: number;
  toMs: number;
}

/** A destination as its readings need it. */
export interface ReadableDestination extends Pick<DestinationRecord, 'status' | 'publishedAt' | 'metricsSeed' | 'platform'> {
  /** When a remote delete took it off the network; null while it is there. */
  deletedAtMs: number | null;
}

export function dayStart(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

export function dayLabel(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * The reference's range rules: `until` defaults to now, `since` to 90 days before
 * `until`; `since` must be before `until` and at most 90 days earlier (400
 * INVALID_RANGE). The first day is the UTC day of `since`, the last the UTC day in
 * which the range ends. `until` is exclusive, so the range's last instant is one
 * millisecond before it: an `until` at midnight ends the range on the day before,
 * and does not add a day of which no instant is in the range.
 */
export function resolveTimelineRange(range: TimeRange, nowMs: number): DayRange {
  const untilMs = range.untilMs ?? nowMs;
  const sinceMs = range.sinceMs ?? untilMs - TIMELINE_MAX_DAYS * DAY_MS;
  if (sinceMs >= untilMs) {
    const until = range.untilMs === undefined ? `until (now, ${new Date(untilMs).toISOString()})` : 'until';
    throw new ApiError(400, 'INVALID_RANGE', `since must be before ${until}.`, { param: 'since' });
  }
  if (untilMs - sinceMs > TIMELINE_MAX_DAYS * DAY_MS) {
    const days = Math.round(((untilMs - sinceMs) / DAY_MS) * 100) / 100;
    throw new ApiError(400, 'INVALID_RANGE', `The range is ${days} days long; a timeline covers at most ${TIMELINE_MAX_DAYS} days.`, {
      param: 'since',
      details: { maxDays: TIMELINE_MAX_DAYS },
    });
  }
  const fromMs = dayStart(sinceMs);
  const toMs = dayStart(untilMs - 1);
  return { from: dayLabel(fromMs), to: dayLabel(toMs), fromMs, toMs };
}

/** The destination's reading of the UTC day starting at `dayMs`, or null when that day has none (yet). */
export function readingOf(destination: ReadableDestination, dayMs: number, nowMs: number): NormalizedMetrics | null {
  const instant = dayMs + DAY_MS;
  if (instant > nowMs || destination.publishedAt === null) return null;
  if (!(instant > Date.parse(destination.publishedAt))) return null;
  if (destination.status === 'deleted') {
    if (destination.deletedAtMs === null || instant >= destination.deletedAtMs) return null;
    return metricsAt({ ...destination, status: 'published' }, destination.platform, instant);
  }
  return metricsAt(destination, destination.platform, instant);
}

export function timelineMetrics(metrics: NormalizedMetrics): TimelineMetrics {
  return {
    impressions: metrics.impressions ?? 0,
    reach: metrics.reach ?? 0,
    likes: metrics.likes ?? 0,
    comments: metrics.comments ?? 0,
    shares: metrics.shares ?? 0,
    saves: metrics.saves ?? 0,
    views: metrics.plays ?? 0,
    engagement: metrics.engagement ?? 0,
  };
}

/**
 * One point per UTC day of the range on which at least one destination has a
 * reading, the readings summed, oldest first; each point's delta is the change
 * since the point before it (all null on the first).
 */
export function timelinePoints(destinations: readonly ReadableDestination[], range: DayRange, nowMs: number): TimelinePoint[] {
  const totals = new Map<number, TimelineMetrics>();
  for (const destination of destinations) {
    if (destination.publishedAt === null) continue;
    const firstDay = Math.max(range.fromMs, dayStart(Date.parse(destination.publishedAt)));
    for (let day = firstDay; day <= range.toMs; day += DAY_MS) {
      const reading = readingOf(destination, day, nowMs);
      if (reading === null) {
        if (day + DAY_MS > nowMs) break;
        continue;
      }
      const sum = totals.get(day);
      const values = timelineMetrics(reading);
      if (sum === undefined) totals.set(day, values);
      else for (const key of TIMELINE_METRICS) sum[key] += values[key];
    }
  }
  const points: TimelinePoint[] = [];
  let previous: TimelineMetrics | null = null;
  for (const day of [...totals.keys()].sort((a, b) => a - b)) {
    const metrics = totals.get(day) as TimelineMetrics;
    const delta = {} as TimelineDelta;
    for (const key of TIMELINE_METRICS) delta[key] = previous === null ? null : metrics[key] - previous[key];
    points.push({ day: dayLabel(day), metrics, delta });
    previous = metrics;
  }
  return points;
}
