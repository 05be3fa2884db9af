import { LineCounter, isScalar, parseDocument, visit, YAMLParseError, type Document, type Node } from 'yaml';

/*
 * YAML from outside (scenarios, --config, the fixture file) read in time linear in its size.
 * The yaml package's own `uniqueKeys` check compares each new key of a mapping with every key
 * before it: a mapping of 30,000 keys (470 KB) took 27.7 s on a shared server, holding every
 * tenant (issue 35). Here the package builds the document without that check, and one pass
 * finds a repeated key with a set per mapping.
 */

/**
 * The first key (by position) that repeats an earlier key of its mapping, or undefined. Keys
 * are compared as the package compares them: scalars by value (`1` and `"1"` differ, as they
 * do there), any other key (a collection, an alias) by identity, so never equal.
 */
export function firstRepeatedKey(document: Document): Node | undefined {
  let first: Node | undefined;
  visit(document, {
    Map(_key, map) {
      const seen = new Set<unknown>();
      for (const pair of map.items) {
        if (!isScalar(pair.key)) continue;
        if (!seen.has(pair.key.value)) {
          seen.add(pair.key.value);
          continue;
        }
        if (!first || (pair.key.range?.[0] ?? Infinity) < (first.range?.[0] ?? Infinity)) first = pair.key;
        break;
      }
      return undefined;
    },
  });
  return first;
}

/**
 * `parseDocument` with duplicate keys refused in linear time: a repeated key is the document's
 * first error (DUPLICATE_KEY, "Map keys must be unique", with its line and column), as the
 * package's own check would have put it.
 */
export function parseYamlDocument(source: string, lineCounter = new LineCounter()): Document.Parsed {
  const document = parseDocument(source, { lineCounter, uniqueKeys: false });
  if (document.errors.length > 0) return document;
  const repeated = firstRepeatedKey(document);
  if (repeated) {
    const range = repeated.range ?? [0, 0];
    const error = new YAMLParseError([range[0], range[1]], 'DUPLICATE_KEY', 'Map keys must be unique');
    error.linePos = [lineCounter.linePos(range[0]), lineCounter.linePos(range[1])];
    document.errors.push(error);
  }
  return document;
}
