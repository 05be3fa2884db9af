/**
 * A binary min-heap. The scheduler keeps every workspace's due work in one, so
 * `advance` pops jobs in time order in O(log n) each instead of sorting.
 */
export class PriorityQueue<T> {
  private readonly heap: T[] = [];

  constructor(private readonly before: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.heap.length;
  }

  peek(): T | undefined {
    return this.heap[0];
  }

  push(item: T): void {
    const heap = this.heap;
    heap.push(item);
    let index = heap.length - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!this.before(heap[index] as T, heap[parent] as T)) break;
      [heap[index], heap[parent]] = [heap[parent] as T, heap[index] as T];
      index = parent;
    }
  }

  pop(): T | undefined {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    if (heap.length === 0 || last === undefined) return top;
    heap[0] = last;
    let index = 0;
    for (;;) {
      const left = index * 2 + 1;
      const right = left + 1;
      let smallest = index;
      if (left < heap.length && this.before(heap[left] as T, heap[smallest] as T)) smallest = left;
      if (right < heap.length && this.before(heap[right] as T, heap[smallest] as T)) smallest = right;
      if (smallest === index) break;
      [heap[index], heap[smallest]] = [heap[smallest] as T, heap[index] as T];
      index = smallest;
    }
    return top;
  }

  /** Drops every item the predicate selects; O(n), used only for cancellations. */
  removeWhere(predicate: (item: T) => boolean): number {
    const kept = this.heap.filter((item) => !predicate(item));
    const removed = this.heap.length - kept.length;
    if (removed === 0) return 0;
    this.heap.length = 0;
    for (const item of kept) this.push(item);
    return removed;
  }

  /**
   * The first `count` items in the order `pop` would give them, without popping: a walk of the
   * heap from its root that only ever opens the children of an item it took, O(count log count)
   * however large the heap (the dashboard's Clock view lists a workspace's next jobs this way).
   */
  first(count: number): T[] {
    const heap = this.heap;
    const taken: T[] = [];
    if (heap.length === 0 || count <= 0) return taken;
    const frontier = new PriorityQueue<number>((a, b) => this.before(heap[a] as T, heap[b] as T));
    frontier.push(0);
    while (taken.length < count && frontier.size > 0) {
      const index = frontier.pop() as number;
      taken.push(heap[index] as T);
      const left = index * 2 + 1;
      if (left < heap.length) frontier.push(left);
      if (left + 1 < heap.length) frontier.push(left + 1);
    }
    return taken;
  }

  toArray(): T[] {
    return [...this.heap];
  }
}
