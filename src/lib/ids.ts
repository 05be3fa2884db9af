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

/** Formats 32+ hex characters as a version-4 UUID. */
export function hexToUuid(hex: string): string {
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${uuidVariant(hex)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The 32 hex digits of the UUID `hexToUuid` makes of `hex`, without its dashes (an event's id: made for every event, where removing the dashes with a pattern was a tenth of a publish's allocations). */
export function hexToUuidDigits(hex: string): string {
  return `${hex.slice(0, 12)}4${hex.slice(13, 16)}${uuidVariant(hex)}${hex.slice(17, 32)}`;
}

function uuidVariant(hex: string): string {
  return ((parseInt(hex[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
}

/**
 * Turns hex into `length` decimal digits (no leading zero), for network-native ids: each pair
 * of hex digits in turn, modulo 10, wrapping round the hex. O(length), read from character
 * codes (every published post draws one; slicing and parsing each pair was a tenth of a publish's ids).
 */
export function hexToDigits(hex: string, length: number): string {
  let out = '';
  for (let i = 0; out.length < length; i = (i + 2) % (hex.length - 1)) {
    const value = nibble(hex.charCodeAt(i)) * 16 + nibble(hex.charCodeAt(i + 1));
    out += Number.isNaN(value) ? (parseInt(hex.slice(i, i + 2), 16) % 10).toString() : DIGITS[value % 10];
  }
  return out.charCodeAt(0) === 0x30 ? `1${out.slice(1)}` : out;
}

const DIGITS = '0123456789';

/** A hex digit's value (either case); NaN for anything else, which the caller hands to parseInt as before. */
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
