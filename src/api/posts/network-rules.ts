import type { AccountRecord } from '../accounts/store.js';
import { platformFacts } from '../../platforms/catalog.js';
import type { MediaKind } from './records.js';

/**
 * What each network accepts in a new post: which destination fields it knows,
 * which it cannot publish without, which kinds of media it carries and whether it
 * threads. The catalog (catalog.json) holds the network facts shared by every area
 * (text limits, caps, URLs); these are the create-post body's own rules, so they
 * live beside the posts area. The openapi.yaml description of createPost lists them
 * for integrators: keep the two in step.
 */

/** The destination fields of the create-post body besides connectionId and text. */
export const DESTINATION_FIELDS = [
  'quoteMicroblogPostId',
  'privacyStatus',
  'privacyLevel',
  'disableComment',
  'disableDuet',
  'disableStitch',
  'brandOrganicToggle',
  'brandContentToggle',
  'description',
  'boardId',
  'link',
  'title',
  'subreddit',
  'flairId',
  'flairText',
  'nsfw',
  'spoiler',
  'thumbnailUrl',
] as const;
export type DestinationField = (typeof DESTINATION_FIELDS)[number];

export interface NetworkPostRules {
  /** Destination fields the network knows; any other sent for it is refused. */
  fields: readonly DestinationField[];
  /** Fields it cannot publish without. */
  required: readonly DestinationField[];
  /** Kinds of post it publishes; without `text` it needs media. */
  mediaKinds: readonly MediaKind[];
  /** Most images in one multi-image post (the body allows 10). */
  maxImages: number;
  /** Whether it publishes a `thread` as a chain of replies. */
  threads: boolean;
}

const TIKTOK_FIELDS = ['privacyLevel', 'disableComment', 'disableDuet', 'disableStitch', 'brandOrganicToggle', 'brandContentToggle'] as const;
const FEED_MEDIA: readonly MediaKind[] = ['text', 'image', 'multi-image', 'video'];

const RULES: Record<string, NetworkPostRules> = {
  twitter: { fields: ['quoteMicroblogPostId'], required: [], mediaKinds: FEED_MEDIA, maxImages: 4, threads: true },
  bluesky: { fields: [], required: [], mediaKinds: FEED_MEDIA, maxImages: 4, threads: true },
  threads: { fields: [], required: [], mediaKinds: FEED_MEDIA, maxImages: 10, threads: true },
  // A caption alone is not a post on the photo network.
  instagram: { fields: [], required: [], mediaKinds: ['image', 'multi-image', 'video', 'stories'], maxImages: 10, threads: false },
  facebook: { fields: ['link'], required: [], mediaKinds: [...FEED_MEDIA, 'stories'], maxImages: 10, threads: false },
  // A pin is an image (or a carousel of up to 5, or a video) on a board.
  pinterest: { fields: ['boardId', 'title', 'description', 'link'], required: ['boardId'], mediaKinds: ['image', 'multi-image', 'video'], maxImages: 5, threads: false },
  tiktok: { fields: TIKTOK_FIELDS, required: [], mediaKinds: ['video'], maxImages: 0, threads: false },
  linkedin: { fields: ['link'], required: [], mediaKinds: FEED_MEDIA, maxImages: 10, threads: false },
  // A forum post goes to a community and always has a title; the text is its body.
  reddit: { fields: ['subreddit', 'title', 'flairId', 'flairText', 'nsfw', 'spoiler', 'link'], required: ['subreddit', 'title'], mediaKinds: FEED_MEDIA, maxImages: 10, threads: false },
  youtube: { fields: ['title', 'privacyStatus', 'thumbnailUrl', 'description'], required: ['title'], mediaKinds: ['video'], maxImages: 0, threads: false },
};

/** A network added later (open enumeration) takes a plain post: no network fields, no thread, no stories. */
const DEFAULT_RULES: NetworkPostRules = { fields: [], required: [], mediaKinds: FEED_MEDIA, maxImages: 10, threads: false };

export function networkPostRules(platform: string): NetworkPostRules {
  return Object.hasOwn(RULES, platform) ? (RULES[platform] as NetworkPostRules) : DEFAULT_RULES;
}

/** Why a network cannot carry a post's media: nothing to show, a kind it does not publish, or too many images. */
export type MediaProblem =
  | { problem: 'needs-media'; takes: readonly MediaKind[] }
  | { problem: 'kind'; kind: MediaKind; takes: readonly MediaKind[] }
  | { problem: 'too-many-images'; limit: number; count: number };

/**
 * Whether a network carries a post of this media kind with `count` media URLs
 * (undefined: it does). The create-post body answers each problem with its own
 * error; the fixture world and scenario worlds refuse to hold such a post.
 */
export function mediaProblem(platform: string, kind: MediaKind, count: number): MediaProblem | undefined {
  const rules = networkPostRules(platform);
  if (!rules.mediaKinds.includes(kind)) return kind === 'text' ? { problem: 'needs-media', takes: rules.mediaKinds } : { problem: 'kind', kind, takes: rules.mediaKinds };
  if (kind === 'multi-image' && count > rules.maxImages) return { problem: 'too-many-images', limit: rules.maxImages, count };
  return undefined;
}

/** A media problem as a world file's error says it. */
export function describeMediaProblem(platform: string, found: MediaProblem): string {
  switch (found.problem) {
    case 'needs-media':
      return `${platform} needs media of kind ${found.takes.join(' or ')} (the post has text)`;
    case 'kind':
      return found.kind === 'stories' ? `${platform} has no stories` : `${platform} does not publish ${found.kind} posts (it takes ${found.takes.join(' or ')})`;
    case 'too-many-images':
      return `${platform} takes at most ${found.limit} images in a post (the post has ${found.count})`;
  }
}

/** The networks a field belongs to, for the message that refuses it elsewhere. */
export function networksWithField(field: DestinationField): string[] {
  return Object.keys(RULES).filter((platform) => RULES[platform]?.fields.includes(field));
}

/** The create-post body's own maximum, the limit for networks the catalog does not know. */
export const POST_TEXT_MAX = 5000;

/**
 * Subscription tiers of the microblogging network that lift its limit to the
 * premium one (compared without case or separators: `Premium`, `premium_plus`,
 * `PremiumPlus`). `Basic` includes longer posts on the real network too.
 */
const PREMIUM_TIERS: ReadonlySet<string> = new Set(['basic', 'premium', 'premiumplus']);

export function isPremiumSubscription(type: string | null | undefined): boolean {
  return typeof type === 'string' && PREMIUM_TIERS.has(type.toLowerCase().replace(/[^a-z]/g, ''));
}

/** The account's post text limit: the catalog's, raised for a premium microblog subscription. */
export function textLimitFor(account: Pick<AccountRecord, 'platform' | 'microblogSubscriptionType'>): number {
  const facts = platformFacts(account.platform);
  if (!facts) return POST_TEXT_MAX;
  if (facts.premiumTextLimit !== undefined && isPremiumSubscription(account.microblogSubscriptionType)) return facts.premiumTextLimit;
  return facts.textLimit;
}

const VIDEO_EXTENSIONS = /\.(mp4|mov|m4v|webm)$/i;

/** The media kind a post has when the body does not say: from the number of URLs and, for one, its file extension. */
export function defaultMediaKind(mediaUrls: readonly string[]): MediaKind {
  if (mediaUrls.length === 0) return 'text';
  if (mediaUrls.length > 1) return 'multi-image';
  const url = mediaUrls[0] ?? '';
  let path = url;
  try {
    path = new URL(url).pathname;
  } catch {
    // The contract's uri format has checked it already; fall back to the raw string.
  }
  return VIDEO_EXTENSIONS.test(path) ? 'video' : 'image';
}

/** How many media URLs each kind carries. */
export const MEDIA_COUNTS: Record<MediaKind, { min: number; max: number }> = {
  text: { min: 0, max: 0 },
  image: { min: 1, max: 1 },
  'multi-image': { min: 2, max: 10 },
  video: { min: 1, max: 1 },
  stories: { min: 1, max: 1 },
};
