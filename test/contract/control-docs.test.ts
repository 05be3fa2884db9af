import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONTROL_OPERATIONS } from '../../src/generated/control-operations.js';
import { packagePath } from '../../src/lib/package-root.js';

/*
 * The README's control-plane table, docs/typescript.md's method table and the TSDoc of
 * ControlClient's methods are prose for readers (calls grouped, limits and decisions linked,
 * examples), so they are written, not generated; but the method and path of each operation are
 * control.yaml's (the generated table): a row missing, a path mistyped or an operation gone from
 * the contract fails here.
 */

/**
 * Every `METHOD /__control/...` a table cell names: `/resume` after `/freeze` stands for its
 * sibling, and `GET\|POST /x` or `GET`, `POST /x` for both methods.
 */
function routesIn(cell: string): string[] {
  const routes: string[] = [];
  let methods: string[] = [];
  let pending: string[] = [];
  let last = '';
  for (const [, code] of cell.matchAll(/`([^`]+)`/g)) {
    const full = /^((?:[A-Z]+\\?\|)*[A-Z]+) (\/__control\/\S*)$/.exec(code ?? '');
    if (/^[A-Z]+$/.test(code ?? '')) {
      pending.push(code ?? '');
      continue;
    }
    if (full) {
      methods = [...pending, ...(full[1] ?? '').split('\\|')];
      pending = [];
      last = full[2] ?? '';
    } else if (/^\/[\w-]+$/.test(code ?? '') && last !== '') {
      last = last.replace(/\/[^/]+$/, code ?? '');
    } else continue;
    for (const method of methods) routes.push(`${method} ${last}`);
  }
  return routes;
}

/** The rows of the first table after `heading` in a Markdown file: its cells, header and rule left out. */
function tableAfter(file: string, heading: string): string[][] {
  const text = readFileSync(packagePath(file), 'utf8');
  const from = text.indexOf(heading);
  if (from < 0) throw new Error(`${file} has no ${heading}`);
  const lines = text.slice(from).split('\n');
  const start = lines.findIndex((line) => line.startsWith('|'));
  const end = lines.findIndex((line, index) => index > start && !line.startsWith('|'));
  return lines.slice(start + 2, end).map((line) => line.split(/(?<!\\)\|/).slice(1, -1).map((cell) => cell.trim()));
}

const declared = Object.values(CONTROL_OPERATIONS).map(({ method, path }) => `${method} ${path}`).sort();

describe("the README's control-plane table", () => {
  it('names every operation of control.yaml at its method and path, and nothing else', () => {
    const rows = tableAfter('README.md', '## The control plane');
    expect(rows.flatMap(([call = '']) => routesIn(call)).sort()).toEqual(declared);
  });
});

describe("docs/typescript.md's table of ControlClient methods", () => {
  const rows = tableAfter('docs/typescript.md', '| Method | Call |');

  it('has a row for every operation, named by its operationId', () => {
    const named = rows.flatMap(([methods = '']) => [...methods.matchAll(/`(\w+)\(/g)].map((match) => match[1]));
    expect(named.filter((name) => name !== 'close').sort()).toEqual(Object.keys(CONTROL_OPERATIONS).sort());
  });

  it("gives each its method and path as control.yaml does", () => {
    expect(rows.flatMap(([, call = '']) => routesIn(call)).sort()).toEqual(declared);
  });
});

describe("ControlClient's TSDoc", () => {
  it('opens each operation method with its method and path as control.yaml gives them', () => {
    const source = readFileSync(packagePath('src', 'client', 'control-client.ts'), 'utf8');
    const documented = Object.fromEntries(
      [...source.matchAll(/\/\*\*([\s\S]*?)\*\/\s*(?:async\s+)?(\w+)\(/g)]
        .filter(([, , name]) => name !== undefined && name in CONTROL_OPERATIONS)
        .map(([, doc = '', name = '']) => [name, /`([A-Z]+ \/__control\/[^`]*)`/.exec(doc)?.[1]]),
    );
    const expected = Object.fromEntries(Object.entries(CONTROL_OPERATIONS).map(([name, { method, path }]) => [name, `${method} ${path}`]));
    expect(documented).toEqual(expected);
  });
});
