import { setImmediate as nextTurn } from 'node:timers/promises';
import { Composer, Lexer, LineCounter, Parser, isScalar, visit, YAMLParseError, type CST, type Document, type Node } from 'yaml';
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
 * Lexemes read between two turns of the event loop when a document is read in slices: about a
 * millisecond of the yaml package's tokenizer on a quiet core, so a scenario a request sent
 * never holds the other tenants for its whole parse (decision 0057).
 */
export const LEXEMES_PER_SLICE = 1_000;

/**
 * `parseDocument` with duplicate keys refused in linear time: a repeated key is the document's
 * first error (DUPLICATE_KEY, "Map keys must be unique", with its line and column), as the
 * package's own check would have put it. Undefined when the text nests collections deeper than
 * `maxDepth` (MAX_JSON_DEPTH), found before any document is built: building one recurses once
 * per level, and turning it into data again.
 */
export function parseYamlDocument(source: string, lineCounter = new LineCounter(), maxDepth = MAX_JSON_DEPTH): Document.Parsed | undefined {
  if (yamlBracketsDeeperThan(source, maxDepth)) return undefined;
  return documentOf(source, Array.from(new Parser(lineCounter.addNewLine).parse(source)), lineCounter, maxDepth);
}

/**
 * parseYamlDocument for text a request sent: the same document, with the event loop let go every
 * LEXEMES_PER_SLICE lexemes while the text is tokenized (two thirds of a parse). The package's
 * Parser.parse tokenizes the whole text in one step; its lexer and `next`, the loop its own
 * documentation shows, are driven here one lexeme at a time instead, whatever the lines are
 * like: a flow mapping of 2,000 entries on one line is sliced as 2,000 lines are.
 */
export async function readYamlDocument(source: string, lineCounter = new LineCounter(), maxDepth = MAX_JSON_DEPTH): Promise<Document.Parsed | undefined> {
  if (yamlBracketsDeeperThan(source, maxDepth)) return undefined;
  const parser = new Parser(lineCounter.addNewLine);
  const tokens: CST.Token[] = [];
  // Parser.parse reports the first line's start itself; driven by hand, the parser does not.
  lineCounter.addNewLine(0);
  let lexemes = 0;
  for (const lexeme of new Lexer().lex(source)) {
    for (const token of parser.next(lexeme)) tokens.push(token);
    if (++lexemes % LEXEMES_PER_SLICE === 0) await nextTurn();
  }
  for (const token of parser.end()) tokens.push(token);
  return documentOf(source, tokens, lineCounter, maxDepth);
}

/** The document of `source` from its tokens; undefined when they nest deeper than `maxDepth`. */
function documentOf(source: string, tokens: CST.Token[], lineCounter: LineCounter, maxDepth: number): Document.Parsed | undefined {
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
