import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * `length` lowercase hex characters from the operating system's randomness: what every
 * credential the server hands out is made of (keys, upload tokens, sign-in sessions),
 * never the seed, which is public (decision 0025). Ids and fake data draw from the seed
 * (`drawHex` in ./ids.ts) so that two servers with the same one answer the same.
 */
export function randomHex(length: number): string {
  return randomBytes(Math.ceil(length / 2)).toString('hex').slice(0, length);
}

/**
 * Whether a credential sent matches the one kept, in time that tells neither how much of it
 * matched nor how long the kept one is: both are hashed to the same length first.
 */
export function sameCredential(given: string, kept: string): boolean {
  return timingSafeEqual(digest(given), digest(kept));
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
