import type { Request, Response } from 'express';
import { contentSecurityPolicy, setPageHeaders } from '../http/page-policy.js';
import { escapeHtml } from '../lib/html.js';

/** What `GET /` answers as JSON: where everything is, as absolute URLs on the host the client called. */
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
}

export function indexDocument(origin: string, version: string): IndexDocument {
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
  };
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
export function indexPage(version: string) {
  return (req: Request, res: Response) => {
    const index = indexDocument(`${req.protocol}://${req.get('host') ?? 'localhost'}`, version);
    res.vary('Accept');
    if (req.accepts(['json', 'html']) === 'html') {
      setPageHeaders(res, INDEX_POLICY);
      res.type('html').send(indexHtml(index));
    } else res.json(index);
  };
}
