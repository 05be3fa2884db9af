import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadSpec } from '../../src/http/spec.js';
import type { Workspace } from '../../src/workspaces/workspace.js';
import { operationModels, requestTarget, type OperationModel } from '../fuzz/operations.js';
import { SchemaArbitraries } from '../fuzz/schema-arbitraries.js';
import { snapshot, unchangedSince } from '../fuzz/state.js';
import { expectApiError, expectStatus, useMock } from '../helpers/mock.js';

/*
 * Every operation of openapi.yaml that takes an id (in its path, or in its body:
 * connectionId, accountId, destinationId, post), called with ids that exist in
 * workspace A and the key of workspace B, answers 404 NOT_FOUND and changes neither
 * workspace. The operations come from the contract and the ids from A's list
 * endpoints and its stores, so an operation added to the contract joins the walk
 * (and fails it, until workspace A holds a record for it to aim at).
 */

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const document = loadSpec('openapi.yaml').document;
const operations = operationModels(document, 'api');
const arbitraries = new SchemaArbitraries({ document });
const ajv = new Ajv({ strict: false, validateSchema: false });
addFormats(ajv);
ajv.addSchema(document as object, 'contract');

/** What a path segment before `{param}` names: the kind of record the id belongs to. */
const KIND_OF_SEGMENT: Record<string, string> = {
  accounts: 'accounts',
  connections: 'accounts',
  profiles: 'profiles',
  posts: 'posts',
  comments: 'comments',
  conversations: 'conversations',
  webhooks: 'webhooks',
  deliveries: 'deliveries',
  automations: 'automations',
  'connect-sessions': 'sessions',
};

/** List endpoints that name a kind's ids. */
const LISTS: Record<string, { operationId: string; path: string }> = {
  accounts: { operationId: 'listAccounts', path: '/v1/accounts?limit=100' },
  profiles: { operationId: 'listProfiles', path: '/v1/profiles?limit=100' },
  posts: { operationId: 'listPosts', path: '/v1/posts?limit=100' },
  webhooks: { operationId: 'listWebhooks', path: '/v1/webhooks?limit=100' },
  automations: { operationId: 'listAutomations', path: '/v1/automations?limit=100' },
};

type Row = { id: string; platform?: string };

const idParams = (op: OperationModel) => op.parameters.filter((p) => p.in === 'path' && /id$/i.test(p.name));
const withIds = operations.filter((op) => idParams(op).length > 0);

const mock = useMock();
let keyA: string;
let keyB: string;
let workspaceA: Workspace;
let workspaceB: Workspace;
const idsOfA = new Map<string, Row[]>();

/**
 * Records of A by kind, from its stores: every object with an `id` found under a key
 * named like the kind (a collection `posts: { [id]: … }` or an array `destinations: […]`).
 */
function fromStores(kind: string): Row[] {
  const stem = kind.replace(/ies$/, 'y').replace(/s$/, '').toLowerCase();
  const rows: Row[] = [];
  const walk = (value: unknown, underKind: boolean) => {
    if (Array.isArray(value)) {
      for (const item of value) walk(item, underKind);
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    const row = value as { id?: unknown; platform?: unknown };
    if (underKind && typeof row.id === 'string') rows.push({ id: row.id, ...(typeof row.platform === 'string' && { platform: row.platform }) });
    for (const [key, inner] of Object.entries(value)) {
      if (typeof inner === 'object' && inner !== null) walk(inner, key.toLowerCase().includes(stem) || (underKind && !Array.isArray(value) && row.id === undefined));
    }
  };
  walk(workspaceA.data.stores, false);
  return rows;
}

async function collect(kind: string): Promise<Row[]> {
  const list = LISTS[kind];
  if (list) {
    const res = await mock.call('get', list.path, keyA);
    expectStatus(res, 200);
    const rows = (res.body.data as Row[]).map(({ id, platform }) => ({ id, ...(platform !== undefined && { platform }) }));
    if (rows.length > 0) return rows;
  }
  return fromStores(kind);
}

/** Gives A what the fixture world holds none of: a webhook with a delivery, and a connect session. */
async function seedRecordsOfA(): Promise<void> {
  const hook = await mock.call('post', '/v1/webhooks', keyA).send({ name: 'Isolation', url: 'http://127.0.0.1:9/hook', events: ['post.published'] });
  expectStatus(hook, 201);
  expectStatus(await mock.call('post', `/v1/webhooks/${hook.body.id as string}/test`, keyA), 200);
  const deliveries = await mock.call('get', `/v1/webhooks/${hook.body.id as string}/deliveries`, keyA);
  expectStatus(deliveries, 200);
  idsOfA.set('deliveries', (deliveries.body.data as Row[]).map(({ id }) => ({ id })));
  // A session has candidates once its sign-in is approved.
  const connect = await mock.call('post', '/v1/connections/linkedin/connect', keyA).send({ redirectUrl: 'https://app.example.com/callback' });
  expectStatus(connect, 200);
  const signIn = new URL(connect.body.url as string);
  expect((await mock.call('get', `${signIn.pathname}${signIn.search}&auto=approve`, null)).status).toBe(303);
  idsOfA.set('sessions', [{ id: signIn.searchParams.get('session') as string }]);
}

/**
 * Where the operation's JSON body schema lives, as a reference into the contract: under
 * the operation itself or under `components/requestBodies` (the schema there may be
 * inline, or a `$ref` that ajv follows from it). A reference built from the schema's own
 * `$ref` would name the whole document for an inline schema, and check nothing.
 */
function bodySchemaRef(op: OperationModel): string {
  const operation = document.paths[op.path]?.[op.method.toLowerCase()] as { requestBody?: { $ref?: string } };
  const segment = (key: string) => encodeURIComponent(key.replace(/~/g, '~0').replace(/\//g, '~1'));
  const requestBody = operation.requestBody?.$ref ?? `#/paths/${segment(op.path)}/${op.method.toLowerCase()}/requestBody`;
  return `contract${requestBody}/content/application~1json/schema`;
}

/** The validator of the operation's JSON body. */
function bodyValidator(op: OperationModel): ValidateFunction {
  const validate = ajv.getSchema(bodySchemaRef(op));
  if (!validate) throw new Error(`${op.operationId}: no body schema at ${bodySchemaRef(op)}`);
  return validate;
}

/** The body schema's own example (checked against the schema), or undefined when it has none. */
function validBody(op: OperationModel): unknown {
  if (!op.body) return undefined;
  const schema = arbitraries.resolve(op.body.schema);
  const validate = bodyValidator(op);
  if (schema.example !== undefined) {
    expect(validate(schema.example), `${op.operationId}: the contract's own example breaks its schema: ${JSON.stringify(validate.errors)}`).toBe(true);
    return schema.example;
  }
  return undefined;
}

/** A's ids for the operation's path, preferring an account on the network the path names. */
function pathFor(op: OperationModel): string | undefined {
  const segments = op.path.split('/');
  return requestTarget(op, (param, segment) => {
    if (param === 'platform') return 'instagram';
    const kind = KIND_OF_SEGMENT[segment];
    const rows = kind ? (idsOfA.get(kind) ?? []) : [];
    return (rows.find((candidate) => candidate.platform !== undefined && segments.includes(candidate.platform)) ?? rows[0])?.id;
  });
}

beforeAll(async () => {
  const a = await mock.control('post', '/__control/workspaces').send({});
  const b = await mock.control('post', '/__control/workspaces').send({});
  expectStatus(a, 201);
  expectStatus(b, 201);
  [keyA, keyB] = [a.body.apiKey as string, b.body.apiKey as string];
  [workspaceA, workspaceB] = [mock.server.registry.get(a.body.workspaceId as string), mock.server.registry.get(b.body.workspaceId as string)] as [Workspace, Workspace];
  await seedRecordsOfA();
  for (const kind of new Set([...Object.values(KIND_OF_SEGMENT), ...Object.values(BODY_ID_KINDS)])) if (!idsOfA.has(kind)) idsOfA.set(kind, await collect(kind));
});

/** Body fields that name a record of the workspace, and the kind of record. */
const BODY_ID_KINDS: Record<string, string> = { connectionId: 'accounts', accountId: 'accounts', reconnectId: 'accounts', destinationId: 'destinations', post: 'posts' };

/** Whether the contract declares a 404 answer for the operation. */
function declares404(op: OperationModel): boolean {
  const operation = document.paths[op.path]?.[op.method.toLowerCase()] as { responses?: Record<string, unknown> } | undefined;
  return operation?.responses?.['404'] !== undefined;
}

/** Whether a body holds a field that names a record of the workspace (BODY_ID_KINDS), at any depth. */
function namesRecords(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(namesRecords);
  if (typeof value !== 'object' || value === null) return false;
  return Object.entries(value).some(([key, inner]) => (key in BODY_ID_KINDS && typeof inner === 'string') || namesRecords(inner));
}

/** A time a day after workspace B's clock, in the local form `scheduledFor` takes: the example's own date may be past. */
function tomorrowOfB(): string {
  return new Date(workspaceB.now() + 86_400_000).toISOString().slice(0, 19);
}

/** The example body of an operation with every id field it holds set to one of A's ids; undefined when it holds none. */
function bodyWithIdsOfA(op: OperationModel): { body: unknown; fields: string[] } | undefined {
  if (!op.body) return undefined;
  const fields: string[] = [];
  const replace = (value: unknown, path: string): unknown => {
    if (Array.isArray(value)) return value.map((item, i) => replace(item, `${path}[${i}]`));
    if (typeof value !== 'object' || value === null) return value;
    const copy: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      const field = path === '' ? key : `${path}.${key}`;
      const kind = BODY_ID_KINDS[key];
      const row = kind ? idsOfA.get(kind)?.[0] : undefined;
      if (row && typeof inner === 'string') fields.push(field);
      if (key === 'scheduledFor' && typeof inner === 'string') copy[key] = tomorrowOfB();
      else copy[key] = row && typeof inner === 'string' ? row.id : replace(inner, field);
    }
    return copy;
  };
  const example = validBody(op);
  if (example === undefined) return undefined;
  const body = replace(example, '');
  return fields.length > 0 ? { body, fields } : undefined;
}

describe('the body check every walk below relies on', () => {
  // Bodies whose schema is inline under components/requestBodies, and one whose operation holds its body (a $ref to components/schemas).
  describe.each(['createPost', 'createWebhook', 'createAutomation', 'updateWebhook'])('%s', (operationId) => {
    const op = operations.find((candidate) => candidate.operationId === operationId) as OperationModel;

    it('accepts the contract’s own example and rejects a body its schema refuses', () => {
      const example = validBody(op) as Record<string, unknown>;
      expect(example).toBeTypeOf('object');
      const validate = bodyValidator(op);
      expect(validate({ ...example, notAField: true }), 'an unknown field (bodies are closed)').toBe(false);
      expect(validate([]), 'an array').toBe(false);
    });
  });
});

describe('every operation that takes an id in its path', () => {
  it('is found in the contract (the walk is not empty)', () => {
    expect(withIds.length).toBeGreaterThan(20);
    expect(idParams(operations.find((op) => op.operationId === 'getAccount') as OperationModel).map((p) => p.name)).toEqual(['id']);
  });

  describe.each(withIds.map((op) => [`${op.operationId} (${op.method} ${op.path})`, op] as const))('%s', (_name, op) => {
    it('answers 404 NOT_FOUND to workspace B for ids of workspace A', async () => {
      const path = pathFor(op) as string;
      expect(path, `workspace A holds no id of the kind ${op.path} takes`).toBeDefined();
      const body = validBody(op);
      expect(op.body?.required && body === undefined, `${op.operationId}: its body schema has no example to send`).toBeFalsy();
      const [beforeA, beforeB] = [snapshot(workspaceA), snapshot(workspaceB)];
      const method = op.method.toLowerCase() as 'get' | 'post' | 'patch' | 'delete' | 'put';
      const asB = body === undefined ? await mock.call(method, path, keyB) : await mock.call(method, path, keyB).send(body as object);
      expectApiError(asB, 404, 'NOT_FOUND');
      expect(unchangedSince(beforeA, workspaceA), 'workspace A changed').toEqual({ same: true });
      expect(unchangedSince(beforeB, workspaceB), `workspace B changed by ${op.operationId}`).toEqual({ same: true });
      // The ids are real: A itself finds them, and its own read changes nothing of A either.
      if (op.method === 'GET') {
        const beforeRead = snapshot(workspaceA);
        expect((await mock.call('get', path, keyA)).status, `${path} as A`).not.toBe(404);
        expect(unchangedSince(beforeRead, workspaceA), `${op.operationId} changed the workspace it read`).toEqual({ same: true });
      }
    });
  });
});

describe('every operation that takes an id in its body', () => {
  const inBody = operations.filter((op) => idParams(op).length === 0 && namesRecords(validBody(op)));

  it('is found in the contract (the walk is not empty)', () => {
    expect(inBody.map((op) => op.operationId)).toEqual(expect.arrayContaining(['createPost']));
  });

  describe.each(inBody.map((op) => [`${op.operationId} (${op.method} ${op.path})`, op] as const))('%s', (_name, op) => {
    it('answers 404 NOT_FOUND to workspace B for ids of workspace A', async () => {
      const request = bodyWithIdsOfA(op) as { body: unknown; fields: string[] };
      const [beforeA, beforeB] = [snapshot(workspaceA), snapshot(workspaceB)];
      const method = op.method.toLowerCase() as 'post' | 'delete';
      const path = op.path.replace('{platform}', 'bluesky');
      const res = await mock.call(method, path, keyB).send(request.body as object);
      // 404 where the contract declares it; else (createPost) the id is a bad field of the body.
      if (declares404(op)) expectApiError(res, 404, 'NOT_FOUND');
      else {
        expectApiError(res, 400, 'VALIDATION_ERROR');
        expect(request.fields).toContain(res.body.error.param);
      }
      expect(unchangedSince(beforeA, workspaceA), 'workspace A changed').toEqual({ same: true });
      expect(unchangedSince(beforeB, workspaceB), 'workspace B changed').toEqual({ same: true });
    });
  });
});
