import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { apiRoutes, eventSubscribers, jobHandlers } from './api/index.js';
import { systemTime, type RealTime } from './clock/real-time.js';
import { controlRoutes } from './control/routes.js';
import { docsRouter } from './docs/docs-page.js';
import { populateWorkspace } from './fixtures/populate.js';
import { authenticateApi, authenticateControl } from './http/authenticate.js';
import { ContractChecker, type ContractViolation } from './http/contract.js';
import { createContractRouter } from './http/contract-router.js';
import { cors } from './http/cors.js';
import { toApiError } from './http/error-mapping.js';
import { clientErrorHandler, DEFAULT_HTTP_LIMITS, serverOptions, urlLengthGuard, type HttpLimits } from './http/transport.js';
import { Idempotency, idempotentOperations } from './http/idempotency.js';
import { ApiError } from './http/errors.js';
import { OperationIndex } from './http/operations.js';
import { Responder } from './http/respond.js';
import type { RouteDefinition } from './http/route.js';
import { loadSpec } from './http/spec.js';
import './http/context.js';
import { AnonymousBudget, rateLimitStep } from './limits/request-budget.js';
import { Database } from './store/database.js';
import type { PlanName } from './workspaces/plans.js';
import { WorkspaceRegistry } from './workspaces/registry.js';
import { VERSION } from './version.js';

export interface MockServerOptions {
  /** Seed of every id and fake value (default 1). */
  seed?: number;
  /** Key of the default workspace (default `sgw_test_default`). */
  apiKey?: string;
  plan?: PlanName;
  /** Virtual start time, ISO 8601 (default: now). */
  clock?: string;
  /** Start every workspace's clock frozen. */
  clockFrozen?: boolean;
  /** Persist to this JSON file and reload it on the next start. */
  dataFile?: string;
  /** Turn a response that breaks the contract into a 500 CONTRACT_VIOLATION. */
  strictResponses?: boolean;
  /** Journal entries kept per workspace (default 1000). */
  journalSize?: number;
  /** Require x-control-token on /__control. */
  controlToken?: string;
  /** Largest accepted JSON body (default 1 MiB). */
  bodyLimit?: string;
  /** Load the fixture world into the default workspace (default true). */
  fixtures?: boolean;
  /** Refuse requests over the workspace budget with 429 (default true; false is for load tests). */
  rateLimit?: boolean;
  /** Origins allowed to call from a browser ('*' for any). */
  cors?: string[];
  /** Receives one line per answered request (--log-level debug). */
  logRequests?: ((line: string) => void) | undefined;
  /** The wall clock, replaceable in tests of the clock itself. */
  realTime?: RealTime;
  /** Timeouts and size limits of the HTTP server (defaults: DEFAULT_HTTP_LIMITS). */
  httpLimits?: Partial<HttpLimits>;
}

export interface MockServer {
  app: Express;
  registry: WorkspaceRegistry;
  database: Database;
  /** Contract violations seen (with strictResponses), for test suites to assert none. */
  violations: ContractViolation[];
  /** Listens (port 0 picks a free port) and answers the base URL. */
  listen(port?: number, host?: string): Promise<string>;
  close(): Promise<void>;
}

export const DEFAULT_API_KEY = 'sgw_test_default';

/** Routes by operation id; throws when a route names an operation the contract lacks. */
function routeTable(index: OperationIndex, routes: RouteDefinition[], contract: string): Map<string, RouteDefinition> {
  const table = new Map<string, RouteDefinition>();
  for (const definition of routes) {
    if (!index.byOperationId(definition.operationId)) throw new Error(`Route ${definition.operationId} is not an operation of ${contract}`);
    table.set(definition.operationId, definition);
  }
  return table;
}

/**
 * Builds the whole mock: store, workspaces, both contracts' pipelines, docs.
 * Tests hand `app` straight to supertest; the CLI calls `listen`.
 */
export async function createMockServer(options: MockServerOptions = {}): Promise<MockServer> {
  const realTime = options.realTime ?? systemTime;
  const seed = options.seed ?? 1;
  const clockStartMs = options.clock !== undefined ? Date.parse(options.clock) : realTime();
  if (Number.isNaN(clockStartMs)) throw new Error(`clock: '${options.clock}' is not an ISO 8601 date-time`);

  const database = await Database.open(options.dataFile);
  const registry = new WorkspaceRegistry({
    database,
    seed,
    defaultApiKey: options.apiKey ?? DEFAULT_API_KEY,
    defaults: { plan: options.plan ?? 'payg', clockStartMs, clockFrozen: options.clockFrozen ?? false, fixtures: options.fixtures ?? true },
    populate: populateWorkspace,
    runtime: {
      realTime,
      journalSize: options.journalSize ?? 1000,
      jobHandlers,
      eventSubscribers,
      onChange: () => database.markDirty(),
      onJobError: (workspace, kind, error) => console.error(`social-gateway-mock: job ${kind} failed in ${workspace.id}:`, error),
    },
  });
  await database.flush();

  const api = loadSpec('openapi.yaml');
  const control = loadSpec('control.yaml');
  const apiIndex = new OperationIndex(api.document);
  const controlIndex = new OperationIndex(control.document);
  const violations: ContractViolation[] = [];
  const responder = new Responder({
    checkers: { api: new ContractChecker(api.document, 'openapi'), control: new ContractChecker(control.document, 'control') },
    strictResponses: options.strictResponses ?? false,
    onViolation: (violation) => violations.push(violation),
  });
  const bodyLimit = options.bodyLimit ?? '1mb';
  const httpLimits: HttpLimits = { ...DEFAULT_HTTP_LIMITS, ...options.httpLimits };
  if (database.persistent) {
    // Flushed before the response: a write the client saw acknowledged is in the file
    // (renamed into place) and survives kill -9. Concurrent writes share one file write.
    responder.holdUntil((req) => (req.method === 'GET' || req.method === 'HEAD' || !req.ctx.workspace ? undefined : database.flush()));
  }
  const idempotency = new Idempotency(idempotentOperations(api.document), responder);
  const anonymousBudget = new AnonymousBudget(() => registry.defaultWorkspace.now());
  // Every /v1 response, errors included, tells the window behind its endpoint.
  responder.decorate((req, res) => {
    if (req.ctx.contract !== 'api') return;
    const budget = req.ctx.rateLimit ?? anonymousBudget.headers(req);
    res.setHeader('X-RateLimit-Limit', String(budget.limit));
    res.setHeader('X-RateLimit-Remaining', String(budget.remaining));
    res.setHeader('X-RateLimit-Reset', String(budget.resetSeconds));
  });

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  app.use((req: Request, res: Response, next: NextFunction) => {
    req.ctx = { startedAt: realTime(), params: {} };
    res.on('finish', () => {
      options.logRequests?.(`${req.method} ${req.originalUrl} ${res.statusCode} ${(realTime() - req.ctx.startedAt).toFixed(0)}ms`);
      const { workspace, contract, operation } = req.ctx;
      if (!workspace || contract !== 'api') return;
      workspace.journal.record({
        at: req.ctx.arrivedAt ?? workspace.nowIso(),
        method: req.method,
        path: req.originalUrl.split('?')[0] ?? req.originalUrl,
        operationId: operation?.operationId ?? null,
        status: res.statusCode,
        errorCode: req.ctx.errorCode ?? null,
        durationMs: realTime() - req.ctx.startedAt,
        matchedRule: req.ctx.matchedRule ?? null,
      });
    });
    next();
  });

  if (options.cors) app.use(cors(options.cors));
  app.use(urlLengthGuard(httpLimits));

  app.get('/openapi.yaml', (_req, res) => {
    res.type('application/yaml').send(api.text);
  });
  app.get('/control.yaml', (_req, res) => {
    res.type('application/yaml').send(control.text);
  });
  app.use('/docs', docsRouter());

  app.use(
    '/__control',
    createContractRouter({
      contract: 'control',
      spec: control,
      index: controlIndex,
      routes: routeTable(controlIndex, controlRoutes({ registry, version: VERSION }), 'control.yaml'),
      authenticate: authenticateControl(registry, options.controlToken),
      bodyLimit,
      responder,
    }),
  );
  app.use(
    '/v1',
    createContractRouter({
      contract: 'api',
      spec: api,
      index: apiIndex,
      routes: routeTable(apiIndex, apiRoutes, 'openapi.yaml'),
      authenticate: authenticateApi(registry),
      guards: [rateLimitStep(options.rateLimit ?? true)],
      beforeHandler: [idempotency.step()],
      bodyLimit,
      responder,
    }),
  );

  app.use((req: Request) => {
    throw new ApiError(404, 'NOT_FOUND', `No route for ${req.method} ${req.path}.`);
  });
  app.use((error: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(error);
    responder.sendError(req, res, toApiError(error));
  });

  let server: Server | undefined;
  return {
    app,
    registry,
    database,
    violations,
    listen(port = 0, host = '127.0.0.1') {
      return new Promise((resolve, reject) => {
        const listening = createServer(serverOptions(httpLimits), app);
        listening.on('clientError', clientErrorHandler(httpLimits));
        listening.once('error', reject);
        listening.listen(port, host, () => {
          server = listening;
          const address = listening.address() as AddressInfo;
          const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
          resolve(`http://${shownHost}:${address.port}`);
        });
      });
    },
    async close() {
      registry.stopAll();
      if (server) {
        const closing = server;
        await new Promise<void>((resolve) => {
          // Requests in flight get a grace period to finish; a stream or a client that
          // never completes its request would otherwise hold the shutdown open.
          const force = setTimeout(() => closing.closeAllConnections(), httpLimits.shutdownGraceMs);
          closing.close(() => {
            clearTimeout(force);
            resolve();
          });
        });
        server = undefined;
      }
      await database.flush();
    },
  };
}
