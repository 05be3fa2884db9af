import type { Direction, SortKey } from '../../http/lists.js';
import { metricCeiling, metricCurve, metricOnCurve, type MetricName } from './metrics.js';
import type { PostRecord } from './records.js';

/*
 * The orders of GET /v1/posts, kept so that a page costs what it shows rather
 * than a sort of every post: at 100k posts, filtering and sorting them all took
 * 150 ms to a second per page. Derived from the posts store and never persisted:
 * built from the store on the first list of a workspace's posts, kept up to date
 * by `addPost` and `postChanged` (store.ts) from then on, and dropped with the
 * store it came from (a reset or a restore makes a new one).
 *
 * Only what a post sorts on is captured here: its creation, schedule and first
 * publish times, and its metric ceilings. Everything a filter looks at (status,
 * source, destinations) is read from the post itself at request time, so a
 * status change needs no update.
 */

/** One post as the list orders it: the values it sorts on, as they were when it was last indexed. */
export interface IndexedPost {
  readonly post: PostRecord;
  readonly id: string;
  readonly createdMs: number;
  readonly scheduledMs: number | null;
  /** When the post first went out: its earliest destination publish; null if none did. */
  publishedMs: number | null;
}

/** The times a post can be sorted on (`created_*`, `scheduled_*`, `published_*`). */
export type TimeField = 'createdMs' | 'scheduledMs' | 'publishedMs';

/**
 * A filter a time order can be kept for, so that a filtered page walks only the posts that may
 * pass it: its network, or its account. What it looks at (a destination's platform and
 * connectionId) is fixed when the post is made.
 */
export interface Narrowing {
  by: 'platform' | 'connectionId';
  value: string;
}

/** The narrowings a post belongs to: one per network and per account it goes to. */
function narrowingKeys(post: PostRecord): Set<string> {
  const keys = new Set<string>();
  for (const destination of post.destinations) {
    keys.add(narrowingKey('platform', destination.platform));
    keys.add(narrowingKey('connectionId', destination.connectionId));
  }
  return keys;
}

function narrowingKey(by: Narrowing['by'], value: string): string {
  return `${by}:${value}`;
}

function admits(post: PostRecord, narrowing: Narrowing): boolean {
  return post.destinations.some((destination) => destination[narrowing.by] === narrowing.value);
}

/** When the post first went out: its earliest destination publish; null if none did. */
function firstPublishMs(post: PostRecord): number | null {
  let first: number | null = null;
  for (const destination of post.destinations) {
    if (destination.publishedAt === null) continue;
    const ms = Date.parse(destination.publishedAt);
    if (!Number.isNaN(ms) && (first === null || ms < first)) first = ms;
  }
  return first;
}

function indexed(post: PostRecord): IndexedPost {
  return { post, id: post.id, createdMs: Date.parse(post.createdAt), scheduledMs: post.scheduledAtMs, publishedMs: firstPublishMs(post) };
}

/** The reference's time basis of the posts list (since/until): schedule time, else publish time, else creation time. */
export function basisMs(entry: IndexedPost): number {
  return entry.scheduledMs ?? entry.publishedMs ?? entry.createdMs;
}

/**
 * A metric summed over the post's destinations at `atMs`; null when no
 * destination has a reading of it: the same number as summing `metricsAt` over
 * them. The curves are made anew on every read rather than kept (a kept curve
 * per destination was about 40 MB at 100k posts), as a page reads few of them.
 */
export function metricOf(entry: IndexedPost, name: MetricName, atMs: number): number | null {
  let total: number | null = null;
  for (const destination of entry.post.destinations) {
    if (destination.status !== 'published' || destination.publishedAt === null) continue;
    const publishedMs = Date.parse(destination.publishedAt);
    if (Number.isNaN(publishedMs) || atMs < publishedMs) continue;
    const value = metricOnCurve(metricCurve(destination.metricsSeed, destination.platform), name, atMs - publishedMs);
    if (value !== null) total = (total ?? 0) + value;
  }
  return total;
}

/**
 * The most the metric of the post can ever reach: the ceilings of the
 * destinations that went out, whatever their status now (a ceiling may be
 * high, never low); null if it can never have the metric.
 */
function ceilingOf(entry: IndexedPost, name: MetricName): number | null {
  let total: number | null = null;
  for (const destination of entry.post.destinations) {
    if (destination.publishedAt === null) continue;
    const value = metricCeiling(metricCurve(destination.metricsSeed, destination.platform), name);
    if (value !== null) total = (total ?? 0) + value;
  }
  return total;
}

/** `compareKeys` in ascending order for `[value, id]` keys, without building them: nulls last, ids break ties. */
function ascending(av: number | null, aid: string, bv: number | null, bid: string): number {
  if (av !== bv) {
    if (av === null) return 1;
    if (bv === null) return -1;
    return av < bv ? -1 : 1;
  }
  return aid === bid ? 0 : aid < bid ? -1 : 1;
}

/** A posts-list cursor's key `[value, id]`. */
function cursorKey(after: SortKey): { value: number | null; id: string } {
  const [value, id] = after;
  return { value: typeof value === 'number' ? value : null, id: String(id) };
}

/** Answers false to stop a walk. */
type Visit = (entry: IndexedPost) => boolean;

/** The posts in order of one time: ascending by (time, id), the posts without the time last (by id). */
class TimeOrder {
  /** The posts in the order, to be read only (a count walks them). */
  readonly entries: IndexedPost[];

  constructor(
    private readonly field: TimeField,
    all: Iterable<IndexedPost>,
  ) {
    // Posts arrive roughly in time order, which the sort's merge runs make cheap.
    this.entries = [...all].sort((a, b) => ascending(a[field], a.id, b[field], b.id));
  }

  /**
   * O(log n) to find the place, then a splice: a move of the entries after it, a memmove of at
   * most n pointers. A created post's creation time is the latest, so it lands at the end and
   * moves nothing; a post without the time (a queued post's publish time) lands among the
   * untimed ones by id and moves about half of them.
   */
  insert(entry: IndexedPost): void {
    this.entries.splice(this.lowerBound(entry[this.field], entry.id), 0, entry);
  }

  /** Takes the entry out, found by the value it was inserted with (its current one): O(log n) and a splice, as `insert`. */
  remove(entry: IndexedPost): void {
    const at = this.lowerBound(entry[this.field], entry.id);
    const index = this.entries[at] === entry ? at : this.entries.indexOf(entry);
    if (index >= 0) this.entries.splice(index, 1);
  }

  /**
   * Visits the posts that follow `after` in `direction`, as compareKeys orders
   * `[time, id]` keys: descending is the timed posts from the latest, then the
   * untimed ones by id descending (nulls stay last either way).
   */
  walk(direction: Direction, after: SortKey | undefined, visit: Visit): void {
    const entries = this.entries;
    const cursor = after === undefined ? undefined : cursorKey(after);
    if (direction === 'asc') {
      for (let i = cursor ? this.upperBound(cursor.value, cursor.id) : 0; i < entries.length; i++) if (!visit(entries[i] as IndexedPost)) return;
      return;
    }
    const firstNull = this.firstNull();
    if (cursor && cursor.value === null) {
      // The cursor is among the untimed posts: only untimed ones with smaller ids follow.
      for (let i = this.lowerBound(null, cursor.id) - 1; i >= firstNull; i--) if (!visit(entries[i] as IndexedPost)) return;
      return;
    }
    for (let i = (cursor ? this.lowerBound(cursor.value, cursor.id) : firstNull) - 1; i >= 0; i--) if (!visit(entries[i] as IndexedPost)) return;
    for (let i = entries.length - 1; i >= firstNull; i--) if (!visit(entries[i] as IndexedPost)) return;
  }

  /** The first position whose key is not below `(value, id)`. */
  private lowerBound(value: number | null, id: string): number {
    let low = 0;
    let high = this.entries.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      const entry = this.entries[mid] as IndexedPost;
      if (ascending(entry[this.field], entry.id, value, id) < 0) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** The first position whose key is above `(value, id)`. */
  private upperBound(value: number | null, id: string): number {
    let low = 0;
    let high = this.entries.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      const entry = this.entries[mid] as IndexedPost;
      if (ascending(entry[this.field], entry.id, value, id) <= 0) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  private firstNull(): number {
    let low = 0;
    let high = this.entries.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if ((this.entries[mid] as IndexedPost)[this.field] !== null) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}

/** The `size` best items offered, in a heap whose root is the worst of them. */
class Best<T> {
  private readonly heap: T[] = [];

  constructor(
    private readonly size: number,
    /** Whether `a` comes before `b` in the list. */
    private readonly before: (a: T, b: T) => boolean,
  ) {}

  get full(): boolean {
    return this.heap.length >= this.size;
  }

  /** The last of the kept items (defined once any is kept). */
  get worst(): T | undefined {
    return this.heap[0];
  }

  offer(item: T): void {
    const heap = this.heap;
    if (this.size <= 0) return;
    if (heap.length < this.size) {
      heap.push(item);
      this.siftUp(heap.length - 1);
    } else if (this.before(item, heap[0] as T)) {
      heap[0] = item;
      this.siftDown(0);
    }
  }

  /** The kept items, best first. */
  sorted(): T[] {
    return [...this.heap].sort((a, b) => (this.before(a, b) ? -1 : this.before(b, a) ? 1 : 0));
  }

  private siftUp(at: number): void {
    const heap = this.heap;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      // The root is the worst: a parent must come after its children.
      if (!this.before(heap[parent] as T, heap[at] as T)) return;
      [heap[parent], heap[at]] = [heap[at] as T, heap[parent] as T];
      at = parent;
    }
  }

  private siftDown(at: number): void {
    const heap = this.heap;
    for (;;) {
      let worst = at;
      for (const child of [2 * at + 1, 2 * at + 2]) {
        if (child < heap.length && this.before(heap[worst] as T, heap[child] as T)) worst = child;
      }
      if (worst === at) return;
      [heap[worst], heap[at]] = [heap[at] as T, heap[worst] as T];
      at = worst;
    }
  }
}

interface Scored {
  entry: IndexedPost;
  value: number;
}

/** Highest value first, ids descending among equals: compareKeys' descending order of `[value, id]`. */
const higher = (a: Scored, b: Scored): boolean => a.value > b.value || (a.value === b.value && a.entry.id > b.entry.id);

/**
 * A metric sort. The metrics grow with virtual time, and not all at one pace,
 * so no order of them holds from one instant to the next; what does hold is each
 * post's ceiling (its curves' totals, which its metric approaches and never
 * passes). The posts are kept by ceiling, highest first: a page reads metrics
 * down that order and stops as soon as no ceiling left could beat the page's
 * last value. In a world of settled posts that is a few more than the page; a
 * deep page reads every post whose ceiling reaches the cursor's value.
 */
class MetricOrder {
  /** The posts that can have the metric, by ceiling descending, then id descending. */
  private readonly entries: IndexedPost[];
  private readonly ceilings = new Map<IndexedPost, number>();

  constructor(
    private readonly name: MetricName,
    all: Iterable<IndexedPost>,
  ) {
    const entries: IndexedPost[] = [];
    for (const entry of all) {
      const ceiling = ceilingOf(entry, name);
      if (ceiling === null) continue;
      this.ceilings.set(entry, ceiling);
      entries.push(entry);
    }
    this.entries = entries.sort((a, b) => -ascending(this.ceilingOf(a), a.id, this.ceilingOf(b), b.id));
  }

  insert(entry: IndexedPost): void {
    const ceiling = ceilingOf(entry, this.name);
    if (ceiling === null) return;
    this.ceilings.set(entry, ceiling);
    this.entries.splice(this.position(ceiling, entry.id), 0, entry);
  }

  remove(entry: IndexedPost): void {
    const ceiling = this.ceilings.get(entry);
    if (ceiling === undefined) return;
    this.ceilings.delete(entry);
    const at = this.position(ceiling, entry.id);
    const index = this.entries[at] === entry ? at : this.entries.indexOf(entry);
    if (index >= 0) this.entries.splice(index, 1);
  }

  /** Up to `count` posts following `after` at `atMs`, among those `matches` keeps. */
  following(atMs: number, matches: (entry: IndexedPost) => boolean, after: SortKey | undefined, count: number, all: Iterable<IndexedPost>): IndexedPost[] {
    const cursor = after === undefined ? undefined : cursorKey(after);
    const best = new Best<Scored>(count, higher);
    // A cursor among the posts without the metric has left every post with one behind.
    if (cursor?.value !== null) {
      for (const entry of this.entries) {
        const worst = best.full ? best.worst : undefined;
        // Nothing further down can reach the page any more.
        if (worst && this.ceilingOf(entry) < worst.value) break;
        if (!matches(entry)) continue;
        const value = metricOf(entry, this.name, atMs);
        if (value === null) continue;
        if (cursor && !(value < (cursor.value as number) || (value === cursor.value && entry.id < cursor.id))) continue;
        best.offer({ entry, value });
      }
    }
    const found = best.sorted().map((scored) => scored.entry);
    if (found.length >= count) return found;

    // The page reaches the posts without the metric now: they come last, ids descending.
    const rest = new Best<IndexedPost>(count - found.length, (a, b) => a.id > b.id);
    for (const entry of all) {
      if (cursor?.value === null && !(entry.id < cursor.id)) continue;
      if (!matches(entry)) continue;
      if (this.ceilings.has(entry) && metricOf(entry, this.name, atMs) !== null) continue;
      rest.offer(entry);
    }
    return [...found, ...rest.sorted()];
  }

  private ceilingOf(entry: IndexedPost): number {
    return this.ceilings.get(entry) ?? 0;
  }

  /** Where `(ceiling, id)` belongs in the descending order. */
  private position(ceiling: number, id: string): number {
    let low = 0;
    let high = this.entries.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      const entry = this.entries[mid] as IndexedPost;
      if (ascending(this.ceilingOf(entry), entry.id, ceiling, id) > 0) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}

/** The indexes of one workspace's posts. */
export class PostIndex {
  private readonly byId = new Map<string, IndexedPost>();
  private readonly times = new Map<TimeField, TimeOrder>();
  /**
   * Time orders of the posts of one network or one account (`narrowingKey`), made for the first
   * page filtered on it and kept in step from then on; only for a narrowing some post has, so a
   * filter on a value no post has keeps nothing. At most one entry per post, field, network and
   * account it goes to.
   */
  private readonly narrowed = new Map<string, Map<TimeField, TimeOrder>>();
  /**
   * How many posts have each narrowing, counted on the first narrowed page and kept in step from
   * then on: a filter on a value no post has (an account since removed, a client's typo, a hostile
   * value) is answered without reading the posts, where finding it in none read them all on every page.
   */
  private present: Map<string, number> | undefined;
  private readonly metrics = new Map<MetricName, MetricOrder>();

  constructor(posts: Iterable<PostRecord>) {
    for (const post of posts) this.byId.set(post.id, indexed(post));
  }

  /**
   * Every post, in no particular order (for counts and facets); with a narrowing, only the posts
   * of that network or account, the only ones a filter on it can pass.
   */
  all(narrowing?: Narrowing): Iterable<IndexedPost> {
    if (!narrowing) return this.byId.values();
    return this.narrowedOrder('createdMs', narrowing)?.entries ?? [];
  }

  add(post: PostRecord): void {
    const old = this.byId.get(post.id);
    if (old) this.unlink(old);
    const entry = indexed(post);
    this.byId.set(post.id, entry);
    this.link(entry);
  }

  /** A post's sort values may have changed (a destination went out): it moves where they say. */
  refresh(post: PostRecord): void {
    const entry = this.byId.get(post.id);
    if (!entry || entry.post !== post) {
      this.add(post);
      return;
    }
    this.unlink(entry);
    entry.publishedMs = firstPublishMs(post);
    this.link(entry);
  }

  /**
   * Up to `count` posts after `after` in time order, among those `matches` keeps: O(log n) to
   * the cursor, then the entries walked until `count` match (a page of an unfiltered list reads
   * `count`; a filter reads as many as it passes over). With a narrowing (the page's network or
   * account, which `matches` also tests), the walk is over that network's or account's posts
   * only: the posts of other networks are never read, and at 100,000 posts reading each was a
   * cache miss or more.
   */
  byTime(field: TimeField, direction: Direction, matches: (entry: IndexedPost) => boolean, after: SortKey | undefined, count: number, narrowing?: Narrowing): IndexedPost[] {
    const found: IndexedPost[] = [];
    if (count <= 0) return found;
    const order = narrowing ? this.narrowedOrder(field, narrowing) : this.timeOrder(field);
    order?.walk(direction, after, (entry) => {
      if (matches(entry)) found.push(entry);
      return found.length < count;
    });
    return found;
  }

  /** Up to `count` posts after `after` by the metric at `atMs` (highest first), among those `matches` keeps. */
  byMetric(name: MetricName, atMs: number, matches: (entry: IndexedPost) => boolean, after: SortKey | undefined, count: number): IndexedPost[] {
    if (count <= 0) return [];
    return this.metricOrder(name).following(atMs, matches, after, count, this.byId.values());
  }

  private timeOrder(field: TimeField): TimeOrder {
    let order = this.times.get(field);
    if (!order) {
      order = new TimeOrder(field, this.byId.values());
      this.times.set(field, order);
    }
    return order;
  }

  /** The narrowing's order of `field`, made on first use; undefined when no post has the narrowing (nothing to walk, nothing kept). */
  private narrowedOrder(field: TimeField, narrowing: Narrowing): TimeOrder | undefined {
    const key = narrowingKey(narrowing.by, narrowing.value);
    let orders = this.narrowed.get(key);
    let order = orders?.get(field);
    if (order) return order;
    if (!this.present) {
      this.present = new Map();
      for (const entry of this.byId.values()) this.narrowings(entry, 1);
    }
    if (!this.present.has(key)) return undefined;
    const members: IndexedPost[] = [];
    for (const entry of this.byId.values()) if (admits(entry.post, narrowing)) members.push(entry);
    if (members.length === 0) return undefined;
    order = new TimeOrder(field, members);
    if (!orders) {
      orders = new Map();
      this.narrowed.set(key, orders);
    }
    orders.set(field, order);
    return order;
  }

  private metricOrder(name: MetricName): MetricOrder {
    let order = this.metrics.get(name);
    if (!order) {
      order = new MetricOrder(name, this.byId.values());
      this.metrics.set(name, order);
    }
    return order;
  }

  private link(entry: IndexedPost): void {
    for (const order of this.times.values()) order.insert(entry);
    for (const order of this.narrowings(entry, 1)) order.insert(entry);
    for (const order of this.metrics.values()) order.insert(entry);
  }

  private unlink(entry: IndexedPost): void {
    for (const order of this.times.values()) order.remove(entry);
    for (const order of this.narrowings(entry, -1)) order.remove(entry);
    for (const order of this.metrics.values()) order.remove(entry);
  }

  /**
   * Counts the post in (`delta` 1) or out of (−1) each narrowing it has, and answers the narrowed
   * orders it belongs in: O(its destinations); nothing before the first narrowed page.
   */
  private narrowings(entry: IndexedPost, delta: 1 | -1): readonly TimeOrder[] {
    if (!this.present) return NO_ORDERS;
    const orders: TimeOrder[] = [];
    for (const key of narrowingKeys(entry.post)) {
      const count = (this.present.get(key) ?? 0) + delta;
      if (count > 0) this.present.set(key, count);
      else this.present.delete(key);
      for (const order of this.narrowed.get(key)?.values() ?? []) orders.push(order);
    }
    return orders;
  }
}

const NO_ORDERS: readonly TimeOrder[] = [];

/** Indexes by the store object they were built from: a reset or restore makes a new store, and a new index. */
const indexes = new WeakMap<object, PostIndex>();

/** The index of a workspace's posts record, built from it on first use. */
export function postIndex(posts: Readonly<Record<string, PostRecord>>): PostIndex {
  let index = indexes.get(posts);
  if (!index) {
    index = new PostIndex(Object.values(posts));
    indexes.set(posts, index);
  }
  return index;
}

/** Keeps an index built from `posts` (if any) in step with a post added to it. */
export function indexAdded(posts: Readonly<Record<string, PostRecord>>, post: PostRecord): void {
  indexes.get(posts)?.add(post);
}

/** Keeps an index built from `posts` (if any) in step with a post whose sort values changed. */
export function indexChanged(posts: Readonly<Record<string, PostRecord>>, post: PostRecord): void {
  indexes.get(posts)?.refresh(post);
}
