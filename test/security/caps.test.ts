import { request as httpRequest, type IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { resolveOptions, UsageError } from '../../src/cli/options.js';
import { EMITTED_DATA_MAX_BYTES, RECENT_EVENTS_MAX_BYTES } from '../../src/events/bus.js';
import { SCENARIO_MAX_OBJECTS } from '../../src/scenarios/parse.js';
import { addRuntimeRule, MAX_RUNTIME_RULES } from '../../src/scenarios/runtime-rules.js';
import { expectApiError, expectStatus, type TestMock, useMock } from '../helpers/mock.js';

/*
 * Caps on what one request can make the server build (issue 28, item 3): each attack
 * below was accepted before, and built or kept whatever it asked for.
 */

/**
 * The attack as it was found: 8.4 KB of YAML asking for ten entries of 500 posts, each to
 * 100 destinations, five hundred thousand records. It took seconds and hundreds of MB.
 */
const HUGE_WORLD = ['posts:', ...Array.from({ length: 10 }, () => `  - { to: [${Array.from({ length: 100 }, () => 'twitter').join(',')}], at: -P400D, count: 500 }`)].join('\n');

/** Posts the default world of a fresh workspace holds, read through the API. */
async function postCount(mock: TestMock, key?: string): Promise<number> {
  const res = await mock.call('get', '/v1/posts?limit=1&include=total', key);
  expectStatus(res, 200);
  return res.body.total as number;
}

describe('scenario worlds', () => {
  const mock = useMock();

  describe('POST /__control/scenarios with a world past the cap', () => {
    it('answers 400 INVALID_SCENARIO naming the entry and the cap, and builds nothing', async () => {
      expect(HUGE_WORLD.length).toBeLessThan(9 * 1024);
      const before = await postCount(mock);
      const res = await mock.control('post', '/__control/scenarios').send({ yaml: HUGE_WORLD });
      expectApiError(res, 400, 'INVALID_SCENARIO', 'yaml');
      expect(res.body.error.details).toMatchObject({ field: 'posts[0].count', line: 2 });
      expect(res.body.error.message).toContain(`at most ${SCENARIO_MAX_OBJECTS}`);
      expect(res.body.error.message).toContain('500 posts × 100 destinations');
      // The workspace is as it was: no scenario, none of the posts.
      expect(await postCount(mock)).toBe(before);
      expect((await mock.control('get', '/__control/scenarios')).body.loaded).toBeUndefined();
    });

    it('counts across entries and names the one that crosses the cap', async () => {
      const yaml = ['posts:', ...Array.from({ length: 5 }, () => '  - { to: twitter, at: -P30D, count: 500, spacing: PT1M }')].join('\n');
      const res = await mock.control('post', '/__control/scenarios').send({ yaml });
      expectApiError(res, 400, 'INVALID_SCENARIO', 'yaml');
      expect(res.body.error.details).toMatchObject({ field: 'posts[4].count' });
    });

    it('counts what the timeline makes: network posts and inbound objects', async () => {
      const steps = Array.from({ length: SCENARIO_MAX_OBJECTS / 20 + 1 }, (_, i) => `  - { at: PT${i + 1}M, do: network.post, account: bluesky, count: 20 }`);
      const res = await mock.control('post', '/__control/scenarios').send({ yaml: ['timeline:', ...steps].join('\n') });
      expectApiError(res, 400, 'INVALID_SCENARIO', 'yaml');
      expect(res.body.error.details).toMatchObject({ field: `timeline[${SCENARIO_MAX_OBJECTS / 20}].count` });
    });

    it('loads a world exactly at the cap', async () => {
      const yaml = ['posts:', ...Array.from({ length: SCENARIO_MAX_OBJECTS / 500 }, () => '  - { to: twitter, at: -P30D, count: 500, spacing: PT1M }')].join('\n');
      const key = (await mock.control('post', '/__control/workspaces').send({ scenario: yaml })).body.apiKey as string;
      expect(await postCount(mock, key)).toBeGreaterThanOrEqual(SCENARIO_MAX_OBJECTS);
    });
  });

  describe('POST /__control/workspaces with a scenario past the cap', () => {
    it('answers 400 INVALID_SCENARIO naming the cap, and makes no workspace', async () => {
      const before = (await mock.control('get', '/__control/health')).body.workspaces as number;
      const res = await mock.control('post', '/__control/workspaces').send({ scenario: HUGE_WORLD });
      expectApiError(res, 400, 'INVALID_SCENARIO', 'scenario');
      expect(res.body.error.details).toMatchObject({ field: 'posts[0].count' });
      expect(res.body.error.message).toContain(`at most ${SCENARIO_MAX_OBJECTS}`);
      expect((await mock.control('get', '/__control/health')).body.workspaces).toBe(before);
    });
  });

  describe('an emit step whose data is past the cap', () => {
    it('answers 400 INVALID_SCENARIO naming the step and the cap', async () => {
      const data = JSON.stringify({ pad: 'x'.repeat(EMITTED_DATA_MAX_BYTES) });
      const res = await mock.control('post', '/__control/scenarios').send({ yaml: `timeline:\n  - { at: PT1M, do: emit, event: post.published, data: ${data} }\n` });
      expectApiError(res, 400, 'INVALID_SCENARIO', 'yaml');
      expect(res.body.error.details).toMatchObject({ field: 'timeline[0].data' });
      expect(res.body.error.message).toContain(`at most ${EMITTED_DATA_MAX_BYTES}`);
    });
  });
});

describe('run-time rules per workspace', () => {
  const mock = useMock();

  it(`refuses rule ${MAX_RUNTIME_RULES + 1} with 409 naming the cap, and takes one again once a rule is removed`, async () => {
    const workspace = mock.server.registry.defaultWorkspace;
    // The first thousand go in directly: a thousand HTTP calls would only make the test slow.
    for (let i = 0; i < MAX_RUNTIME_RULES; i++) addRuntimeRule(workspace, { id: `r${i}`, match: { operationId: 'listProfiles' }, then: { latencyMs: 1 } });
    const res = await mock.control('post', '/__control/rules').send({ id: 'one-too-many', match: { operationId: 'listProfiles' }, then: { latencyMs: 1 } });
    expectApiError(res, 409, 'CONFLICT');
    expect(res.body.error.message).toContain(`holds ${MAX_RUNTIME_RULES} rules added at run time`);
    expect(res.body.error.details).toEqual({ limit: MAX_RUNTIME_RULES });
    expect((await mock.control('get', '/__control/rules')).body.data).toHaveLength(MAX_RUNTIME_RULES);

    expectStatus(await mock.control('delete', '/__control/rules/r0'), 200);
    expectStatus(await mock.control('post', '/__control/rules').send({ id: 'fits-again', match: { operationId: 'listProfiles' }, then: { latencyMs: 1 } }), 201);
  });
});

describe('emitted events', () => {
  const mock = useMock();

  it('POST /__control/events refuses overrides that make the data larger than the cap, with 400 naming it', async () => {
    const post = (await mock.call('get', '/v1/posts?limit=1')).body.data[0] as { id: string };
    const res = await mock.control('post', '/__control/events').send({ event: 'post.published', objectId: post.id, overrides: { pad: 'x'.repeat(EMITTED_DATA_MAX_BYTES) } });
    expectApiError(res, 400, 'VALIDATION_ERROR', 'overrides');
    expect(res.body.error.message).toContain(`at most ${EMITTED_DATA_MAX_BYTES}`);
    expect((await mock.control('get', '/__control/journal?operationId=emitEvent')).body.data).toEqual([]);
  });

  it('the recent events kept for replay are bounded in bytes, not only in count', () => {
    const workspace = mock.server.registry.defaultWorkspace;
    const pad = 'x'.repeat(60 * 1024);
    const emitted = Math.ceil((2 * RECENT_EVENTS_MAX_BYTES) / pad.length);
    for (let i = 0; i < emitted; i++) workspace.events.emit('post.published', { pad });
    const kept = workspace.events.recent();
    const bytes = kept.reduce((sum, event) => sum + JSON.stringify(event.data).length, 0);
    expect(kept.length).toBeLessThan(emitted);
    expect(bytes).toBeLessThanOrEqual(RECENT_EVENTS_MAX_BYTES);
    // The newest are the ones kept.
    expect(kept.at(-1)?.id).toBeDefined();
  });
});

describe('--media-quota and --media-quota-server', () => {
  const server = (argv: string[], env: NodeJS.ProcessEnv = {}) => {
    const resolved = resolveOptions(argv, { env, cwd: '/nonexistent' });
    if (resolved === 'help' || resolved === 'version') throw new Error(`unexpected ${resolved}`);
    return resolved.server;
  };

  it('read sizes in units of 1024, from flags or the environment', () => {
    expect(server(['--media-quota', '512kb', '--media-quota-server', '2GB'])).toMatchObject({ mediaQuotaBytes: 512 * 1024, mediaQuotaServerBytes: 2 * 1024 ** 3 });
    expect(server([], { SOCIAL_GATEWAY_MOCK_MEDIA_QUOTA: '1mb' })).toMatchObject({ mediaQuotaBytes: 1024 * 1024 });
  });

  it.each(['lots', '1.5mb', '0x10mb', '10tb'])('refuse %s naming the flag', (value) => {
    expect(() => server(['--media-quota', value])).toThrow(UsageError);
    expect(() => server(['--media-quota', value])).toThrow(/--media-quota must be a size/);
  });
});

describe('media quotas', () => {
  const KIB = 1024;
  const mock = useMock({ mediaQuotaBytes: 1024 * KIB, mediaQuotaServerBytes: 2048 * KIB });

  function local(url: string): string {
    const parsed = new URL(url);
    return `${parsed.pathname}${parsed.search}`;
  }

  async function presign(key?: string): Promise<string> {
    const res = await mock.call('post', '/v1/media/presign', key).send({ filename: 'clip.mp4', contentType: 'video/mp4' });
    expectStatus(res, 200);
    return local(res.body.uploadUrl as string);
  }

  function upload(path: string, size: number) {
    return mock.call('put', path, null).set('Content-Type', 'video/mp4').send(Buffer.alloc(size, 1));
  }

  async function mediaCount(key?: string): Promise<number> {
    return (await mock.call('get', '/v1/media?include=total', key)).body.total as number;
  }

  async function newWorkspace(): Promise<{ id: string; key: string }> {
    const { body } = await mock.control('post', '/__control/workspaces').send({ fixtures: false });
    return { id: body.workspaceId as string, key: body.apiKey as string };
  }

  it('refuses an upload past --media-quota with 413 naming the flag, stores nothing, and another workspace still uploads', async () => {
    const a = await newWorkspace();
    expectStatus(await upload(await presign(a.key), 600 * KIB), 200);
    const res = await upload(await presign(a.key), 600 * KIB);
    expectApiError(res, 413, 'PAYLOAD_TOO_LARGE');
    expect(res.body.error.message).toContain('--media-quota');
    expect(res.body.error.details).toMatchObject({ quota: '--media-quota', limit: 1024 * KIB, used: 600 * KIB, size: 600 * KIB });
    expect(await mediaCount(a.key)).toBe(1);

    const b = await newWorkspace();
    expectStatus(await upload(await presign(b.key), 600 * KIB), 200);

    // A second PUT to the same URL replaces the file: the one it replaces is free room.
    const again = await presign(b.key);
    expectStatus(await upload(again, 300 * KIB), 200);
    expectStatus(await upload(again, 400 * KIB), 200);

    // A reset drops the workspace's media, and with it its share.
    expectStatus(await mock.control('post', '/__control/reset', a.key), 200);
    expectStatus(await upload(await presign(a.key), 1000 * KIB), 200);
    for (const id of [a.id, b.id]) expectStatus(await mock.control('delete', `/__control/workspaces/${id}`), 200);
  });

  it('refuses an upload without Content-Length as it streams, once it passes the quota', async () => {
    const a = await newWorkspace();
    const url = await mock.server.listen(0);
    const path = await presign(a.key);
    const chunk = Buffer.alloc(64 * KIB, 1);
    const answer = await new Promise<{ status: number; body: { error: { code: string; message: string } } }>((resolve, reject) => {
      const req = httpRequest(`${url}${path}`, { method: 'PUT', headers: { 'Content-Type': 'video/mp4', 'Transfer-Encoding': 'chunked' } }, (res: IncomingMessage) => {
        const parts: Buffer[] = [];
        res.on('data', (part: Buffer) => parts.push(part));
        res.on('end', () => {
          const text = Buffer.concat(parts).toString('utf8');
          resolve({ status: res.statusCode ?? 0, body: text === '' ? { error: { code: '', message: '' } } : JSON.parse(text) });
        });
      });
      req.on('error', reject);
      // 2 MiB in all, twice the workspace's quota; the server answers once the first MiB is passed.
      for (let i = 0; i < 32; i++) req.write(chunk);
      req.end();
    });
    expect(answer.status).toBe(413);
    expect(answer.body.error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', message: expect.stringContaining('--media-quota') });
    expect(await mediaCount(a.key)).toBe(0);
    expectStatus(await mock.control('delete', `/__control/workspaces/${a.id}`), 200);
  });

  it('refuses an upload past --media-quota-server with 413 naming that flag; deleting a workspace frees its share', async () => {
    const holders = [await newWorkspace(), await newWorkspace(), await newWorkspace()];
    for (const holder of holders.slice(0, 2)) expectStatus(await upload(await presign(holder.key), 900 * KIB), 200);
    const third = holders[2] as { id: string; key: string };
    const path = await presign(third.key);
    const res = await upload(path, 900 * KIB);
    expectApiError(res, 413, 'PAYLOAD_TOO_LARGE');
    expect(res.body.error.message).toContain('--media-quota-server');
    expect(res.body.error.details).toMatchObject({ quota: '--media-quota-server', limit: 2048 * KIB, used: 1800 * KIB });

    expectStatus(await mock.control('delete', `/__control/workspaces/${holders[0]?.id}`), 200);
    expectStatus(await upload(path, 900 * KIB), 200);
  });
});

describe('an event stream whose client stops reading', () => {
  const CAP = 256 * 1024;
  const mock = useMock({ fixtures: false, httpLimits: { maxStreamBufferBytes: CAP } }, { listen: true });

  async function openStreams(): Promise<number> {
    const { body } = await mock.control('get', '/__control/workspaces');
    return (body.data as Array<{ default: boolean; eventStreams: number }>).find((listing) => listing.default)?.eventStreams ?? -1;
  }

  it('is closed once its buffered bytes pass the cap, instead of growing without bound', async () => {
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = httpRequest(`${mock.url}/__control/events`, { headers: { Accept: 'text/event-stream' } }, resolve);
      req.on('error', reject);
      req.end();
    });
    // The client reads nothing more: the kernel's buffers fill, then the server's would.
    response.pause();
    response.socket.on('error', () => undefined);
    expect(await openStreams()).toBe(1);

    const workspace = mock.server.registry.defaultWorkspace;
    const pad = 'x'.repeat(64 * 1024);
    // Far more than a socket's kernel buffers take: without the cap it all waits in the server's memory.
    const budget = 64 * 1024 * 1024;
    let written = 0;
    while (written < budget && (await openStreams()) === 1) {
      for (let i = 0; i < 16; i++) workspace.events.emit('post.published', { pad });
      written += 16 * pad.length;
    }
    expect(written, 'bytes emitted before the stream was closed').toBeLessThan(budget);
    expect(await openStreams()).toBe(0);
    response.destroy();
  });
});
