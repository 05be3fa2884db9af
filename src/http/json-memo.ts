/**
 * Serializing the answer was the largest single cost of a read (`JSON.stringify` of a
 * 19 KB posts page: a fifth of its CPU, docs/performance.md), and a suite reads the
 * same records again and again between changes. A record's view can be memoized: a
 * `ViewMemo` answers the view it answered last time for a record when the new one
 * would be the same, and `encodeJson` splices in the JSON already made for such a view
 * (its UTF-8 bytes from its second answer on) instead of serializing and encoding it again.
 *
 * Two ways to tell that the view would be the same, both sound without any change to a
 * record being announced: `of` compares a fresh view with the remembered one, field by
 * field; `from` compares what the view is made of (its inputs, a flat array the caller
 * reads off the record) element by element, and builds no view at all while they are
 * equal. A remembered view is frozen, so code that would change it after it was answered
 * throws rather than corrupt what later answers reuse. `jsonBytes(body)`, `encodeJson`'s
 * answer in one buffer, is the UTF-8 of `JSON.stringify(body)`, byte for byte (a unit test
 * holds them together).
 */

/** Every view a ViewMemo remembers (a frozen object from elsewhere is serialized as usual). */
const remembered = new WeakSet<object>();
/** The JSON of remembered views: the text made on first use, its UTF-8 bytes once used again. */
const encoded = new WeakMap<object, string | Buffer>();

interface Remembered {
  view: object;
  /** What `from` built the view of; undefined for a view `of` remembered. */
  inputs: readonly unknown[] | undefined;
}

/** The last view of one kind answered for each record; an entry goes with its record. */
export class ViewMemo {
  private readonly last = new WeakMap<object, Remembered>();

  /**
   * The view answered last time for `record` when `view` equals it (then `view` is
   * dropped); otherwise `view`, remembered. The view must be built afresh for the call,
   * sharing no object with the record, since it is frozen all the way down; or `detach`
   * makes a copy of it that shares none, called only when the view is new (a view that
   * hands out the record's own `metadata` object copies it then, not on every read).
   */
  of<T extends object>(record: object, view: T, detach?: (view: T) => T): T {
    const last = this.last.get(record);
    if (last !== undefined && sameJson(last.view, view)) return last.view as T;
    return this.remember(record, detach ? detach(view) : view, undefined);
  }

  /**
   * The view answered last time for `record` when it was built from the same `inputs`
   * (the same length, each element `===`); otherwise `build(record)`, remembered with
   * them. Sound when the view is a function of the inputs alone, so the inputs must hold
   * everything `build` reads (a length before each run of varying length, so that two
   * different records never flatten alike). On a posts page this is an array and a loop
   * per post, where `of` was a view and a walk of it (a tenth of the page's CPU).
   * `build` must make a view that shares no object with the record: it is frozen.
   */
  from<R extends object, T extends object>(record: R, inputs: readonly unknown[], build: (record: R) => T): T {
    const last = this.last.get(record);
    if (last?.inputs !== undefined && sameInputs(last.inputs, inputs)) return last.view as T;
    return this.remember(record, build(record), inputs);
  }

  private remember<T extends object>(record: object, view: T, inputs: readonly unknown[] | undefined): T {
    freezeTree(view, inputs === undefined);
    remembered.add(view);
    this.last.set(record, { view, inputs });
    return view;
  }
}

function sameInputs(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * A body's JSON as it goes out: a text (nothing in it was remembered), the bytes of one
 * remembered view (shared: never written to), or texts and such bytes in a row.
 */
export type EncodedJson = string | Buffer | JsonParts;

/**
 * `JSON.stringify(body)` for a response body (undefined where that is), reusing the
 * JSON of remembered views (the body itself, or views at its top level or as items of
 * its top-level arrays: a page's `data`, a single record's `post`); anything else is
 * serialized natively.
 * A page of views read before goes out as their bytes: encoding its 19 KB text on the
 * way out cost as much as splicing the text together.
 */
export function encodeJson(body: unknown): EncodedJson | undefined {
  if (!isPlainObject(body)) return JSON.stringify(body) as string | undefined;
  const whole = jsonOf(body);
  if (whole !== undefined) return whole;
  // Most answers hold no remembered view (an error, a created post, a clock's report): one native call.
  if (!holdsRemembered(body)) return JSON.stringify(body);
  const parts = new JsonParts();
  parts.text('{');
  let first = true;
  for (const key of Object.keys(body)) {
    const value = body[key];
    if (Array.isArray(value)) {
      parts.text(`${first ? '' : ','}${JSON.stringify(key)}:[`);
      for (let i = 0; i < value.length; i++) {
        if (i > 0) parts.text(',');
        // In an array, what serializes to nothing is null.
        parts.value(value[i], 'null');
      }
      parts.text(']');
      first = false;
      continue;
    }
    // As JSON.stringify: a property whose value serializes to nothing (undefined, a function) is left out.
    const json = jsonOf(value) ?? (JSON.stringify(value) as string | undefined);
    if (json === undefined) continue;
    parts.text(`${first ? '' : ','}${JSON.stringify(key)}:`);
    parts.add(json);
    first = false;
  }
  parts.text('}');
  return parts.done();
}

/** Whether a remembered view is at the body's top level or an item of one of its top-level arrays: where `encodeJson` looks. */
function holdsRemembered(body: Record<string, unknown>): boolean {
  for (const key in body) {
    const value = body[key];
    if (!Array.isArray(value)) {
      if (typeof value === 'object' && value !== null && remembered.has(value)) return true;
      continue;
    }
    for (const item of value) if (typeof item === 'object' && item !== null && remembered.has(item)) return true;
  }
  return false;
}

/** The UTF-8 of `JSON.stringify(body)` in a buffer of its own, or shared when it is one view's (see `encodeJson`). */
export function jsonBytes(body: unknown): Buffer | undefined {
  const json = encodeJson(body);
  if (json === undefined || Buffer.isBuffer(json)) return json;
  if (typeof json === 'string') return Buffer.from(json);
  const bytes = Buffer.allocUnsafe(json.length);
  json.copyTo(bytes);
  return bytes;
}

/** Texts and ready bytes in a row, encoded once into a buffer the caller gives. */
export class JsonParts {
  private readonly parts: Array<string | Buffer> = [];
  private pending = '';
  private bytesOnly = 0;
  /** The UTF-8 length of the whole, once `done`. */
  length = 0;

  text(text: string): void {
    this.pending += text;
  }

  add(json: string | Buffer): void {
    if (typeof json === 'string') return this.text(json);
    this.flush();
    this.parts.push(json);
    this.bytesOnly += json.length;
  }

  /** A remembered view's JSON, or the value's, or `missing` when it serializes to nothing. */
  value(value: unknown, missing: string): void {
    this.add(jsonOf(value) ?? (JSON.stringify(value) as string | undefined) ?? missing);
  }

  /** Itself, or its one text when no bytes came (then nothing is gained by copying). */
  done(): EncodedJson {
    this.flush();
    if (this.bytesOnly === 0) return this.parts.join('');
    let length = this.bytesOnly;
    for (const part of this.parts) if (typeof part === 'string') length += oneByte(part) ? 1 : Buffer.byteLength(part);
    this.length = length;
    return this;
  }

  /** Writes the whole at the start of `target`, which has room for `length` bytes. */
  copyTo(target: Buffer): void {
    let at = 0;
    for (const part of this.parts) {
      if (typeof part !== 'string') at += part.copy(target, at);
      // A separator between two views is one ASCII character: a native call to encode it cost more than the byte.
      else if (oneByte(part)) target[at++] = part.charCodeAt(0);
      else at += target.write(part, at);
    }
  }

  private flush(): void {
    if (this.pending === '') return;
    this.parts.push(this.pending);
    this.pending = '';
  }
}

/** A text of one ASCII character: one byte. */
function oneByte(text: string): boolean {
  return text.length === 1 && text.charCodeAt(0) < 0x80;
}

/**
 * The JSON of a remembered view, or undefined for anything else: its text the first time
 * it is answered, its UTF-8 bytes (made then) every time after. A view that changes with
 * every read (a post on a page a busy workspace keeps publishing to) is never encoded twice,
 * and one read again and again is never encoded again.
 */
function jsonOf(value: unknown): string | Buffer | undefined {
  if (typeof value !== 'object' || value === null || !remembered.has(value)) return undefined;
  const json = encoded.get(value);
  if (json === undefined) {
    const text = JSON.stringify(value);
    encoded.set(value, text);
    return text;
  }
  if (typeof json !== 'string') return json;
  const bytes = Buffer.from(json);
  encoded.set(value, bytes);
  return bytes;
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

/** Freezes a view all the way down; `listKeys` for a view `of` compares later, which reads its key lists. */
function freezeTree(value: unknown, listKeys: boolean): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  if (listKeys && isPlainObject(value)) Object.defineProperty(value, KEYS, { value: Object.keys(value) });
  Object.freeze(value);
  for (const child of Object.values(value)) freezeTree(child, listKeys);
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
