import { clip } from '../../lib/clip.js';
import { Faker, base, en } from '@faker-js/faker';
import type { AccountRecord } from '../accounts/store.js';
import type { MediaKind } from '../posts/records.js';
import { loadDefaultFixture } from '../world/fixture-file.js';
import { drawHex, hexToDigits, seedFrom } from '../../lib/ids.js';
import { platformFacts } from '../../platforms/catalog.js';
import { externalPostRef, platformHost, type IdSource } from '../../platforms/external-ids.js';

/*
 * What each account has posted on its network outside the service: the world an
 * account sync reads. The timeline is a pure function of the workspace seed, the
 * account and the virtual time, so it is the same on every call, never draws on
 * the workspace's id stream (reading it changes nothing), and grows as the clock
 * moves: time is cut into fixed slots and each slot holds at most one post, at an
 * instant and with contents drawn from (seed, account, slot) alone.
 */

const HOUR_MS = 3_600_000;
/** One slot every six hours... */
export const SLOT_MS = 6 * HOUR_MS;
/** ...of which about three in five hold a post: one post every ten hours or so. */
const POST_CHANCE = 0.6;
/** How far back a timeline is read at most (about 500 days), so a read always ends. */
const MAX_SLOTS = 2_000;

/** One post as the network lists it. */
export interface NetworkPost {
  /** The network's own id, in its style. */
  platformPostId: string;
  /** Public URL on the network; null only for a platform this build does not know. */
  url: string | null;
  publishedAtMs: number;
  text: string;
  mediaKind: MediaKind;
  mediaUrls: string[];
  /** Network fields a post made there carries (a title on the video, forum and pin-board networks). */
  options: Record<string, unknown>;
  /** Seeds the post's metrics curve (src/api/posts/metrics.ts). */
  metricsSeed: number;
}

/** What a network insists on; elsewhere a post is text, sometimes with a photo. */
const REQUIRED_MEDIA: Record<string, 'image' | 'video'> = {
  instagram: 'image',
  pinterest: 'image',
  tiktok: 'video',
  youtube: 'video',
};
const TITLED: ReadonlySet<string> = new Set(['youtube', 'reddit', 'pinterest']);

/**
 * The `count` most recent posts of the account's network timeline at `nowMs`,
 * newest first. Posts appear as `nowMs` passes their instant; none is ever in the future.
 */
export function recentNetworkPosts(seed: number, account: Pick<AccountRecord, 'id' | 'platform' | 'handle' | 'platformUserId' | 'displayName'>, nowMs: number, count: number): NetworkPost[] {
  const stream = `timeline:${account.id}`;
  const posts: NetworkPost[] = [];
  // One faker for the whole read, re-seeded per post: texts depend on the slot alone.
  const faker = new Faker({ locale: [en, base] });
  const lastSlot = Math.floor(nowMs / SLOT_MS);
  for (let slot = lastSlot; slot > lastSlot - MAX_SLOTS && posts.length < count; slot--) {
    const hex = drawHex(seed, stream, slot);
    if (parseInt(hex.slice(0, 4), 16) / 0x10000 >= POST_CHANCE) continue;
    // Whole seconds, as a network's own timestamps are.
    const atMs = slot * SLOT_MS + Math.floor((parseInt(hex.slice(4, 12), 16) / 2 ** 32) * (SLOT_MS / 1000)) * 1000;
    if (atMs > nowMs) continue;
    posts.push(networkPost(streamIds(seed, `${stream}:${slot}`, atMs), account, atMs, hex, faker));
  }
  return posts;
}

/**
 * The `n`-th post an account makes on its network on purpose (a scenario's
 * `network.post` step) at `atMs`: drawn like a timeline post, with the given text,
 * from a stream of its own, so it shifts neither the seeded timeline nor the
 * workspace's ids.
 */
export function postedNetworkPost(seed: number, account: Pick<AccountRecord, 'id' | 'platform' | 'handle' | 'platformUserId' | 'displayName'>, n: number, atMs: number, text?: string): NetworkPost {
  const stream = `posted:${account.id}`;
  const post = networkPost(streamIds(seed, `${stream}:${n}`, atMs), account, atMs, drawHex(seed, stream, n), new Faker({ locale: [en, base] }));
  return text === undefined ? post : { ...post, text };
}

function networkPost(ids: IdSource, account: Pick<AccountRecord, 'id' | 'platform' | 'handle' | 'platformUserId' | 'displayName'>, atMs: number, hex: string, faker: Faker): NetworkPost {
  const ref = externalPostRef(ids, account.platform, account, { atMs });
  faker.seed(seedFrom(hex));
  const fixtureText = loadDefaultFixture().text;
  const limit = platformFacts(account.platform)?.textLimit ?? 5000;
  const fake = (templates: readonly string[]): string => faker.helpers.fake(faker.helpers.arrayElement(templates).replaceAll('{persona}', account.displayName));

  const required = REQUIRED_MEDIA[account.platform];
  // A third of the posts on networks that take text alone carry a photo.
  const media: 'image' | 'video' | null = required ?? (parseInt(hex.slice(12, 14), 16) % 3 === 0 ? 'image' : null);
  return {
    platformPostId: ref.externalPostId,
    url: ref.externalUrl,
    publishedAtMs: atMs,
    text: clip(fake(fixtureText.posts), limit),
    mediaKind: media ?? 'text',
    mediaUrls: media === null ? [] : [`https://${platformHost(account.platform)}/media/${ids.newHex(32)}${media === 'video' ? '.mp4' : '.jpg'}`],
    options: TITLED.has(account.platform) ? { title: clip(fake(fixtureText.titles), 100) } : {},
    metricsSeed: (parseInt(hex.slice(14, 22), 16) % 0x7fffffff) + 1,
  };
}

/** Network-native ids of one post, drawn from the post's own stream. */
function streamIds(seed: number, stream: string, atMs: number): IdSource {
  let n = 0;
  const draw = (): string => drawHex(seed, stream, n++);
  return {
    newHex: (length) => draw().slice(0, length),
    newDigits: (length) => hexToDigits(draw(), length),
    now: () => atMs,
  };
}
