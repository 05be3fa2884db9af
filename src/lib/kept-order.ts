import type { SortKey } from './cursor-codec.js';

/** An item of a kept order with the key it was placed by (its key then, whatever the item holds now). */
export interface Kept<T> {
  readonly item: T;
  key: SortKey;
}

/**
 * Items kept in ascending order of their keys, so that a list's page or the newest few cost a
 * binary search and the items read rather than a sort of every item on each request:
 * built in O(n log n), then O(log n) to find a place and a splice (a move of the entries after it,
 * nothing when the item is the greatest, as a newest one is). Keys must be unique (an id last).
 */
export class KeptOrder<T> {
  private readonly entries: Array<Kept<T>>;

  constructor(
    /** Ascending order of two keys. */
    private readonly compare: (a: SortKey, b: SortKey) => number,
    entries: Iterable<Kept<T>> = [],
  ) {
    this.entries = [...entries].sort((a, b) => compare(a.key, b.key));
  }

  get size(): number {
    return this.entries.length;
  }

  /** Places the entry by its key: O(log n) and a splice. */
  insert(entry: Kept<T>): void {
    this.entries.splice(this.lowerBound(entry.key), 0, entry);
  }

  /** Takes the entry out, found by the key it was placed with: O(log n) and a splice. */
  remove(entry: Kept<T>): void {
    const at = this.lowerBound(entry.key);
    const index = this.entries[at] === entry ? at : this.entries.indexOf(entry);
    if (index >= 0) this.entries.splice(index, 1);
  }

  /** Moves the entry to a new key: `remove`, then `insert`. */
  move(entry: Kept<T>, key: SortKey): void {
    this.remove(entry);
    entry.key = key;
    this.insert(entry);
  }

  /** Takes out and answers the entries with keys below `key`, least first: O(log n + k) for the k taken and a splice. */
  removeBelow(key: SortKey): Array<Kept<T>> {
    return this.entries.splice(0, this.lowerBound(key));
  }

  /** The entries with keys below `before` (all when undefined), greatest first: O(log n) to start, O(1) per entry read. */
  *descending(before?: SortKey): Generator<Kept<T>> {
    for (let i = (before === undefined ? this.entries.length : this.lowerBound(before)) - 1; i >= 0; i--) yield this.entries[i] as Kept<T>;
  }

  /** The first position whose key is not below `key`: O(log n). Also how many entries are below it. */
  lowerBound(key: SortKey): number {
    let low = 0;
    let high = this.entries.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (this.compare((this.entries[mid] as Kept<T>).key, key) < 0) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}
