import type { Request } from 'express';
import { accountsStore } from '../api/accounts/store.js';
import type { Operation } from '../http/operations.js';
import { HTTP_METHODS, type OpenApiDocument } from '../http/spec.js';
import type { Workspace } from '../workspaces/workspace.js';
import { getOwn } from '../lib/records.js';

/*
 * "The request's account", as scenario rules and outages read it. A request names an
 * account in one of these places, all of them checked:
 *   - the `{id}` of a path under /v1/accounts/{id} or /v1/connections/{id};
 *   - a query `accountId` or `connectionId`;
 *   - a body `accountId`, `connectionId`, or `destinations[].connectionId` (a post to
 *     several accounts names each of them).
 * Its platforms are those accounts' networks, plus the `{platform}` of the connect path.
 */

const ACCOUNT_PATH = /^\/v1\/(accounts|connections)\/\{id\}(\/|$)/;
const ACCOUNT_FIELDS = ['accountId', 'connectionId'] as const;

/** Where an operation's requests can name an account. */
export interface AccountSources {
  path: boolean;
  query: boolean;
  body: boolean;
  /** The connect path's `{platform}`. */
  platformPath: boolean;
}

type SchemaNode = { $ref?: string; properties?: Record<string, unknown>; allOf?: SchemaNode[]; oneOf?: SchemaNode[]; anyOf?: SchemaNode[] };

function deref<T>(document: OpenApiDocument, node: T & { $ref?: string }): T {
  let current = node as T & { $ref?: string };
  while (current?.$ref) {
    const parts = current.$ref.replace(/^#\//, '').split('/');
    let target: unknown = document;
    for (const part of parts) target = (target as Record<string, unknown>)[part];
    current = target as T & { $ref?: string };
  }
  return current;
}

function schemaHasAccountField(document: OpenApiDocument, node: SchemaNode | undefined, depth = 0): boolean {
  if (!node || depth > 5) return false;
  const schema = deref(document, node);
  const names = Object.keys(schema.properties ?? {});
  if (names.some((name) => (ACCOUNT_FIELDS as readonly string[]).includes(name) || name === 'destinations')) return true;
  return [...(schema.allOf ?? []), ...(schema.oneOf ?? []), ...(schema.anyOf ?? [])].some((branch) => schemaHasAccountField(document, branch, depth + 1));
}

/** For every operation of the contract, where its requests can name an account. */
export function accountSourcesOf(document: OpenApiDocument): Map<string, AccountSources> {
  const found = new Map<string, AccountSources>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of HTTP_METHODS) {
      const op = item[method] as { operationId?: string; parameters?: unknown[]; requestBody?: unknown } | undefined;
      if (!op?.operationId) continue;
      const parameters = [...((item.parameters as unknown[] | undefined) ?? []), ...(op.parameters ?? [])].map((p) => deref(document, p as { in?: string; name?: string; $ref?: string }));
      const body = op.requestBody ? deref(document, op.requestBody as { content?: Record<string, { schema?: SchemaNode }>; $ref?: string }) : undefined;
      found.set(op.operationId, {
        path: ACCOUNT_PATH.test(path),
        query: parameters.some((p) => p.in === 'query' && (ACCOUNT_FIELDS as readonly string[]).includes(p.name ?? '')),
        body: schemaHasAccountField(document, body?.content?.['application/json']?.schema),
        platformPath: parameters.some((p) => p.in === 'path' && p.name === 'platform'),
      });
    }
  }
  return found;
}

export function canNameAccount(sources: AccountSources | undefined): boolean {
  return sources !== undefined && (sources.path || sources.query || sources.body || sources.platformPath);
}

/** The accounts and platforms one request names. */
export interface RequestAccounts {
  accountIds: string[];
  platforms: string[];
}

function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string');
  return [];
}

/** Reads the request's accounts (the body must be parsed already when the operation takes one). */
export function requestAccounts(workspace: Workspace, req: Request, operation: Operation): RequestAccounts {
  const ids = new Set<string>();
  const platforms = new Set<string>();
  const params = req.ctx.params;
  if (ACCOUNT_PATH.test(operation.path) && params['id'] !== undefined) ids.add(params['id']);
  if (params['platform'] !== undefined) platforms.add(params['platform']);
  const query = req.query as Record<string, unknown>;
  for (const field of ACCOUNT_FIELDS) for (const id of stringsOf(query[field])) ids.add(id);
  const body = req.body as Record<string, unknown> | undefined;
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    for (const field of ACCOUNT_FIELDS) for (const id of stringsOf(body[field])) ids.add(id);
    if (Array.isArray(body['destinations'])) {
      for (const destination of body['destinations'] as unknown[]) {
        const id = (destination as { connectionId?: unknown } | null)?.connectionId;
        if (typeof id === 'string') ids.add(id);
      }
    }
  }
  // Peek: a read must not create an empty store in a workspace without accounts.
  const accounts = accountsStore.peek(workspace)?.accounts ?? {};
  for (const id of ids) {
    const platform = getOwn(accounts, id)?.platform;
    if (platform !== undefined) platforms.add(platform);
  }
  return { accountIds: [...ids], platforms: [...platforms] };
}
