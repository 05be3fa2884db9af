import { parse } from 'node:querystring';
import { describe, expect, it } from 'vitest';
import { parsedQuery } from '../../src/http/bare-api.js';

describe('parsedQuery', () => {
  it("answers node:querystring's parse of the text, an object of its own each time", () => {
    const text = `limit=20&status=published&status=failed&q=${encodeURIComponent('caf\u00e9 & co')}&__proto__=x`;
    const first = parsedQuery(text);
    const second = parsedQuery(text);
    expect(first).toEqual(parse(text));
    expect(Object.getPrototypeOf(first)).toBeNull();
    expect(Object.keys(first)).toEqual(Object.keys(parse(text)));
    expect(second).not.toBe(first);
    expect(second.status).not.toBe(first.status);
  });

  it('is not changed by what a request did to the object it got (the validator coerces in place)', () => {
    const text = 'limit=5&platform=twitter&platform=bluesky';
    const used = parsedQuery(text) as Record<string, unknown>;
    used.limit = 5;
    (used.platform as string[]).push('tiktok');
    delete used.platform;
    used.sort = 'createdAt';
    expect(parsedQuery(text)).toEqual(parse(text));
  });
});
