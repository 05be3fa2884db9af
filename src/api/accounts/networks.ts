/**
 * What each network does with a connected account, as data: how long its tokens
 * live and whether they renew by themselves, what its stats counters are called,
 * which daily insights it reports, what kind of media it holds. The reference
 * names only the short-video stats keys; the rest mirror what each network's own
 * API calls them. A network added later gets DEFAULT_ACCOUNT_FACTS instead of an
 * error (open enumeration).
 */

export const INSIGHT_KEYS = ['followers', 'impressions', 'reach', 'profileViews', 'engagement'] as const;
export type InsightKey = (typeof INSIGHT_KEYS)[number];

export const MEDIA_TYPES = ['IMAGE', 'VIDEO', 'CAROUSEL_ALBUM', 'TEXT'] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];

/** One stats counter: its name and where a typical account's value lies. */
export interface StatSpec {
  key: string;
  /** Typical value at connection time (the draw spreads it from a fifth to five times this). */
  typical: number;
  /** Growth per day as a share of the value (followers grow, following barely moves). */
  dailyGrowth: number;
  /** Counts the account's own posts: the posts it published through the service are added. */
  countsPosts?: boolean;
}

export interface AccountFacts {
  /** Lifetime of a fresh token in hours; null when the authorization does not expire. */
  tokenHours: number | null;
  /** Whether the token renews without the owner signing in again. */
  canAutoRenew: boolean;
  stats: StatSpec[];
  /** Insight keys the network reports; the others are null in every point. */
  insights: readonly InsightKey[];
  /** Default insights period in days when no since/until is sent. */
  insightsDays: number;
  /** Media types the account's posts come in, most common first. */
  mediaTypes: readonly MediaType[];
}

const FOLLOWERS = { typical: 4000, dailyGrowth: 0.002 };

export const ACCOUNT_FACTS: Record<string, AccountFacts> = {
  // OAuth 2.0 with refresh tokens: access tokens last two hours and are renewed.
  twitter: {
    tokenHours: 2,
    canAutoRenew: true,
    stats: [
      { key: 'followersCount', ...FOLLOWERS },
      { key: 'followingCount', typical: 600, dailyGrowth: 0.0002 },
      { key: 'tweetCount', typical: 3000, dailyGrowth: 0.001, countsPosts: true },
      { key: 'listedCount', typical: 40, dailyGrowth: 0.0005 },
    ],
    insights: ['followers', 'impressions', 'profileViews', 'engagement'],
    insightsDays: 30,
    mediaTypes: ['TEXT', 'IMAGE', 'VIDEO'],
  },
  // App-password sessions refresh themselves: no expiry is reported.
  bluesky: {
    tokenHours: null,
    canAutoRenew: true,
    stats: [
      { key: 'followersCount', typical: 900, dailyGrowth: 0.003 },
      { key: 'followsCount', typical: 300, dailyGrowth: 0.0003 },
      { key: 'postsCount', typical: 800, dailyGrowth: 0.001, countsPosts: true },
    ],
    insights: ['followers', 'engagement'],
    insightsDays: 30,
    mediaTypes: ['TEXT', 'IMAGE'],
  },
  // Long-lived tokens: 60 days, refreshable.
  instagram: {
    tokenHours: 60 * 24,
    canAutoRenew: true,
    stats: [
      { key: 'followersCount', typical: 8000, dailyGrowth: 0.002 },
      { key: 'followsCount', typical: 500, dailyGrowth: 0.0002 },
      { key: 'mediaCount', typical: 400, dailyGrowth: 0.001, countsPosts: true },
    ],
    insights: ['followers', 'impressions', 'reach', 'profileViews', 'engagement'],
    insightsDays: 28,
    mediaTypes: ['IMAGE', 'CAROUSEL_ALBUM', 'VIDEO'],
  },
  // Page tokens do not expire.
  facebook: {
    tokenHours: null,
    canAutoRenew: true,
    stats: [
      { key: 'followersCount', typical: 5000, dailyGrowth: 0.001 },
      { key: 'fanCount', typical: 4500, dailyGrowth: 0.0008 },
    ],
    insights: ['followers', 'impressions', 'reach', 'profileViews', 'engagement'],
    insightsDays: 28,
    mediaTypes: ['IMAGE', 'TEXT', 'VIDEO', 'CAROUSEL_ALBUM'],
  },
  threads: {
    tokenHours: 60 * 24,
    canAutoRenew: true,
    stats: [
      { key: 'followersCount', typical: 2500, dailyGrowth: 0.003 },
      { key: 'postsCount', typical: 300, dailyGrowth: 0.002, countsPosts: true },
    ],
    insights: ['followers', 'impressions', 'engagement'],
    insightsDays: 30,
    mediaTypes: ['TEXT', 'IMAGE', 'CAROUSEL_ALBUM'],
  },
  pinterest: {
    tokenHours: 30 * 24,
    canAutoRenew: true,
    stats: [
      { key: 'followerCount', typical: 1500, dailyGrowth: 0.001 },
      { key: 'followingCount', typical: 200, dailyGrowth: 0.0002 },
      { key: 'pinCount', typical: 900, dailyGrowth: 0.001, countsPosts: true },
      { key: 'boardCount', typical: 6, dailyGrowth: 0 },
      { key: 'monthlyViews', typical: 40000, dailyGrowth: 0.002 },
    ],
    insights: ['followers', 'impressions', 'engagement'],
    insightsDays: 30,
    mediaTypes: ['IMAGE', 'VIDEO'],
  },
  // Access tokens last a day and are renewed with the refresh token.
  tiktok: {
    tokenHours: 24,
    canAutoRenew: true,
    stats: [
      { key: 'followerCount', typical: 12000, dailyGrowth: 0.004 },
      { key: 'followingCount', typical: 300, dailyGrowth: 0.0002 },
      { key: 'likesCount', typical: 300000, dailyGrowth: 0.004 },
      { key: 'videoCount', typical: 150, dailyGrowth: 0.002, countsPosts: true },
    ],
    insights: ['followers', 'impressions', 'profileViews', 'engagement'],
    insightsDays: 30,
    mediaTypes: ['VIDEO'],
  },
  // Most apps get no refresh token: after 60 days the owner signs in again.
  linkedin: {
    tokenHours: 60 * 24,
    canAutoRenew: false,
    stats: [
      { key: 'followerCount', typical: 1800, dailyGrowth: 0.001 },
      { key: 'connectionCount', typical: 500, dailyGrowth: 0.0005 },
    ],
    insights: ['followers', 'impressions', 'engagement'],
    insightsDays: 30,
    mediaTypes: ['TEXT', 'IMAGE', 'VIDEO'],
  },
  reddit: {
    tokenHours: 1,
    canAutoRenew: true,
    stats: [
      { key: 'linkKarma', typical: 3000, dailyGrowth: 0.002 },
      { key: 'commentKarma', typical: 5000, dailyGrowth: 0.002 },
    ],
    insights: ['engagement'],
    insightsDays: 30,
    mediaTypes: ['TEXT', 'IMAGE'],
  },
  youtube: {
    tokenHours: 1,
    canAutoRenew: true,
    stats: [
      { key: 'subscriberCount', typical: 6000, dailyGrowth: 0.002 },
      { key: 'viewCount', typical: 900000, dailyGrowth: 0.003 },
      { key: 'videoCount', typical: 120, dailyGrowth: 0.002, countsPosts: true },
    ],
    insights: ['followers', 'impressions', 'engagement'],
    insightsDays: 30,
    mediaTypes: ['VIDEO'],
  },
};

/** A network this build does not know: it still connects, expires and reads, plainly. */
export const DEFAULT_ACCOUNT_FACTS: AccountFacts = {
  tokenHours: 60 * 24,
  canAutoRenew: false,
  stats: [{ key: 'followersCount', ...FOLLOWERS }],
  insights: ['followers', 'engagement'],
  insightsDays: 30,
  mediaTypes: ['IMAGE'],
};

export function accountFacts(platform: string): AccountFacts {
  // hasOwn: a stored platform such as "constructor" must not find Object's prototype.
  return (Object.hasOwn(ACCOUNT_FACTS, platform) ? ACCOUNT_FACTS[platform] : undefined) ?? DEFAULT_ACCOUNT_FACTS;
}
