import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Workspace } from '../workspaces/workspace.js';
import { ApiError, noRoute, requestPath } from '../lib/errors.js';
import type { OperationIndex } from './operations.js';
import { jsonBody } from './json-body.js';
import { pipeline } from './pipeline.js';
import type { RouteDefinition } from './route.js';
import { RequestValidator } from './request-validator.js';
import type { Responder } from './respond.js';
import type { LoadedSpec, OpenApiDocument } from './spec.js';

/**
 * The request validator's copy of the document, holding only what request validation
 * reads. Left out:
 * - the `callbacks`: they describe the webhook requests the mock sends, not requests
 *   it receives, and ajv (draft-04, as OpenAPI 3.0 wants) takes the `id` fields of
 *   their examples for schema ids;
 * - every response, and every component only responses use: request validation never
 *   reads them, yet express-openapi-validator, which validated requests until
 *   decision 0020, crawled, preprocessed and compiled all of them at start (about a
 *   third of the mock's start-up). Responses are checked by the mock's own
 *   ContractChecker against the full document.
 */
export function requestContract(document: OpenApiDocument): OpenApiDocument {
  const { components, ...rest } = document;
  const copy = structuredClone(rest) as OpenApiDocument;
  for (const item of Object.values(copy.paths)) {
    for (const operation of Object.values(item)) {
      if (!operation || typeof operation !== 'object' || Array.isArray(operation)) continue;
      delete (operation as { callbacks?: unknown }).callbacks;
      if ('responses' in operation) (operation as { responses: unknown }).responses = {};
    }
  }
  if (!components) return copy;

  // Keep the components the requests reach, following references from the paths.
  const kept = new Set<string>();
  const pending = [...referencesIn(copy)];
  while (pending.length > 0) {
    const ref = pending.pop() as string;
    if (kept.has(ref)) continue;
    kept.add(ref);
    const [kind, name] = ref.replace('#/components/', '').split('/');
    const target = kind !== undefined && name !== undefined ? components[kind]?.[name.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
    if (target !== undefined) pending.push(...referencesIn(target));
  }
  copy.components = {};
  for (const [kind, entries] of Object.entries(components)) {
    // Security schemes are named by security requirements, not referenced.
    const reached = kind === 'securitySchemes' ? Object.entries(entries) : Object.entries(entries).filter(([name]) => kept.has(`#/components/${kind}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`));
    if (reached.length > 0) copy.components[kind] = structuredClone(Object.fromEntries(reached));
  }
  return copy;
}

/** Every local component reference in a node: `$ref`s, and discriminator mappings (which name schemas without `$ref`). */
function referencesIn(node: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(node)) {
    for (const item of node) referencesIn(item, found);
  } else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith('#/components/')) {
        found.add(value);
        continue;
      }
      if (key === 'mapping' && value && typeof value === 'object') {
        for (const target of Object.values(value)) if (typeof target === 'string' && target.startsWith('#/components/')) found.add(target);
      }
      referencesIn(value, found);
    }
  }
  return found;
}

export interface ContractRouterOptions {
  contract: 'api' | 'control';
  spec: LoadedSpec;
  index: OperationIndex;
  routes: ReadonlyMap<string, RouteDefinition>;
  /** Finds the request's workspace or throws 401. */
  authenticate: (req: Request) => Workspace;
  /** Steps between authentication and validation: the rate limit, scenario rules. */
  guards?: RequestHandler[];
  /** Steps between validation and the handler: idempotency. */
  beforeHandler?: RequestHandler[];
  /** Largest JSON body read: bytes, or a size such as '1mb'; a route may set its own (RouteDefinition.bodyLimitBytes). */
  bodyLimit: string | number;
  responder: Responder;
}

/**
 * The path of the first number in `value` that is not finite (`limit`, `a.b[0]`), if any.
 * The validator coerces `?limit=1e309` (or `Infinity`) to Infinity and lets it through
 * `maximum: 100`; JSON.parse turns `1e999` into Infinity as well.
 */
export function nonFinitePath(value: unknown): string | undefined {
  const at = nonFiniteAt(value);
  return at?.reduceRight<string>((path, segment) => (typeof segment === 'number' ? `${path}[${segment}]` : path === '' ? segment : `${path}.${segment}`), '');
}

/** The keys and indexes to the first number of `value` that is not finite, innermost first; the path is written only when there is one (a body of 15,000 keys wrote 15,000). */
function nonFiniteAt(value: unknown): Array<string | number> | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : [];
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = nonFiniteAt(value[i]);
      if (found) return [...found, i];
    }
    return undefined;
  }
  for (const key of Object.keys(value)) {
    const found = nonFiniteAt((value as Record<string, unknown>)[key]);
    if (found) return [...found, key];
  }
  return undefined;
}

/**
 * Reading the body, before validation. Only an operation that takes a body has one
 * read: a body sent along with a GET (or any operation that declares none) has no
 * meaning, so it is neither parsed nor refused, and cannot be too large or malformed
 * for an operation that ignores it. Then the Content-Type is cut down to its media
 * type (express.json has read the charset), and one the operation does not declare
 * is refused here: the validator keys its compiled validators by this header, and a
 * client varying it (`; v=1`, `; v=2`…) once grew express-openapi-validator's cache
 * without bound.
 */
export function bodySteps(bodyLimit: string | number, routes: ReadonlyMap<string, RouteDefinition> = new Map()): RequestHandler[] {
  const json = jsonBody(bodyLimit);
  // The few operations with limits of their own (a world to restore) get parsers of their own.
  const own = new Map<string, RequestHandler>();
  for (const [operationId, definition] of routes) {
    if (definition.bodyLimitBytes !== undefined || definition.bodyDepth !== undefined) own.set(operationId, jsonBody(definition.bodyLimitBytes ?? bodyLimit, definition.bodyDepth));
  }
  const parse: RequestHandler = (req, res, next) => {
    const operation = req.ctx.operation;
    if (!operation?.bodyMediaTypes.length) return next();
    (own.get(operation.operationId) ?? json)(req, res, (error?: unknown) => {
      // A JSON request with no body at all (neither Content-Length nor Transfer-Encoding, as a bare
      // DELETE sends) reads as an empty one, as `Content-Length: 0` does: a handler never meets an
      // absent body (the validator lets one through where the body schema requires no field).
      if (error === undefined && req.body === undefined && /^application\/([\w.+-]*\+)?json\b/i.test(req.headers['content-type'] ?? '')) req.body = {};
      next(error);
    });
  };
  const mediaType: RequestHandler = (req, _res, next) => {
    const header = req.headers['content-type'];
    const declared = req.ctx.operation?.bodyMediaTypes ?? [];
    if (header === undefined) return next();
    if (declared.length === 0) {
      delete req.headers['content-type'];
      return next();
    }
    const type = (header.split(';')[0] ?? '').trim().toLowerCase();
    if (!declared.includes(type)) {
      throw new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', `Send the body as ${declared.join(' or ')}; got '${type}'.`, { param: 'Content-Type' });
    }
    req.headers['content-type'] = type;
    next();
  };
  return [parse, mediaType];
}

/**
 * The request pipeline for one contract, top to bottom:
 * resolve operation → authenticate → guards → 404/405 → parse body → validate →
 * before-handler steps → handle. Every answer, errors included, goes out through
 * the responder, which records it and checks it against the contract.
 */
export function createContractRouter(options: ContractRouterOptions): RequestHandler {
  const steps: RequestHandler[] = [];
  const { index, responder } = options;

  steps.push((req, _res, next) => {
    req.ctx.contract = options.contract;
    const match = index.match(req.method, req.path === '/' ? req.baseUrl : `${req.baseUrl}${req.path}`);
    if (match.kind === 'found') {
      req.ctx.operation = match.operation;
      req.ctx.params = match.params;
    } else if (match.kind === 'method-not-allowed') {
      req.ctx.allowedMethods = match.allowed;
    }
    next();
  });

  steps.push((req, _res, next) => {
    const workspace = options.authenticate(req);
    req.ctx.workspace = workspace;
    req.ctx.arrivedAt = workspace.nowIso();
    next();
  });

  steps.push(...(options.guards ?? []));

  steps.push((req, _res, next) => {
    if (req.ctx.operation) return next();
    const allowed = req.ctx.allowedMethods;
    if (allowed) {
      throw new ApiError(405, 'METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${requestPath(req.originalUrl)}; use ${allowed.join(', ')}.`, {
        headers: { Allow: allowed.join(', ') },
      });
    }
    throw noRoute(req.method, req.originalUrl);
  });

  steps.push(...bodySteps(options.bodyLimit, options.routes));

  const validator = new RequestValidator(requestContract(options.spec.document));
  steps.push((req, _res, next) => {
    if (req.ctx.operation) validator.validate(req, req.ctx.operation, req.ctx.params);
    next();
  });
  steps.push((req, _res, next) => {
    const param = nonFinitePath(req.query) ?? nonFinitePath(req.body);
    if (param !== undefined) throw new ApiError(400, 'VALIDATION_ERROR', `${param === '' ? 'The body' : param} must be a finite number.`, { param: param === '' ? 'body' : param });
    next();
  });

  steps.push(...(options.beforeHandler ?? []));

  // A handler that answers at once is sent at once; only one that returns a promise waits for it
  // (the pipeline takes its rejection). Awaiting every answer cost each request a promise and a
  // trip through the microtask queue.
  steps.push((req: Request, res: Response, next: NextFunction) => {
    const { operation, workspace } = req.ctx;
    if (!operation || !workspace) return next();
    const definition = options.routes.get(operation.operationId);
    if (!definition) {
      throw new ApiError(501, 'NOT_IMPLEMENTED', `${operation.operationId} (${operation.method} ${operation.path}) is in the contract but not implemented by the mock yet.`);
    }
    const reply = definition.handle({
      workspace,
      operation,
      params: req.ctx.params,
      query: req.query as Record<string, unknown>,
      body: req.body as unknown,
      headers: req.headers,
      caller: req.ctx.caller,
    });
    if (reply instanceof Promise) return reply.then((answer) => responder.send(req, res, answer));
    responder.send(req, res, reply);
  });

  return pipeline(steps);
}
