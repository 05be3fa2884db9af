import { seedFrom } from '../../lib/ids.js';

/**
 * Numbers in [0, 1) drawn from a text (splitmix32 over its hash). Network reads
 * (stats, media, insights) draw from the workspace seed and the account's network
 * id with these instead of the workspace faker: a read must not move the
 * workspace's id stream, and the same question must always get the same answer.
 */
export function drawStream(...parts: Array<string | number>): () => number {
  let state = seedFrom(parts.join(':')) >>> 0;
  return () => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    z ^= z >>> 16;
    return (z >>> 0) / 2 ** 32;
  };
}

/** An integer in [min, max] from a draw. */
export function drawInt(next: () => number, min: number, max: number): number {
  return min + Math.floor(next() * (max - min + 1));
}

/** One element of a non-empty list from a draw. */
export function drawPick<T>(next: () => number, items: readonly T[]): T {
  return items[Math.floor(next() * items.length)] as T;
}

/** Decimal digits (no leading zero) from a draw, for network ids. */
export function drawDigits(next: () => number, length: number): string {
  let out = String(1 + Math.floor(next() * 9));
  while (out.length < length) out += String(Math.floor(next() * 10));
  return out;
}
