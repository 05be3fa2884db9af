/**
 * Values worked out from a string, remembered for the strings asked for again and again (a suite
 * reads the same page with the same query thousands of times): at most `entries` of them, none for
 * a key longer than `keyChars`, and all forgotten at once when full. O(1) a call, and bounded
 * however many different keys a tenant sends. Only for values that the key alone decides.
 */
export class StringMemo<V> {
  private readonly remembered = new Map<string, V>();

  constructor(
    private readonly entries = 64,
    private readonly keyChars = 1024,
  ) {}

  get(key: string): V | undefined {
    return this.remembered.get(key);
  }

  /** Remembers `value` under `key` (unless the key is too long to keep), and gives it back. */
  set(key: string, value: V): V {
    if (key.length <= this.keyChars) {
      if (this.remembered.size >= this.entries) this.remembered.clear();
      this.remembered.set(key, value);
    }
    return value;
  }
}
