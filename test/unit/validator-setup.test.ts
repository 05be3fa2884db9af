import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { requestContract } from '../../src/http/contract-router.js';
import { CONTRACT_FILES, loadSpec } from '../../src/http/spec.js';
import { tuneValidator } from '../../src/http/validator-tuning.js';

function references(node: unknown, found: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) references(item, found);
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') found.push(value);
      else references(value, found);
    }
  }
  return found;
}

function resolve(document: unknown, ref: string): unknown {
  let node = document;
  for (const raw of ref.replace(/^#\//, '').split('/')) node = (node as Record<string, unknown> | undefined)?.[raw.replace(/~1/g, '/').replace(/~0/g, '~')];
  return node;
}

describe('requestContract', () => {
  describe.each(CONTRACT_FILES)('of %s', (file) => {
    const document = loadSpec(file).document;
    const before = JSON.stringify(document);
    const copy = requestContract(document);

    it('resolves every reference it keeps', () => {
      const dangling = references(copy).filter((ref) => resolve(copy, ref) === undefined);
      expect(dangling).toEqual([]);
    });

    it('keeps every path, operation, parameter and request body', () => {
      for (const [path, item] of Object.entries(document.paths)) {
        for (const [method, operation] of Object.entries(item)) {
          const kept = copy.paths[path]?.[method] as Record<string, unknown> | undefined;
          if (!operation || typeof operation !== 'object' || Array.isArray(operation)) {
            expect(kept).toEqual(operation);
            continue;
          }
          const { responses: _responses, callbacks: _callbacks, ...requestSide } = operation as Record<string, unknown>;
          expect(kept, `${method} ${path}`).toEqual({ ...requestSide, responses: {} });
        }
      }
    });

    it('keeps the security schemes and leaves the original document as it was', () => {
      expect(copy.components?.securitySchemes).toEqual(document.components?.securitySchemes);
      expect(JSON.stringify(document)).toBe(before);
    });
  });

  it('drops the response-only components of openapi.yaml', () => {
    const copy = requestContract(loadSpec('openapi.yaml').document);
    expect(copy.components?.responses).toBeUndefined();
    expect(copy.components?.headers).toBeUndefined();
    expect(copy.components?.schemas?.['PostPage']).toBeUndefined();
    expect(copy.components?.schemas?.['CreatePostBody']).toBeDefined();
  });
});

describe('tuneValidator', () => {
  const fromValidator = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
  const tuned = tuneValidator();

  it('finds both things it tunes in the installed express-openapi-validator', () => {
    // False here means a new version moved them: the mock still works, but starts and answers slower.
    expect(tuned).toEqual({ routeCache: true, lazySpecValidator: true });
  });

  it('answers a route compiled once with the same matcher, as path-to-regexp would', () => {
    const { pathToRegexp } = fromValidator('path-to-regexp') as { pathToRegexp: (path: string, options?: object) => { regexp: RegExp; keys: Array<{ name: string }> } };
    const first = pathToRegexp('/v1/posts/:id', { sensitive: false, strict: false });
    expect(pathToRegexp('/v1/posts/:id', { sensitive: false, strict: false })).toBe(first);
    expect(pathToRegexp('/v1/posts/:id', { sensitive: true, strict: false })).not.toBe(first);
    expect(first.regexp.exec('/V1/posts/abc')?.[1]).toBe('abc');
    expect(pathToRegexp('/v1/posts/:id', { sensitive: true, strict: false }).regexp.exec('/V1/posts/abc')).toBeNull();
    expect(first.keys.map((key) => key.name)).toEqual(['id']);
  });

  it('still validates a document when asked to', () => {
    const { OpenAPISchemaValidator } = fromValidator('express-openapi-validator/dist/framework/openapi.schema.validator') as {
      OpenAPISchemaValidator: new (options: object) => { validate(document: unknown): { errors: unknown[] } };
    };
    const validator = new OpenAPISchemaValidator({ version: '3.0.3', validateApiSpec: true });
    expect(validator.validate({ openapi: '3.0.3', info: { title: 't', version: '1' }, paths: {} }).errors).toEqual([]);
    expect(validator.validate({ openapi: '3.0.3', paths: {} }).errors.length).toBeGreaterThan(0);
  });
});
