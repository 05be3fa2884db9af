import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import type { Response } from 'supertest';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { DEFAULT_API_KEY } from '../../src/server.js';
import { cliIo } from '../helpers/cli-io.js';
import { expectStatus, startMock } from '../helpers/mock.js';
import { listening, plainServer, proxyTo, refusedUrl, temporaryDir } from './helpers.js';

/*
 * The whole loop of issue 22's replay: a client's session recorded through `proxy --record`,
 * turned into a scenario by `scenario from-recording`, loaded into a mock that shares nothing
 * with the upstream (another seed, an empty world), and the same session answered the same.
 */

const dirs: string[] = [];
function folder(): string {
  const dir = temporaryDir();
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

interface Call {
  method: 'get' | 'post';
  path: string;
  body?: object;
}

/** What the client saw, to the byte. */
interface Seen {
  status: number;
  contentType: string | undefined;
  text: string;
}
const seen = (res: Response): Seen => ({ status: res.status, contentType: res.headers['content-type'] as string | undefined, text: res.text });

async function send(base: Parameters<typeof request>[0], call: Call, headers: Record<string, string>): Promise<Seen> {
  const test = request(base)[call.method](call.path).set(headers);
  return seen(call.body ? await test.send(call.body) : await test);
}

async function replayScenario(recording: string): Promise<string> {
  const { streams, out, err } = cliIo({}, process.cwd());
  expect(await main(['scenario', 'from-recording', recording], streams)).toEqual({ exitCode: 0 });
  expect(err).toEqual([]);
  return out.join('\n');
}

/** The session again, against a mock of another seed running the scenario (loaded as a file). */
async function replayed(yaml: string, calls: Call[], headers: Record<string, string>) {
  const file = join(folder(), 'replay.yaml');
  writeFileSync(file, yaml);
  const replay = await startMock({ seed: 9, scenario: file });
  try {
    const answers: Seen[] = [];
    for (const call of calls) answers.push(await send(replay.server.app, call, headers));
    return answers;
  } finally {
    await replay.close();
  }
}

describe('a suite of tests recorded through proxy --record, replayed in a workspace per test', () => {
  it('gives each test the answers to its own requests, in any order: the ids the upstream minted line up in each workspace', { timeout: 90_000 }, async () => {
    const upstream = await listening({});
    const recording = join(folder(), 'recording');
    const proxy = await proxyTo(upstream.url, { recordDir: recording });
    const headers = { 'x-api-key': DEFAULT_API_KEY };
    // Two "tests", one after the other against the one real service: each lists, creates its post, reads it back by id.
    const testCalls = async (base: Parameters<typeof request>[0], text: string, filter: string) => {
      const answers: Seen[] = [];
      answers.push(await send(base, { method: 'get', path: `/v1/posts?${filter}` }, headers));
      const bluesky = (JSON.parse((await send(base, { method: 'get', path: '/v1/connections' }, headers)).text) as { connections: Array<{ platform: string; id: string }> }).connections.find((c) => c.platform === 'bluesky')?.id;
      const created = await send(base, { method: 'post', path: '/v1/posts', body: { text, destinations: [{ connectionId: bluesky }] } }, headers);
      answers.push(created);
      const id = (JSON.parse(created.text) as { post?: { id: string } }).post?.id ?? 'none';
      answers.push(await send(base, { method: 'get', path: `/v1/posts/${id}` }, headers));
      return answers;
    };
    let first: Seen[];
    let second: Seen[];
    try {
      first = await testCalls(proxy.url, 'First test', 'status=published&limit=1');
      second = await testCalls(proxy.url, 'Second test', 'status=published&limit=2');
    } finally {
      await proxy.close();
      await upstream.close();
    }
    // Two posts, two ids minted by the upstream, two pages of another size.
    expect(first[1]?.text).not.toBe(second[1]?.text);
    expect(first[0]?.text).not.toBe(second[0]?.text);

    const yaml = await replayScenario(recording);
    // A mock of another seed, each test in a fresh workspace of the scenario, the second test first.
    const replay = await startMock({ seed: 9 });
    try {
      const workspace = async () => {
        const res = await request(replay.server.app).post('/__control/workspaces').send({ scenario: yaml });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        return { 'x-api-key': res.body.apiKey as string };
      };
      const inWorkspace = async (text: string, filter: string) => {
        const own = await workspace();
        const base = replay.server.app;
        const answers: Seen[] = [];
        answers.push(await send(base, { method: 'get', path: `/v1/posts?${filter}` }, own));
        const bluesky = (JSON.parse((await send(base, { method: 'get', path: '/v1/connections' }, own)).text) as { connections: Array<{ platform: string; id: string }> }).connections.find((c) => c.platform === 'bluesky')?.id;
        const created = await send(base, { method: 'post', path: '/v1/posts', body: { text, destinations: [{ connectionId: bluesky }] } }, own);
        answers.push(created);
        const id = (JSON.parse(created.text) as { post?: { id: string } }).post?.id ?? 'none';
        answers.push(await send(base, { method: 'get', path: `/v1/posts/${id}` }, own));
        return answers;
      };
      expect(await inWorkspace('Second test', 'status=published&limit=2')).toEqual(second);
      expect(await inWorkspace('First test', 'status=published&limit=1')).toEqual(first);
    } finally {
      await replay.close();
    }
  });
});

describe('a session recorded through proxy --record', () => {
  it('replays byte for byte from the scenario from-recording writes, ids consistent and repeated reads in order', async () => {
    const upstream = await listening({});
    const recording = join(folder(), 'recording');
    const proxy = await proxyTo(upstream.url, { recordDir: recording });
    const headers = { 'x-api-key': DEFAULT_API_KEY };
    const answers: Seen[] = [];
    const calls: Call[] = [];
    const step = async (call: Call) => {
      calls.push(call);
      answers.push(await send(proxy.url, call, headers));
    };
    try {
      await step({ method: 'get', path: '/v1/connections' });
      const bluesky = (JSON.parse(answers[0]?.text ?? '{}') as { connections: Array<{ platform: string; id: string }> }).connections.find((c) => c.platform === 'bluesky')?.id;
      await step({ method: 'post', path: '/v1/posts', body: { text: 'Replayed launch', scheduledFor: '2026-03-02T12:00:00', timezone: 'UTC', destinations: [{ connectionId: bluesky }] } });
      const id = (JSON.parse(answers[1]?.text ?? '{}') as { post: { id: string } }).post.id;
      await step({ method: 'get', path: `/v1/posts/${id}` });
      expectStatus(await request(upstream.url).post('/__control/clock/advance').send({ by: 'PT4H' }), 200);
      await step({ method: 'get', path: `/v1/posts/${id}` });
    } finally {
      await proxy.close();
      await upstream.close();
    }
    expect(answers.map(({ status }) => status)).toEqual([200, 201, 200, 200]);
    expect(answers[2]?.text).not.toBe(answers[3]?.text);

    const yaml = await replayScenario(recording);
    // The key the client sent is redacted in the recording, so the scenario cannot hold it.
    expect(yaml).not.toContain(DEFAULT_API_KEY);
    expect(await replayed(yaml, calls, headers)).toEqual(answers);
  });

  it('replays a drifting upstream as it answered, and the 502 the proxy gave for one that never did', async () => {
    const drifting = await plainServer((req, res) => {
      if (req.url?.startsWith('/v1/connections')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"connections":[{"id":"c-1","platform":"bluesky","status":"hibernating","extra":true}]}');
        return;
      }
      res.writeHead(418, { 'content-type': 'text/plain' });
      res.end('short and stout');
    });
    const refused = await refusedUrl();
    const recordings = [join(folder(), 'drifting'), join(folder(), 'refused')];
    const calls: Call[] = [
      { method: 'get', path: '/v1/connections' },
      { method: 'get', path: '/v1/posts' },
    ];
    const headers = { 'x-api-key': DEFAULT_API_KEY };
    const answers: Seen[] = [];
    for (const [upstream, recordDir] of [
      [drifting.url, recordings[0]],
      [refused, recordings[1]],
    ] as const) {
      const proxy = await proxyTo(upstream, { recordDir });
      try {
        for (const call of calls) answers.push(await send(proxy.url, call, headers));
      } finally {
        await proxy.close();
      }
    }
    await drifting.close();
    expect(answers.map(({ status }) => status)).toEqual([200, 418, 502, 502]);

    const replays = [...(await replayed(await replayScenario(recordings[0] ?? ''), calls, headers)), ...(await replayed(await replayScenario(recordings[1] ?? ''), calls, headers))];
    expect(replays.slice(0, 2)).toEqual(answers.slice(0, 2));
    // The proxy's own 502: same status and envelope, code and message.
    for (const [i, replay] of replays.slice(2).entries()) {
      const proxied = answers[i + 2];
      expect(replay.status).toBe(502);
      expect(JSON.parse(replay.text)).toMatchObject({ error: { code: (JSON.parse(proxied?.text ?? '{}') as { error: { code: string } }).error.code, message: (JSON.parse(proxied?.text ?? '{}') as { error: { message: string } }).error.message } });
    }
  });
});
