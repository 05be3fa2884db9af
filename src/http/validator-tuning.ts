import { createRequire } from 'node:module';

/**
 * Two costs of express-openapi-validator 5.6 that the mock pays for nothing, found
 * by profiling (docs/performance.md). Both are removed by wrapping a function the
 * validator calls through a module's exports, so that the validator's behaviour is
 * unchanged: same arguments in, same answers out. When a later version moves or
 * renames what is wrapped, the wrapping is skipped and everything still works
 * (only slower); the unit test says so.
 */
export function tuneValidator(): { routeCache: boolean; lazySpecValidator: boolean } {
  const fromValidator = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
  return { routeCache: cacheRouteMatchers(fromValidator), lazySpecValidator: deferSpecValidator(fromValidator) };
}

type PathToRegexp = ((path: unknown, options?: Record<string, unknown>) => unknown) & { tuned?: true };

/** A contract has tens of paths; the bound only guards against a caller passing request paths. */
const MAX_CACHED_ROUTES = 10_000;

/**
 * The validator finds a request's route by compiling every path of the contract
 * with path-to-regexp again, on every request, until one matches (`lookupRoute` in
 * its openapi.metadata; upstream PR cdimascio/express-openapi-validator#1217 caches
 * them). With our ~45 paths that was the largest single cost of a request, about a
 * fifth of the CPU of `GET /v1/connections`. A compiled route depends only on the
 * template and two flags, and the validator only reads it, so path-to-regexp's
 * function is wrapped with a cache. Anything unusual (other options, a path that is
 * not a string) goes straight through.
 */
function cacheRouteMatchers(require: NodeJS.Require): boolean {
  const module = require('path-to-regexp') as { pathToRegexp?: PathToRegexp };
  const original = module.pathToRegexp;
  if (typeof original !== 'function') return false;
  if (original.tuned) return true;
  // One map per flag combination, so a lookup builds no key string.
  const caches = [new Map<string, unknown>(), new Map<string, unknown>(), new Map<string, unknown>(), new Map<string, unknown>()];
  const cached: PathToRegexp = (path, options) => {
    if (typeof path !== 'string') return original(path, options);
    for (const name in options) if (name !== 'sensitive' && name !== 'strict') return original(path, options);
    const cache = caches[(options?.sensitive ? 1 : 0) + (options?.strict ? 2 : 0)] as Map<string, unknown>;
    let compiled = cache.get(path);
    if (compiled === undefined) {
      compiled = original(path, options);
      if (cache.size < MAX_CACHED_ROUTES) cache.set(path, compiled);
    }
    return compiled;
  };
  cached.tuned = true;
  module.pathToRegexp = cached;
  return true;
}

interface SpecValidator {
  validate(document: unknown): { errors: unknown[] };
}
type SpecValidatorClass = (new (options: unknown) => SpecValidator) & { tuned?: true };

/**
 * At start the validator compiles the whole OpenAPI 3 meta-schema for each contract
 * even with `validateApiSpec: false`, when it never uses it: about a quarter of the
 * mock's start-up. The class is replaced by one that compiles on first use, which
 * with `validateApiSpec: false` is never. (Our contracts are linted by redocly
 * instead: `npm run lint:openapi`.)
 */
function deferSpecValidator(require: NodeJS.Require): boolean {
  let module: { OpenAPISchemaValidator?: SpecValidatorClass };
  try {
    module = require('express-openapi-validator/dist/framework/openapi.schema.validator') as typeof module;
  } catch {
    return false;
  }
  const Eager = module.OpenAPISchemaValidator;
  if (typeof Eager !== 'function') return false;
  if (Eager.tuned) return true;
  class Deferred implements SpecValidator {
    static tuned = true as const;
    private compiled: SpecValidator | undefined;

    constructor(private readonly options: unknown) {}

    validate(document: unknown): { errors: unknown[] } {
      this.compiled ??= new (Eager as SpecValidatorClass)(this.options);
      return this.compiled.validate(document);
    }
  }
  module.OpenAPISchemaValidator = Deferred;
  return true;
}
