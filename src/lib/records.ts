/*
 * Stores keep their records in plain objects keyed by id, and ids arrive from
 * requests. A plain lookup `records[id]` finds what the object inherits for ids such
 * as `constructor`, `toString` or `__proto__` (GET /v1/accounts/constructor once
 * answered a 500), and `records['__proto__'] = value` replaces the object's prototype
 * instead of adding a record. Look up and add request-supplied keys through these.
 */

/** The record stored under `key`, never an inherited member of the object. */
export function getOwn<T>(records: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(records, key) ? records[key] : undefined;
}

/** Stores `value` under `key` as an own property, even when the key is `__proto__`. */
export function setOwn<T>(records: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(records, key, { value, writable: true, enumerable: true, configurable: true });
}

/** Whether the object holds any record of its own: O(1), where `Object.values(records).length` lists them all. */
export function hasRecords(records: object): boolean {
  for (const key in records) if (Object.hasOwn(records, key)) return true;
  return false;
}
