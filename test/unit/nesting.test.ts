import { describe, expect, it } from 'vitest';
import { jsonTextDeeperThan, MAX_JSON_DEPTH, nestedDeeperThan, yamlEntries } from '../../src/lib/nesting.js';
import { parseYamlDocument } from '../../src/lib/yaml-document.js';
import { maskUserInfo } from '../../src/lib/uri.js';

const arrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const blockMaps = (depth: number) => Array.from({ length: depth }, (_, i) => `${' '.repeat(i)}a:`).join('\n') + `\n${' '.repeat(depth)}1\n`;

describe('nestedDeeperThan', () => {
  // Built in the test: vitest would print a deep value in the test's name.
  it.each([
    ['a scalar', () => 1, false],
    ['an empty object', () => ({}), false],
    [`${MAX_JSON_DEPTH} arrays`, () => JSON.parse(arrays(MAX_JSON_DEPTH)) as unknown, false],
    [`${MAX_JSON_DEPTH + 1} arrays`, () => JSON.parse(arrays(MAX_JSON_DEPTH + 1)) as unknown, true],
    ['100,000 objects (walked without recursion)', () => JSON.parse(`${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`) as unknown, true],
  ])('%s', (_name, value, deeper) => {
    expect(nestedDeeperThan(value())).toBe(deeper);
  });
});

describe('jsonTextDeeperThan (the UTF-8 bytes of a body, before they are parsed)', () => {
  const bytes = (text: string) => Buffer.from(text, 'utf8');
  it.each([
    ['a scalar', '1'],
    [`${MAX_JSON_DEPTH} arrays`, arrays(MAX_JSON_DEPTH)],
    [`${MAX_JSON_DEPTH + 1} arrays`, arrays(MAX_JSON_DEPTH + 1)],
    [`${MAX_JSON_DEPTH + 1} objects`, `${'{"a":'.repeat(MAX_JSON_DEPTH + 1)}1${'}'.repeat(MAX_JSON_DEPTH + 1)}`],
    ['brackets inside strings', `{"a":"${'['.repeat(100)}","b":[${'"{"'}]}`],
    ['escaped quotes before brackets inside strings', `{"a":"\\\\\\"${'['.repeat(100)}\\\\"}`],
    [`${MAX_JSON_DEPTH + 1} arrays after a string ending in a backslash`, `["\\\\",${arrays(MAX_JSON_DEPTH)}]`],
    ['non-ASCII text around the brackets', `{"é✓😀":[${arrays(MAX_JSON_DEPTH - 2)}, "ɛ"]}`],
    [`${MAX_JSON_DEPTH} levels side by side, many times`, `[${Array.from({ length: 50 }, () => arrays(MAX_JSON_DEPTH - 1)).join(',')}]`],
  ])('answers as a walk of the parsed value does: %s', (_name, text) => {
    expect(jsonTextDeeperThan(bytes(text))).toBe(nestedDeeperThan(JSON.parse(text)));
  });
});

describe('parseYamlDocument, on text nested too deep', () => {
  it.each([
    [`flow, ${MAX_JSON_DEPTH} deep`, `a: ${arrays(MAX_JSON_DEPTH - 1)}`, false],
    [`flow, ${MAX_JSON_DEPTH + 1} deep`, `a: ${arrays(MAX_JSON_DEPTH)}`, true],
    [`block maps, ${MAX_JSON_DEPTH} deep`, blockMaps(MAX_JSON_DEPTH), false],
    [`block maps, ${MAX_JSON_DEPTH + 1} deep`, blockMaps(MAX_JSON_DEPTH + 1), true],
    [`compact sequences, ${MAX_JSON_DEPTH} deep`, `${'- '.repeat(MAX_JSON_DEPTH)}1`, false],
    [`compact sequences, ${MAX_JSON_DEPTH + 1} deep`, `${'- '.repeat(MAX_JSON_DEPTH + 1)}1`, true],
    ['the second document of a stream', `x: 1\n---\n${arrays(MAX_JSON_DEPTH + 1)}`, true],
    ['flow 200,000 deep (the yaml package built such a document until the process died)', `a: ${arrays(200_000)}`, true],
  ])('%s', (_name, yaml, deeper) => {
    expect(parseYamlDocument(yaml) === undefined).toBe(deeper);
  });
});

describe('yamlEntries', () => {
  it.each([
    ['block lines', 'a: 1\nb: 2\n', 2],
    ['flow entries', 'a: [1, 2, 3]', 2],
    ['commas outside brackets are text', 'a: 1, 2, 3', 0],
    ['commas and newlines inside quotes', 'a: "1, 2\n3"\nb: \'x, y\'', 1],
    ['a comment line', '# one, two\na: 1', 1],
  ])('%s', (_name, yaml, entries) => {
    expect(yamlEntries(yaml)).toBe(entries);
  });

  it('stops counting past its limit', () => {
    expect(yamlEntries('\n'.repeat(1_000), 10)).toBe(11);
  });
});

describe('maskUserInfo', () => {
  it.each([
    ['https://user:pass@api.example.com/v1', 'https://***@api.example.com/v1'],
    ["--upstream must be an http or https URL; got 'ftp://me:secret@host'", "--upstream must be an http or https URL; got 'ftp://***@host'"],
    ['http://token@host and https://a:b@other:8080/x', 'http://***@host and https://***@other:8080/x'],
    ['no credentials: https://api.example.com/v1?x=a@b', 'no credentials: https://api.example.com/v1?x=a@b'],
  ])('%s', (text, masked) => {
    expect(maskUserInfo(text)).toBe(masked);
  });
});
