import { describe, expect, it } from 'vitest';
import { readingOf, resolveTimelineRange, timelineMetrics, timelinePoints, type ReadableDestination } from '../../src/api/analytics/readings.js';
import { metricsAt } from '../../src/api/posts/metrics.js';
import { ApiError } from '../../src/lib/errors.js';

const at = (iso: string) => Date.parse(iso);
const DAY = 86_400_000;
const NOW = at('2026-03-10T09:00:00Z');

function destination(overrides: Partial<ReadableDestination> = {}): ReadableDestination {
  return { status: 'published', publishedAt: '2026-03-02T15:30:00.000Z', metricsSeed: 4242, platform: 'instagram', deletedAtMs: null, ...overrides };
}

describe('resolveTimelineRange', () => {
  it.each([
    ['defaults: until now, since 90 days before', {}, { from: '2025-12-10', to: '2026-03-10' }],
    ['since alone: until is now', { sinceMs: at('2026-03-01T12:00:00Z') }, { from: '2026-03-01', to: '2026-03-10' }],
    ['until alone: since 90 days before it', { untilMs: at('2026-02-01T06:00:00Z') }, { from: '2025-11-03', to: '2026-02-01' }],
    ['exactly 90 days, ending on the 90th day', { sinceMs: at('2025-12-01T00:00:00Z'), untilMs: at('2026-03-01T00:00:00Z') }, { from: '2025-12-01', to: '2026-02-28' }],
    ['until at midnight adds no day', { sinceMs: at('2026-03-05T10:00:00Z'), untilMs: at('2026-03-06T00:00:00Z') }, { from: '2026-03-05', to: '2026-03-05' }],
    ['until a millisecond after midnight ends on that day', { sinceMs: at('2026-03-05T10:00:00Z'), untilMs: at('2026-03-06T00:00:00.001Z') }, { from: '2026-03-05', to: '2026-03-06' }],
    ['a range inside one day', { sinceMs: at('2026-03-05T01:00:00Z'), untilMs: at('2026-03-05T02:00:00Z') }, { from: '2026-03-05', to: '2026-03-05' }],
    ['offsets count in UTC', { sinceMs: at('2026-03-05T23:30:00-05:00'), untilMs: at('2026-03-07T00:30:00+02:00') }, { from: '2026-03-06', to: '2026-03-06' }],
  ])('%s', (_label, range, expected) => {
    expect(resolveTimelineRange(range, NOW)).toMatchObject(expected);
  });

  it.each([
    ['since equal to until', { sinceMs: at('2026-03-01T00:00:00Z'), untilMs: at('2026-03-01T00:00:00Z') }],
    ['since after until', { sinceMs: at('2026-03-02T00:00:00Z'), untilMs: at('2026-03-01T00:00:00Z') }],
    ['since alone, in the future', { sinceMs: NOW + 1000 }],
    ['90 days and a second', { sinceMs: at('2025-12-01T00:00:00Z') - 1000, untilMs: at('2026-03-01T00:00:00Z') }],
    ['since alone, 91 days ago', { sinceMs: NOW - 91 * DAY }],
  ])('refuses %s with INVALID_RANGE naming since', (_label, range) => {
    expect(() => resolveTimelineRange(range, NOW)).toThrow(expect.objectContaining({ status: 400, code: 'INVALID_RANGE', extra: expect.objectContaining({ param: 'since' }) }));
    expect(() => resolveTimelineRange(range, NOW)).toThrow(ApiError);
  });
});

describe('readingOf', () => {
  it('is the curve at the end of the UTC day', () => {
    expect(readingOf(destination(), at('2026-03-02T00:00:00Z'), NOW)).toEqual(metricsAt(destination(), 'instagram', at('2026-03-03T00:00:00Z')));
    expect(readingOf(destination(), at('2026-03-05T00:00:00Z'), NOW)).toEqual(metricsAt(destination(), 'instagram', at('2026-03-06T00:00:00Z')));
  });

  it.each([
    ['the day before publishing', destination(), '2026-03-01T00:00:00Z', NOW],
    ['today, before midnight UTC has passed', destination(), '2026-03-10T00:00:00Z', NOW],
    ['a day that ends exactly at publishing', destination({ publishedAt: '2026-03-03T00:00:00.000Z' }), '2026-03-02T00:00:00Z', NOW],
    ['a destination never published', destination({ status: 'failed', publishedAt: null }), '2026-03-05T00:00:00Z', NOW],
    ['a day that ends after the remote delete', destination({ status: 'deleted', deletedAtMs: at('2026-03-04T10:00:00Z') }), '2026-03-04T00:00:00Z', NOW],
  ])('is null for %s', (_label, dest, day, now) => {
    expect(readingOf(dest, at(day), now)).toBeNull();
  });

  it('has readings for yesterday once midnight passed, and before a remote delete', () => {
    expect(readingOf(destination(), at('2026-03-09T00:00:00Z'), NOW)).not.toBeNull();
    expect(readingOf(destination({ status: 'deleted', deletedAtMs: at('2026-03-04T10:00:00Z') }), at('2026-03-03T00:00:00Z'), NOW)).not.toBeNull();
  });
});

describe('timelinePoints', () => {
  const range = resolveTimelineRange({}, NOW);

  it('has one point per day from the publish day to yesterday, the first delta all null', () => {
    const points = timelinePoints([destination()], range, NOW);
    expect(points.map((point) => point.day)).toEqual(['2026-03-02', '2026-03-03', '2026-03-04', '2026-03-05', '2026-03-06', '2026-03-07', '2026-03-08', '2026-03-09']);
    expect(Object.values(points[0]?.delta ?? {})).toEqual(Array(8).fill(null));
    for (let i = 1; i < points.length; i++) {
      const [previous, current] = [points[i - 1], points[i]];
      for (const key of ['impressions', 'likes', 'views', 'engagement'] as const) expect(current?.delta[key]).toBe((current?.metrics[key] ?? 0) - (previous?.metrics[key] ?? 0));
    }
  });

  it('sums destinations day by day, each from its own publish day, and maps plays to views', () => {
    const later = destination({ platform: 'tiktok', publishedAt: '2026-03-05T20:00:00.000Z', metricsSeed: 99 });
    const points = timelinePoints([destination(), later], range, NOW);
    const day = (label: string) => points.find((point) => point.day === label);
    const reading = (dest: ReadableDestination, end: string) => timelineMetrics(metricsAt(dest, dest.platform, at(end)) ?? ({} as never));
    expect(day('2026-03-04')?.metrics).toEqual(reading(destination(), '2026-03-05T00:00:00Z'));
    const a = reading(destination(), '2026-03-07T00:00:00Z');
    const b = reading(later, '2026-03-07T00:00:00Z');
    expect(b.views).toBeGreaterThan(0);
    expect(a.views).toBe(0);
    expect(day('2026-03-06')?.metrics).toEqual({
      impressions: a.impressions + b.impressions,
      reach: a.reach + b.reach,
      likes: a.likes + b.likes,
      comments: a.comments + b.comments,
      shares: a.shares + b.shares,
      saves: a.saves + b.saves,
      views: b.views,
      engagement: a.engagement + b.engagement,
    });
  });

  it('keeps only the days of the range, the first of them with null deltas', () => {
    const points = timelinePoints([destination()], resolveTimelineRange({ sinceMs: at('2026-03-05T12:00:00Z'), untilMs: at('2026-03-07T01:00:00Z') }, NOW), NOW);
    expect(points.map((point) => point.day)).toEqual(['2026-03-05', '2026-03-06', '2026-03-07']);
    expect(points[0]?.delta.impressions).toBeNull();
    expect(points[1]?.delta.impressions).not.toBeNull();
  });

  it('has no points for a range before publishing or a post never published', () => {
    expect(timelinePoints([destination()], resolveTimelineRange({ untilMs: at('2026-03-01T00:00:00Z') }, NOW), NOW)).toEqual([]);
    expect(timelinePoints([destination({ status: 'queued', publishedAt: null })], range, NOW)).toEqual([]);
  });
});
