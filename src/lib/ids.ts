import { hash } from 'node:crypto';

/**
 * Deterministic identifiers: the n-th draw of a stream is a hash of (seed, stream, n).
 * Counters persist with the workspace, so ids stay unique across restarts with
 * --data and repeat exactly for the same seed.
 */
export function drawHex(seed: number, stream: string, n: number): string {
  // The one-shot hash: the same digest as createHash().update().digest(), in a quarter of the time (every id, event and job draws one).
  return hash('sha256', `${seed}:${stream}:${n}`, 'hex');
}

/*
 * Every stored id is made here as one flat string, its characters written into a scratch buffer
 * and read back as Latin-1 in one call. Built with a template literal or `+=`, V8 keeps a string
 * as a tree of its pieces, and a slice of 13 characters or more keeps the whole string it was cut
 * from alive: an event's id kept its 64-digit hash, four string nodes and their pieces, about 300
 * bytes for 36 characters, and a post and its publishing store some fifteen ids (docs/performance.md).
 */

/** Where ids are written before they become strings; longer ones get a buffer of their own. */
const scratch = Buffer.allocUnsafeSlow(256);

function bufferFor(length: number): Buffer {
  return length <= scratch.length ? scratch : Buffer.allocUnsafe(length);
}

/** Writes `text` (ASCII) from `from` to `to` into `buffer` from `at`, as far as the text goes (as `slice` would); answers where it ended. */
function put(buffer: Buffer, at: number, text: string, from = 0, to = text.length): number {
  const end = Math.min(to, text.length);
  for (let i = from; i < end; i++) buffer[at++] = text.charCodeAt(i);
  return at;
}

/** Formats 32+ hex characters as a version-4 UUID, in one flat string. */
export function hexToUuid(hex: string): string {
  let at = put(scratch, 0, hex, 0, 8);
  scratch[at++] = DASH;
  at = put(scratch, at, hex, 8, 12);
  scratch[at++] = DASH;
  scratch[at++] = FOUR;
  at = put(scratch, at, hex, 13, 16);
  scratch[at++] = DASH;
  scratch[at++] = uuidVariant(hex);
  at = put(scratch, at, hex, 17, 20);
  scratch[at++] = DASH;
  at = put(scratch, at, hex, 20, 32);
  return scratch.toString('latin1', 0, at);
}

/**
 * The 32 hex digits of the UUID `hexToUuid` makes of `hex`, without its dashes, after `prefix`
 * (ASCII), in one flat string: an event's id is `evt_` and these.
 */
export function hexToUuidDigits(hex: string, prefix = ''): string {
  let at = put(scratch, 0, prefix);
  at = put(scratch, at, hex, 0, 12);
  scratch[at++] = FOUR;
  at = put(scratch, at, hex, 13, 16);
  scratch[at++] = uuidVariant(hex);
  at = put(scratch, at, hex, 17, 32);
  return scratch.toString('latin1', 0, at);
}

/**
 * `text` as one flat string when it is ASCII, as a network's ids and percent-encoded URLs are (built
 * from pieces, each would be stored as a tree of them, and a slice keeps what it was cut from);
 * any other text as it is. O(length).
 */
export function flatAscii(text: string): string {
  const buffer = bufferFor(text.length);
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code > 0x7f) return text;
    buffer[i] = code;
  }
  return buffer.toString('latin1', 0, text.length);
}

const DASH = 0x2d;
const FOUR = 0x34;
const HEX_CODES = [...'0123456789abcdef'].map((digit) => digit.charCodeAt(0));

/** The character code of the variant digit: 8, 9, a or b, from the hex's 17th digit. */
function uuidVariant(hex: string): number {
  return HEX_CODES[(parseInt(hex[16] ?? '0', 16) & 0x3) | 0x8] as number;
}

/**
 * Turns hex into `length` decimal digits (no leading zero), for network-native ids: each pair
 * of hex digits in turn, modulo 10, wrapping round the hex. O(length), read from character
 * codes (every published post draws one; slicing and parsing each pair was a tenth of a publish's ids),
 * written into one flat string.
 */
export function hexToDigits(hex: string, length: number): string {
  if (length <= 0) return '';
  const buffer = bufferFor(length);
  for (let i = 0, at = 0; at < length; i = (i + 2) % (hex.length - 1)) {
    const value = nibble(hex.charCodeAt(i)) * 16 + nibble(hex.charCodeAt(i + 1));
    if (Number.isNaN(value)) return digitsOfAnyText(hex, length);
    buffer[at++] = ZERO + (value % 10);
  }
  if (buffer[0] === ZERO) buffer[0] = ONE;
  return buffer.toString('latin1', 0, length);
}

/** `hexToDigits` of a text that is not all hex (never a drawn value): each pair parsed as the first version did, `NaN` and all. */
function digitsOfAnyText(hex: string, length: number): string {
  let out = '';
  for (let i = 0; out.length < length; i = (i + 2) % (hex.length - 1)) out += (parseInt(hex.slice(i, i + 2), 16) % 10).toString();
  return out.charCodeAt(0) === ZERO ? `1${out.slice(1)}` : out;
}

const ZERO = 0x30;
const ONE = 0x31;

/** A hex digit's value (either case); NaN for anything else. */
function nibble(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  if (code >= 0x61 && code <= 0x66) return code - 0x57;
  if (code >= 0x41 && code <= 0x46) return code - 0x37;
  return NaN;
}

/** A 32-bit integer seed from any text, for seeding a workspace's faker. */
export function seedFrom(text: string): number {
  return parseInt(hash('sha256', text, 'hex').slice(0, 8), 16);
}
