import type { components } from '../../generated/openapi.js';
import { seededRandom } from '../../lib/seeded-random.js';
import type { DestinationRecord } from './records.js';

/** The reference's NormalizedMetrics: every key is a number, or null where the network does not count it. */
export type NormalizedMetrics = components['schemas']['NormalizedMetrics'];

/** Networks whose posts are videos, so plays are counted. */
const VIDEO_PLATFORMS: ReadonlySet<string> = new Set(['tiktok', 'youtube']);

interface Audience {
  /** Typical final impressions of a post. */
  impressions: number;
  /** Hours for a post to reach about 63% of its final numbers: short on fast feeds, long on search-driven networks. */
  growthHours: number;
}

const AUDIENCES: Record<string, Audience> = {
  twitter: { impressions: 4000, growthHours: 3 },
  bluesky: { impressions: 1200, growthHours: 5 },
  instagram: { impressions: 6000, growthHours: 16 },
  facebook: { impressions: 3000, growthHours: 10 },
  threads: { impressions: 2500, growthHours: 6 },
  pinterest: { impressions: 2000, growthHours: 96 },
  tiktok: { impressions: 15000, growthHours: 30 },
  linkedin: { impressions: 2500, growthHours: 20 },
  reddit: { impressions: 5000, growthHours: 8 },
  youtube: { impressions: 8000, growthHours: 120 },
};
/** A platform added later still gets numbers. */
const DEFAULT_AUDIENCE: Audience = { impressions: 2000, growthHours: 12 };

const HOUR_MS = 3_600_000;

export type MetricName = keyof NormalizedMetrics;

/**
 * The destination's metrics at virtual time `atMs`: null until it is published
 * (and after a remote delete); then every count grows on a saturating curve
 * `total * (1 - exp(-hours / k))` towards totals drawn from `metricsSeed` alone.
 * Pure and deterministic: the same inputs always give the same integers, and a
 * later `atMs` never gives a smaller count. The counts are frozen: a destination read
 * again at the same virtual instant (every read between two clock moves: a posts page
 * reads twenty) gets the very object worked out the first time, O(1) without drawing
 * or computing anything.
 */
export function metricsAt(
  destination: Pick<DestinationRecord, 'status' | 'publishedAt' | 'metricsSeed'>,
  platform: string,
  atMs: number,
): NormalizedMetrics | null {
  if (destination.status !== 'published' || destination.publishedAt === null) return null;
  const kept = keptCurve(destination, platform);
  const publishedMs = kept?.publishedMs ?? Date.parse(destination.publishedAt);
  if (Number.isNaN(publishedMs) || atMs < publishedMs) return null;
  // At the instant it went out every count is 0 (the curve starts there): the view every publish
  // event carries, so its curve is neither drawn nor kept for it.
  if (atMs === publishedMs) return nothingYet(VIDEO_PLATFORMS.has(platform));

  const held = kept ?? keepCurve(destination, platform, publishedMs);
  // Read again at the same instant (every read between two clock moves): the counts worked out then.
  if (held.countedAtMs === atMs && held.counted !== undefined) return held.counted;
  const counts = countsAt(held.curve, atMs - publishedMs);
  held.countedAtMs = atMs;
  held.counted = counts;
  return counts;
}

/** A curve's counts `elapsedMs` (> 0) after the destination went out, frozen: they are shared by every read at that instant. */
function countsAt(curve: MetricCurve, elapsedMs: number): NormalizedMetrics {
  const share = shareAfter(curve, elapsedMs);
  const likes = Math.floor(curve.likes * share);
  const comments = Math.floor(curve.comments * share);
  const shares = Math.floor(curve.shares * share);
  const saves = Math.floor(curve.saves * share);
  const impressions = Math.floor(curve.impressions * share);
  const reach = Math.floor(curve.reach * share);
  const plays = curve.plays === null ? null : Math.floor(curve.plays * share);
  // The first minutes of a post count nothing yet: the kept events of its publishing show these.
  if (impressions === 0 && reach === 0 && likes === 0 && comments === 0 && shares === 0 && saves === 0 && !plays) return nothingYet(plays !== null);
  return Object.freeze({ impressions, reach, likes, comments, shares, saves, plays, engagement: likes + comments + shares + saves });
}

/**
 * The counts of a destination that has counted nothing yet: one frozen object for each kind of
 * network (a video network counts plays), shared by every view and kept event that shows them, where
 * each had its own (the events of a post's publishing keep four of them, docs/performance.md).
 */
const NOTHING_YET: Readonly<Record<'video' | 'other', Readonly<NormalizedMetrics>>> = {
  video: Object.freeze({ impressions: 0, reach: 0, likes: 0, comments: 0, shares: 0, saves: 0, plays: 0, engagement: 0 }),
  other: Object.freeze({ impressions: 0, reach: 0, likes: 0, comments: 0, shares: 0, saves: 0, plays: null, engagement: 0 }),
};

function nothingYet(countsPlays: boolean): NormalizedMetrics {
  return NOTHING_YET[countsPlays ? 'video' : 'other'];
}

interface KeptCurve {
  seed: number;
  platform: string;
  publishedAt: string;
  publishedMs: number;
  curve: MetricCurve;
  /** The virtual instant the counts were last worked out for, and those counts (frozen). */
  countedAtMs: number;
  counted: NormalizedMetrics | undefined;
}

/** The curve and publish instant last worked out for a destination, by the destination object. */
const keptCurves = new WeakMap<object, KeptCurve>();

/**
 * A destination's curve and publish instant as last worked out, while its seed, network and
 * publish time are what they were (each compared on every call, so nothing has to announce a
 * change); undefined otherwise. Every read of a published post asks for its metrics, and
 * drawing the curve and parsing the time were most of their cost.
 */
function keptCurve(destination: Pick<DestinationRecord, 'metricsSeed' | 'publishedAt'>, platform: string): KeptCurve | undefined {
  const kept = keptCurves.get(destination);
  return kept !== undefined && kept.seed === destination.metricsSeed && kept.platform === platform && kept.publishedAt === destination.publishedAt ? kept : undefined;
}

function keepCurve(destination: Pick<DestinationRecord, 'metricsSeed'> & { publishedAt: string | null }, platform: string, publishedMs: number): KeptCurve {
  const kept: KeptCurve = { seed: destination.metricsSeed, platform, publishedAt: destination.publishedAt ?? '', publishedMs, curve: metricCurve(destination.metricsSeed, platform), countedAtMs: Number.NaN, counted: undefined };
  keptCurves.set(destination, kept);
  return kept;
}

/** How far along its curve a destination is `elapsedMs` after it went out: from 0 towards (never past) 1. */
function shareAfter(curve: MetricCurve, elapsedMs: number): number {
  return 1 - Math.exp(-(elapsedMs / HOUR_MS) / curve.growthHours);
}

/**
 * One metric of a published destination `elapsedMs` (≥ 0) after it went out,
 * read off its curve: the very number `metricsAt` gives, for lists that read one
 * metric of many destinations with their curves kept.
 */
export function metricOnCurve(curve: MetricCurve, name: MetricName, elapsedMs: number): number | null {
  const share = shareAfter(curve, elapsedMs);
  if (name === 'engagement') {
    return Math.floor(curve.likes * share) + Math.floor(curve.comments * share) + Math.floor(curve.shares * share) + Math.floor(curve.saves * share);
  }
  const total = curve[name];
  return total === null ? null : Math.floor(total * share);
}

/** The most a metric of the destination ever reaches (its curve's total; null where the network does not count it). */
export function metricCeiling(curve: MetricCurve, name: MetricName): number | null {
  if (name === 'engagement') return curve.likes + curve.comments + curve.shares + curve.saves;
  return curve[name];
}

/** Where a destination's counts level off, and how fast they get there. */
export interface MetricCurve {
  impressions: number;
  reach: number;
  likes: number;
  comments: number;
  shares: number;
  saves: number;
  plays: number | null;
  growthHours: number;
}

/**
 * The destination's curve, from its seed and network alone: ratios between the
 * counts stay plausible (reach ≤ impressions, …). Pure, so a caller reading many
 * times may keep it.
 */
export function metricCurve(seed: number, platform: string): MetricCurve {
  const audience = AUDIENCES[platform] ?? DEFAULT_AUDIENCE;
  const next = seededRandom(seed);
  // Squared draw: most posts do modestly, a few do far better.
  const impressions = Math.round(audience.impressions * (0.15 + 2.5 * next() ** 2));
  const reach = Math.round(impressions * (0.55 + 0.35 * next()));
  const likes = Math.round(reach * (0.01 + 0.07 * next()));
  return {
    impressions,
    reach,
    likes,
    comments: Math.round(likes * (0.02 + 0.13 * next())),
    shares: Math.round(likes * (0.01 + 0.19 * next())),
    saves: Math.round(likes * (0.01 + 0.29 * next())),
    plays: VIDEO_PLATFORMS.has(platform) ? Math.round(impressions * (0.8 + 0.6 * next())) : null,
    growthHours: audience.growthHours * (0.7 + 0.6 * next()),
  };
}

