import { getOwn } from './records.js';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `overrides` merged into `base` as `stripe trigger --override` does: objects key by
 * key, anything else (lists included) replaces. Neither input is changed. Keys are set
 * as own properties, so a `__proto__` key in a request body is a field like any other
 * and never a prototype.
 *
 * @example
 * mergeOverrides({ post: { id: 'p1', text: 'a' } }, { post: { text: 'b' } }) // { post: { id: 'p1', text: 'b' } }
 */
export function mergeOverrides(base: unknown, overrides: unknown): unknown {
  if (!isPlainObject(base) || !isPlainObject(overrides)) return structuredClone(overrides);
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(overrides)) {
    Object.defineProperty(merged, key, { value: mergeOverrides(getOwn(base, key), value), writable: true, enumerable: true, configurable: true });
  }
  return merged;
}
