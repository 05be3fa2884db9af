import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { drawHex, flatAscii, hexToDigits, hexToUuid, hexToUuidDigits } from '../../src/lib/ids.js';

/** hexToDigits as it was first written (slice, parseInt, toString): the ids it drew must not change. */
function firstHexToDigits(hex: string, length: number): string {
  let out = '';
  for (let i = 0; out.length < length; i = (i + 2) % (hex.length - 1)) out += (parseInt(hex.slice(i, i + 2), 16) % 10).toString();
  return out.replace(/^0/, '1');
}

/** hexToUuid as it was first written (slices in a template literal): the ids it drew must not change. */
function firstHexToUuid(hex: string): string {
  const variant = ((parseInt(hex[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

describe('ids written into one flat string', () => {
  it('hexToUuid draws the UUIDs the first version drew, for any hex', () => {
    expect(hexToUuid(drawHex(1, 'ids', 3))).toBe(firstHexToUuid(drawHex(1, 'ids', 3)));
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9a-f]{0,64}$/), (hex) => {
        expect(hexToUuid(hex)).toBe(firstHexToUuid(hex));
      }),
      { seed: 7, numRuns: 500 },
    );
  });

  it('hexToUuidDigits puts its prefix first (an event id), and flatAscii of a slice is the slice', () => {
    const hex = drawHex(1, 'ids', 4);
    expect(hexToUuidDigits(hex, 'evt_')).toBe(`evt_${firstHexToUuid(hex).replace(/-/g, '')}`);
    expect(flatAscii(hex.slice(0, 24))).toBe(hex.slice(0, 24));
    expect(flatAscii(hex.slice(0, 100))).toBe(hex);
    expect(flatAscii(hex.repeat(6).slice(0, 300))).toBe(hex.repeat(6).slice(0, 300));
  });

  it('flatAscii answers an ASCII text as it reads, and any other text (a lone surrogate among them) untouched', () => {
    let url = 'https://bsky.app/profile/';
    for (const piece of ['jane.bsky.social', '/post/', '3kq2x', '%F0%9F%98%80']) url += piece;
    expect(flatAscii(url)).toBe('https://bsky.app/profile/jane.bsky.social/post/3kq2x%F0%9F%98%80');
    expect(flatAscii('x'.repeat(1000))).toBe('x'.repeat(1000));
    for (const other of ['café', 'a\ud800b', '😀', '']) expect(flatAscii(other)).toBe(other);
  });

  it('answers strings of their own: the next id leaves the last one as it was', () => {
    const first = hexToUuid(drawHex(1, 'ids', 5));
    const digits = hexToDigits(drawHex(1, 'ids', 6), 19);
    hexToUuid(drawHex(1, 'ids', 7));
    hexToDigits(drawHex(1, 'ids', 8), 19);
    expect(first).toBe(firstHexToUuid(drawHex(1, 'ids', 5)));
    expect(digits).toBe(firstHexToDigits(drawHex(1, 'ids', 6), 19));
  });
});

describe('hexToDigits', () => {
  it.each([
    ['a drawn value, 19 digits', drawHex(1, 'ids', 0), 19],
    ['more digits than the hex has pairs (it wraps round)', drawHex(1, 'ids', 1), 80],
    ['more digits than the scratch buffer holds', drawHex(1, 'ids', 9), 300],
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
