import { flatAscii } from '../lib/ids.js';
import { encodeComponent } from '../lib/uri.js';
import type { AccountRecord } from '../api/accounts/store.js';
import type { Workspace } from '../workspaces/workspace.js';
import { platformFacts } from './catalog.js';

/**
 * What the network itself would hand out: post ids, URLs, user ids, comment and
 * message ids, each in the shape that network uses, so an integrator's parsing
 * code meets realistic values. Every value is drawn from the workspace's id
 * stream, so a seed repeats them exactly. Unknown platforms get plain hex and no
 * URL instead of an error (open enumeration).
 */
export type IdSource = Pick<Workspace, 'newHex' | 'newDigits' | 'now'>;

export interface ExternalPostRef {
  externalPostId: string;
  /** Null only for a platform this build does not know. */
  externalUrl: string | null;
}

export interface ExternalPostOptions {
  /** When the network accepted the post (default: now); time-sortable ids (TIDs) encode it. */
  atMs?: number;
  /** The forum network's community; without one the post goes to the user's own profile. */
  subreddit?: string;
}

const BASE32_SORTABLE = '234567abcdefghijklmnopqrstuvwxyz';
const BASE32_LOWER = 'abcdefghijklmnopqrstuvwxyz234567';

/** The network's id and public URL of a post it just accepted. */
export function externalPostRef(
  ids: IdSource,
  platform: string,
  account: Pick<AccountRecord, 'handle' | 'platformUserId'>,
  options: ExternalPostOptions = {},
): ExternalPostRef {
  const facts = platformFacts(platform);
  if (!facts) return { externalPostId: ids.newHex(16), externalUrl: null };
  const recordKey = idInStyle(ids, facts.idStyle, options.atMs ?? ids.now());
  // The decentralized network names a post by its AT URI; the public URL shows only the record key.
  const externalPostId = facts.idStyle === 'tid' && account.platformUserId.startsWith('did:') ? atUri(account.platformUserId, recordKey) : recordKey;
  // Flat: both are stored with the destination for as long as the post lives (ids.ts).
  return { externalPostId: flatAscii(externalPostId), externalUrl: flatAscii(postUrl(facts, account, recordKey, options.subreddit)) };
}

/**
 * The public URL of a post on its network: the network's URL template with its `{names}` filled
 * in (the record key, the account's handle or page, the subreddit, `u_<handle>` unless one is
 * given), O(the template's length). Split once per network: every publish fills one.
 */
export function postUrl(facts: { urlBase: string }, account: Pick<AccountRecord, 'handle' | 'platformUserId'>, recordKey: string, subreddit?: string): string {
  const values: Record<string, string> = { id: recordKey, handle: account.handle, pageId: account.platformUserId, subreddit: subreddit ?? `u_${account.handle}` };
  const parts = templateParts(facts);
  let url = parts[0] as string;
  for (let i = 1; i < parts.length; i += 2) {
    const name = parts[i] as string;
    const value = values[name];
    url += (value === undefined ? `{${name}}` : encodeComponent(value)) + (parts[i + 1] as string);
  }
  return url;
}

/** Each network's URL template as its text and its `{names}` in turn: [text, name, text, …, text]. */
const TEMPLATE_PARTS = new WeakMap<object, string[]>();

function templateParts(facts: { urlBase: string }): string[] {
  let parts = TEMPLATE_PARTS.get(facts);
  if (!parts) {
    parts = facts.urlBase.split(/\{(\w+)\}/);
    TEMPLATE_PARTS.set(facts, parts);
  }
  return parts;
}

/** The account's (or a person's) own id on the network. */
export function networkUserId(ids: IdSource, platform: string): string {
  switch (platform) {
    case 'twitter':
      return ids.newDigits(19);
    case 'bluesky':
      return `did:plc:${encode(ids.newHex(40), BASE32_LOWER, 24)}`;
    case 'instagram':
      // Professional accounts' ids share this prefix on the real network.
      return `17841${ids.newDigits(12)}`;
    case 'facebook':
      return ids.newDigits(15);
    case 'threads':
      return ids.newDigits(17);
    case 'pinterest':
      return ids.newDigits(18);
    case 'tiktok':
      return `_000${base64Url(ids.newHex(48)).slice(0, 32)}`;
    case 'linkedin':
      return `urn:li:person:${base64Url(ids.newHex(16)).slice(0, 10)}`;
    case 'reddit':
      return `t2_${encode(ids.newHex(16), '0123456789abcdefghijklmnopqrstuvwxyz', 8)}`;
    case 'youtube':
      return `UC${base64Url(ids.newHex(34)).slice(0, 22)}`;
    default:
      return ids.newHex(16);
  }
}

/**
 * The network's id of a comment on the post `externalPostId`. `authorId` is the
 * writer's network id where the comment id names its author (the decentralized
 * network's replies are posts of their author); a stranger's is made up.
 */
export function networkCommentId(ids: IdSource, platform: string, externalPostId: string, atMs: number, authorId?: string): string {
  switch (platform) {
    case 'twitter':
    case 'tiktok':
      return ids.newDigits(19);
    case 'bluesky':
      return atUri(authorId ?? networkUserId(ids, 'bluesky'), tid(ids, atMs));
    case 'instagram':
      return `18${ids.newDigits(15)}`;
    case 'facebook':
      // Comment ids name their post: {postId}_{commentId}.
      return `${externalPostId}_${ids.newDigits(16)}`;
    case 'threads':
    case 'pinterest':
      return ids.newDigits(18);
    case 'linkedin':
      return `urn:li:comment:(urn:li:share:${externalPostId},${ids.newDigits(19)})`;
    case 'reddit':
      return `t1_${encode(ids.newHex(16), '0123456789abcdefghijklmnopqrstuvwxyz', 7)}`;
    case 'youtube':
      return `Ugz${base64Url(ids.newHex(24)).slice(0, 16)}4AaABAg`;
    default:
      return ids.newHex(16);
  }
}

/** The network's id of a direct message. */
export function networkMessageId(ids: IdSource, platform: string, atMs: number): string {
  switch (platform) {
    case 'bluesky':
      return tid(ids, atMs);
    case 'instagram':
      return `aWdfZAG${base64Url(ids.newHex(48))}`;
    case 'facebook':
      return `m_${base64Url(ids.newHex(48))}`;
    default:
      return ids.newHex(32);
  }
}

/** Host of the network's public site (from the catalog's URL template), for media and avatar URLs. */
export function platformHost(platform: string): string {
  const urlBase = platformFacts(platform)?.urlBase;
  const match = urlBase ? /^https?:\/\/([^/]+)/.exec(urlBase) : null;
  return match?.[1] ?? `${platform}.example`;
}

const HANDLE_RULES: Record<string, { separator: string; maxLength: number; suffix?: string }> = {
  twitter: { separator: '_', maxLength: 15 },
  bluesky: { separator: '-', maxLength: 30, suffix: '.bsky.social' },
  instagram: { separator: '.', maxLength: 30 },
  threads: { separator: '.', maxLength: 30 },
  pinterest: { separator: '', maxLength: 30 },
  tiktok: { separator: '.', maxLength: 24 },
  reddit: { separator: '_', maxLength: 20 },
  youtube: { separator: '', maxLength: 30 },
};

/**
 * A handle as the network would allow it, made from a name ("Jane Doe",
 * "Hansen Coffee Roasters", "jane_doe70"): a pure function, so one persona gets
 * the same handle wherever the network shares its handles (the text-thread
 * network reuses photo-sharing handles). The professional network has no
 * handles: the name itself is the handle there. Page handles are CamelCase.
 */
export function networkHandle(platform: string, name: string): string {
  if (platform === 'linkedin') return name;
  const words = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 0 && word !== 'and');
  if (words.length === 0) words.push('user');
  if (platform === 'facebook') {
    return fitWords(words.map((word) => word.charAt(0).toUpperCase() + word.slice(1)), '', 50);
  }
  const rule = HANDLE_RULES[platform] ?? { separator: '_', maxLength: 30 };
  return fitWords(words, rule.separator, rule.maxLength) + (rule.suffix ?? '');
}

/** Joins as many whole words as fit; a single overlong word is cut. */
function fitWords(words: string[], separator: string, maxLength: number): string {
  let out = '';
  for (const word of words) {
    const next = out === '' ? word : `${out}${separator}${word}`;
    if (next.length > maxLength) break;
    out = next;
  }
  return out === '' ? (words[0] ?? 'user').slice(0, maxLength) : out;
}

/** A network post id in the catalog's `idStyle`. */
function idInStyle(ids: IdSource, idStyle: string, atMs: number): string {
  const digits = /^digits(\d+)$/.exec(idStyle);
  if (digits?.[1]) return ids.newDigits(Number(digits[1]));
  switch (idStyle) {
    case 'tid':
      return tid(ids, atMs);
    case 'base36':
      // Forum post ids are seven base-36 characters and currently start with 1.
      return `1${encode(ids.newHex(16), '0123456789abcdefghijklmnopqrstuvwxyz', 6)}`;
    case 'video11':
      return base64Url(ids.newHex(16)).slice(0, 11);
    default:
      return ids.newHex(16);
  }
}

/**
 * A decentralized-network record key (TID): 64 bits (microseconds since the epoch,
 * then a 10-bit clock id) in sortable base32, 13 characters; later posts sort later.
 */
function tid(ids: IdSource, atMs: number): string {
  const noise = BigInt(`0x${ids.newHex(8)}`);
  const micros = BigInt(Math.max(0, Math.floor(atMs))) * 1000n + (noise % 1000n);
  let value = (micros << 10n) | ((noise >> 10n) & 0x3ffn);
  let out = '';
  for (let i = 0; i < 13; i++) {
    out = BASE32_SORTABLE.charAt(Number(value & 31n)) + out;
    value >>= 5n;
  }
  return out;
}

function atUri(did: string, recordKey: string): string {
  return `at://${did}/app.bsky.feed.post/${recordKey}`;
}

/** `length` characters of `alphabet` taken from the bits of `hex`. */
function encode(hex: string, alphabet: string, length: number): string {
  let value = BigInt(`0x${hex}`);
  const base = BigInt(alphabet.length);
  let out = '';
  for (let i = 0; i < length; i++) {
    out += alphabet.charAt(Number(value % base));
    value /= base;
  }
  return out;
}

function base64Url(hex: string): string {
  return Buffer.from(hex, 'hex').toString('base64url');
}
