/**
 * The "pipeline overhead" baseline: a plain Express 5 app with express-openapi-validator
 * validating requests against the same openapi.yaml with the mock's own options, serving
 * the same data for the benchmark's routes. It checks the API key and that destinations
 * exist, and has none of the mock's journal, budgets, idempotency, workspaces or state:
 * a created post is answered, not stored.
 *
 *   node --import tsx bench/servers/express-baseline.ts --port 4100 --data data.json [--tuned]
 *
 * With --tuned it applies the mock's own workarounds of the validator's costs
 * (bench/lib/validator-tuning.ts), so that what remains between the two is the
 * mock's pipeline alone.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import express, { type NextFunction, type Request, type Response } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { parse } from 'yaml';
import { mockValidatorOptions, tuneValidator } from '../lib/validator-tuning.js';

export interface BaselineData {
  apiKey: string;
  /** `GET /v1/connections`'s `connections`, as the mock answers them. */
  connections: Array<{ id: string; platform: string }>;
  /** Account views, as `GET /v1/accounts` lists them. */
  accounts: unknown[];
  /** Post views, newest first, as `GET /v1/posts` lists them. */
  posts: unknown[];
}

interface CreatePostBody {
  text?: string;
  mediaUrls?: string[];
  mediaKind?: string;
  destinations: Array<{ connectionId: string }>;
}

const { values } = parseArgs({ options: { port: { type: 'string' }, data: { type: 'string' }, spec: { type: 'string' }, tuned: { type: 'boolean' } } });
if (values.tuned) tuneValidator();
const data = JSON.parse(readFileSync(values.data ?? '', 'utf8')) as BaselineData;
const document = parse(readFileSync(values.spec ?? 'openapi.yaml', 'utf8')) as { paths: Record<string, Record<string, unknown>> };
// As the mock does: the callbacks describe requests the service sends, not ones it receives.
for (const item of Object.values(document.paths)) {
  for (const operation of Object.values(item)) {
    if (operation && typeof operation === 'object') delete (operation as { callbacks?: unknown }).callbacks;
  }
}
const connections = new Map(data.connections.map((connection) => [connection.id, connection]));

function fail(res: Response, status: number, code: string, message: string): void {
  res.status(status).json({ error: { code, message } });
}

const app = express();
app.disable('x-powered-by');
app.set('etag', false);

app.use((req: Request, res: Response, next: NextFunction) => {
  const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
  if ((req.headers['x-api-key'] ?? bearer) !== data.apiKey) return fail(res, 401, 'UNAUTHORIZED', 'Missing or invalid API key.');
  next();
});
app.use(express.json({ limit: '1mb', type: ['application/json', 'application/*+json'] }));
for (const step of OpenApiValidator.middleware(mockValidatorOptions(document))) {
  app.use(step);
}

function page(items: unknown[], limit: unknown) {
  const size = typeof limit === 'number' ? limit : 50;
  return { data: items.slice(0, size), nextCursor: null, hasMore: items.length > size };
}

app.get('/v1/connections', (_req, res) => {
  res.json({ connections: data.connections });
});
app.get('/v1/accounts', (req, res) => {
  res.json(page(data.accounts, req.query.limit));
});
app.get('/v1/posts', (req, res) => {
  res.json(page(data.posts, req.query.limit));
});
const postsById = new Map((data.posts as Array<{ id: string }>).map((post) => [post.id, post]));
app.get('/v1/posts/:postId', (req, res) => {
  const post = postsById.get(req.params.postId);
  if (!post) return fail(res, 404, 'NOT_FOUND', `No post ${req.params.postId}.`);
  res.json({ post });
});
app.post('/v1/posts', (req, res) => {
  const body = req.body as CreatePostBody;
  const now = new Date().toISOString();
  const destinations = [];
  for (const destination of body.destinations) {
    const connection = connections.get(destination.connectionId);
    if (!connection) return fail(res, 404, 'NOT_FOUND', `No connection ${destination.connectionId}.`);
    destinations.push({
      id: randomUUID(),
      connectionId: connection.id,
      platform: connection.platform,
      status: 'queued',
      externalPostId: null,
      externalUrl: null,
      errorCode: null,
      errorMessage: null,
      publishedAt: null,
      metrics: null,
    });
  }
  res.status(201).json({
    post: {
      id: randomUUID(),
      text: body.text ?? '',
      mediaUrls: body.mediaUrls ?? [],
      mediaKind: body.mediaKind ?? 'text',
      status: 'queued',
      scheduledFor: null,
      timezone: null,
      destinations,
      source: 'api',
      createdAt: now,
      updatedAt: now,
    },
  });
});

app.use((_req: Request, res: Response) => fail(res, 404, 'NOT_FOUND', 'No such route.'));
app.use((error: { status?: number; message?: string }, _req: Request, res: Response, _next: NextFunction) => {
  const status = error.status ?? 500;
  fail(res, status, status === 400 ? 'VALIDATION_ERROR' : 'ERROR', error.message ?? 'error');
});

app.listen(Number(values.port ?? 0), '127.0.0.1');
// Exit rather than die on a signal, so that `node --cpu-prof` writes its profile (to compare with the mock's).
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(0));
