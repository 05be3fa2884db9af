import { describe, expect, it } from 'vitest';
import { drawStream } from '../../src/api/accounts/draws.js';
import { metricCurve } from '../../src/api/posts/metrics.js';
import { seededRandom } from '../../src/lib/seeded-random.js';

const take = (next: () => number, count: number) => Array.from({ length: count }, () => next());

// Pinned: seeded data (metrics, network reads) must repeat byte for byte across versions.
describe('seededRandom', () => {
  it.each([
    [0, [0.5733975800685585, 0.23765396769158542, 0.10578142385929823]],
    [1, [0.5883937727194279, 0.07318899407982826, 0.59031065646559]],
    [2_147_483_647, [0.19781987671740353, 0.051214406499639153, 0.351641109213233]],
    [4_294_967_295, [0.21433574031107128, 0.9851032323203981, 0.16242609662003815]],
  ])('draws the same numbers from seed %i', (seed, numbers) => {
    expect(take(seededRandom(seed), 3)).toEqual(numbers);
  });

  it('takes a seed modulo 2^32', () => {
    expect(take(seededRandom(-1), 3)).toEqual(take(seededRandom(4_294_967_295), 3));
  });

  it('is what network reads and metric curves draw from', () => {
    expect(take(drawStream(1, 'acc_1', 'stats'), 4)).toEqual([0.4176921781618148, 0.18234474048949778, 0.4444619379937649, 0.13783688750118017]);
    expect(metricCurve(12345, 'tiktok')).toEqual({ impressions: 5181, reach: 3195, likes: 84, comments: 8, shares: 16, saves: 14, plays: 6168, growthHours: 38.44070842070505 });
  });
});
