/**
 * The value stored under `key` in a record used as a map, or undefined. Ids come
 * from requests: `record['constructor']` or `record['__proto__']` would otherwise
 * find Object's prototype and pass for a stored item.
 */
export function ownValue<T>(record: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
