import { createRequire } from 'node:module';
import type * as OpenApiValidator from 'express-openapi-validator';

/**
 * express-openapi-validator's options as the mock ran it until it validated requests
 * itself (decision 0020): the Express baseline of the benchmark still runs it so, and
 * the parity test holds the mock's own validator to it.
 */
export function mockValidatorOptions(apiSpec: object): Parameters<typeof OpenApiValidator.middleware>[0] {
  return {
    apiSpec: apiSpec as unknown as string,
    validateRequests: { allowUnknownQueryParameters: false },
    validateResponses: false,
    validateSecurity: false,
    validateApiSpec: false,
    ignoreUndocumented: true,
    // The same as validateFormats: 'full', without the deprecation warning it printed at every start.
    validateFormats: true,
    ajvFormats: { mode: 'full' },
  };
}

/**
 * Four costs of express-openapi-validator 5.6 that the mock paid for nothing, found
 * by profiling (docs/performance.md), until it replaced the validator with its own
 * (decision 0020); the benchmark's Express baseline still applies them with --tuned. Both are removed by wrapping a function the
 * validator calls through a module's exports, so that the validator's behaviour is
 * unchanged: same arguments in, same answers out. When a later version moves or
 * renames what is wrapped, the wrapping is skipped and everything still works
 * (only slower); the unit test says so.
 */
export function tuneValidator(): { routeCache: boolean; lazySpecValidator: boolean; routeTable: boolean; oneStep: boolean } {
  const fromValidator = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
  return {
    routeCache: cacheRouteMatchers(fromValidator),
    lazySpecValidator: deferSpecValidator(fromValidator),
    routeTable: tableRouteLookup(fromValidator),
    oneStep: oneStepMiddleware(fromValidator),
  };
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

interface CompiledRoute {
  regexp: RegExp;
  keys: Array<{ name: string }>;
}

/** The parts of the validator's OpenApiContext that finding a route reads. */
interface RouteContext {
  expressRouteMap: Record<string, { basePath: string }>;
  routePair(route: string): { expressRoute: string; openApiRoute: string } | null;
  apiDoc: { paths: Record<string, Record<string, unknown> | undefined> };
  ignoreUndocumented: boolean;
  useRequestUrl: boolean;
  serial: number;
  shouldIgnoreRoute(path: string): boolean;
}

interface ValidatorRequest {
  path: string;
  baseUrl: string;
  url: string;
  originalUrl: string;
  method: string;
  app: { enabled(setting: string): boolean };
  params: unknown;
  openapi?: unknown;
}

type Middleware = (req: ValidatorRequest, res: unknown, next: (error?: unknown) => void) => void;
type MetadataMiddleware = ((this: unknown, context: RouteContext, responseApiDoc: unknown) => Middleware) & { tuned?: true };

/**
 * With the matchers cached, finding a request's route was still the validator's
 * largest cost (`lookupRoute`, 7% of the CPU of `GET /v1/connections`): for every
 * request it lists the route map again, and for every route on the way to the match
 * builds its path key and reads two app settings. Here the table is listed once,
 * when the validator builds its metadata middleware, and a request only runs the
 * routes' expressions in the same order, with the same first-match rule, the same
 * `req.openapi` and the same error for a malformed escape. Response validation and
 * `ignoreUndocumented: false` (which the mock uses neither of) keep the original.
 */
function tableRouteLookup(require: NodeJS.Require): boolean {
  let module: { OpenApiValidator?: { prototype: { metadataMiddleware?: MetadataMiddleware } } };
  let pathToRegexp: (path: string, options: object) => CompiledRoute;
  let BadRequest: new (options: { path: string; message: string }) => Error;
  try {
    module = require('express-openapi-validator/dist/openapi.validator') as typeof module;
    ({ pathToRegexp } = require('path-to-regexp') as { pathToRegexp: typeof pathToRegexp });
    ({ BadRequest } = require('express-openapi-validator/dist/framework/types') as { BadRequest: typeof BadRequest });
  } catch {
    return false;
  }
  const prototype = module.OpenApiValidator?.prototype;
  const original = prototype?.metadataMiddleware;
  if (!prototype || typeof original !== 'function' || typeof pathToRegexp !== 'function' || typeof BadRequest !== 'function') return false;
  if (original.tuned) return true;

  const tuned: MetadataMiddleware = function (this: unknown, context, responseApiDoc) {
    if (responseApiDoc || !context.ignoreUndocumented) return original.call(this, context, responseApiDoc);
    const routes = Object.entries(context.expressRouteMap).flatMap(([expressRoute, methods]) => {
      const openApiRoute = context.routePair(expressRoute)?.openApiRoute;
      if (openApiRoute === undefined) return [];
      // Compiled per flag combination on first use (sensitive, strict).
      const matchers: Array<CompiledRoute | undefined> = [];
      return [{ expressRoute, openApiRoute, pathKey: openApiRoute.substring(methods.basePath.length), matchers }];
    });
    return (req, _res, next) => {
      const path = req.path.startsWith(req.baseUrl) ? req.path : `${req.baseUrl}/${req.path}`;
      if (context.shouldIgnoreRoute(path)) return next();
      const requestPath = (context.useRequestUrl ? req.url : req.originalUrl).split('?')[0] ?? '';
      const sensitive = Boolean(req.app.enabled('case sensitive routing'));
      const strict = Boolean(req.app.enabled('strict routing'));
      const flags = (sensitive ? 1 : 0) + (strict ? 2 : 0);
      const method = req.method.toLowerCase();
      for (const route of routes) {
        const matcher = (route.matchers[flags] ??= pathToRegexp(route.expressRoute, { sensitive, strict }));
        const matched = matcher.regexp.exec(requestPath);
        if (!matched) continue;
        // A malformed escape is refused even where the method has no operation, as the validator does.
        const pathParams: Record<string, string> = {};
        try {
          matcher.keys.forEach((key, i) => (pathParams[key.name] = decodeURIComponent(matched[i + 1] as string)));
        } catch {
          throw new BadRequest({ path: req.path, message: "malformed uri'" });
        }
        const schema = context.apiDoc.paths[route.pathKey]?.[method];
        // A path matched with another method: the validator leaves such a request alone.
        if (!schema) return next();
        req.openapi = { expressRoute: route.expressRoute, openApiRoute: route.openApiRoute, pathParams, schema, serial: context.serial };
        req.params = pathParams;
        return next();
      }
      next();
    };
  };
  tuned.tuned = true;
  prototype.metadataMiddleware = tuned;
  return true;
}

/** The parts of the validator's OpenApiValidator that installing its middleware reads. */
interface ValidatorInstance {
  options: { validateRequests?: unknown; validateResponses?: unknown; validateSecurity?: unknown; operationHandlers?: unknown; fileUploader?: unknown; ignorePaths?: unknown; ignoreUndocumented?: boolean; useRequestUrl?: boolean };
  ajvOpts: { preprocessor: unknown };
  metadataMiddleware(context: unknown, responseApiDoc: unknown): Middleware;
  multipartMiddleware(apiDoc: unknown): Middleware;
  requestValidationMiddleware(apiDoc: unknown): Middleware;
}
type InstallMiddleware = ((this: ValidatorInstance, spec: Promise<{ apiDoc: unknown }>) => Middleware[]) & { tuned?: true };

/**
 * The validator installs five middlewares (path parameters, metadata, security,
 * multipart, request validation), and each of them, on every request, waits on the
 * promise of the loaded contract before doing its work: four promise hops and a
 * closure per request (about a sixth of the CPU of `GET /v1/posts/{postId}`, with the
 * validation itself). Here the same pieces are built once the contract has loaded and
 * run as one middleware, synchronously, in the same order. Left out: the security
 * step (the mock runs with `validateSecurity: false`, where it only calls `next`) and
 * the path-parameter step, which registers `app.param` coercions for the app's own
 * Express routes (the mock routes /v1 and /__control itself and reads its parameters
 * from the operation match). Requests that arrive before the contract has loaded wait
 * for it; an error loading it is every request's error, as before. Other option sets
 * (security, response validation, operation handlers) keep the original.
 */
function oneStepMiddleware(require: NodeJS.Require): boolean {
  let module: { OpenApiValidator?: { prototype: { installMiddleware?: InstallMiddleware } } };
  let SchemaPreprocessor: new (apiDoc: unknown, options: unknown, responses: unknown) => { preProcess(): { apiDocRes: unknown } };
  let OpenApiContext: new (spec: unknown, ignorePaths: unknown, ignoreUndocumented: unknown, useRequestUrl: unknown) => unknown;
  try {
    module = require('express-openapi-validator/dist/openapi.validator') as typeof module;
    ({ SchemaPreprocessor } = require('express-openapi-validator/dist/middlewares/parsers/schema.preprocessor') as { SchemaPreprocessor: typeof SchemaPreprocessor });
    ({ OpenApiContext } = require('express-openapi-validator/dist/framework/openapi.context') as { OpenApiContext: typeof OpenApiContext });
  } catch {
    return false;
  }
  const prototype = module.OpenApiValidator?.prototype;
  const original = prototype?.installMiddleware;
  if (!prototype || typeof original !== 'function' || typeof SchemaPreprocessor !== 'function' || typeof OpenApiContext !== 'function') return false;
  if (original.tuned) return true;

  const tuned: InstallMiddleware = function (this: ValidatorInstance, spec) {
    const { options } = this;
    if (!options.validateRequests || options.validateResponses || options.validateSecurity || options.operationHandlers) return original.call(this, spec);
    let chain: Middleware | undefined;
    const loaded = spec.then((loadedSpec) => {
      const preprocessed = new SchemaPreprocessor(loadedSpec.apiDoc, this.ajvOpts.preprocessor, options.validateResponses).preProcess();
      const context = new OpenApiContext(loadedSpec, options.ignorePaths, options.ignoreUndocumented, options.useRequestUrl);
      const metadata = this.metadataMiddleware(context, preprocessed.apiDocRes);
      const multipart = options.fileUploader ? this.multipartMiddleware(loadedSpec.apiDoc) : undefined;
      const request = this.requestValidationMiddleware(loadedSpec.apiDoc);
      const validate: Middleware = (req, res, next) => request(req, res, next);
      const afterMetadata: Middleware = multipart ? (req, res, next) => multipart(req, res, (error) => (error ? next(error) : validate(req, res, next))) : validate;
      chain = (req, res, next) => metadata(req, res, (error) => (error ? next(error) : afterMetadata(req, res, next)));
    });
    const oneStep: Middleware = (req, res, next) => {
      if (chain) return chain(req, res, next);
      loaded.then(() => oneStep(req, res, next), next);
    };
    return [oneStep];
  };
  tuned.tuned = true;
  prototype.installMiddleware = tuned;
  return true;
}
