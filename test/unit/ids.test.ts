import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { drawHex, hexToDigits, hexToUuid, hexToUuidDigits } from '../../src/lib/ids.js';

/** hexToDigits as it was first written (slice, parseInt, toString): the ids it drew must not change. */
function firstHexToDigits(hex: string, length: number): string {
  let out = '';
  for (let i = 0; out.length < length; i = (i + 2) % (hex.length - 1)) out += (parseInt(hex.slice(i, i + 2), 16) % 10).toString();
  return out.replace(/^0/, '1');
}

describe('hexToDigits', () => {
  it.each([
    ['a drawn value, 19 digits', drawHex(1, 'ids', 0), 19],
    ['more digits than the hex has pairs (it wraps round)', drawHex(1, 'ids', 1), 80],
    ['a leading zero', '0a' + 'f'.repeat(62), 12],
    ['upper case', 'ABCDEF0123456789', 10],
    ['characters that are not hex', 'zz1g9', 6],
  ])('%s: the digits the first version drew', (_name, hex, length) => {
    const digits = hexToDigits(hex, length);
    expect(digits).toBe(firstHexToDigits(hex, length));
  });

  it('draws the same digits as the first version for any hex and length', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9a-fA-F]{3,64}$/), fc.integer({ min: 1, max: 40 }), (hex, length) => {
        expect(hexToDigits(hex, length)).toBe(firstHexToDigits(hex, length));
      }),
    );
  });
});

describe('hexToUuidDigits', () => {
  it('is the UUID hexToUuid makes of the same hex, without its dashes (the event ids events had)', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9a-f]{32,64}$/), (hex) => {
        expect(hexToUuidDigits(hex)).toBe(hexToUuid(hex).replace(/-/g, ''));
      }),
      { seed: 5, numRuns: 500 },
    );
    expect(hexToUuidDigits(drawHex(1, 'ids', 2))).toMatch(/^[0-9a-f]{12}4[0-9a-f]{3}[89ab][0-9a-f]{15}$/);
  });
});
