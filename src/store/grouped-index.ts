/**
 * A derived index over one of a store's record maps: its records grouped by keys of their own
 * (a comment by its destination, a conversation by its account), so that a request reads the group
 * it names instead of walking every record of the workspace. Never persisted: built in one pass,
 * O(records), on the first read of a map, kept up to date by the store's add function from then
 * on (O(keys of the record)), and dropped with the map it came from (a reset or a restore makes a
 * new one). For maps whose records are only ever added, and whose keys only ever gain values.
 */
export interface GroupedIndex<T> {
  /** The records under `key`, in the order they were added: O(1) once the index is built. */
  of(records: Readonly<Record<string, T>>, key: string): readonly T[];
  /** A record was added to the map: O(its keys). */
  added(records: Readonly<Record<string, T>>, record: T): void;
  /** A record already in the map may have gained keys: O(its keys × the size of their groups). */
  changed(records: Readonly<Record<string, T>>, record: T): void;
}

export function groupedIndex<T>(keysOf: (record: T) => Iterable<string>): GroupedIndex<T> {
  const indexes = new WeakMap<object, Map<string, T[]>>();
  const enter = (index: Map<string, T[]>, record: T, once: boolean) => {
    for (const key of keysOf(record)) {
      const group = index.get(key);
      if (group === undefined) index.set(key, [record]);
      else if (!once || !group.includes(record)) group.push(record);
    }
  };
  const built = (records: Readonly<Record<string, T>>) => {
    let index = indexes.get(records);
    if (index === undefined) {
      index = new Map();
      for (const record of Object.values(records)) enter(index, record, false);
      indexes.set(records, index);
    }
    return index;
  };
  return {
    of: (records, key) => built(records).get(key) ?? [],
    added(records, record) {
      const index = indexes.get(records);
      if (index !== undefined) enter(index, record, false);
    },
    changed(records, record) {
      const index = indexes.get(records);
      if (index !== undefined) enter(index, record, true);
    },
  };
}
