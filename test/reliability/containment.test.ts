import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { JOB_RELEASE_HELD } from '../../src/api/webhooks/dispatcher.js';
import { MediaQuota } from '../../src/api/media/quota.js';
import { InjectedFailure, type Boundary } from '../../src/lib/containment.js';
import { createMockServer, type MockServer } from '../../src/server.js';
import { httpClient } from '../helpers/mcp.js';
import { expectStatus, startMock, useMock, type StartedMock } from '../helpers/mock.js';
import { SseClient } from '../helpers/sse-client.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

/**
 * Decision 0041: a failure at any boundary with nobody above it (a response's close handler, a
 * timer, the scheduler, a webhook attempt, an event stream, an MCP session, the proxy, a
 * background file write) ends its own work only. The seam (`containment.failNext`) throws at the
 * boundary as a bug there would; each test then checks the failure was answered where a request
 * was still open, logged once with its stack, counted in the health at that boundary, and that
 * another workspace is served as before.
 */

const KEY = 'sgw_test_default';
/** The smallest PNG: its signature and an IHDR chunk's start are what an upload is checked for. */
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a5f6b1f80000000049454e44ae426082', 'hex');
let errors: MockInstance<typeof console.error>;
beforeEach(() => {
  errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
});
afterEach(() => {
  errors.mockRestore();
});

interface Tenant {
  workspaceId: string;
  apiKey: string;
}

async function health(url: string): Promise<{ total: number; byBoundary: Record<Boundary, number> }> {
  const res = await fetch(`${url}/__control/health`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { failures: { total: number; byBoundary: Record<Boundary, number> } }).failures;
}

async function get(url: string, path: string, apiKey: string): Promise<{ status: number; body: { error?: { code: string; details?: { requestId?: string } } } }> {
  const res = await fetch(`${url}${path}`, { headers: { 'x-api-key': apiKey } });
  return { status: res.status, body: (await res.json()) as { error?: { code: string; details?: { requestId?: string } } } };
}

/** The one failure logged: its boundary, its id, and the stack of the seam's throw. */
function expectLoggedOnce(boundary: Boundary): string {
  const lines = errors.mock.calls.map((call) => String(call[0])).filter((line) => line.includes('was contained'));
  expect(lines).toHaveLength(1);
  expect(lines[0]).toContain(`at the ${boundary} boundary`);
  expect(lines[0]).toMatch(/InjectedFailure: .*\n\s+at /);
  return /\((req_[0-9a-f]+)\)/.exec(lines[0] ?? '')?.[1] ?? '';
}

describe('a failure contained at its boundary', () => {
  const mock = useMock({}, { listen: true });
  let other: Tenant;

  beforeAll(async () => {
    const made = await request(mock.server.app).post('/__control/workspaces').send({ fixtures: false });
    expectStatus(made, 201);
    other = made.body as Tenant;
  });

  /** The other workspace is served, and the failure is counted once, at `boundary` only. */
  async function stillServing(boundary: Boundary, before: { total: number; byBoundary: Record<Boundary, number> }): Promise<void> {
    expect((await get(mock.url, '/v1/posts', other.apiKey)).status).toBe(200);
    await vi.waitFor(async () => expect((await health(mock.url)).byBoundary[boundary]).toBe(before.byBoundary[boundary] + 1));
    expect((await health(mock.url)).total).toBe(before.total + 1);
  }

  it('request: the listener answers 500 INTERNAL_ERROR with the id its log line carries', async () => {
    const before = await health(mock.url);
    mock.server.containment.failNext('request');
    const failed = await get(mock.url, '/v1/posts', KEY);
    expect(failed.status).toBe(500);
    expect(failed.body.error?.code).toBe('INTERNAL_ERROR');
    expect(failed.body.error?.details?.requestId).toBe(expectLoggedOnce('request'));
    await stillServing('request', before);
  });

  it("response: the answer went out; only the request's journal entry is lost", async () => {
    const before = await health(mock.url);
    mock.server.containment.failNext('response');
    expect((await get(mock.url, '/v1/posts', KEY)).status).toBe(200);
    await stillServing('response', before);
    expectLoggedOnce('response');
  });

  it('scheduler: a job that throws ends alone, and the clock moves on', async () => {
    const before = await health(mock.url);
    mock.server.containment.failNext('scheduler');
    const move = await request(mock.server.app).post('/__control/clock/advance').set('x-api-key', KEY).send({ by: 'P2D' });
    expectStatus(move, 200);
    expect((move.body as { ran: Array<{ ok: boolean }> }).ran.filter((job) => !job.ok)).toHaveLength(1);
    await stillServing('scheduler', before);
    expectLoggedOnce('scheduler');
  });

  it("timer: a running clock's timer that throws is caught, and the workspace keeps its job", async () => {
    const before = await health(mock.url);
    const workspace = mock.server.registry.defaultWorkspace;
    mock.server.containment.failNext('timer');
    workspace.clock.resume();
    try {
      // Due now: the timer fires at once, and the seam throws in it.
      workspace.scheduler.schedule(JOB_RELEASE_HELD, workspace.now(), { webhookId: 'none', deliveryId: 'none' });
      await stillServing('timer', before);
      expectLoggedOnce('timer');
    } finally {
      workspace.clock.freeze();
      workspace.scheduler.arm();
    }
  });

  it('webhook: an attempt that throws ends alone, and the next one is sent', async () => {
    const receiver = await WebhookReceiver.start();
    try {
      const hook = await request(mock.server.app).post('/v1/webhooks').set('x-api-key', KEY).send({ name: 'CRM', url: receiver.url, events: ['post.published'], secret: 'whsec_0123456789abcdef' });
      expectStatus(hook, 201);
      const before = await health(mock.url);
      mock.server.containment.failNext('webhook');
      const first = await request(mock.server.app).post(`/v1/webhooks/${hook.body.id}/test`).set('x-api-key', KEY).send({});
      expect(first.status).toBeLessThan(500);
      await stillServing('webhook', before);
      expectLoggedOnce('webhook');
      expect(receiver.requests).toHaveLength(0);
      expect((await request(mock.server.app).post(`/v1/webhooks/${hook.body.id}/test`).set('x-api-key', KEY).send({})).status).toBeLessThan(300);
      await receiver.waitFor(1);
    } finally {
      await receiver.close();
    }
  });

  it("event-stream: one message's write fails; the request that caused it and the stream's next message do not", async () => {
    const stream = await SseClient.open(`${mock.url}/__control/events?requests=true`, { 'x-api-key': KEY });
    try {
      const before = await health(mock.url);
      mock.server.containment.failNext('event-stream');
      expect((await get(mock.url, '/v1/posts', KEY)).status).toBe(200);
      await stillServing('event-stream', before);
      expectLoggedOnce('event-stream');
      expect((await get(mock.url, '/v1/posts?limit=1', KEY)).status).toBe(200);
      await vi.waitFor(() => expect(stream.events().some((message) => message.data?.includes('limit=1'))).toBe(true));
    } finally {
      stream.close();
    }
  });

  it("timer: a dripped answer's next piece that throws cuts that answer alone", async () => {
    const rule = await request(mock.server.app).post('/__control/rules').set('x-api-key', KEY).send({ match: { operationId: 'listProfiles' }, then: { drip: { chunkBytes: 8, intervalMs: 1 } } });
    expectStatus(rule, 201);
    try {
      const before = await health(mock.url);
      mock.server.containment.failNext('timer');
      const dripped = await fetch(`${mock.url}/v1/profiles`, { headers: { 'x-api-key': KEY } });
      expect(dripped.status).toBe(200);
      // The first piece went out; the step after it threw, and the answer was cut rather than left open.
      await expect(dripped.text()).rejects.toThrow();
      await stillServing('timer', before);
      expectLoggedOnce('timer');
    } finally {
      expectStatus(await request(mock.server.app).delete(`/__control/rules/${rule.body.id}`).set('x-api-key', KEY), 200);
    }
  });

  it("response: an upload's release of its quota that throws after the answer is caught there", async () => {
    const reserve = MediaQuota.prototype.reserve;
    // The real release may run twice (the body read, then the close) and does its work once; this one
    // throws when the close calls it, as a bug there would.
    vi.spyOn(MediaQuota.prototype, 'reserve').mockImplementationOnce(function (this: MediaQuota, ...args: Parameters<MediaQuota['reserve']>) {
      const release = reserve.apply(this, args);
      let calls = 0;
      return () => {
        if (++calls > 1) throw new InjectedFailure('response');
        release();
      };
    });
    const presigned = await request(mock.server.app).post('/v1/media/presign').set('x-api-key', KEY).send({ filename: 'a.png', contentType: 'image/png' });
    expectStatus(presigned, 200);
    const before = await health(mock.url);
    const upload = await fetch(`${mock.url}${new URL(presigned.body.uploadUrl as string).pathname}${new URL(presigned.body.uploadUrl as string).search}`, { method: 'PUT', headers: { 'Content-Type': 'image/png' }, body: PNG });
    expect(upload.status).toBe(200);
    await stillServing('response', before);
    expectLoggedOnce('response');
  });

  it('mcp: the session answers 500 INTERNAL_ERROR in the envelope, and the next session works', async () => {
    const before = await health(mock.url);
    mock.server.containment.failNext('mcp');
    const failed = await fetch(`${mock.url}/mcp`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'test', version: '1' } } }),
    });
    expect(failed.status).toBe(500);
    const body = (await failed.json()) as { error: { code: string; details: { requestId: string } } };
    expect(body.error.code).toBe('INTERNAL_ERROR');
    expect(body.error.details.requestId).toBe(expectLoggedOnce('mcp'));
    await stillServing('mcp', before);
    const client = await httpClient(mock.url);
    try {
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });
});

describe('a failure contained in the proxy', () => {
  let upstream: StartedMock;
  let proxy: MockServer;
  let proxyUrl: string;
  beforeAll(async () => {
    upstream = await startMock();
    proxy = await createMockServer({ fixtures: false, proxy: { upstream: await upstream.server.listen(0) } });
    proxyUrl = await proxy.listen(0);
  });
  afterAll(async () => {
    await proxy.close();
    await upstream.close();
  });

  it('proxy: the exchange answers 500 INTERNAL_ERROR with the id, and the next one is forwarded', async () => {
    proxy.containment.failNext('proxy');
    const failed = await get(proxyUrl, '/v1/posts', KEY);
    expect(failed.status).toBe(500);
    expect(failed.body.error?.code).toBe('INTERNAL_ERROR');
    expect(failed.body.error?.details?.requestId).toBe(expectLoggedOnce('proxy'));
    expect((await get(proxyUrl, '/v1/posts', KEY)).status).toBe(200);
    expect((await health(proxyUrl)).byBoundary.proxy).toBe(1);
  });
});

describe('a failure contained in a background write of --data', () => {
  let dir: string;
  let mock: StartedMock;
  let url: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sgm-containment-'));
    mock = await startMock({ dataFile: join(dir, 'data.json') });
    url = await mock.server.listen(0);
  });
  afterAll(async () => {
    await mock.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('file-write: the write that failed is counted, and the next one takes the change along', async () => {
    mock.server.containment.failNext('file-write');
    // A change no request waits on (a job's, on a running clock) is written in the background: that write fails.
    mock.server.registry.defaultWorkspace.changed();
    await vi.waitFor(async () => expect((await health(url)).byBoundary['file-write']).toBe(1));
    expectLoggedOnce('file-write');
    expectStatus(await request(mock.server.app).post('/v1/profiles').set('x-api-key', KEY).send({ name: 'After' }), 201);
    expect(readFileSync(join(dir, 'data.json'), 'utf8')).toContain('After');
  });
});

describe("a failure contained in the HTTP server's own events", () => {
  it("server: an error the listening server emits (a connection it could not accept) is counted, every time, and the server goes on", async () => {
    // The server is the one whose listen the mock called.
    const spy = vi.spyOn(Server.prototype, 'listen');
    const mock = await startMock();
    try {
      const url = await mock.server.listen(0);
      const server = spy.mock.contexts.at(-1) as Server;
      spy.mockRestore();
      // Node emits these from its accept loop (EMFILE past the open-file limit); unheard, the second ended the process.
      for (let i = 0; i < 2; i++) expect(() => server.emit('error', Object.assign(new Error('accept EMFILE'), { code: 'EMFILE', syscall: 'accept' }))).not.toThrow();
      expect((await health(url)).byBoundary.server).toBe(2);
      expect((await get(url, '/v1/posts', KEY)).status).toBe(200);
      const lines = errors.mock.calls.map((call) => String(call[0])).filter((line) => line.includes('at the server boundary'));
      expect(lines).toHaveLength(2);
      expect(lines[0]).toContain('accept EMFILE');
    } finally {
      spy.mockRestore();
      await mock.close();
    }
  });
});
