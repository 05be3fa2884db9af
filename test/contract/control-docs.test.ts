import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONTROL_OPERATIONS } from '../../src/generated/control-operations.js';
import { packagePath } from '../../src/lib/package-root.js';

/*
 * The README's control-plane table, docs/typescript.md's method table and the methods of
 * control-methods.ts are generated from control.yaml (test/contract/generated.test.ts fails when
 * one is stale). The methods whose answers are not JSON are written by hand in control-client.ts:
 * their TSDoc must still open with the method and path control.yaml gives them, and no operation
 * may be left without a documented method in one file or the other.
 */

describe("ControlClient's TSDoc", () => {
  it('opens each operation method with its method and path as control.yaml gives them', () => {
    const source = ['control-client.ts', 'control-methods.ts'].map((file) => readFileSync(packagePath('src', 'client', file), 'utf8')).join('\n');
    const documented = Object.fromEntries(
      [...source.matchAll(/\/\*\*([\s\S]*?)\*\/\s*(?:async\s+)?(\w+)\(/g)]
        .filter(([, , name]) => name !== undefined && name in CONTROL_OPERATIONS)
        .map(([, doc = '', name = '']) => [name, /`([A-Z]+ \/__control\/[^`]*)`/.exec(doc)?.[1]]),
    );
    const expected = Object.fromEntries(Object.entries(CONTROL_OPERATIONS).map(([name, { method, path }]) => [name, `${method} ${path}`]));
    expect(documented).toEqual(expected);
  });
});
