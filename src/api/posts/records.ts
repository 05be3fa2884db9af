/*
 * The posts store's records (./store.ts), in a file of their own: the list index and the metrics
 * read them, and the store reads those, so the types sit below all three.
 */

/** Post and destination statuses share one list (the reference's PostStatus = DestinationStatus). */
export const POST_STATUSES = ['queued', 'processing', 'published', 'failed', 'scheduled', 'cancelled', 'deleted'] as const;
export type PostStatus = (typeof POST_STATUSES)[number];
/** A destination moves through the same states as its post. */
export type DestinationStatus = PostStatus;

export const MEDIA_KINDS = ['text', 'image', 'multi-image', 'video', 'stories'] as const;
export type MediaKind = (typeof MEDIA_KINDS)[number];

/** `api`: created through POST /v1/posts; `external`: imported by an account sync. */
export const POST_SOURCES = ['api', 'external'] as const;
export type PostSource = (typeof POST_SOURCES)[number];

/** One destination of a post: one connected account it goes to. */
export interface DestinationRecord {
  id: string;
  /** The account (connection) it publishes to. */
  connectionId: string;
  /** Copied from the account when the post was made, so it survives a disconnect. */
  platform: string;
  status: DestinationStatus;
  /** The network's own id of the published post; null until published. */
  externalPostId: string | null;
  /** Public URL of the published post on the network; null until published. */
  externalUrl: string | null;
  /** Why this destination failed (`PLATFORM_ERROR`, `VELOCITY_LIMITED`, …); null otherwise. */
  errorCode: string | null;
  errorMessage: string | null;
  /** ISO time the network accepted it; null until published. Kept after a remote delete. */
  publishedAt: string | null;
  /** Per-destination text override; null when the post's text is used. */
  text: string | null;
  /** The per-network destination fields that were sent (title, subreddit, privacyLevel, …), without connectionId and text. */
  options: Readonly<Record<string, unknown>>;
  /** Drives this destination's deterministic metrics curve (see metrics.ts). */
  metricsSeed: number;
}

/**
 * The options of a destination sent with none, which most are: one frozen object for all of them,
 * where each kept an empty object of its own for as long as its post lived (56 bytes a destination).
 */
export const NO_OPTIONS: Readonly<Record<string, unknown>> = Object.freeze({});

/** A post in the grouped shape: one text going to one or more destinations. */
export interface PostRecord {
  id: string;
  /** The post's text; for a thread, its first item. */
  text: string;
  mediaUrls: string[];
  mediaKind: MediaKind;
  /** Derived from the destinations: some published and some failed is `published`; all failed is `failed`. */
  status: PostStatus;
  /** Time-zone-naive local time in `timezone` (YYYY-MM-DDTHH:MM:SS) as the integrator sent it; null when not scheduled. */
  scheduledFor: string | null;
  /** IANA time zone of `scheduledFor`; null when not scheduled. */
  timezone: string | null;
  /** The UTC instant `scheduledFor` stands for, in virtual ms, resolved once at creation; null when not scheduled. */
  scheduledAtMs: number | null;
  source: PostSource;
  /** Every item of a thread (2 to 25), the first equal to `text`; null for a single post. */
  thread: string[] | null;
  destinations: DestinationRecord[];
  createdAt: string;
  updatedAt: string;
}
