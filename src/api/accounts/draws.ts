import { seedFrom } from '../../lib/ids.js';
import { seededRandom } from '../../lib/seeded-random.js';

/**
 * Numbers in [0, 1) drawn from a text (splitmix32 over its hash). Network reads
 * (stats, media, insights) draw from the workspace seed and the account's network
 * id with these instead of the workspace faker: a read must not move the
 * workspace's id stream, and the same question must always get the same answer.
 */
export function drawStream(...parts: Array<string | number>): () => number {
  return seededRandom(seedFrom(parts.join(':')));
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
