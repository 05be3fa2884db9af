import catalog from './catalog.json' with { type: 'json' };

/**
 * The networks the mock plays, from DESIGN.md's catalog. The facts live in
 * catalog.json (data, not code); this module only types and looks them up.
 */
export const PLATFORM_IDS = ['twitter', 'bluesky', 'instagram', 'facebook', 'threads', 'pinterest', 'tiktok', 'linkedin', 'reddit', 'youtube'] as const;
export type PlatformId = (typeof PLATFORM_IDS)[number];

export interface PlatformFacts {
  kind: string;
  label: string;
  /** Post text limit. */
  textLimit: number;
  /** The microblogging network's limit for a premium subscription. */
  premiumTextLimit?: number;
  /** Destinations that may publish per UTC day per account. */
  dailyCap: number;
  /** Reply-to-comment limit; null where the network has no comments. */
  commentReplyLimit: number | null;
  /** Direct-message text limit; null where the network has no inbox. */
  inboxTextLimit: number | null;
  connect: 'oauth' | 'app_password';
  /** Template of a published post's URL. */
  urlBase: string;
  /** How the network's own post ids look. */
  idStyle: string;
}

// JSON imports widen string unions; test/unit/catalog.test.ts checks the file against PlatformFacts.
const FACTS = catalog as Record<PlatformId, PlatformFacts>;

/** Stored data may hold platforms this build does not know (open enumeration): never throw on them. */
export function isKnownPlatform(platform: string): platform is PlatformId {
  return Object.hasOwn(FACTS, platform);
}

export function platformFacts(platform: string): PlatformFacts | undefined {
  return isKnownPlatform(platform) ? FACTS[platform] : undefined;
}
