import { readFile } from 'node:fs/promises';
import { relative as relativePath, resolve as resolvePath } from 'node:path';
import { test as baseTest, type TestAPI } from 'vitest';
import { ControlError, createControlClient, type ControlBody, type ControlClient, type ControlResult } from '../client/control-client.js';
import { RUN_ENVIRONMENT } from '../lib/run-environment.js';
import type { MockServerOptions } from '../server.js';

/**
 * `social-gateway-mock/vitest`: a `test` whose tests each get a fresh workspace of the mock.
 *
 * The server starts once per vitest worker (a worker-scoped fixture) and every test that
 * asks for `mock` gets a workspace of its own, made with `POST /__control/workspaces`, with
 * its own data, key, virtual clock, scheduler and journal: tests can run in parallel against
 * one server without seeing each other. When `SOCIAL_GATEWAY_MOCK_CONTROL_URL` is set (as
 * `social-gateway-mock run -- vitest run` sets it), that server is used instead and nothing
 * is started.
 *
 * After each test, passed or failed, the kit closes the event streams the test opened
 * through `mock.control` and deletes the test's workspace (`DELETE /__control/workspaces/{id}`):
 * its timers, deliveries and memory are released, so a long-lived shared server does not
 * grow with every test. A workspace already gone (the test deleted it, or `--workspace-ttl`
 * evicted it) is fine.
 *
 * Under `social-gateway-mock proxy --upstream URL -- vitest run` (SOCIAL_GATEWAY_MOCK_PROXY_UPSTREAM
 * set), the API is the real service behind the proxy, which has no workspaces, clock or control
 * plane of the mock's: the kit starts no server and makes no workspace, gives each test the
 * proxy's `baseUrl` and the key the proxy was given (`--upstream-key`, in SOCIAL_GATEWAY_MOCK_API_KEY),
 * and skips a test at the moment it reaches for the mock's own world (`mock.control`,
 * `mock.workspaceId`, `mock.created`), with a note saying so. Whatever the test sent upstream
 * before that is recorded.
 */

/** The workspace each test gets: `createWorkspace`'s body (plan, seed, scenario, clock, fixtures, pending). */
export type MockWorkspaceOptions = NonNullable<ControlBody<'createWorkspace'>>;

/** Options of {@link createMockTest}. */
export interface MockTestOptions extends MockWorkspaceOptions {
  /**
   * Options of the server started per worker (`createMockServer`'s). Not used when
   * `SOCIAL_GATEWAY_MOCK_CONTROL_URL` names a running server.
   */
  server?: MockServerOptions;
}

/** The server the worker's tests share. */
export interface MockServerInfo {
  /** The server's root, for example `http://127.0.0.1:41234`. */
  url: string;
  /** True when the server was named by `SOCIAL_GATEWAY_MOCK_CONTROL_URL` (or is the proxy) rather than started here. */
  external: boolean;
  /** A control client of the server's default workspace (create workspaces with it). Behind the proxy, any use of it throws. */
  control: ControlClient;
  /** Under `proxy -- <command>`: the real service behind the proxy at `url`. Undefined against the mock. */
  upstream?: string;
}

/** What a test's `mock` fixture holds. */
export interface MockWorkspace {
  /** The server's root (`/__control` and `/v1` are under it). */
  url: string;
  /** The API's base URL, `${url}/v1`: point the client under test at it. */
  baseUrl: string;
  /** The workspace's key: send it as `x-api-key` (or `Authorization: Bearer`). */
  apiKey: string;
  workspaceId: string;
  /** The control client of this workspace: its clock, inbound events, limits, journal, … */
  control: ControlClient;
  /** What `createWorkspace` answered (plan, seed, scenario, clock). */
  created: ControlResult<'createWorkspace'>;
  /**
   * Under `proxy -- <command>`: the real service the requests go to. Then `apiKey` is its key,
   * and `control`, `workspaceId` and `created` skip the test when touched (the service has no
   * workspace of the mock's). Undefined against the mock.
   */
  upstream?: string;
}

/**
 * The scenario rules a test file's workspaces loaded and how often each fired, summed over the
 * file's tests; the kit reports it when the file ends (see {@link MockFixtures.mockRuleReport}).
 */
export interface MockRuleReport {
  /** By scenario name: whether the file chose it (`createMockTest({ scenario })`, `test.override`) or `run --scenario` did, its tests, and each rule's hits in file order. */
  scenarios: Map<string, { chosenByFile: boolean; tests: number; fired: Map<string, number> }>;
}

/** The fixtures the kit adds to vitest's test context. */
export interface MockFixtures {
  /**
   * File-scoped: the scenario rules the file's workspaces loaded and their hits. When the file
   * ends, the kit names each rule of a scenario the file chose that fired in none of its tests,
   * and says so when none of the rules of `run --scenario`'s scenario fired in the file.
   */
  mockRuleReport: MockRuleReport;
  /** A fresh workspace for this test. */
  mock: MockWorkspace;
  /** How the test's workspace is made; override it per file or suite with `test.override` (`test.scoped` before vitest 4). */
  mockOptions: MockWorkspaceOptions;
  /** The server shared by the worker's tests (worker-scoped). */
  mockServer: MockServerInfo;
}


/**
 * Every workspace starts at the same seed with a frozen clock unless told otherwise, so a
 * test sees the same ids and times whichever tests ran before it (or were filtered out).
 * Its fixture world has no pending work (decision 0035): moving the clock runs only what
 * the test set going, so a test's webhook receives its own events and no others.
 */
const WORKSPACE_DEFAULTS = { seed: 1, clock: { frozen: true }, pending: false } satisfies MockWorkspaceOptions;

/** `options` over `defaults`, the clock's fields one by one. A fork (`from`) takes no other field. */
function withDefaults(defaults: MockWorkspaceOptions, options: MockWorkspaceOptions): MockWorkspaceOptions {
  if (options.from !== undefined) return options;
  return { ...defaults, ...options, clock: { ...defaults.clock, ...options.clock } };
}

/**
 * Deletes a test's workspace with its own key, which is all a shared server with a control
 * token lets a job do (decision 0024). One already gone (the test deleted it, a TTL evicted it)
 * is what was wanted: its key is then unknown (401), or its id (404).
 */
async function deleteQuietly(control: ControlClient, workspaceId: string): Promise<void> {
  try {
    await control.deleteWorkspace(workspaceId);
  } catch (error) {
    if (!(error instanceof ControlError && (error.status === 404 || error.status === 401))) throw error;
  }
}

/** Whether a scenario option names a file (a path, or a name ending in .yaml/.yml) rather than a ready-made scenario or YAML. */
function namesAFile(scenario: string): boolean {
  return !scenario.includes('\n') && !scenario.includes(': ') && (/[\\/]/.test(scenario) || /\.ya?ml$/i.test(scenario));
}

/** The test file each file-scoped report belongs to, learnt from its first test. */
const reportFile = new WeakMap<MockRuleReport, string>();

/** Scenario files read once per worker, by path: every test of a replay loads the same one. */
const scenarioFiles = new Map<string, Promise<string>>();

/**
 * The scenario a test's workspace is made with: the test's own (`mockOptions.scenario`), else the
 * one `run --scenario` passed on (only on run's server). A file is read here and sent whole, as
 * `createWorkspace` takes a ready-made scenario's name or YAML.
 */
async function scenarioOf(options: MockWorkspaceOptions, fromRun: string | undefined): Promise<{ yamlOrName: string; chosenByFile: boolean } | undefined> {
  if (options.from !== undefined) return undefined;
  const chosen = options.scenario ?? (fromRun || undefined);
  if (chosen === undefined) return undefined;
  const chosenByFile = options.scenario !== undefined;
  if (!namesAFile(chosen)) return { yamlOrName: chosen, chosenByFile };
  const path = resolvePath(chosen);
  let text = scenarioFiles.get(path);
  if (!text) {
    text = readFile(path, 'utf8').catch((error: unknown) => {
      scenarioFiles.delete(path);
      throw new Error(`social-gateway-mock/vitest: cannot read the scenario ${chosen}${chosenByFile ? '' : ` (from run --scenario, ${RUN_ENVIRONMENT.scenario})`}: ${error instanceof Error ? error.message : String(error)}`);
    });
    scenarioFiles.set(path, text);
  }
  return { yamlOrName: await text, chosenByFile };
}

/** Adds the test's workspace's scenario rules and their hits to the file's report. */
async function tallyRules(report: MockRuleReport, control: ControlClient, chosenByFile: boolean): Promise<void> {
  let data: ControlResult<'listRules'>['data'];
  try {
    ({ data } = await control.listRules());
  } catch (error) {
    // The test deleted its workspace (or a TTL evicted it): its rules went with it, uncounted.
    if (error instanceof ControlError && (error.status === 404 || error.status === 401)) return;
    throw error;
  }
  for (const rule of data) {
    if (rule.source !== 'scenario' || rule.scenario === null) continue;
    let entry = report.scenarios.get(rule.scenario);
    if (!entry) {
      entry = { chosenByFile, tests: 0, fired: new Map() };
      report.scenarios.set(rule.scenario, entry);
    }
    entry.fired.set(rule.id, (entry.fired.get(rule.id) ?? 0) + rule.fired);
  }
  const names = new Set(data.filter((rule) => rule.source === 'scenario' && rule.scenario !== null).map((rule) => rule.scenario as string));
  for (const name of names) (report.scenarios.get(name) as { tests: number }).tests++;
}

/** What the kit says when a file ends: never silent about a scenario that played nothing. */
export function ruleReportLines(report: MockRuleReport, file: string): string[] {
  const lines: string[] = [];
  for (const [scenario, { chosenByFile, tests, fired }] of report.scenarios) {
    const unfired = [...fired].filter(([, hits]) => hits === 0).map(([id]) => id);
    const of = `${tests} test${tests === 1 ? '' : 's'}`;
    if (chosenByFile) {
      for (const id of unfired) lines.push(`social-gateway-mock/vitest: ${file}: rule ${id} of scenario ${scenario} never fired (in ${of})`);
    } else if (unfired.length === fired.size) {
      lines.push(`social-gateway-mock/vitest: ${file}: none of the ${fired.size} rules of scenario ${scenario} (run --scenario) fired in its ${of}: nothing was replayed here`);
    }
  }
  return lines;
}

/** The proxy and the real service behind it, when the tests run under `proxy -- <command>`. */
function proxyAround(): { url: string; upstream: string } | undefined {
  const upstream = process.env[RUN_ENVIRONMENT.proxyUpstream];
  const url = process.env[RUN_ENVIRONMENT.url];
  return upstream && url ? { url, upstream } : undefined;
}

/**
 * A stand-in for a control client where there is no mock world to control: touching any of
 * its methods calls `refuse`, which throws (or skips the test). `then` stays undefined, so the
 * stand-in can still be returned from an async function.
 */
function controlUnavailable(name: string, refuse: (what: string) => never): ControlClient {
  return new Proxy({} as ControlClient, {
    get: (_target, property) => (typeof property === 'string' && property !== 'then' ? refuse(`${name}.${property}`) : undefined),
  });
}

/** Why a test stops behind the proxy, naming what it touched. */
function mockWorldOnly(what: string, upstream: string): string {
  return `${what} needs the mock's own world (a workspace, its clock, rules and control plane); behind social-gateway-mock proxy the API is the real service at ${upstream}, which has none`;
}

/** A test's `mock` behind the proxy: the real service's URL and key; what only the mock has skips the test. */
function workspaceBehindProxy(server: MockServerInfo, upstream: string, skip: (note: string) => never): MockWorkspace {
  const apiKey = process.env[RUN_ENVIRONMENT.apiKey];
  if (!apiKey) {
    throw new Error(
      `Behind social-gateway-mock proxy (to ${upstream}) the kit has no key to send: start the proxy with SOCIAL_GATEWAY_MOCK_UPSTREAM_KEY=<the real service's key> (or --upstream-key); it hands the key to the tests as ${RUN_ENVIRONMENT.apiKey}.`,
    );
  }
  const unavailable = (what: string) => {
    const note = mockWorldOnly(what, upstream);
    // vitest's default reporter counts a skip without its note: the test's own output says why.
    console.warn(`social-gateway-mock/vitest: skipped: ${note}`);
    return skip(note);
  };
  return {
    url: server.url,
    baseUrl: `${server.url}/v1`,
    apiKey,
    upstream,
    control: controlUnavailable('mock.control', unavailable),
    get workspaceId(): string {
      return unavailable('mock.workspaceId');
    },
    get created(): ControlResult<'createWorkspace'> {
      return unavailable('mock.created');
    },
  };
}

/**
 * A vitest `test` (also usable as `it`) with a `mock` fixture: a fresh workspace per test on
 * a server shared by the worker. `options` says how each workspace is made (plan, seed,
 * scenario, clock, fixtures, pending; by default seed 1, a frozen clock starting when the
 * server started, and the fixture world without its pending work: `pending: true` brings
 * back its queued and scheduled posts and expiring tokens) and, under `server`, how the
 * server is started. Call it at the top level of a
 * file or in a shared module, not inside a `describe` (vitest defines worker-scoped
 * fixtures only there); vary the workspace per suite with `test.override({ mockOptions })`.
 *
 * @example
 * ```ts
 * // test/posts.test.ts
 * import { expect } from 'vitest';
 * import { createMockTest } from 'social-gateway-mock/vitest';
 *
 * const test = createMockTest({ clock: { start: '2026-03-02T09:00:00Z', frozen: true } });
 *
 * test('a new post publishes within a minute', async ({ mock }) => {
 *   const headers = { 'x-api-key': mock.apiKey, 'content-type': 'application/json' };
 *   const { connections } = await (await fetch(`${mock.baseUrl}/connections`, { headers })).json();
 *   const bluesky = connections.find((connection: { platform: string }) => connection.platform === 'bluesky');
 *   const created = await fetch(`${mock.baseUrl}/posts`, {
 *     method: 'POST',
 *     headers,
 *     body: JSON.stringify({ text: 'Hello', destinations: [{ connectionId: bluesky.id }] }),
 *   });
 *   const { post } = await created.json();
 *
 *   await mock.control.advanceClock({ by: 'PT1M' });
 *
 *   const { post: after } = await (await fetch(`${mock.baseUrl}/posts/${post.id}`, { headers })).json();
 *   expect(after.status).toBe('published');
 * });
 * ```
 */
export function createMockTest(options: MockTestOptions = {}): TestAPI<MockFixtures> {
  const { server: serverOptions, ...workspace } = options;
  const defaults = withDefaults(WORKSPACE_DEFAULTS, workspace);
  return baseTest.extend<MockFixtures>({
    mockServer: [
      // vitest reads a fixture's dependencies from its first parameter, which must be a destructuring.
      // eslint-disable-next-line no-empty-pattern
      async ({}, use) => {
        const proxy = proxyAround();
        if (proxy) {
          // The proxy's /v1 is the real service: no server to start, no workspace to make on it.
          const refuse = (what: string): never => {
            throw new Error(mockWorldOnly(what, proxy.upstream));
          };
          await use({ url: proxy.url, external: true, upstream: proxy.upstream, control: controlUnavailable('mockServer.control', refuse) });
          return;
        }
        const externalUrl = process.env[RUN_ENVIRONMENT.controlUrl];
        if (externalUrl) {
          // `run --` started the server and owns it: use it, never stop it.
          const control = createControlClient({ baseUrl: externalUrl, controlToken: process.env[RUN_ENVIRONMENT.controlToken] || undefined });
          await use({ url: control.baseUrl, external: true, control });
          control.close();
          return;
        }
        // Loaded only when needed, so a run against an external server never loads the server.
        const { createMockServer } = await import('../server.js');
        const server = await createMockServer(serverOptions);
        const control = createControlClient({ baseUrl: await server.listen(0), controlToken: serverOptions?.controlToken });
        try {
          await use({ url: control.baseUrl, external: false, control });
        } finally {
          control.close();
          await server.close();
        }
      },
      { scope: 'worker' },
    ],
    mockRuleReport: [
      // eslint-disable-next-line no-empty-pattern
      async ({}, use) => {
        const report: MockRuleReport = { scenarios: new Map() };
        await use(report);
        // vitest shows a file's console output with the file: the line names it too, for logs read later.
        for (const line of ruleReportLines(report, reportFile.get(report) ?? 'this file')) console.warn(line);
      },
      { scope: 'file' },
    ],
    mockOptions: defaults,
    mock: async ({ mockServer, mockOptions, mockRuleReport, task, skip }, use) => {
      if (mockServer.upstream !== undefined) {
        await use(workspaceBehindProxy(mockServer, mockServer.upstream, skip));
        return;
      }
      // `test.override({ mockOptions })` replaces the fixture's value: what it leaves out keeps the defaults.
      const options = withDefaults(defaults, mockOptions);
      // run --scenario's scenario reaches the workspaces of run's server only: a server the kit starts has no run around it.
      const scenario = await scenarioOf(options, mockServer.external ? process.env[RUN_ENVIRONMENT.scenario] : undefined);
      const created = await mockServer.control.createWorkspace({ ...options, ...(scenario && { scenario: scenario.yamlOrName }) });
      const control = mockServer.control.forWorkspace(created.apiKey);
      reportFile.set(mockRuleReport, relativePath(process.cwd(), task.file.filepath));
      try {
        await use({ url: mockServer.url, baseUrl: `${mockServer.url}/v1`, apiKey: created.apiKey, workspaceId: created.workspaceId, control, created });
      } finally {
        try {
          if (scenario) await tallyRules(mockRuleReport, control, scenario.chosenByFile);
        } finally {
          control.close();
          await deleteQuietly(control, created.workspaceId);
        }
      }
    },
  });
}

/**
 * A `test` with the default options: a fresh workspace per test (seed 1, clock frozen at the
 * server's start), the fixture world loaded without its pending work.
 *
 * @example
 * ```ts
 * import { expect } from 'vitest';
 * import { test } from 'social-gateway-mock/vitest';
 *
 * test('each test has its own workspace', async ({ mock }) => {
 *   const res = await fetch(`${mock.baseUrl}/posts`, { headers: { 'x-api-key': mock.apiKey } });
 *   expect(res.status).toBe(200);
 *   const { now } = await mock.control.advanceClock({ by: 'PT2H' });
 *   expect(now).toBe(new Date(Date.parse(mock.created.clock.now) + 2 * 3600_000).toISOString());
 * });
 * ```
 */
export const test: TestAPI<MockFixtures> = createMockTest();

/** The same as {@link test}, for suites written with `it`. */
export const it: TestAPI<MockFixtures> = test;
