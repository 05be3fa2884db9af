import type { Request, Response } from 'express';
import { contentSecurityPolicy, setPageHeaders } from '../http/page-policy.js';
import { escapeHtml } from '../lib/html.js';
import type { WorkspaceRegistry } from '../workspaces/registry.js';

/**
 * What `GET /` answers as JSON, and what the start banner prints: where everything is (absolute
 * URLs on the host the client called) and the default workspace's world. One map, so that the two
 * cannot tell a user different things.
 */
export interface IndexDocument {
  name: 'social-gateway-mock';
  version: string;
  /** Base URL of the API: `${api}/connections`, … */
  api: string;
  /** The reference page (Swagger UI). */
  docs: string;
  /** The dashboard: the journal live, and the workspaces (docs/dashboard.md). */
  dashboard: string;
  /** The API's contract. */
  openapi: string;
  /** Base URL of the control plane. */
  control: string;
  /** The control plane's contract. */
  controlContract: string;
  health: string;
  /** The MCP endpoint for coding agents (Streamable HTTP). */
  mcp: string;
  /** The default workspace's key; left out behind a control token, where the control plane's secrets are the token's. */
  apiKey?: string;
  /** The default workspace's scenario, or null. */
  scenario: string | null;
  world: { seed: number; plan: string };
  clock: { now: string; frozen: boolean };
  /** Where the data lives: the --data file, or `memory`; left out behind a control token. */
  data?: string;
}

/** What the map says of the server beyond its URLs, read when it is drawn. */
export interface ServerFacts {
  registry: WorkspaceRegistry;
  /** The default workspace's key. */
  apiKey: string;
  dataFile: string | undefined;
  /** Whether the control plane is open (no control token): only then may anyone read the key and the data file's path. */
  open: boolean;
}

export function indexDocument(origin: string, version: string, facts: ServerFacts): IndexDocument {
  const workspace = facts.registry.defaultWorkspace;
  return {
    name: 'social-gateway-mock',
    version,
    api: `${origin}/v1`,
    docs: `${origin}/docs`,
    dashboard: `${origin}/__dashboard`,
    openapi: `${origin}/openapi.yaml`,
    control: `${origin}/__control`,
    controlContract: `${origin}/control.yaml`,
    health: `${origin}/__control/health`,
    mcp: `${origin}/mcp`,
    ...(facts.open && { apiKey: facts.apiKey }),
    scenario: workspace.data.origin?.scenario?.name ?? null,
    world: { seed: workspace.data.seed, plan: workspace.data.plan },
    clock: { now: workspace.nowIso(), frozen: workspace.clock.frozen },
    ...(facts.open && { data: facts.dataFile ?? 'memory' }),
  };
}

/** The start banner's lines: the map, as a person reads it in a terminal. */
export function bannerLines(index: IndexDocument): string[] {
  return [
    `  API        ${index.api}`,
    ...(index.apiKey === undefined ? [] : [`  API key    ${index.apiKey}   (send as x-api-key, or Authorization: Bearer)`]),
    `  Control    ${index.control}`,
    `  Dashboard  ${index.dashboard}`,
    `  Docs       ${index.docs}`,
    `  Contract   ${index.openapi}`,
    `  MCP        ${index.mcp}`,
    `  Scenario   ${index.scenario ?? 'none'}`,
    `  World      seed ${index.world.seed}, plan ${index.world.plan}`,
    `  Clock      ${index.clock.now} (${index.clock.frozen ? 'frozen: only the control plane moves it' : 'running'})`,
    ...(index.data === undefined ? [] : [`  Data       ${index.data === 'memory' ? 'in memory' : index.data}`]),
  ];
}

// Links are relative, so the page holds nothing but the version and the API's base URL taken
// from the request, and that (the Host header is the client's to choose) is escaped.
function indexHtml(index: IndexDocument): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>social-gateway-mock ${escapeHtml(index.version)}</title>
</head>
<body>
  <h1>social-gateway-mock ${escapeHtml(index.version)}</h1>
  <p>A mock of the Social Publishing Gateway API. Point your client at <code>${escapeHtml(index.api)}</code>.</p>
  <pre>${escapeHtml(bannerLines(index).join('\n'))}</pre>
  <ul>
    <li><a href="/__dashboard">Dashboard</a> (requests live, workspaces)</li>
    <li><a href="/docs">Reference page</a> (both contracts, rendered)</li>
    <li><a href="/openapi.yaml">/openapi.yaml</a>: the API's contract</li>
    <li><a href="/control.yaml">/control.yaml</a>: the control plane's contract</li>
    <li><a href="/__control/health">/__control/health</a>: is it up</li>
  </ul>
</body>
</html>`;
}

/** Links and text only: the page loads nothing at all. */
const INDEX_POLICY = contentSecurityPolicy({ 'default-src': ["'none'"], 'base-uri': ["'none'"], 'form-action': ["'none'"] });

/**
 * `GET /`: a map of the server for whoever lands on it, JSON unless the client prefers HTML
 * (a browser). Not an API operation: it is outside both contracts and counts in no coverage.
 */
export function indexPage(version: string, facts: ServerFacts) {
  return (req: Request, res: Response) => {
    const index = indexDocument(`${req.protocol}://${req.get('host') ?? 'localhost'}`, version, facts);
    res.vary('Accept');
    if (req.accepts(['json', 'html']) === 'html') {
      setPageHeaders(res, INDEX_POLICY);
      res.type('html').send(indexHtml(index));
    } else res.json(index);
  };
}
