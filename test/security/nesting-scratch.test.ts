import { it, expect } from 'vitest';
import { nestedDeeperThan, yamlNestedDeeperThan } from '../../src/lib/nesting.js';
it('x', () => {
  const j = (n: number) => JSON.parse('['.repeat(n) + ']'.repeat(n));
  expect(nestedDeeperThan(j(64))).toBe(false);
  expect(nestedDeeperThan(j(65))).toBe(true);
  expect(nestedDeeperThan(JSON.parse('{"a":'.repeat(100000) + '1' + '}'.repeat(100000)))).toBe(true);
  expect(yamlNestedDeeperThan('a: ' + '['.repeat(63) + ']'.repeat(63))).toBe(false);
  expect(yamlNestedDeeperThan('a: ' + '['.repeat(64) + ']'.repeat(64))).toBe(true);
  let s = ''; for (let i = 0; i < 64; i++) s += ' '.repeat(i) + 'a:\n'; s += ' '.repeat(64) + '1\n';
  expect(yamlNestedDeeperThan(s)).toBe(false);
  s = ''; for (let i = 0; i < 65; i++) s += ' '.repeat(i) + 'a:\n'; s += ' '.repeat(65) + '1\n';
  expect(yamlNestedDeeperThan(s)).toBe(true);
  expect(yamlNestedDeeperThan('- '.repeat(64) + '1')).toBe(false);
  expect(yamlNestedDeeperThan('- '.repeat(65) + '1')).toBe(true);
  expect(yamlNestedDeeperThan('a: ' + '{a: '.repeat(200000) + '1' + '}'.repeat(200000))).toBe(true);
  expect(yamlNestedDeeperThan('x: 1\n---\n' + '['.repeat(70) + ']'.repeat(70))).toBe(true);
});
