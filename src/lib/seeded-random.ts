/**
 * splitmix32: numbers in [0, 1) from a 32-bit seed (taken modulo 2^32), the same sequence for
 * the same seed on every machine and every run. For values that must depend on a seed and
 * nothing else (a post's metric totals, a network's reads): they draw from a stream of their
 * own rather than the workspace's faker, so reading them never moves its id stream.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    z ^= z >>> 16;
    return (z >>> 0) / 2 ** 32;
  };
}
