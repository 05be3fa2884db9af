import { Composer, LineCounter, Parser, isScalar, visit, YAMLParseError, type Document, type Node } from 'yaml';
import { MAX_JSON_DEPTH, tokensNestedDeeperThan, yamlBracketsDeeperThan } from './nesting.js';

/*
 * YAML from outside (scenarios, --config, the fixture file) read in time linear in its size.
 * The yaml package's own `uniqueKeys` check compares each new key of a mapping with every key
 * before it: a mapping of 30,000 keys (470 KB) took 27.7 s on a shared server, holding every
 * tenant (issue 35). Here the package builds the document without that check, and one pass
 * finds a repeated key with a set per mapping. The text is tokenized once, and its depth checked
 * on those tokens before the document is built from them (the parser's tokens are half the cost
 * of a parse; the depth check used to parse the text a second time).
 */

/**
 * The first key (by position) that repeats an earlier key of its mapping, or undefined. Keys
 * are compared as the package compares them: scalars by value (`1` and `"1"` differ, as they
 * do there), any other key (a collection, an alias) by identity, so never equal.
 */
function firstRepeatedKey(document: Document): Node | undefined {
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
 * package's own check would have put it. Undefined when the text nests collections deeper than
 * `maxDepth` (MAX_JSON_DEPTH), found before any document is built: building one recurses once
 * per level, and turning it into data again.
 */
export function parseYamlDocument(source: string, lineCounter = new LineCounter(), maxDepth = MAX_JSON_DEPTH): Document.Parsed | undefined {
  if (yamlBracketsDeeperThan(source, maxDepth)) return undefined;
  const tokens = Array.from(new Parser(lineCounter.addNewLine).parse(source));
  if (tokensNestedDeeperThan(tokens, maxDepth)) return undefined;
  const composer = new Composer({ uniqueKeys: false });
  const [document, second] = Array.from(composer.compose(tokens, true, source.length)) as [Document.Parsed, Document.Parsed | undefined];
  if (second) document.errors.push(new YAMLParseError([second.range[0], second.range[1]], 'MULTIPLE_DOCS', 'Source contains multiple documents; please use YAML.parseAllDocuments()'));
  if (document.errors.length === 0) {
    const repeated = firstRepeatedKey(document);
    if (repeated) {
      const range = repeated.range ?? [0, 0];
      document.errors.push(new YAMLParseError([range[0], range[1]], 'DUPLICATE_KEY', 'Map keys must be unique'));
    }
  }
  for (const error of document.errors) error.linePos = [lineCounter.linePos(error.pos[0]), lineCounter.linePos(error.pos[1])];
  return document;
}
