import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { requestContract } from '../../src/http/contract-router.js';
import { CONTRACT_FILES, loadSpec } from '../../src/http/spec.js';
import { tuneValidator } from '../../bench/lib/validator-tuning.js';

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
    expect(copy.components?.requestBodies?.['CreatePostBody']).toBeDefined();
  });
});

describe('tuneValidator', () => {
  const fromValidator = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
  const tuned = tuneValidator();

  it('finds both things it tunes in the installed express-openapi-validator', () => {
    // False here means a new version moved them: the mock still works, but starts and answers slower.
    expect(tuned).toEqual({ routeCache: true, lazySpecValidator: true, routeTable: true, oneStep: true });
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

/** What a metadata middleware did with one request: what it set, or the error it threw. */
interface Outcome {
  openapi?: unknown;
  params?: unknown;
  error?: string;
}

describe('the route table lookup', () => {
  const fromValidator = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
  tuneValidator();
  const { applyOpenApiMetadata } = fromValidator('express-openapi-validator/dist/middlewares/openapi.metadata') as {
    applyOpenApiMetadata: (context: unknown, responseApiDoc: unknown) => (req: object, res: unknown, next: () => void) => void;
  };
  const { OpenApiContext } = fromValidator('express-openapi-validator/dist/framework/openapi.context') as { OpenApiContext: new (...args: unknown[]) => object };
  const { OpenApiSpecLoader } = fromValidator('express-openapi-validator/dist/framework/openapi.spec.loader') as {
    OpenApiSpecLoader: new (options: object) => { load(): Promise<unknown> };
  };
  const { OpenApiValidator } = fromValidator('express-openapi-validator/dist/openapi.validator') as {
    OpenApiValidator: { prototype: { metadataMiddleware(context: unknown, responseApiDoc: unknown): (req: object, res: unknown, next: () => void) => void } };
  };

  function run(middleware: (req: object, res: unknown, next: () => void) => void, method: string, url: string, app: Record<string, boolean>): Outcome {
    const path = url.split('?')[0] ?? '';
    const req: Record<string, unknown> = { method, url, originalUrl: url, baseUrl: '', path, params: {}, app: { enabled: (name: string) => app[name] === true } };
    try {
      middleware(req, {}, () => undefined);
    } catch (error) {
      return { error: `${(error as Error).constructor.name}: ${(error as Error).message}` };
    }
    return { openapi: req['openapi'], params: req['params'] };
  }

  it.each(CONTRACT_FILES)('finds what the validator itself finds, request by request, in %s', async (file) => {
    const document = loadSpec(file).document;
    const spec = await new OpenApiSpecLoader({ apiDoc: structuredClone(requestContract(document)), validateApiSpec: false, $refParser: { mode: 'bundle' } }).load();
    const context = new OpenApiContext(spec, undefined, true, false);
    const original = applyOpenApiMetadata(context, undefined);
    const tunedLookup = OpenApiValidator.prototype.metadataMiddleware(context, undefined);
    expect(tunedLookup).not.toBe(original);

    const base = file === 'openapi.yaml' ? '/v1' : '/__control';
    const urls: Array<[string, string]> = [];
    for (const [template, item] of Object.entries(document.paths)) {
      const filled = template.replace(/\{[^}]+\}/g, (_m, i: number) => (i % 2 ? 'Ab%20c' : 'id_1'));
      for (const method of ['GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'HEAD']) {
        if (!(method.toLowerCase() in (item as object)) && method !== 'PUT') continue;
        urls.push([method, filled], [method, `${filled}?limit=2`], [method, `${filled}/`], [method, filled.toUpperCase()]);
      }
      urls.push(['GET', template.replace(/\{[^}]+\}/g, '%E0%A4%A')], ['GET', `${filled}/extra`]);
    }
    urls.push(['GET', `${base}/nowhere`], ['GET', '/elsewhere'], ['GET', base]);

    let found = 0;
    const settings: Array<Record<string, boolean>> = [{}, { 'strict routing': true }, { 'case sensitive routing': true }];
    for (const app of settings) {
      for (const [method, url] of urls) {
        const expected = run(original, method, url, app);
        expect(run(tunedLookup, method, url, app), `${method} ${url} ${JSON.stringify(app)}`).toEqual(expected);
        if (expected.openapi) found++;
      }
    }
    // The comparison is about something: most of the requests name a route, and some are malformed.
    expect(found).toBeGreaterThan(urls.length);
    expect(urls.some(([method, url]) => run(original, method, url, {}).error?.includes('malformed'))).toBe(true);
  });
});
