import type { CST } from 'yaml';

/**
 * How deep anything the server reads from outside may nest objects and arrays inside each
 * other: request bodies (/v1 and /__control), scenarios, recordings, --data files. `{}` is one
 * level, `{"a":[{}]}` three. No body of the contract comes near (the deepest is a handful of
 * levels); far deeper, the recursive code that reads, copies and writes JSON (JSON.stringify
 * itself, structuredClone, the validator) runs out of stack (decision 0026).
 */
export const MAX_JSON_DEPTH = 64;

/**
 * How deep a stored world may nest (a --data file, a snapshot to restore, a recorded exchange):
 * it keeps values of MAX_JSON_DEPTH inside its own structure (workspaces, stores, records, a kept
 * answer: about a dozen levels), so twice the limit holds both.
 */
export const MAX_STORED_DEPTH = 2 * MAX_JSON_DEPTH;

/** The sentence every refusal uses, so each names the limit the same way. */
export function tooDeepReason(what: string, limit = MAX_JSON_DEPTH): string {
  return `${what} nests objects and arrays more than ${limit} levels deep; the server accepts up to ${limit}`;
}

/**
 * Whether a parsed value nests objects and arrays deeper than `limit`. Iterative: the value is
 * someone else's, and a recursive walk is exactly what such a value overflows. A value shared
 * through YAML aliases is walked once per place it appears, as every later reader sees it.
 */
export function nestedDeeperThan(value: unknown, limit = MAX_JSON_DEPTH): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const pending: object[] = [value];
  const depths: number[] = [1];
  while (pending.length > 0) {
    const node = pending.pop() as object;
    const depth = depths.pop() as number;
    if (depth > limit) return true;
    if (Array.isArray(node)) {
      for (const child of node as unknown[]) {
        if (typeof child !== 'object' || child === null) continue;
        pending.push(child);
        depths.push(depth + 1);
      }
      continue;
    }
    // Not Object.values: on an object of 15,000 keys it made an array of them first, three times slower.
    for (const key in node) {
      const child: unknown = (node as Record<string, unknown>)[key];
      if (typeof child !== 'object' || child === null || !Object.hasOwn(node, key)) continue;
      pending.push(child);
      depths.push(depth + 1);
    }
  }
  return false;
}

/**
 * Whether JSON text, as UTF-8 bytes, opens objects and arrays deeper than `limit` outside
 * strings: for JSON that parses, the depth of the value it parses to, found in one pass over the
 * bytes instead of a walk of every object made (a walk of a 15,000-key body took longer than its
 * parse, decision 0057). Every byte of a multi-byte UTF-8 character is 0x80 or above, so none is
 * taken for a bracket or a quote; in UTF-16 one could be, so other encodings are not read here.
 */
export function jsonTextDeeperThan(bytes: Uint8Array, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (byte === QUOTE) {
      // A string: skip to its closing quote, past escaped characters.
      for (i++; i < bytes.length && bytes[i] !== QUOTE; i++) if (bytes[i] === BACKSLASH) i++;
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      if (++depth > limit) return true;
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) depth--;
  }
  return false;
}
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/**
 * Whether flow brackets in YAML text open deeper than `limit` (see scanYamlText): the first look
 * at YAML text, before its tokens (parseYamlDocument, src/lib/yaml-document.ts).
 */
export function yamlBracketsDeeperThan(source: string, limit = MAX_JSON_DEPTH): boolean {
  return scanYamlText(source, limit, Infinity).tooDeep;
}

/**
 * Whether the yaml package's token tree nests collections deeper than `limit`, checked before
 * any document is built from it: its parser is iterative, but building the document and turning
 * it into data recurse once per level (a flow sequence 1,000 deep overflowed the stack there, and
 * 50,000 deep took the process down). Aliases are not followed here: the data they make is
 * checked with nestedDeeperThan once built.
 */
export function tokensNestedDeeperThan(tokens: readonly CST.Token[], limit = MAX_JSON_DEPTH): boolean {
  const pending: CST.Token[] = [...tokens];
  const depths: number[] = tokens.map(() => 1);
  while (pending.length > 0) {
    const token = pending.pop() as CST.Token;
    const depth = depths.pop() as number;
    if (token.type === 'document') {
      if (token.value) {
        pending.push(token.value);
        depths.push(1);
      }
      continue;
    }
    if (token.type !== 'block-map' && token.type !== 'block-seq' && token.type !== 'flow-collection') continue;
    if (depth > limit) return true;
    // Its keys (YAML allows collections as keys) and values are one level further in.
    for (const item of token.items) {
      for (const child of [item.key, item.value]) {
        if (!child) continue;
        pending.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

/** Characters after which a quote opens a quoted scalar rather than sitting inside a plain one. */
const BEFORE_SCALAR = new Set(['', '[', '{', ',', ':', '-', '?', '\n']);

/**
 * The lines and flow entries of YAML text, counted in one pass over its characters (a newline,
 * or a comma inside `[…]` or `{…}`, outside quotes and comments): a bound on the nodes a
 * document of it can have, known before the yaml package spends microseconds on each. Counting
 * stops past `stopAfter`, so a megabyte costs no more than the part that crossed it.
 */
export function yamlEntries(source: string, stopAfter = Infinity): number {
  return scanYamlText(source, Infinity, stopAfter).entries;
}

/**
 * A first look at the text, in one pass: flow brackets (`[`, `{`) open deeper than `limit`
 * outside quotes and comments, and the lines and flow entries up to `stopAfter`. The yaml
 * package's own parser takes seconds on a megabyte of `[[[[` (5 s measured), so that shape is
 * refused here in milliseconds; a bracket inside a plain scalar counts too, which could only
 * refuse a text holding dozens of unmatched ones.
 */
function scanYamlText(source: string, limit: number, stopAfter: number): { tooDeep: boolean; entries: number } {
  let depth = 0;
  let entries = 0;
  let previous = '';
  for (let i = 0; i < source.length; i++) {
    const c = source[i] as string;
    if (c === ' ' || c === '\t' || c === '\r') continue;
    if (c === '#' && (i === 0 || /\s/.test(source[i - 1] as string))) {
      const end = source.indexOf('\n', i);
      if (end === -1) break;
      i = end - 1;
      continue;
    }
    if ((c === '"' || c === "'") && BEFORE_SCALAR.has(previous)) {
      // A quoted scalar: '' escapes a single quote, a backslash anything in double quotes.
      let j = i + 1;
      while (j < source.length) {
        const d = source[j];
        if (c === '"' && d === '\\') j += 2;
        else if (d === c && c === "'" && source[j + 1] === "'") j += 2;
        else if (d === c) break;
        else j++;
      }
      i = j;
      previous = c;
      continue;
    }
    if (c === '\n' || (c === ',' && depth > 0)) {
      if (++entries > stopAfter) break;
    } else if (c === '[' || c === '{') {
      if (++depth > limit) return { tooDeep: true, entries };
    } else if ((c === ']' || c === '}') && depth > 0) depth--;
    previous = c;
  }
  return { tooDeep: false, entries };
}
