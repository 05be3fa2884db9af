import { describe, expect, it } from 'vitest';
import { parseByteSize } from '../../src/lib/byte-size.js';

describe('parseByteSize', () => {
  it.each([
    ['512b', 512],
    ['1kb', 1024],
    ['2MB', 2 * 1024 ** 2],
    ['1gb', 1024 ** 3],
  ])('reads %s as %i bytes, in units of 1024 as express.json reads its limit', (text, bytes) => {
    expect(parseByteSize(text)).toBe(bytes);
  });

  it.each(['', '1', '1 mb', '1.5mb', '-1kb', '1tb', `${'9'.repeat(20)}gb`])('reads %j as no size', (text) => {
    expect(parseByteSize(text)).toBeUndefined();
  });
});
