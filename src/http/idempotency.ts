import { createHash } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { defineStore } from '../store/define-store.js';
import { getOwn, setOwn } from '../lib/records.js';
import type { Workspace } from '../workspaces/workspace.js';
import { ApiError } from '../lib/errors.js';
import type { Responder } from './respond.js';
import type { Reply } from './route.js';
import type { OpenApiDocument } from './spec.js';
import { HTTP_METHODS } from './spec.js';

/** A key's first request and, once answered, its answer. */
interface IdempotencyEntry {
  /** Operation, path and body, hashed: a repeat must match it to be a replay. */
  fingerprint: string;
  /** Virtual time of the first request. */
  createdAtMs: number;
  /** Running until the first request has been answered. */
  state: 'running' | 'done';
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** Idempotency keys of one workspace, in arrival order (so expiry prunes from the front). */
const idempotencyStore = defineStore('idempotency', () => ({
  entries: {} as Record<string, IdempotencyEntry>,
}));

export const IDEMPOTENCY_WINDOW_MS = 24 * 3600_000;
const HEADER = 'idempotency-key';

/** Operation ids whose contract declares the Idempotency-Key header. */
export function idempotentOperations(document: OpenApiDocument): Set<string> {
  const found = new Set<string>();
  const resolve = (node: unknown): { in?: string; name?: string } => {
    const ref = (node as { $ref?: string }).$ref;
    if (!ref) return node as { in?: string; name?: string };
    const name = ref.split('/').pop() ?? '';
    return (document.components?.parameters?.[name] ?? {}) as { in?: string; name?: string };
  };
  for (const item of Object.values(document.paths)) {
    for (const method of HTTP_METHODS) {
      const op = item[method] as { operationId?: string; parameters?: unknown[] } | undefined;
      if (!op?.operationId) continue;
      const params = [...((item.parameters as unknown[] | undefined) ?? []), ...(op.parameters ?? [])].map(resolve);
      if (params.some((p) => p.in === 'header' && p.name?.toLowerCase() === HEADER)) found.add(op.operationId);
    }
  }
  return found;
}

function fingerprintOf(req: Request): string {
  return createHash('sha256')
    .update(`${req.ctx.operation?.operationId ?? ''}\n${req.baseUrl}${req.path}\n${JSON.stringify(req.body ?? null)}`)
    .digest('hex');
}

function prune(workspace: Workspace, entries: Record<string, IdempotencyEntry>): void {
  const oldest = workspace.now() - IDEMPOTENCY_WINDOW_MS;
  for (const [key, entry] of Object.entries(entries)) {
    if (entry.createdAtMs > oldest) break;
    if (entry.state === 'done') delete entries[key];
  }
}

/**
 * Same key and body within 24 hours (virtual time): the stored first answer, with
 * `Idempotent-Replayed: true`. Same key, different request: 422
 * IDEMPOTENCY_KEY_REUSED. Same key while the first still runs: 409
 * IDEMPOTENCY_KEY_IN_USE. A 429 or 5xx answer is not kept, so a retry runs again.
 */
export class Idempotency {
  /**
   * Entries this process is still answering. `running` alone is not enough: with
   * --data an entry can reach the file while its request runs, and after a restart
   * nothing will ever finish it, so a running entry not in this set is stale.
   */
  private readonly inFlight = new WeakSet<IdempotencyEntry>();

  constructor(
    private readonly operations: ReadonlySet<string>,
    private readonly responder: Responder,
  ) {
    responder.onSent((req, reply) => this.settle(req, reply));
  }

  /** The pipeline step, between validation and the handler. */
  step(): RequestHandler {
    return (req, res, next) => {
      const { operation, workspace } = req.ctx;
      const key = req.headers[HEADER];
      if (!operation || !workspace || typeof key !== 'string' || !this.operations.has(operation.operationId)) return next();
      const { entries } = idempotencyStore.get(workspace);
      prune(workspace, entries);
      const fingerprint = fingerprintOf(req);
      const existing = getOwn(entries, key);
      if (existing && existing.createdAtMs > workspace.now() - IDEMPOTENCY_WINDOW_MS) {
        if (existing.fingerprint !== fingerprint) {
          throw new ApiError(422, 'IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with a different request in the last 24 hours; use a new key.', { param: 'Idempotency-Key' });
        }
        if (existing.state === 'running' && this.inFlight.has(existing)) {
          throw new ApiError(409, 'IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is still being processed; retry after it finishes.', { param: 'Idempotency-Key' });
        }
        if (existing.state === 'done') {
          req.ctx.replayed = true;
          this.responder.send(req, res, {
            status: existing.status ?? 200,
            body: existing.body,
            headers: { ...existing.headers, 'Idempotent-Replayed': 'true' },
          });
          return;
        }
      }
      // Re-inserting moves the key to the end, keeping arrival order for pruning. The key
      // is the client's own text: `__proto__` must become an entry, not the store's prototype.
      delete entries[key];
      const entry: IdempotencyEntry = { fingerprint, createdAtMs: workspace.now(), state: 'running' };
      setOwn(entries, key, entry);
      this.inFlight.add(entry);
      req.ctx.idempotencyKey = key;
      next();
    };
  }

  /** Learns every answer: keeps the answer of a keyed request, or forgets the key on 429 and 5xx. */
  private settle(req: Request, reply: Reply): void {
    const { workspace, idempotencyKey } = req.ctx;
    if (!workspace || idempotencyKey === undefined) return;
    const { entries } = idempotencyStore.get(workspace);
    const entry = getOwn(entries, idempotencyKey);
    if (!entry || entry.state !== 'running') return;
    this.inFlight.delete(entry);
    if (reply.status === 429 || reply.status >= 500) {
      delete entries[idempotencyKey];
      return;
    }
    entry.state = 'done';
    entry.status = reply.status;
    entry.body = reply.body;
    if (reply.headers) entry.headers = reply.headers;
  }
}
