import { describe, expect, it } from 'vitest';
import { CONTROL_ROUTES_BY_TAG } from '../../src/control/index.js';
import type { ControlDependencies } from '../../src/control/dependencies.js';
import { OperationIndex } from '../../src/http/operations.js';
import { loadSpec } from '../../src/http/spec.js';

/*
 * The control plane is laid out by control.yaml's tags, as src/api/ is by area: the operations
 * of tag `Workspaces` are served by src/control/workspaces.ts, and by no other file. A reader
 * looking for an operation opens its tag's file; a new one joins the file its tag names.
 */

const document = loadSpec('control.yaml').document as ReturnType<typeof loadSpec>['document'] & { tags?: Array<{ name: string }> };
const index = new OperationIndex(document);
const tags = (document.tags ?? []).map((tag) => tag.name);

/** `Workspaces` → `workspaces`, `Request Budget` → `request-budget`. */
function fileOf(tag: string): string {
  return tag.replace(/([a-z0-9])([A-Z])/g, '$1-$2').replace(/\s+/g, '-').toLowerCase();
}

/**
 * Building a tag's routes only closes over the dependencies (nothing reads them until a request),
 * so the operation ids can be read without a server.
 */
const unused = {} as ControlDependencies;

/** Each tag's routes, as the module src/control/<tag>.ts exports them. */
const served = await Promise.all(
  tags.map(async (tag) => {
    const module = (await import(`../../src/control/${fileOf(tag)}.ts`)) as Record<string, unknown>;
    const factories = Object.values(module).filter((value): value is (dependencies: ControlDependencies) => Array<{ operationId: string }> => typeof value === 'function');
    return { tag, module, operationIds: factories.flatMap((routes) => routes(unused)).map((route) => route.operationId) };
  }),
);

describe('src/control/, one file per tag of control.yaml', () => {
  it('has a file for every tag, and the index joins exactly those files', () => {
    expect(tags.length).toBeGreaterThan(10);
    expect(Object.keys(CONTROL_ROUTES_BY_TAG).sort()).toEqual([...tags].sort());
    for (const { tag, module } of served) {
      expect(Object.values(module), `src/control/${fileOf(tag)}.ts exports what the index joins for ${tag}`).toContain(CONTROL_ROUTES_BY_TAG[tag as keyof typeof CONTROL_ROUTES_BY_TAG]);
    }
  });

  it.each(tags)('serves in its file only operations tagged %s', (tag) => {
    const { operationIds } = served.find((entry) => entry.tag === tag) ?? { operationIds: [] };
    expect(operationIds.length, `src/control/${fileOf(tag)}.ts serves nothing`).toBeGreaterThan(0);
    const elsewhere = operationIds.filter((operationId) => !(index.byOperationId(operationId)?.tags ?? []).includes(tag));
    expect(elsewhere, `operations src/control/${fileOf(tag)}.ts serves that control.yaml tags otherwise`).toEqual([]);
  });

  it('serves every operation of control.yaml exactly once', () => {
    const all = served.flatMap((entry) => entry.operationIds);
    expect([...all].sort()).toEqual(index.operations.map((operation) => operation.operationId).sort());
  });
});
