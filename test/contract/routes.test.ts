import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { apiRoutes } from '../../src/api/index.js';
import { renderCoverageDoc } from '../../src/docs/coverage-doc.js';
import { OperationIndex } from '../../src/http/operations.js';
import { loadSpec } from '../../src/http/spec.js';
import { packagePath } from '../../src/lib/package-root.js';
import { useMock } from '../helpers/mock.js';

const index = new OperationIndex(loadSpec('openapi.yaml').document);

const mock = useMock();

/** A concrete path for a template: every {param} gets a value no workspace holds. */
function concrete(path: string): string {
  return path.replace(/\{[^}]+\}/g, 'no-such-id');
}

describe('every operation of openapi.yaml', () => {
  it('has camelCase operation ids, unique, and a tag', () => {
    const ids = index.operations.map((operation) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const operation of index.operations) {
      expect(operation.operationId).toMatch(/^[a-z][a-zA-Z0-9]+$/);
      expect(operation.tags.length, operation.operationId).toBeGreaterThan(0);
    }
  });

  it.each(index.operations.map((operation) => [operation.operationId, operation] as const))('%s has a route (implemented or 501)', async (_id, operation) => {
    const res = await mock.call(operation.method.toLowerCase() as 'get', concrete(operation.path));
    const code = res.body?.error?.code as string | undefined;
    // Whatever it answers (400 for a missing field, 404 for the unknown id, 501), it is not the router's "no route".
    expect(res.status, JSON.stringify(res.body)).not.toBe(405);
    expect(res.body?.error?.message ?? '', JSON.stringify(res.body)).not.toMatch(/^No route/);
    expect(code).not.toBe('INTERNAL_ERROR');
    expect(code).not.toBe('CONTRACT_VIOLATION');
  });

  it('is named by every route of the route table', () => {
    for (const definition of apiRoutes) expect(index.byOperationId(definition.operationId), definition.operationId).toBeDefined();
  });
});

describe('docs/coverage.md', () => {
  it('is what npm run coverage:doc generates from the current contract and routes', () => {
    const committed = readFileSync(packagePath('docs', 'coverage.md'), 'utf8');
    expect(committed, 'docs/coverage.md is stale: run npm run coverage:doc').toBe(renderCoverageDoc());
  });

  const row = (start: string) => renderCoverageDoc().split('\n').find((line) => line.startsWith(start)) ?? '';

  it("tells each write's answer as the mock gives it: createPost's envelope, createWebhook's bare webhook", async () => {
    expect(row('| `createPost` |')).toContain('`{ post: Post }`: an envelope');
    expect(row('| `createWebhook` |')).toContain('`Webhook` itself, bare');
    const [connection] = (await mock.call('get', '/v1/connections')).body.connections as Array<{ id: string; platform: string }>;
    const post = await mock.call('post', '/v1/posts').send({ text: 'Shapes', destinations: [{ connectionId: (connection as { id: string }).id }] });
    expect(Object.keys(post.body)).toEqual(['post']);
    const webhook = await mock.call('post', '/v1/webhooks').send({ name: 'Shapes', url: 'https://hooks.example-client.com/shapes', events: ['post.published'] });
    expect(webhook.body).toMatchObject({ id: expect.any(String), name: 'Shapes' });
  });

  it('tells which networks take text-only, image and video posts, as the mock refuses them', async () => {
    expect(row('| `tiktok` ')).toMatch(/^\| `tiktok` \(short-video\) \| no \| no \| no \| yes \|/);
    expect(row('| `bluesky` ')).toMatch(/^\| `bluesky` \([^)]*\) \| yes \| yes \| yes \(4\) \| yes \|/);
    const connections = (await mock.call('get', '/v1/connections')).body.connections as Array<{ id: string; platform: string; status: string }>;
    const tiktok = connections.find((connection) => connection.platform === 'tiktok' && connection.status === 'active');
    if (!tiktok) throw new Error('the fixture world has no active tiktok account');
    const refused = await mock.call('post', '/v1/posts').send({ text: 'Text only', destinations: [{ connectionId: tiktok.id }] });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'VALIDATION_ERROR', param: 'mediaUrls' });
  });
});

describe('served documents', () => {
  it('serves the contract as written at /openapi.yaml', async () => {
    const res = await mock.call('get', '/openapi.yaml', null);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/yaml/);
    expect(res.text).toBe(readFileSync(packagePath('openapi.yaml'), 'utf8'));
  });

  it('serves each contract as plain text to a browser opening its link, which would download YAML', async () => {
    for (const file of ['openapi.yaml', 'control.yaml']) {
      const res = await mock.call('get', `/${file}`, null).set('Accept', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8');
      expect(res.headers['content-type'], file).toBe('text/plain; charset=utf-8');
      expect(res.headers['vary'], file).toMatch(/Accept/);
      expect(res.text, file).toBe(readFileSync(packagePath(file), 'utf8'));
      // Swagger UI's fetch, and any client that accepts anything, still gets YAML.
      expect((await mock.call('get', `/${file}`, null).set('Accept', 'application/json, */*')).headers['content-type'], file).toMatch(/^application\/yaml/);
    }
  });

  it('answers /favicon.ico with no content, so no page a browser shows logs a 404 for it', async () => {
    const res = await mock.call('get', '/favicon.ico', null);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
  });

  it('renders the reference page at /docs from the Swagger UI assets it ships', async () => {
    const page = await mock.call('get', '/docs/', null);
    expect(page.status).toBe(200);
    expect(page.text).toContain('/docs/assets/swagger-ui-bundle.js');
    const bundle = await mock.call('get', '/docs/assets/swagger-ui-bundle.js', null);
    expect(bundle.status).toBe(200);
    expect(bundle.text.length).toBeGreaterThan(100_000);
  });
});
