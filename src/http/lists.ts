import type { CursorCodec, SortKey } from '../lib/cursor-codec.js';
import { ApiError, validationError } from '../lib/errors.js';

export type { SortKey };
export type Direction = 'asc' | 'desc';

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
  hasMore: boolean;
}

/** Nulls sort last in either direction, as "not yet published" belongs after the published. */
export function compareKeys(a: SortKey, b: SortKey, direction: Direction): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i] ?? null;
    const y = b[i] ?? null;
    if (x === y) continue;
    if (x === null) return 1;
    if (y === null) return -1;
    const order = x < y ? -1 : 1;
    return direction === 'asc' ? order : -order;
  }
  return 0;
}


export interface PageRequest<T> {
  /** Items already filtered and sorted by `keyOf` in `direction`. */
  sorted: readonly T[];
  keyOf: (item: T) => SortKey;
  direction: Direction;
  limit: number;
  /** The decoded cursor's key, or undefined for the first page. */
  after: SortKey | undefined;
  /** Makes the next page's cursor from the last item's key. */
  cursorFor: (key: SortKey) => string;
}

/**
 * Up to `count` items following the cursor's key, in the list's order; all of
 * them from the start when `after` is undefined. Asking for one more than the
 * page holds tells whether there is a next page.
 */
export type Following<T> = (after: SortKey | undefined, count: number) => T[];

/** What follows a key in a list already sorted by `keyOf`: a binary search finds where the cursor left off. */
function followingIn<T>(sorted: readonly T[], keyOf: (item: T) => SortKey, direction: Direction): Following<T> {
  return (after, count) => {
    if (after === undefined) return sorted.slice(0, count);
    let low = 0;
    let high = sorted.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (compareKeys(keyOf(sorted[mid] as T), after, direction) <= 0) low = mid + 1;
      else high = mid;
    }
    return sorted.slice(low, low + count);
  };
}

/** Cuts one page from what follows the cursor: the page, whether more follow, the next cursor. */
function cut<T>(following: Following<T>, keyOf: (item: T) => SortKey, limit: number, after: SortKey | undefined, cursorFor: (key: SortKey) => string): Page<T> {
  const items = following(after, limit + 1);
  const hasMore = items.length > limit;
  const data = hasMore ? items.slice(0, limit) : items;
  const last = data[data.length - 1];
  return { data, hasMore, nextCursor: hasMore && last !== undefined ? cursorFor(keyOf(last)) : null };
}

/** Cuts one page: a binary search finds where the cursor left off. */
export function paginate<T>({ sorted, keyOf, direction, limit, after, cursorFor }: PageRequest<T>): Page<T> {
  return cut(followingIn(sorted, keyOf, direction), keyOf, limit, after, cursorFor);
}

/** What a list needs of its workspace: its id and cursor codec. */
export interface ListOwner {
  readonly id: string;
  readonly cursors: CursorCodec;
}

interface ListRules<T> {
  /** Names the list inside the cursor: a cursor of one list is refused by another. */
  list: string;
  /** The request's query; every parameter but `cursor` is bound into the cursor. */
  query: object;
  keyOf: (item: T) => SortKey;
  limit: number;
}

export interface ListRequest<T> extends ListRules<T> {
  sorted: readonly T[];
  direction: Direction;
}

/** One page of a list under the shared rules: cursor checked, page cut, next cursor signed. */
export function listPage<T>(owner: ListOwner, request: ListRequest<T>): Page<T> {
  return indexedListPage(owner, { ...request, following: followingIn(request.sorted, request.keyOf, request.direction) });
}

export interface IndexedListRequest<T> extends ListRules<T> {
  /** The list's own way to the items after a key (an index), in place of a sorted copy of them all. */
  following: Following<T>;
}

/**
 * `listPage` for a list that keeps its own order (an index), so a page costs
 * what follows the cursor rather than a sort of everything: the same cursor
 * rules, page cut and next cursor.
 */
export function indexedListPage<T>(owner: ListOwner, request: IndexedListRequest<T>): Page<T> {
  const list = request.list;
  const query = request.query as Record<string, unknown>;
  const cursor = query.cursor;
  const after = typeof cursor === 'string' ? owner.cursors.decode(cursor, owner.id, list, query) : undefined;
  return cut(request.following, request.keyOf, request.limit, after, (key) => owner.cursors.encode(owner.id, list, query, key));
}

export interface TimeRange {
  sinceMs?: number;
  untilMs?: number;
}

/**
 * `since` (inclusive) and `until` (exclusive). The contract's date-time format has
 * already refused a date alone or a time without a zone; this checks the order.
 */
export function parseTimeRange(query: { since?: unknown; until?: unknown }): TimeRange {
  const range: TimeRange = {};
  for (const name of ['since', 'until'] as const) {
    const value = query[name];
    if (value === undefined) continue;
    const ms = typeof value === 'string' ? Date.parse(value) : NaN;
    if (Number.isNaN(ms)) throw validationError(name, `${name} must be an ISO 8601 date-time with Z or an offset.`);
    range[name === 'since' ? 'sinceMs' : 'untilMs'] = ms;
  }
  if (range.sinceMs !== undefined && range.untilMs !== undefined && range.sinceMs >= range.untilMs) {
    throw new ApiError(400, 'INVALID_RANGE', 'since must be before until.', { param: 'since' });
  }
  return range;
}

/** `include=a,b`; an unknown value is refused naming the accepted ones. */
export function parseInclude<V extends string>(raw: unknown, accepted: readonly V[]): Set<V> {
  const values = new Set<V>();
  if (raw === undefined) return values;
  for (const part of String(raw).split(',')) {
    const value = part.trim();
    if (!(accepted as readonly string[]).includes(value)) {
      throw validationError('include', `include accepts ${accepted.join(', ')}; '${value}' is not one of them.`);
    }
    values.add(value as V);
  }
  return values;
}

/** The page size: the contract has already checked the range; this applies the default. */
export function pageSize(raw: unknown, fallback: number): number {
  return typeof raw === 'number' ? raw : fallback;
}
