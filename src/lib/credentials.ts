import { randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * `length` lowercase hex characters from the operating system's randomness: what every
 * credential the server hands out is made of (keys, upload tokens, sign-in sessions),
 * never the seed, which is public (decision 0025). Ids and fake data draw from the seed
 * (`drawHex` in ./ids.ts) so that two servers with the same one answer the same.
 */
export function randomHex(length: number): string {
  return randomBytes(Math.ceil(length / 2)).toString('hex').slice(0, length);
}

/** Whether a credential sent matches the one kept, in time that does not tell how much of it matched. */
export function sameCredential(given: string, kept: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(kept);
  return a.length === b.length && timingSafeEqual(a, b);
}
