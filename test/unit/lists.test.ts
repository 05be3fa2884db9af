import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../src/lib/errors.js';
import { compareKeys, listPage, paginate, parseInclude, parseTimeRange, type SortKey } from '../../src/http/lists.js';
import { CursorCodec } from '../../src/lib/cursor-codec.js';
import { paramFromPath } from '../../src/http/error-mapping.js';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof ApiError ? error.code : 'not-an-api-error';
  }
  return undefined;
}

describe('compareKeys', () => {
  it.each<[SortKey, SortKey, 'asc' | 'desc', number]>([
    [['a', '1'], ['b', '1'], 'asc', -1],
    [['a', '1'], ['b', '1'], 'desc', 1],
    [['a', '1'], ['a', '2'], 'asc', -1],
    [[null, '1'], ['a', '1'], 'asc', 1],
    [[null, '1'], ['a', '1'], 'desc', 1],
    [[3, 'x'], [3, 'x'], 'asc', 0],
  ])('%j vs %j (%s) is %d', (a, b, direction, expected) => {
    expect(Math.sign(compareKeys(a, b, direction))).toBe(expected);
  });
});

describe('CursorCodec', () => {
  const codec = new CursorCodec('secret');
  const params = { limit: 10, platform: 'twitter' };
  const cursor = codec.encode('ws1', 'posts', params, ['2026-01-01T00:00:00.000Z', 'id-9']);

  it('round-trips the sort key for the same workspace, list and parameters', () => {
    expect(codec.decode(cursor, 'ws1', 'posts', { ...params, cursor })).toEqual(['2026-01-01T00:00:00.000Z', 'id-9']);
  });

  it.each<[string, () => unknown]>([
    ['another workspace', () => codec.decode(cursor, 'ws2', 'posts', params)],
    ['another list', () => codec.decode(cursor, 'ws1', 'accounts', params)],
    ['a changed parameter', () => codec.decode(cursor, 'ws1', 'posts', { ...params, platform: 'bluesky' })],
    ['an added parameter', () => codec.decode(cursor, 'ws1', 'posts', { ...params, status: 'failed' })],
    ['a garbled cursor', () => codec.decode(cursor.slice(0, -3) + 'abc', 'ws1', 'posts', params)],
    ['a truncated cursor', () => codec.decode(cursor.split('.')[0] as string, 'ws1', 'posts', params)],
    ['another server secret', () => new CursorCodec('other').decode(cursor, 'ws1', 'posts', params)],
    ['plain garbage', () => codec.decode('%%%', 'ws1', 'posts', params)],
  ])('refuses %s with INVALID_CURSOR', (_name, decode) => {
    expect(codeOf(decode)).toBe('INVALID_CURSOR');
  });
});

describe('CursorCodec: the work a page does', () => {
  /** Signatures made (each an HMAC), counted on the codec's own method. */
  function signing(codec: CursorCodec): { count: () => number } {
    const spy = vi.spyOn(codec as unknown as { sign: (payload: string) => string }, 'sign');
    return { count: () => spy.mock.calls.length };
  }

  it('signs a next cursor once, however often the same page is read, and the answer is the one it would make', () => {
    const codec = new CursorCodec('secret');
    const made = signing(codec);
    const first = codec.encode('ws1', 'posts', { limit: 20 }, ['2026-01-01T00:00:00.000Z', 'p1']);
    for (let i = 0; i < 10; i++) expect(codec.encode('ws1', 'posts', { limit: 20 }, ['2026-01-01T00:00:00.000Z', 'p1'])).toBe(first);
    expect(made.count()).toBe(1);
    expect(new CursorCodec('secret').encode('ws1', 'posts', { limit: 20 }, ['2026-01-01T00:00:00.000Z', 'p1'])).toBe(first);
  });

  it('signs again for another key, list, workspace or parameters', () => {
    const codec = new CursorCodec('secret');
    const made = signing(codec);
    const cursors = new Set([
      codec.encode('ws1', 'posts', { limit: 20 }, ['a', 'p1']),
      codec.encode('ws1', 'posts', { limit: 20 }, ['a', 'p2']),
      codec.encode('ws1', 'accounts', { limit: 20 }, ['a', 'p1']),
      codec.encode('ws2', 'posts', { limit: 20 }, ['a', 'p1']),
      codec.encode('ws1', 'posts', { limit: 21 }, ['a', 'p1']),
    ]);
    expect(cursors.size).toBe(5);
    expect(made.count()).toBe(5);
  });

  it('remembers and reads back a cursor whose parameters hold a lone surrogate, NUL and direction marks', () => {
    const codec = new CursorCodec('secret');
    const made = signing(codec);
    const params = { limit: 20, q: '\ud800a\u0000b\u202e\u0301' };
    const cursor = codec.encode('ws1', 'posts', params, ['a', 'p1']);
    expect(codec.encode('ws1', 'posts', params, ['a', 'p1'])).toBe(cursor);
    expect(made.count()).toBe(1);
    expect(codec.decode(cursor, 'ws1', 'posts', { ...params, cursor })).toEqual(['a', 'p1']);
    expect(codeOf(() => codec.decode(cursor, 'ws1', 'posts', { ...params, q: '\udc00a\u0000b\u202e\u0301' }))).toBe('INVALID_CURSOR');
  });

  it('remembers nothing for a long query, so a tenant cannot make the codec hold megabytes', () => {
    const codec = new CursorCodec('secret');
    const made = signing(codec);
    const params = { limit: 20, q: 'x'.repeat(2_000) };
    codec.encode('ws1', 'posts', params, ['a', 'p1']);
    codec.encode('ws1', 'posts', params, ['a', 'p1']);
    expect(made.count()).toBe(2);
  });
});

describe('paginate', () => {
  const items = Array.from({ length: 7 }, (_, i) => ({ id: `id${i}`, at: 100 - i }));
  const keyOf = (item: { id: string; at: number }) => [item.at, item.id] as const;

  it('walks every item exactly once, page by page', () => {
    const seen: string[] = [];
    let after: SortKey | undefined;
    for (let guard = 0; guard < 10; guard++) {
      const page = paginate({ sorted: items, keyOf, direction: 'desc', limit: 3, after, cursorFor: (key) => JSON.stringify(key) });
      seen.push(...page.data.map((item) => item.id));
      if (!page.hasMore) {
        expect(page.nextCursor).toBeNull();
        break;
      }
      after = JSON.parse(page.nextCursor as string) as SortKey;
    }
    expect(seen).toEqual(items.map((item) => item.id));
  });

  it('does not repeat or skip when an item is added before the cursor', () => {
    const first = paginate({ sorted: items, keyOf, direction: 'desc', limit: 3, after: undefined, cursorFor: (key) => JSON.stringify(key) });
    const grown = [{ id: 'new', at: 1000 }, ...items];
    const second = paginate({ sorted: grown, keyOf, direction: 'desc', limit: 3, after: JSON.parse(first.nextCursor as string) as SortKey, cursorFor: String });
    expect(second.data.map((item) => item.id)).toEqual(['id3', 'id4', 'id5']);
  });
});

describe('listPage', () => {
  it('binds the cursor to every query parameter except the cursor itself', () => {
    const owner = { id: 'ws1', cursors: new CursorCodec('s') };
    const sorted = Array.from({ length: 5 }, (_, i) => ({ id: `i${i}` }));
    const request = { list: 'things', sorted, keyOf: (item: { id: string }) => [item.id], direction: 'asc' as const, limit: 2 };
    const first = listPage(owner, { ...request, query: { limit: 2 } });
    const second = listPage(owner, { ...request, query: { limit: 2, cursor: first.nextCursor } });
    expect(second.data.map((item) => item.id)).toEqual(['i2', 'i3']);
    expect(codeOf(() => listPage(owner, { ...request, query: { limit: 3, cursor: first.nextCursor } }))).toBe('INVALID_CURSOR');
  });
});

describe('parseTimeRange', () => {
  it('reads since and until', () => {
    expect(parseTimeRange({ since: '2026-01-01T00:00:00Z', until: '2026-01-02T00:00:00+01:00' })).toEqual({
      sinceMs: Date.UTC(2026, 0, 1),
      untilMs: Date.UTC(2026, 0, 1, 23),
    });
  });

  it.each([
    [{ since: '2026-01-02T00:00:00Z', until: '2026-01-01T00:00:00Z' }],
    [{ since: '2026-01-01T00:00:00Z', until: '2026-01-01T00:00:00Z' }],
  ])('refuses since not before until: %j', (query) => {
    expect(codeOf(() => parseTimeRange(query))).toBe('INVALID_RANGE');
  });
});

describe('parseInclude', () => {
  it('accepts known values and refuses others naming the accepted ones', () => {
    expect([...parseInclude('total,facets', ['total', 'facets'])]).toEqual(['total', 'facets']);
    try {
      parseInclude('total,bogus', ['total', 'facets']);
      expect.unreachable();
    } catch (error) {
      expect(error).toMatchObject({ code: 'VALIDATION_ERROR', extra: { param: 'include' } });
      expect((error as Error).message).toContain('total, facets');
    }
  });
});

describe('paramFromPath', () => {
  it.each([
    ['/body/destinations/0/text', 'destinations[0].text'],
    ['/query/limit', 'limit'],
    ['.query.limit', 'limit'],
    ['/body/text', 'text'],
    ['/body', 'body'],
    ['/headers/idempotency-key', 'Idempotency-Key'],
    ['/path/id', 'id'],
    ['/body/thread/3', 'thread[3]'],
  ])('%s → %s', (path, param) => {
    expect(paramFromPath(path)).toBe(param);
  });
});
