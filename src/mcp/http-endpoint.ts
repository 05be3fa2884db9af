import type { Request, RequestHandler } from 'express';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, type AuthInfo } from '@modelcontextprotocol/server';
import { apiKeyOf } from '../http/authenticate.js';
import { sameCredential } from '../lib/credentials.js';
import { ApiError } from '../lib/errors.js';
import { createMcpServer, type McpServerParts } from './mcp-server.js';
import { KeyRing, type McpSession } from './session.js';
export { packageResources } from './resources.js';
import { MockTarget } from './target.js';

/** What /mcp needs of the server it is mounted on. */
export interface McpEndpointOptions {
  parts: McpServerParts;
  /** The server's control token: with one, /mcp asks for it or a workspace's key, as /__control does. */
  controlToken?: string | undefined;
  /** The default workspace's key, which the owner's API calls use when no workspace is named. */
  defaultApiKey: string;
  /** Whether a key is one of a workspace's. */
  isWorkspaceKey: (key: string) => boolean;
}

/** `http://localhost:4010` against the Host `localhost:4010`: the page is the server's own. */
function isOwnOrigin(origin: string, host: string | undefined): boolean {
  try {
    return host !== undefined && new URL(origin).host === host.toLowerCase();
  } catch {
    return false;
  }
}

/** The mock's own address, as the socket that took the request knows it: the tools call it back there. */
function ownUrl(req: Request): string {
  const raw = req.socket.localAddress ?? '127.0.0.1';
  const address = raw.startsWith('::ffff:') ? raw.slice('::ffff:'.length) : raw;
  return `http://${address.includes(':') ? `[${address}]` : address}:${req.socket.localPort ?? 80}`;
}

/**
 * The MCP server over Streamable HTTP at /mcp, stateless (one MCP server per request, both
 * protocol eras), behind the same checks as the control plane: the server's Host check ran
 * before it (every route has it); here the Origin of any method is checked, as the protocol
 * requires against DNS rebinding, and the caller's credentials are those of /__control, which
 * the tools then carry on every control call they make, so x-access decides what each reaches.
 */
export function mcpEndpoint(options: McpEndpointOptions): RequestHandler {
  const isToken = options.controlToken === undefined ? undefined : (sent: string) => sameCredential(sent, options.controlToken ?? '');
  // Keys of workspaces the owner's tools created, shared by the owner's requests only (each request is a new MCP server).
  const ownerKeys = new KeyRing();
  const handler = createMcpHandler((context) => {
    const session = (context.authInfo?.extra as { session?: McpSession } | undefined)?.session;
    if (!session) throw new Error('/mcp: a request reached the MCP server without its session');
    return createMcpServer(session, options.parts);
  });
  const node = toNodeHandler(handler);

  return (req, res, next) => {
    const origin = req.headers.origin;
    if (origin !== undefined && !isOwnOrigin(origin, req.headers.host)) {
      throw new ApiError(403, 'FORBIDDEN', `/mcp does not answer pages of another origin ('${origin}'): a page of any site could otherwise drive the mock through an agent's tools.`, { param: 'Origin', details: { origin } });
    }
    const sentToken = req.headers['x-control-token'];
    const key = apiKeyOf(req);
    if (isToken && sentToken !== undefined && !(typeof sentToken === 'string' && isToken(sentToken))) throw new ApiError(401, 'UNAUTHORIZED', 'The control token (x-control-token) is wrong.');
    if (key !== undefined && !options.isWorkspaceKey(key)) throw new ApiError(401, 'UNAUTHORIZED', 'Invalid API key: no workspace has this key.');
    const owner = !isToken || sentToken !== undefined;
    if (!owner && key === undefined) throw new ApiError(401, 'UNAUTHORIZED', "This server requires the control token (x-control-token) or a workspace's API key (x-api-key) on /mcp, as on /__control.");
    const credentials = { ...(typeof sentToken === 'string' && { controlToken: sentToken }), ...(key !== undefined && { apiKey: key }) };
    const session: McpSession = {
      target: new MockTarget(ownUrl(req)),
      credentials,
      ...(owner && { defaultApiKey: options.defaultApiKey, keys: ownerKeys }),
    };
    const auth: AuthInfo = { token: key ?? '', clientId: owner ? 'owner' : 'workspace', scopes: [], extra: { session } };
    (req as Request & { auth?: AuthInfo }).auth = auth;
    node(req, res).catch(next);
  };
}
