import { describe, expect, it } from 'vitest';
import { metricCurve, metricOnCurve, metricsAt, type NormalizedMetrics } from '../../src/api/posts/metrics.js';
import type { DestinationRecord } from '../../src/api/posts/records.js';

const PUBLISHED_MS = Date.parse('2025-03-01T12:00:00.000Z');
const HOUR = 3_600_000;

function destination(overrides: Partial<Pick<DestinationRecord, 'status' | 'publishedAt' | 'metricsSeed'>> = {}) {
  return { status: 'published' as const, publishedAt: new Date(PUBLISHED_MS).toISOString(), metricsSeed: 12345, ...overrides };
}

const KEYS = ['impressions', 'reach', 'likes', 'comments', 'shares', 'saves', 'plays', 'engagement'] as const;

describe('metricsAt', () => {
  it.each([
    ['an hour before publishing', destination(), PUBLISHED_MS - HOUR],
    ['a millisecond before publishing', destination(), PUBLISHED_MS - 1],
    ['a queued destination', destination({ status: 'queued', publishedAt: null }), PUBLISHED_MS + HOUR],
    ['a failed destination', destination({ status: 'failed', publishedAt: null }), PUBLISHED_MS + HOUR],
    ['a remotely deleted destination', destination({ status: 'deleted' }), PUBLISHED_MS + HOUR],
  ])('is null for %s', (_label, dest, atMs) => {
    expect(metricsAt(dest, 'instagram', atMs)).toBeNull();
  });

  it('starts at zero at the moment of publishing', () => {
    const metrics = metricsAt(destination(), 'instagram', PUBLISHED_MS);
    expect(metrics).toMatchObject({ impressions: 0, reach: 0, likes: 0, engagement: 0 });
  });

  it.each(['twitter', 'instagram', 'tiktok', 'youtube', 'some-new-network'])('at the moment of publishing on %s, reads what its curve reads there', (platform) => {
    for (const metricsSeed of [1, 12345, 0x7fffffff]) {
      const curve = metricCurve(metricsSeed, platform);
      const onCurve = Object.fromEntries(KEYS.map((key) => [key, metricOnCurve(curve, key, 0)]));
      expect(metricsAt(destination({ metricsSeed }), platform, PUBLISHED_MS)).toEqual(onCurve);
    }
  });

  it.each(['twitter', 'bluesky', 'instagram', 'facebook', 'threads', 'pinterest', 'tiktok', 'linkedin', 'reddit', 'youtube', 'some-new-network'])(
    'never decreases over time on %s',
    (platform) => {
      for (const seed of [1, 7, 42, 99_999, 2_147_483_647]) {
        let previous: NormalizedMetrics | null = null;
        for (const hours of [0, 0.1, 0.5, 1, 2, 6, 12, 24, 48, 96, 500, 2000]) {
          const current = metricsAt(destination({ metricsSeed: seed }), platform, PUBLISHED_MS + hours * HOUR);
          expect(current).not.toBeNull();
          for (const key of KEYS) {
            const value = current?.[key];
            if (value === null || value === undefined) continue;
            expect(Number.isInteger(value)).toBe(true);
            if (previous) expect(value).toBeGreaterThanOrEqual(previous[key] ?? 0);
          }
          previous = current;
        }
        // It really grows: a post two weeks old has been seen.
        expect(previous?.impressions).toBeGreaterThan(0);
      }
    },
  );

  it('gives the same numbers for the same inputs', () => {
    const at = PUBLISHED_MS + 30 * HOUR;
    expect(metricsAt(destination(), 'tiktok', at)).toEqual(metricsAt(destination(), 'tiktok', at));
  });

  it('gives different numbers for different seeds', () => {
    const at = PUBLISHED_MS + 30 * HOUR;
    expect(metricsAt(destination({ metricsSeed: 1 }), 'instagram', at)).not.toEqual(metricsAt(destination({ metricsSeed: 2 }), 'instagram', at));
  });

  it.each([
    ['tiktok', true],
    ['youtube', true],
    ['instagram', false],
    ['twitter', false],
    ['linkedin', false],
    ['some-new-network', false],
  ])('counts plays on %s: %s', (platform, counted) => {
    const metrics = metricsAt(destination(), platform, PUBLISHED_MS + 48 * HOUR);
    if (counted) expect(metrics?.plays).toEqual(expect.any(Number));
    else expect(metrics?.plays).toBeNull();
  });

  it('keeps the counts plausible: reach within impressions, engagement the sum of its parts', () => {
    const metrics = metricsAt(destination({ metricsSeed: 2024 }), 'facebook', PUBLISHED_MS + 72 * HOUR);
    if (!metrics) throw new Error('expected metrics');
    expect(metrics.reach).toBeLessThanOrEqual(metrics.impressions ?? 0);
    expect(metrics.engagement).toBe((metrics.likes ?? 0) + (metrics.comments ?? 0) + (metrics.shares ?? 0) + (metrics.saves ?? 0));
  });
});

describe('metricsAt on a destination read again', () => {
  it('answers what a fresh copy answers after its seed, network or publish time changed', () => {
    const destination = { status: 'published' as const, publishedAt: '2026-03-01T09:00:00.000Z', metricsSeed: 11 };
    const at = Date.parse('2026-03-01T15:00:00.000Z');
    const first = metricsAt(destination, 'twitter', at);
    expect(metricsAt(destination, 'twitter', at)).toEqual(first);
    const changes: Array<[string, () => void, string]> = [
      ['seed', () => (destination.metricsSeed = 12), 'twitter'],
      ['network', () => undefined, 'tiktok'],
      ['publish time', () => (destination.publishedAt = '2026-03-01T12:00:00.000Z'), 'tiktok'],
    ];
    for (const [what, change, platform] of changes) {
      change();
      expect(metricsAt(destination, platform, at), what).toEqual(metricsAt({ ...destination }, platform, at));
    }
    expect(metricsAt(destination, 'tiktok', at)).not.toEqual(first);
  });
});

describe('metricsAt read again at the same instant', () => {
  it('answers the very counts worked out the first time, frozen, and new ones once the clock moved', () => {
    const destination = { status: 'published' as const, publishedAt: '2026-03-01T09:00:00.000Z', metricsSeed: 21 };
    const at = Date.parse('2026-03-01T15:00:00.000Z');
    const first = metricsAt(destination, 'instagram', at);
    expect(first).not.toBeNull();
    expect(metricsAt(destination, 'instagram', at)).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(first).toEqual(metricsAt({ ...destination }, 'instagram', at));

    const later = metricsAt(destination, 'instagram', at + HOUR);
    expect(later).not.toBe(first);
    expect(later?.impressions).toBeGreaterThan(first?.impressions ?? 0);
    // Back at the first instant (an analytics timeline reads day after day): the same numbers again.
    expect(metricsAt(destination, 'instagram', at)).toEqual(first);
    // Counts worked out for one network are never answered for another.
    expect(metricsAt(destination, 'tiktok', at)).toEqual(metricsAt({ ...destination }, 'tiktok', at));
    expect(metricsAt(destination, 'tiktok', at)?.plays).not.toBeNull();
  });
});
