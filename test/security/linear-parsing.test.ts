import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type * as Yaml from 'yaml';
import { resolveOptions } from '../../src/cli/options.js';
import { MAX_SENT_SCENARIO_ENTRIES, parseScenario } from '../../src/scenarios/parse.js';
import { expectApiError, expectStatus, useMock } from '../helpers/mock.js';
import { freshWorkspace } from '../helpers/scenarios.js';

/*
 * Issue 35, item 3: parsing takes time linear in what is parsed. The yaml package's own
 * duplicate-key check compares each new key of a mapping with every key before it, so a
 * mapping of n keys costs n²/2 comparisons: an anonymous scenario of 30,000 keys held every
 * tenant 27.7 s, an addRule of 209 KB 7.2 s, a 289 KB --config delayed the start 8.6 s.
 *
 * The work is counted, not timed: the yaml package is wrapped so that every key comparison
 * its own check makes is counted (the comparison is the package's, util-map-includes.js).
 * The wall time of the same inputs is in `npm run bench:hostile` and docs/reliability.md.
 * This file has a module registry of its own (vitest.config.ts: ISOLATED) for the wrap.
 */

const counter = vi.hoisted(() => ({ comparisons: 0 }));

vi.mock('yaml', async (importOriginal) => {
  const yaml = await importOriginal<typeof Yaml>();
  const counted = (a: unknown, b: unknown): boolean => {
    counter.comparisons++;
    return a === b || (yaml.isScalar(a) && yaml.isScalar(b) && a.value === b.value);
  };
  // The package checks keys unless told `uniqueKeys: false`; its check is made to count.
  const withCount = <T extends { uniqueKeys?: unknown }>(options?: T) => (options?.uniqueKeys === false ? options : { ...options, uniqueKeys: counted });
  return {
    ...yaml,
    parseDocument: (source: string, options?: Parameters<typeof yaml.parseDocument>[1]) => yaml.parseDocument(source, withCount(options)),
    parse: (source: string, reviverOrOptions?: unknown, options?: Parameters<typeof yaml.parse>[2]) =>
      typeof reviverOrOptions === 'function' ? yaml.parse(source, reviverOrOptions as Parameters<typeof yaml.parse>[1], withCount(options)) : yaml.parse(source, withCount(reviverOrOptions as Parameters<typeof yaml.parse>[2])),
  };
});

const mock = useMock();

/** Keys as the attacks used them: short and distinct. */
const keys = (n: number) => Array.from({ length: n }, (_, i) => `k${i.toString(36).padStart(6, '0')}`);

/** A scenario whose one rule answers a JSON body of `n` keys, as YAML (one key a line). */
function scenarioWithKeys(n: number, repeatLast = false): string {
  const names = keys(n);
  if (repeatLast) names[n - 1] = names[0] as string;
  return ['rules:', '  - id: wide', '    match: { operationId: listConnections }', '    then:', '      respond:', '        status: 200', '        json:', ...names.map((name) => `          ${name}: 1`), ''].join('\n');
}

beforeEach(() => {
  counter.comparisons = 0;
});

describe('a scenario with a wide mapping', () => {
  it(`is read without comparing keys pair by pair (${MAX_SENT_SCENARIO_ENTRIES - 100} keys: no comparison by the package, where there were n²/2)`, () => {
    const n = MAX_SENT_SCENARIO_ENTRIES - 100;
    const parsed = parseScenario({ name: 'wide', file: '<inline>', yaml: scenarioWithKeys(n) });
    expect(Object.keys(parsed.scenario.rules[0]?.then.respond?.json as object)).toHaveLength(n);
    expect(counter.comparisons).toBeLessThan(n);
  });

  it('still refuses a repeated key, at its line', () => {
    const n = 3_000;
    expect(() => parseScenario({ name: 'wide', file: '<inline>', yaml: scenarioWithKeys(n, true) })).toThrow(`<inline>:${7 + n}:11: not valid YAML: Map keys must be unique`);
    expect(counter.comparisons).toBeLessThan(n);
  });

  it(`is refused unread when sent anonymously with more than ${MAX_SENT_SCENARIO_ENTRIES} lines, and another tenant is served`, async () => {
    const other = await freshWorkspace(mock);
    const res = await mock.control('post', '/__control/workspaces').send({ scenario: scenarioWithKeys(MAX_SENT_SCENARIO_ENTRIES + 1) });
    expectApiError(res, 400, 'INVALID_SCENARIO', 'scenario');
    expect(res.body.error.message).toContain(`more than ${MAX_SENT_SCENARIO_ENTRIES} lines and flow entries`);
    expect(counter.comparisons).toBe(0);
    expectStatus(await mock.call('get', '/v1/connections', other), 200);
  });

  it('is refused unread on one line of flow entries too (POST /__control/scenarios)', async () => {
    const key = await freshWorkspace(mock);
    const flow = `rules: [{ id: wide, match: { operationId: listConnections }, then: { respond: { status: 200, json: { ${keys(MAX_SENT_SCENARIO_ENTRIES + 1).map((name) => `${name}: 1`).join(', ')} } } } }]`;
    const res = await mock.control('post', '/__control/scenarios', key).send({ yaml: flow });
    expectApiError(res, 400, 'INVALID_SCENARIO', 'yaml');
    expect(counter.comparisons).toBe(0);
  });

  it('is refused by the contract past 262,144 characters, before any parsing', async () => {
    const res = await mock.control('post', '/__control/workspaces').send({ scenario: `name: big\ndescription: "${'x'.repeat(262_144)}"\n` });
    expectApiError(res, 400, 'VALIDATION_ERROR', 'scenario');
  });
});

describe('a run-time rule with a wide body', () => {
  it('is checked as the JSON it came as, never written out and read back as YAML', async () => {
    const key = await freshWorkspace(mock);
    const n = 3_000;
    const json = Object.fromEntries(keys(n).map((name) => [name, 1]));
    const res = await mock.control('post', '/__control/rules', key).send({ id: 'wide', match: { operationId: 'listConnections' }, then: { respond: { status: 200, json } } });
    expectStatus(res, 201);
    expect(counter.comparisons).toBe(0);
    const answer = await mock.call('get', '/v1/connections', key);
    expect(Object.keys(answer.body as object)).toHaveLength(n);
  });
});

describe('a --config file with a wide mapping', () => {
  it('is read without comparing keys pair by pair, and a repeated key is still refused at its line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'linear-config-'));
    const n = 3_000;
    const names = keys(n);
    const file = join(dir, 'config.yaml');
    writeFileSync(file, `port: 4010\nlabels:\n${names.map((name) => `  ${name}: 1`).join('\n')}\n  ${names[0]}: 2\n`);
    expect(() => resolveOptions(['--config', file], { env: {}, cwd: dir })).toThrow(`not valid YAML at line ${n + 3}, column 3 (DUPLICATE_KEY)`);
    expect(counter.comparisons).toBeLessThan(n);
  });
});
