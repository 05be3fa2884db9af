import express, { type Express, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { apiRoutes, eventSubscribers, jobHandlers, populateHooks, resumeHooks } from './api/index.js';
import { oauthPages } from './api/accounts/oauth-pages.js';
import { DEFAULT_MEDIA_QUOTA, MediaQuota } from './api/media/quota.js';
import { mediaRouter } from './api/media/upload-router.js';
import { systemTime, type RealTime } from './clock/real-time.js';
import { clockStartProblem } from './clock/virtual-clock.js';
import { controlRoutes } from './control/index.js';
import { EventStreams } from './events/streams.js';
import { CoverageTracker } from './coverage/coverage.js';
import { dashboardRouter } from './dashboard/router.js';
import { docsRouter } from './docs/docs-page.js';
import { indexPage } from './docs/index-page.js';
import { populateWorkspace } from './api/world/populate.js';
import { authenticateApi, authenticateControl, keyScopeStep } from './http/authenticate.js';
import { ContractChecker, type ContractViolation } from './http/contract.js';
import { createContractRouter } from './http/contract-router.js';
import { cors } from './http/cors.js';
import { browserBoundary, type AllowedHosts } from './http/host-check.js';
import { toApiError } from './http/error-mapping.js';
import { CONTROL_PREFIX, DEFAULT_HTTP_LIMITS, isApiPath, isControlPath, urlLengthGuard, type HttpLimits } from './http/transport.js';
import { createListener } from './http/listener.js';
import { pipeline } from './http/pipeline.js';
import { answerBeforeExpress, mountedAt, type ErrorAnswer } from './http/bare-api.js';
import { Idempotency, idempotentOperations } from './http/idempotency.js';
import { ApiError, dataFileUnwritable, internalError, noRoute } from './lib/errors.js';
import { OperationIndex } from './http/operations.js';
import { Responder } from './http/respond.js';
import { requestRecording } from './http/request-recording.js';
import type { RouteDefinition } from './http/route.js';
import { loadSpec, type LoadedSpec } from './http/spec.js';
import './http/context.js';
import { ContractComparer } from './proxy/compare.js';
import { UPSTREAM_BODY_LIMIT_BYTES, UpstreamAgents } from './proxy/forward.js';
import { createProxyRouter, DEFAULT_UPSTREAM_TIMEOUT_MS, type ProxyOptions } from './proxy/proxy-router.js';
import { Redactor } from './redaction/redactor.js';
import { AnonymousBudget, rateLimitStep } from './limits/request-budget.js';
import type { PlanName } from './store/plans.js';
import { DEFAULT_WEBHOOK_TIMEOUT_MS } from './workspaces/workspace.js';
import { scenarioGuard, applyReplyRewrite } from './scenarios/guard.js';
import { inlineScenario, scenarioFromArgument } from './scenarios/library.js';
import { applyScenario, scenarioChoice } from './scenarios/load.js';
import { warmUpChecker } from './scenarios/parse.js';
import { keepActiveRulePatterns } from './scenarios/runtime-rules.js';
import { timelineJobHandlers } from './scenarios/timeline-steps.js';
import { Database, type WorkspaceBase } from './store/database.js';
import { WorkspaceRegistry, type MaxWorkspacesPolicy, type RegistryOptions } from './workspaces/registry.js';
import { VERSION } from './version.js';
import { HostFence } from './lib/host-fence.js';
import { Containment, type Boundary } from './lib/containment.js';
import type { JobHandler, JobHandlers } from './clock/scheduler.js';
import type { Workspace } from './workspaces/workspace.js';
import type { IncomingMessage, ServerResponse } from 'node:http';

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
  /**
   * The server owner's token (x-control-token), for shared servers: with it, a workspace's own
   * key reaches only that workspace on /__control, and what reaches further needs the token.
   */
  controlToken?: string;
  /** Largest accepted JSON body (default 1 MiB). */
  bodyLimit?: string;
  /** Load the fixture world into the default workspace (default true). */
  fixtures?: boolean;
  /**
   * The default workspace's fixture world with its own pending work: queued, processing and
   * scheduled posts, and tokens that expire (default true). False builds it without, so a clock
   * move runs only what the client starts (decision 0035); `run` asks for that.
   */
  pending?: boolean;
  /** Refuse requests over the workspace budget with 429 (default true; false is for load tests). */
  rateLimit?: boolean;
  /** Origins allowed to call from a browser ('*' for any). */
  cors?: string[];
  /**
   * Host names answered besides localhost, `*.localhost` and loopback addresses (`.example.com`
   * for a domain and its subdomains), or `true` to answer any Host (decision 0019).
   */
  allowedHosts?: AllowedHosts;
  /** Receives one line per answered request (--log-level debug). */
  logRequests?: ((line: string) => void) | undefined;
  /** The wall clock, replaceable in tests of the clock itself. */
  realTime?: RealTime;
  /** How long a webhook receiver has to answer, in real milliseconds (default 10 000, as the real service). */
  webhookTimeoutMs?: number;
  /**
   * Webhooks go only to these hosts: names (`.example.com` for a domain and its subdomains),
   * IP addresses and CIDR ranges, IPv4 or IPv6. Any host by default, the server itself never (decision 0029).
   */
  webhookAllow?: string[];
  /** Webhooks never go to these hosts (the same forms as `webhookAllow`, and checked before it). */
  webhookDeny?: string[];
  /**
   * A scenario for the default workspace: a file (a path, or a name ending in .yaml)
   * or the name of a ready-made one. A bad one throws a ScenarioError naming its line.
   */
  scenario?: string;
  /** Where a relative scenario path is read from (default: the process's directory). */
  cwd?: string;
  /** Timeouts and size limits of the HTTP server (defaults: DEFAULT_HTTP_LIMITS). */
  httpLimits?: Partial<HttpLimits>;
  /** Evict workspaces (never the default one) idle longer than this many wall milliseconds (read from `realTime`). Off by default. */
  workspaceTtlMs?: number;
  /** Hold at most this many workspaces, the default one included. No limit by default. */
  maxWorkspaces?: number;
  /** At `maxWorkspaces`: refuse a new one with 503 WORKSPACE_LIMIT_REACHED (default), or evict the longest idle. */
  onMaxWorkspaces?: MaxWorkspacesPolicy;
  /**
   * Proxy mode (`social-gateway-mock proxy`): /v1 goes to a real upstream, checked against
   * openapi.yaml, instead of the mock's own implementation; the rest of the server is the same.
   */
  proxy?: ProxyOptions;
  /** Bytes of uploaded media one workspace holds at most (--media-quota; default 256 MiB); an upload past it is 413. */
  mediaQuotaBytes?: number;
  /** Bytes of uploaded media all workspaces hold together at most (--media-quota-server; default 1 GiB). */
  mediaQuotaServerBytes?: number;
  /** Names hidden besides the built-in secrets (headers, JSON fields, query parameters) in the journal, event stream, logs and recordings. */
  redact?: string[];
}

export interface MockServer {
  app: Express;
  registry: WorkspaceRegistry;
  database: Database;
  /** Contract violations seen (with strictResponses), for test suites to assert none. */
  violations: ContractViolation[];
  /** Contract coverage of the traffic over the server's lifetime. */
  coverage: CoverageTracker;
  /**
   * Where failures outside a request's own steps stop (decision 0041): counted in
   * `GET /__control/health`. Its `failNext(boundary)` is the tests' seam.
   */
  containment: Containment;
  /** Listens (port 0 picks a free port) and answers the base URL. */
  listen(port?: number, host?: string): Promise<string>;
  close(): Promise<void>;
}

export const DEFAULT_API_KEY = 'sgw_test_default';

/** A scenario with one rule of each matcher that compiles something, parsed once at start. */
const WARM_UP_SCENARIO = inlineScenario(['name: warm-up', 'rules:', '  - id: warm', '    match: { path: /v1/posts/*, headers: [{ name: x-warm, matches: "^w" }] }', '    then: { latencyMs: 0 }'].join('\n'));

/**
 * The scenario checker compiles its schema and reads the contract on first use, once per process
 * (a third of a start's CPU when it ran before listening, issue 37): right after the first answer
 * has gone out, or a second after the server listens if none has, so the first answer does not
 * wait for it, and not while the first tenant's rule holds every other one up. A rule that comes
 * before it compiles it itself.
 */
let scenariosWarm = false;
let warmUp: NodeJS.Timeout | undefined;
function warmUpScenarios(delayMs: number): void {
  if (scenariosWarm || (warmUp !== undefined && delayMs > 0)) return;
  clearTimeout(warmUp);
  warmUp = setTimeout(() => {
    scenariosWarm = true;
    // Its steps are a turn of the event loop apart, so no request waits for all of them (decision 0057).
    void warmUpChecker(WARM_UP_SCENARIO);
  }, delayMs).unref();
}
/** How long after listening the warm-up waits for a first answer to follow. */
const WARM_UP_FALLBACK_MS = 1000;

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
 * A contract as a file: YAML to whoever fetches it (Swagger UI, a code generator, curl), plain
 * text to a browser opening its link, which would otherwise download it instead of showing it.
 */
function contractFile(text: string): RequestHandler {
  return (req, res) => {
    res.vary('Accept');
    res.type(req.accepts(['application/yaml', 'text/html']) === 'text/html' ? 'text/plain; charset=utf-8' : 'application/yaml').send(text);
  };
}

/** Options a program may pass that the command line would have refused: stopped before anything starts. */
function checkOptions(options: MockServerOptions, webhookTimeoutMs: number): void {
  if (!Number.isInteger(webhookTimeoutMs) || webhookTimeoutMs < 1) throw new Error(`webhookTimeoutMs: ${webhookTimeoutMs} is not a whole number of milliseconds above 0`);
  if (options.workspaceTtlMs !== undefined && !(Number.isSafeInteger(options.workspaceTtlMs) && options.workspaceTtlMs > 0)) throw new Error(`workspaceTtlMs: ${options.workspaceTtlMs} is not a whole number of milliseconds above 0`);
  if (options.maxWorkspaces !== undefined && !(Number.isSafeInteger(options.maxWorkspaces) && options.maxWorkspaces > 0)) throw new Error(`maxWorkspaces: ${options.maxWorkspaces} is not a whole number above 0`);
  if (options.controlToken !== undefined && options.controlToken.trim() === '') throw new Error('controlToken: an empty token would protect nothing');
  for (const name of ['mediaQuotaBytes', 'mediaQuotaServerBytes'] as const) {
    const bytes = options[name];
    if (bytes !== undefined && !(Number.isSafeInteger(bytes) && bytes >= 0)) throw new Error(`${name}: ${bytes} is not a whole number of bytes`);
  }
}

/** The default workspace's own start over the defaults. */
type DefaultStart = NonNullable<RegistryOptions['defaultWorkspace']>;

/**
 * The default workspace's start: what the options ask for explicitly, which wins over the
 * scenario's choices, which win over the defaults. The scenario is read now, before anything
 * else starts: a bad one stops the start with its line and column.
 */
function defaultWorkspaceStart(options: MockServerOptions, clockStartMs: number): DefaultStart {
  const explicit: Partial<WorkspaceBase> = {
    ...(options.plan !== undefined && { plan: options.plan }),
    ...(options.seed !== undefined && { seed: options.seed }),
    ...(options.clock !== undefined && { clockStartMs }),
    ...(options.clockFrozen !== undefined && { clockFrozen: options.clockFrozen }),
    ...(options.fixtures !== undefined && { fixtures: options.fixtures }),
    ...(options.pending !== undefined && { pending: options.pending }),
  };
  if (options.scenario !== undefined) return { explicit, scenario: scenarioChoice(scenarioFromArgument(options.scenario, options.cwd ?? process.cwd())) };
  return { explicit };
}

/** What the registry's workspaces are wired to besides the options. */
interface RegistryParts {
  defaultStart: DefaultStart;
  database: Database;
  coverage: CoverageTracker;
  eventStreams: EventStreams;
  realTime: RealTime;
  clockStartMs: number;
  webhookTimeoutMs: number;
  webhookFence: HostFence;
  containment: Containment;
}

/** Where a job's failure is counted: a webhook attempt's apart from the rest of the scheduler's work. */
function jobBoundary(kind: string): Boundary {
  return kind.startsWith('webhook.') ? 'webhook' : 'scheduler';
}

/**
 * The job handlers with the test seam at their door: `containment.failNext('webhook')` makes the
 * next webhook attempt throw as a bug in it would. The scheduler catches a job's failure and
 * hands it to `onJobError`, which counts it at the same boundary.
 */
function containedJobs(handlers: JobHandlers<Workspace>, containment: Containment): JobHandlers<Workspace> {
  return new Map(
    [...handlers].map(([kind, handler]) => {
      const boundary = jobBoundary(kind);
      const seamed: JobHandler<Workspace> = (workspace, job) => {
        containment.trip(boundary);
        return handler(workspace, job);
      };
      return [kind, seamed];
    }),
  );
}

/** The one owner of the workspaces, with the hooks by which each API area and the server's services follow them. */
function createRegistry(options: MockServerOptions, { defaultStart, database, coverage, eventStreams, realTime, clockStartMs, webhookTimeoutMs, webhookFence, containment }: RegistryParts): WorkspaceRegistry {
  return new WorkspaceRegistry({
    database,
    seed: options.seed ?? 1,
    defaultApiKey: options.apiKey ?? DEFAULT_API_KEY,
    defaults: { plan: options.plan ?? 'payg', clockStartMs, clockFrozen: options.clockFrozen ?? false, fixtures: options.fixtures ?? true },
    defaultWorkspace: defaultStart,
    populate: (workspace) => {
      populateWorkspace(workspace);
      // Populating schedules nothing; each area puts the fixture world's due work on the scheduler.
      for (const hook of populateHooks) hook(workspace);
    },
    resume: (workspace) => {
      for (const hook of resumeHooks) hook(workspace);
      // A workspace read back from JSON has rules without compiled patterns: compiled here, not by its requests.
      keepActiveRulePatterns(workspace);
    },
    applyScenario: (workspace, source) => void applyScenario(workspace, source, coverage),
    release: (workspace) => {
      eventStreams.closeWorkspace(workspace.id);
      coverage.workspaceEnded(workspace.id);
    },
    keysChanged: (workspace) => void eventStreams.closeRevoked(workspace.id, workspace.data.apiKeys),
    ...(options.workspaceTtlMs !== undefined && { workspaceTtlMs: options.workspaceTtlMs }),
    ...(options.maxWorkspaces !== undefined && { maxWorkspaces: options.maxWorkspaces }),
    ...(options.onMaxWorkspaces !== undefined && { onMaxWorkspaces: options.onMaxWorkspaces }),
    runtime: {
      realTime,
      journalSize: options.journalSize ?? 1000,
      jobHandlers: containedJobs(new Map([...jobHandlers, ...timelineJobHandlers()]), containment),
      eventSubscribers: [...eventSubscribers, eventStreams.subscriber],
      // A stopped scheduler is a workspace that ended (or was replaced) while the delivery was out.
      onWebhookDelivered: (workspace, event) => coverage.recordWebhookDelivery(workspace.id, event, workspace.scheduler.isStopped),
      // The dashboard's Requests view follows the journal on the event stream.
      onJournalRecord: (workspaceId, entry, detail) => eventStreams.publishControl(workspaceId, 'request.recorded', `journal_${entry.seq}`, entry.at, { entry, ...(detail && { detail }) }),
      webhookTimeoutMs,
      webhookFence,
      onChange: () => database.markDirty(),
      // A job's failure ends that job only: caught by the scheduler, logged once, counted (decision 0041).
      onJobError: (_workspace, kind, error) => void containment.caught(jobBoundary(kind), error),
      containment,
    },
  });
}

/**
 * How every answer of both contracts goes out: checked against its contract, dated with its
 * workspace's clock, held until the data file has what it acknowledges, and on /v1 with the
 * rate-limit window behind it.
 */
function createResponder(options: MockServerOptions, specs: { api: LoadedSpec; control: LoadedSpec }, registry: WorkspaceRegistry, database: Database, httpLimits: HttpLimits, violations: ContractViolation[], containment: Containment): Responder {
  const responder = new Responder({
    containment,
    maxStreamBufferBytes: httpLimits.maxStreamBufferBytes,
    checkers: { api: new ContractChecker(specs.api.document, 'openapi'), control: new ContractChecker(specs.control.document, 'control') },
    strictResponses: options.strictResponses ?? false,
    onViolation: (violation) => violations.push(violation),
    // Looked up again as the answer goes out: a reset or a restore may have replaced the request's workspace (and its clock).
    clockOf: (req) => (req.ctx.workspace && registry.get(req.ctx.workspace.id)) ?? registry.defaultWorkspace,
  });
  if (database.persistent) {
    // Flushed before the response: a write the client saw acknowledged is in the file
    // (synced and renamed into place) and survives kill -9 or a power cut. Concurrent
    // writes share one file write; when it fails, their successes become 503 (decision 0028).
    const file = database.file ?? '';
    const unwritable = (error: Error): never => {
      throw dataFileUnwritable(file, error.message);
    };
    responder.holdUntil((req) => (req.method === 'GET' || req.method === 'HEAD' || !req.ctx.workspace ? undefined : database.flush().catch(unwritable)));
  }
  const anonymousBudget = new AnonymousBudget(() => registry.defaultWorkspace.now());
  // Every /v1 response, errors included, tells the window behind its endpoint.
  responder.decorate((req, res) => {
    if (req.ctx.contract !== 'api') return;
    const budget = req.ctx.rateLimit ?? anonymousBudget.headers(req);
    res.setHeader('X-RateLimit-Limit', String(budget.limit));
    res.setHeader('X-RateLimit-Remaining', String(budget.remaining));
    res.setHeader('X-RateLimit-Reset', String(budget.resetSeconds));
  });
  responder.decorate(applyReplyRewrite);
  return responder;
}

/**
 * The answer to a request whose listener threw before any step could answer it (no context, no
 * workspace): 500 INTERNAL_ERROR in the envelope with the log line's id, or the connection cut
 * when an answer had begun.
 */
function answerUnexpected(_req: IncomingMessage, res: ServerResponse, requestId: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify(internalError(requestId).body());
  res.writeHead(500, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

/** Proxy mode's upstream, with its URL read and the connections kept open to it. */
type Upstream = ProxyOptions & { url: URL; agents: UpstreamAgents };

/** Proxy mode's upstream, made ready: a plain mock holds no connections to anyone. */
function upstreamOf(proxy: ProxyOptions): Upstream {
  const url = new URL(proxy.upstream);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`proxy.upstream: '${proxy.upstream}' is not an http or https URL`);
  return { ...proxy, url, agents: new UpstreamAgents(proxy.upstreamCa) };
}

/** What the API's handler is built from. */
interface ApiParts {
  containment: Containment;
  api: LoadedSpec;
  apiIndex: OperationIndex;
  registry: WorkspaceRegistry;
  coverage: CoverageTracker;
  responder: Responder;
  idempotency: Idempotency;
  redactor: Redactor;
  realTime: RealTime;
  bodyLimit: string;
  /** Proxy mode's upstream; none for the mock's own API. */
  proxy: Upstream | undefined;
}

/** The API's handler: the proxy's, or the mock's own contract pipeline. */
function createApiHandler(options: MockServerOptions, { containment, api, apiIndex, registry, coverage, responder, idempotency, redactor, realTime, bodyLimit, proxy }: ApiParts): RequestHandler {
  return proxy
    ? createProxyRouter({
        upstream: proxy.url,
        strict: proxy.strict ?? false,
        recordDir: proxy.recordDir,
        upstreamTimeoutMs: proxy.upstreamTimeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS,
        bodyLimitBytes: proxy.maxBodyBytes ?? UPSTREAM_BODY_LIMIT_BYTES,
        agents: proxy.agents,
        index: apiIndex,
        comparer: new ContractComparer(api.document),
        redactor,
        workspace: () => registry.defaultWorkspace,
        realTime,
        onCompared: (operationId, findings) => coverage.recordContractFindings(operationId, findings),
        onRecordError: (error) => console.error(`social-gateway-mock: cannot record the exchange: ${error instanceof Error ? error.message : String(error)}`),
        containment,
      })
    : createContractRouter({
        contract: 'api',
        spec: api,
        index: apiIndex,
        routes: routeTable(apiIndex, apiRoutes, 'openapi.yaml'),
        authenticate: authenticateApi(registry),
        // DESIGN.md's order: the budget first, then the key's scope (decision 0013), then scenario rules, then validation.
        guards: [rateLimitStep(options.rateLimit ?? true), keyScopeStep(), scenarioGuard({ document: api.document, bodyLimit, observer: coverage, responder })],
        beforeHandler: [idempotency.step()],
        bodyLimit,
        responder,
      });
}

/**
 * Builds the whole mock: store, workspaces, both contracts' pipelines, docs.
 * Tests hand `app` straight to supertest; the CLI calls `listen`.
 */
export async function createMockServer(options: MockServerOptions = {}): Promise<MockServer> {
  const realTime = options.realTime ?? systemTime;
  const clockStartMs = options.clock !== undefined ? Date.parse(options.clock) : realTime();
  if (Number.isNaN(clockStartMs)) throw new Error(`clock: '${options.clock}' is not an ISO 8601 date-time`);
  const clockProblem = clockStartProblem(clockStartMs);
  if (clockProblem !== undefined) throw new Error(`clock: '${options.clock}' ${clockProblem}`);
  const webhookTimeoutMs = options.webhookTimeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
  checkOptions(options, webhookTimeoutMs);
  // Built now: a bad allowedHosts, webhookAllow or webhookDeny entry stops the start.
  const boundary = browserBoundary(options.allowedHosts ?? [], options.cors);
  const webhookFence = new HostFence({
    ...(options.webhookAllow !== undefined && { allow: options.webhookAllow }),
    ...(options.webhookDeny !== undefined && { deny: options.webhookDeny }),
    ownNames: options.allowedHosts === true ? [] : (options.allowedHosts ?? []),
  });
  const defaultStart = defaultWorkspaceStart(options, clockStartMs);

  const api = loadSpec('openapi.yaml');
  const coverage = new CoverageTracker(api.document);
  const database = await Database.open(options.dataFile);
  const httpLimits: HttpLimits = { ...DEFAULT_HTTP_LIMITS, ...options.httpLimits };
  // One per server: what it catches is counted in this server's health, not another's in the same process.
  const containment = new Containment();
  database.writeInBackground((write) => containment.settle('file-write', write));
  const eventStreams = new EventStreams(containment, { perWorkspace: httpLimits.maxEventStreamsPerWorkspace, perServer: httpLimits.maxEventStreams });
  const registry = createRegistry(options, { defaultStart, database, coverage, eventStreams, realTime, clockStartMs, webhookTimeoutMs, webhookFence, containment });
  // A new data file is created now; one loaded unchanged is left as it is.
  await database.flushChanges();

  const control = loadSpec('control.yaml');
  const apiIndex = new OperationIndex(api.document);
  const controlIndex = new OperationIndex(control.document);
  const violations: ContractViolation[] = [];
  const responder = createResponder(options, { api, control }, registry, database, httpLimits, violations, containment);
  responder.onSent(() => warmUpScenarios(0));
  const idempotency = new Idempotency(idempotentOperations(api.document), responder);
  const bodyLimit = options.bodyLimit ?? '1mb';
  // One list of secrets for every place a request is shown or kept (decision 0022).
  const redactor = new Redactor(options.redact ?? []);
  const proxy = options.proxy && upstreamOf(options.proxy);
  if (proxy) coverage.trackContractFindings();

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  const apiHandler = createApiHandler(options, { containment, api, apiIndex, registry, coverage, responder, idempotency, redactor, realTime, bodyLimit, proxy });

  // The steps before every route (a page of another site must not reach any of them: DNS rebinding,
  // cross-site writes), then the API, in one router layer. Express answers the API and the control
  // plane only for requests already given other prototypes (this app mounted in another); the rest
  // is answered before Express (src/http/bare-api.ts, below).
  const front: RequestHandler[] = [
    requestRecording({ realTime, registry, redactor, coverage, eventStreams, logRequests: options.logRequests, containment }),
    boundary,
    ...(options.cors ? [cors(options.cors)] : []),
    urlLengthGuard(httpLimits),
  ];
  app.use(pipeline([...front, (req, res, next) => (isApiPath(req.path) ? apiHandler(req, res, next) : next())]));

  app.get('/', indexPage(VERSION, { registry, apiKey: options.apiKey ?? DEFAULT_API_KEY, dataFile: options.dataFile, open: options.controlToken === undefined }));
  // Browsers ask for it on every page the server shows, JSON and YAML ones too; a 404 would be an
  // error in each one's console. No content: the tab keeps its default icon.
  app.get('/favicon.ico', (_req, res) => {
    res.status(204).end();
  });
  app.get('/openapi.yaml', contractFile(api.text));
  app.get('/control.yaml', contractFile(control.text));
  app.use('/docs', docsRouter());
  // Files only: the page reaches the world through /__control, and its token, like any client.
  app.use('/__dashboard', dashboardRouter());
  // Where presigned media URLs point: plain routes outside /v1 and its contract.
  const mediaQuota = new MediaQuota(
    { workspaceBytes: options.mediaQuotaBytes ?? DEFAULT_MEDIA_QUOTA.workspaceBytes, serverBytes: options.mediaQuotaServerBytes ?? DEFAULT_MEDIA_QUOTA.serverBytes },
    () => registry.used(),
  );
  app.use(mediaRouter(registry, mediaQuota, containment));
  app.use('/__oauth', oauthPages(registry));

  const controlHandler = createContractRouter({
    contract: 'control',
    spec: control,
    index: controlIndex,
    routes: routeTable(controlIndex, controlRoutes({ registry, version: VERSION, eventStreams, coverage, containment }), 'control.yaml'),
    authenticate: authenticateControl(registry, options.controlToken),
    // --body-limit, as /v1's: only a snapshot to restore and a scenario's YAML get more (src/control/body-limits.ts).
    bodyLimit,
    responder,
  });
  app.use(CONTROL_PREFIX, controlHandler);
  // The MCP server over Streamable HTTP: the control plane as an agent's tools, with /__control's
  // credentials (docs/mcp.md). Loaded on the first call: a start that serves no agent does not load the SDK.
  let mcp: Promise<RequestHandler> | undefined;
  app.all('/mcp', (req, res, next) => {
    mcp ??= import('./mcp/http-endpoint.js').then(({ mcpEndpoint, packageResources }) =>
      mcpEndpoint({
        parts: { controlDocument: control.document, resources: packageResources() },
        controlToken: options.controlToken,
        defaultApiKey: options.apiKey ?? DEFAULT_API_KEY,
        isWorkspaceKey: (key) => registry.byApiKey(key) !== undefined,
      }),
    );
    // A refusal (401, 403) is answered as on /__control; any other failure of a session is the MCP
    // boundary's: counted, and answered 500 with the log line's id while the request is open.
    const settle = (error?: unknown): void => {
      if (error === undefined || error instanceof ApiError) return next(error);
      const requestId = containment.caught('mcp', error);
      if (res.headersSent) res.destroy();
      else answerError(internalError(requestId), req, res);
    };
    mcp
      .then((handler) => {
        containment.trip('mcp');
        return handler(req, res, settle);
      })
      .catch(settle);
  });
  app.use((req: Request) => {
    throw noRoute(req.method, req.originalUrl);
  });
  const answerError: ErrorAnswer = (error, req, res) => responder.sendError(req, res, toApiError(error, { body: req.body as unknown, query: req.query, headers: req.headers }, (bug) => containment.caught('request', bug)));
  app.use((error: unknown, req: Request, res: Response, next: NextFunction) => {
    if (!res.headersSent) return answerError(error, req, res);
    // An answer already under way cannot become an error answer: it is cut, and the failure counted.
    containment.caught('request', error);
    next(error);
  });
  // The API, the mock's own or the proxy's, and the control plane skip Express's prototypes (decisions 0023 and 0060).
  answerBeforeExpress(
    app,
    [
      { matches: isApiPath, handler: pipeline([...front, apiHandler]) },
      { matches: isControlPath, handler: pipeline([...front, mountedAt(CONTROL_PREFIX, controlHandler)]) },
    ],
    answerError,
    containment,
  );

  // The outermost boundary: whatever the app throws on its way in is answered 500, not the process's end.
  const serve = containment.requests<IncomingMessage, ServerResponse>(app, answerUnexpected);
  const listener = createListener(serve, httpLimits, (port) => webhookFence.listeningOn(port), (error) => void containment.caught('server', error));
  return {
    app,
    registry,
    database,
    violations,
    coverage,
    containment,
    listen: async (port = 0, host = '127.0.0.1') => {
      const url = await listener.listen(port, host);
      warmUpScenarios(WARM_UP_FALLBACK_MS);
      return url;
    },
    async close() {
      registry.stopAll();
      eventStreams.closeAll();
      // Webhook attempts on the wire get the same grace as requests in flight, in the same
      // time; one still out after it is attempted again at the next start with --data.
      const attempts = registry.settleAll(httpLimits.shutdownGraceMs);
      await listener.close();
      await attempts;
      proxy?.agents.destroy();
      await database.flush();
    },
  };
}
