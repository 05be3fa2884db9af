import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OperationIndex } from '../../src/http/operations.js';
import { loadSpec, type OpenApiDocument } from '../../src/http/spec.js';

const document: OpenApiDocument = {
  openapi: '3.0.3',
  info: { title: 't', version: '1' },
  paths: {
    '/v1/things': {
      get: { operationId: 'listThings' },
      post: { operationId: 'createThing', requestBody: { content: { 'application/json': {} } } },
    },
    '/v1/things/{id}': { patch: { operationId: 'updateThing', requestBody: { $ref: '#/components/requestBodies/ThingPatch' } } },
  },
  components: { requestBodies: { ThingPatch: { content: { 'application/json': {}, 'application/merge-patch+json': {} } } } },
};

describe('OperationIndex', () => {
  it.each([
    ['listThings', []],
    ['createThing', ['application/json']],
    ['updateThing', ['application/json', 'application/merge-patch+json']],
  ])('knows the body media types of %s, following a $ref to components.requestBodies', (operationId, mediaTypes) => {
    expect(new OperationIndex(document).byOperationId(operationId)?.bodyMediaTypes).toEqual(mediaTypes);
  });
});

/** Matching as it was first written: every template of the contract tried in turn, most literal segments first. */
function matchEveryTemplate(doc: OpenApiDocument, method: string, path: string): { kind: string; operationId?: string; params?: Record<string, string>; allowed?: string[] } {
  const templates = Object.entries(doc.paths)
    .map(([template, item]) => {
      const names: string[] = [];
      const segments = template.split('/');
      const pattern = new RegExp(`^${segments.map((s) => (/^\{(\w+)\}$/.test(s) ? (names.push(s.slice(1, -1)), '([^/]+)') : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/')}$`);
      return { pattern, names, literal: segments.length - names.length, item: item as Record<string, { operationId?: string } | undefined> };
    })
    .sort((a, b) => b.literal - a.literal);
  const allowed = new Set<string>();
  for (const template of templates) {
    const found = template.pattern.exec(path);
    if (!found) continue;
    const op = template.item[method.toLowerCase()] ?? (method === 'HEAD' ? template.item.get : undefined);
    if (op?.operationId) {
      const params: Record<string, string> = {};
      template.names.forEach((name, i) => {
        const raw = found[i + 1] as string;
        try {
          params[name] = decodeURIComponent(raw);
        } catch {
          params[name] = raw;
        }
      });
      return { kind: 'found', operationId: op.operationId, params };
    }
    for (const m of Object.keys(template.item)) if ((['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const).some((h) => h === m)) allowed.add(m.toUpperCase());
  }
  return allowed.size > 0 ? { kind: 'method-not-allowed', allowed: [...allowed].sort() } : { kind: 'not-found' };
}

describe('OperationIndex.match', () => {
  it.each(['openapi.yaml', 'control.yaml'])('finds in %s what trying every template finds, for every path of the contract and paths near them', (file) => {
    const doc = loadSpec(file).document;
    const index = new OperationIndex(doc);
    const segment = fc.oneof(fc.constantFrom('x', 'abc', '%20', '%E2%9C%93', '%zz', 'posts', 'like', 'v1', '__control', ''), fc.string({ maxLength: 6 }).filter((s) => !s.includes('/')));
    const paths = fc.oneof(
      // A path of the contract with its parameters filled in.
      fc.tuple(fc.constantFrom(...Object.keys(doc.paths)), fc.array(segment, { minLength: 4, maxLength: 4 })).map(([template, values]) => {
        let i = 0;
        return template.replace(/\{\w+\}/g, () => values[i++ % values.length] ?? 'x');
      }),
      // One with a segment more or fewer, or any path at all.
      fc.tuple(fc.constantFrom(...Object.keys(doc.paths)), segment).map(([template, extra]) => `${template.replace(/\{\w+\}/g, 'x')}/${extra}`),
      fc.constantFrom(...Object.keys(doc.paths)).map((template) => template.split('/').slice(0, -1).join('/')),
      fc.array(segment, { maxLength: 5 }).map((segments) => `/${segments.join('/')}`),
    );
    fc.assert(
      fc.property(fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE', 'PUT', 'HEAD', 'OPTIONS'), paths, (method, path) => {
        const found = index.match(method, path);
        const expected = matchEveryTemplate(doc, method, path);
        if (found.kind === 'found') expect({ kind: found.kind, operationId: found.operation.operationId, params: found.params }).toEqual(expected);
        else if (found.kind === 'method-not-allowed') expect({ kind: found.kind, allowed: [...found.allowed].sort() }).toEqual(expected);
        else expect(found).toEqual(expected);
      }),
      { seed: 37, numRuns: 3000 },
    );
  });
});
