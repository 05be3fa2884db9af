/**
 * Serializing the answer was the largest single cost of a read (`JSON.stringify` of a
 * 19 KB posts page: a fifth of its CPU, docs/performance.md), and a suite reads the
 * same records again and again between changes. A record's view can be memoized by
 * value: a `ViewMemo` answers the view it answered last time for a record when the
 * new one is equal to it, field by field, and `stringifyJson` splices in the text
 * already made for such a view instead of serializing it again.
 *
 * Sound by construction: no change to a record has to be announced, since the fresh
 * view is compared with the remembered one on every call (a metric that grew, a status
 * that moved, and the new view is kept instead). A remembered view is frozen, so code
 * that would change it after it was answered throws rather than corrupt what later
 * answers reuse. `stringifyJson(body)` is `JSON.stringify(body)`, character for
 * character (a unit test holds them together).
 */

/** Every view a ViewMemo remembers (a frozen object from elsewhere is serialized as usual). */
const remembered = new WeakSet<object>();
/** The JSON text of remembered views, made on first use. */
const texts = new WeakMap<object, string>();

/** The last view of one kind answered for each record; an entry goes with its record. */
export class ViewMemo {
  private readonly last = new WeakMap<object, object>();

  /**
   * The view answered last time for `record` when `view` equals it (then `view` is
   * dropped); otherwise `view`, remembered. The view must be built afresh for the call,
   * sharing no object with the record, since it is frozen all the way down; or `detach`
   * makes a copy of it that shares none, called only when the view is new (a view that
   * hands out the record's own `metadata` object copies it then, not on every read).
   */
  of<T extends object>(record: object, view: T, detach?: (view: T) => T): T {
    const last = this.last.get(record);
    if (last !== undefined && sameJson(last, view)) return last as T;
    const kept = detach ? detach(view) : view;
    freezeTree(kept);
    remembered.add(kept);
    this.last.set(record, kept);
    return kept;
  }
}

/**
 * `JSON.stringify(body)` for a response body, reusing the text of remembered views
 * found at its top level or as items of its top-level arrays (a page's `data`, a
 * single record's `post`); anything else is serialized natively.
 */
export function stringifyJson(body: unknown): string {
  if (!isPlainObject(body)) return JSON.stringify(body);
  const remembered = textOf(body);
  if (remembered !== undefined) return remembered;
  let out = '{';
  let first = true;
  for (const key of Object.keys(body)) {
    const value = body[key];
    const text = Array.isArray(value) ? arrayText(value) : (textOf(value) ?? JSON.stringify(value));
    // As JSON.stringify: a property whose value serializes to nothing (undefined, a function) is left out.
    if (text === undefined) continue;
    out += `${first ? '' : ','}${JSON.stringify(key)}:${text}`;
    first = false;
  }
  return `${out}}`;
}

function arrayText(items: readonly unknown[]): string {
  let out = '[';
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    // In an array, what serializes to nothing is null.
    out += `${i === 0 ? '' : ','}${textOf(item) ?? JSON.stringify(item) ?? 'null'}`;
  }
  return `${out}]`;
}

/** The text of a remembered view (made now if it was not yet), or undefined for anything else. */
function textOf(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || !remembered.has(value)) return undefined;
  let text = texts.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    texts.set(value, text);
  }
  return text;
}

/**
 * The keys of a remembered plain object, listed when it was frozen, on the object itself: not
 * enumerable, so neither JSON nor for...in sees them, and read without a lookup in a side table
 * (a WeakMap's was a quarter of the comparison's time on a posts page). Frozen, an object can
 * change neither its keys nor its prototype, so the list stays true, and its being there says
 * the object is plain.
 */
const KEYS = Symbol('keys');

type Listed = Record<string, unknown> & { [KEYS]?: string[] };

function freezeTree(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  if (isPlainObject(value)) Object.defineProperty(value, KEYS, { value: Object.keys(value) });
  Object.freeze(value);
  for (const child of Object.values(value)) freezeTree(child);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return (prototype === Object.prototype || prototype === null) && typeof (value as { toJSON?: unknown }).toJSON !== 'function';
}

/**
 * Whether two views serialize to the same JSON text: the same keys in the same order
 * and equal values, plain objects and arrays only (anything else, a Date say, counts
 * as different unless it is the same object). A false "different" only costs a
 * serialization; a false "same" cannot happen. The first is the remembered view, whose
 * keys were listed when it was frozen; the second's are walked in place, allocating nothing
 * (the comparison runs for every record of every read).
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  let keys = (a as Listed)[KEYS];
  if (keys === undefined) {
    if (!isPlainObject(a)) return false;
    keys = Object.keys(a);
  }
  if (!isPlainObject(b)) return false;
  let i = 0;
  // for...in walks a plain object's own keys in Object.keys's order (its prototype has no enumerable key).
  for (const key in b) {
    if (key !== keys[i] || !sameJson((a as Listed)[key], b[key])) return false;
    i++;
  }
  return i === keys.length;
}
