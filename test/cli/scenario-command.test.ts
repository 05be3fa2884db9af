import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Response } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { main } from '../../src/cli/main.js';
import { OperationIndex } from '../../src/http/operations.js';
import { loadSpec } from '../../src/http/spec.js';
import { RECORDING_FORMAT, writeExchange, type RecordedExchange } from '../../src/proxy/recording.js';
import { REDACTED } from '../../src/redaction/redactor.js';
import { DEFAULT_API_KEY } from '../../src/server.js';
import { cliIo } from '../helpers/cli-io.js';
import { expectStatus, startMock, type TestMock, useMock } from '../helpers/mock.js';

const tempDirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sgw-replay-'));
  tempDirs.push(dir);
  return dir;
}

type Method = 'get' | 'post' | 'delete';

const operations = new OperationIndex(loadSpec('openapi.yaml').document);

/** A request of the client's session: sent once to the recorded service, then again to the replay. */
interface Call {
  method: Method;
  path: string;
  body?: object;
}

/** What the client saw of one answer. */
interface Seen {
  status: number;
  /** The body's bytes, as text. */
  text: string;
  requestId: string | undefined;
}

const seen = (res: Response): Seen => ({ status: res.status, text: res.text, requestId: res.headers['x-request-id'] as string | undefined });
const bodyOf = (answer: Seen | undefined) => JSON.parse(answer?.text ?? 'null') as unknown;

/**
 * A recording made the way the proxy makes one, of a real mock standing in for the upstream: each
 * exchange as the client saw it, its API key redacted, written with writeExchange.
 */
class Recorder {
  private seq = 0;
  readonly answers: Seen[] = [];

  constructor(
    readonly dir: string,
    private readonly upstream: TestMock,
  ) {}

  async send(call: Call, key: string): Promise<Response> {
    const test = this.upstream.call(call.method, call.path, key).set('x-request-id', `client-${this.seq + 1}`);
    const res = call.body ? await test.send(call.body) : await test;
    const seq = ++this.seq;
    const [path = call.path, query = ''] = call.path.split('?');
    const json = res.headers['content-type']?.startsWith('application/json') === true && res.text !== '';
    const headers = Object.fromEntries(Object.entries(res.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : String(value)]));
    // The upstream's own request id stands in for the header the real service adds to each answer.
    headers['x-request-id'] = `upstream-${seq}`;
    const found = operations.match(call.method.toUpperCase(), path);
    writeExchange(this.dir, {
      format: RECORDING_FORMAT,
      seq,
      operationId: found.kind === 'found' ? found.operation.operationId : null,
      startedAt: new Date(Date.UTC(2026, 2, 2, 9, 0, seq)).toISOString(),
      durationMs: 3,
      request: { method: call.method.toUpperCase(), path, query, headers: { 'x-api-key': REDACTED, 'content-type': 'application/json' }, ...(call.body && { json: call.body }) },
      response: { status: res.status, headers, ...(json ? { json: res.body as unknown } : res.text ? { text: res.text } : {}) },
    });
    this.answers.push({ status: res.status, text: res.text, requestId: `upstream-${seq}` });
    return res;
  }

  /** An exchange the upstream never answered: the proxy gave the client its 502 instead. */
  failed(call: Call): void {
    const seq = ++this.seq;
    const exchange: RecordedExchange = {
      format: RECORDING_FORMAT,
      seq,
      operationId: 'listPosts',
      startedAt: new Date(Date.UTC(2026, 2, 2, 9, 0, seq)).toISOString(),
      durationMs: 5000,
      request: { method: call.method.toUpperCase(), path: call.path, query: '', headers: { 'x-api-key': REDACTED } },
      response: null,
      upstreamError: { code: 'PLATFORM_ERROR', message: 'The upstream did not answer within 5000 ms.' },
    };
    writeExchange(this.dir, exchange);
    this.answers.push({ status: 502, text: JSON.stringify({ error: exchange.upstreamError }), requestId: undefined });
  }
}

const upstream = useMock();
let recorder: Recorder;
let calls: Call[];
let yaml: string;
let recordingDir: string;

beforeAll(async () => {
  const dir = join(tempDir(), 'recording');
  recordingDir = dir;
  recorder = new Recorder(dir, upstream);
  const { body } = await upstream.call('get', '/v1/connections');
  const bluesky = (body.connections as Array<{ platform: string; id: string }>).find((c) => c.platform === 'bluesky')?.id;
  const list: Call = { method: 'get', path: '/v1/posts?limit=2' };
  await recorder.send(list, DEFAULT_API_KEY);
  const created = await recorder.send({ method: 'post', path: '/v1/posts', body: { text: 'Launch day', destinations: [{ connectionId: bluesky }], scheduledFor: '2026-03-02T12:00:00', timezone: 'UTC' } }, DEFAULT_API_KEY);
  expectStatus(created, 201);
  const id = created.body.post.id as string;
  // Identical requests whose answers differ: the list before and after the create, the post before and after its delete.
  const read: Call = { method: 'get', path: `/v1/posts/${id}` };
  calls = [list, { method: 'post', path: '/v1/posts', body: { text: 'Launch day', destinations: [{ connectionId: bluesky }], scheduledFor: '2026-03-02T12:00:00', timezone: 'UTC' } }];
  const session = async (more: Call[]) => {
    for (const call of more) await recorder.send(call, DEFAULT_API_KEY);
    calls.push(...more);
  };
  await session([read, list]);
  // Time passes at the upstream (no request of the client's): the post goes out.
  expectStatus(await upstream.control('post', '/__control/clock/advance').send({ by: 'PT4H' }), 200);
  await session([read, { method: 'delete', path: `/v1/posts/${id}` }, read, { method: 'get', path: '/v1/no-such-thing' }]);
  recorder.failed({ method: 'get', path: '/v1/posts' });
  calls.push({ method: 'get', path: '/v1/posts' });

  // From the checkout: the printed scenario's $schema line is a path from the working folder.
  const { streams, out, err } = cliIo({}, process.cwd());
  expect(await main(['scenario', 'from-recording', dir], streams)).toEqual({ exitCode: 0 });
  expect(err).toEqual([]);
  yaml = out.join('\n');
});
afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

describe('scenario from-recording', () => {
  it('writes a scenario of one rule per replayable exchange, in arrival order, starting empty on a frozen clock', () => {
    const scenario = parse(yaml) as { description: string; fixtures: boolean; clock: { start: string; frozen: boolean }; rules: Array<{ id: string; match: { operationId: string; params?: Record<string, string> }; times: number }> };
    expect(yaml.split('\n')[0]).toBe('# yaml-language-server: $schema=./scenarios/scenario.schema.json');
    expect(scenario.description).toMatch(/recording: 8 of its 9 exchanges, from 2026-03-02T09:00:00\.000Z \(1 left out/);
    expect(scenario.fixtures).toBe(false);
    // The service's own time (its first Date header), not the proxy's (startedAt, a second later here).
    expect(scenario.clock).toEqual({ start: '2026-03-02T09:00:00.000Z', frozen: true });
    expect(scenario.rules.map((rule) => rule.id)).toEqual(['rec-000001-listPosts', 'rec-000002-createPost', 'rec-000003-getPost', 'rec-000004-listPosts', 'rec-000005-getPost', 'rec-000006-deletePost', 'rec-000007-getPost', 'rec-000009-listPosts']);
    expect(scenario.rules.every((rule) => rule.times === 1)).toBe(true);
    // The id a recorded create answered is the id the recorded read and delete ask for.
    const createdId = (bodyOf(recorder.answers[1]) as { post: { id: string } }).post.id;
    expect(scenario.rules[2]?.match).toEqual({ operationId: 'getPost', params: { id: createdId }, query: {} });
    expect(scenario.rules[5]?.match).toEqual({ operationId: 'deletePost', params: { id: createdId }, query: {} });
    expect(yaml).toContain('exchange 8, GET /v1/no-such-thing: left out, it reached no operation of openapi.yaml');
    // The redacted key is not something to match on, and never a value the scenario holds.
    expect(yaml).not.toContain(REDACTED);
  });

  describe('loaded into a mock of another seed, whose own answers differ', () => {
    const replay = useMock(() => {
      const file = join(tempDir(), 'replay.yaml');
      writeFileSync(file, yaml);
      return { seed: 2, scenario: file };
    });

    const replayAll = async () => {
      const answers: Seen[] = [];
      for (const call of calls) {
        const test = replay.call(call.method, call.path);
        answers.push(seen(call.body ? await test.send(call.body) : await test));
      }
      return answers;
    };

    it('answers the recorded statuses, bodies (byte for byte) and headers in order (--scenario FILE)', async () => {
      const answers = await replayAll();
      // The unknown path is the mock's own 404 in both; everything else is the recording's.
      expect(answers.map(({ status }) => status)).toEqual(recorder.answers.map(({ status }) => status));
      answers.forEach((answer, i) => {
        if (calls[i]?.path === '/v1/no-such-thing') return;
        expect(answer, `exchange ${i + 1}`).toEqual(recorder.answers[i]);
      });
      // Two identical requests, two different recorded answers, in the order they came.
      expect(answers[0]?.text).not.toEqual(answers[3]?.text);
      expect([2, 4, 6].map((i) => (bodyOf(answers[i]) as { post: { status: string } }).post.status)).toEqual(['scheduled', 'published', 'deleted']);
      const journal = (await replay.control('get', '/__control/journal?limit=100')).body.data as Array<{ matchedRule: string | null; effect: string | null; injected: boolean }>;
      expect(journal.map((entry) => entry.effect)).toEqual(['respond', 'respond', 'respond', 'respond', 'respond', 'respond', 'respond', null, 'fault']);
      // Answers of the mock's own contract stay on-contract; the proxy's 502 never came from the service.
      expect(journal.map((entry) => entry.injected)).toEqual([false, false, false, false, false, false, false, false, true]);
    });

    it('replays them again once loaded by POST /__control/scenarios { yaml }, and then lets requests through', async () => {
      expectStatus(await replay.control('post', '/__control/scenarios').send({ yaml }), 200);
      const answers = await replayAll();
      expect(answers.filter((_, i) => calls[i]?.path !== '/v1/no-such-thing')).toEqual(recorder.answers.filter((_, i) => calls[i]?.path !== '/v1/no-such-thing'));
      // Every rule used up: the mock answers for itself, from its empty world.
      const after = await replay.call('get', calls[2]?.path ?? '');
      expect(after.status).toBe(404);
    });
  });

  describe('of a service that drifts from the contract', () => {
    const drifted = (seq: number, method: string, path: string, response: RecordedExchange['response']): RecordedExchange => ({
      format: RECORDING_FORMAT,
      seq,
      operationId: null,
      startedAt: `2026-03-02T09:00:0${seq}.000Z`,
      durationMs: 2,
      request: { method, path, query: '', headers: { authorization: REDACTED } },
      response,
    });

    it('replays the drift as recorded, each answer the contract does not describe marked injected', async () => {
      const dir = tempDir();
      const exchanges = [
        drifted(1, 'GET', '/v1/posts/p-1', { status: 200, headers: { 'content-type': 'application/json' }, json: { post: { id: 'p-1', status: 'exploded' }, extra: 1 } }),
        drifted(2, 'GET', '/v1/connections', { status: 418, headers: { 'content-type': 'text/html' }, text: '<h1>teapot</h1>' }),
        drifted(3, 'GET', '/v1/posts/p-1', { status: 404, headers: {}, json: { error: { code: 'NOT_FOUND', message: 'Gone.' } } }),
        drifted(4, 'DELETE', '/v1/posts/p-1', { status: 204, headers: { 'x-trace': 'abc' }, text: '' }),
      ];
      for (const exchange of exchanges) writeExchange(dir, exchange);
      const { streams, out } = cliIo();
      expect(await main(['scenario', 'from-recording', dir], streams)).toEqual({ exitCode: 0 });
      // No Date header recorded: the clock starts when the first request reached the proxy.
      expect((parse(out.join('\n')) as { clock: unknown }).clock).toEqual({ start: '2026-03-02T09:00:01.000Z', frozen: true });
      const replay = await startMock({ seed: 3 });
      try {
        const { body } = await replay.control('post', '/__control/workspaces').send({ scenario: out.join('\n') });
        const key = body.apiKey as string;
        const answers = [];
        for (const { request } of exchanges) answers.push(await replay.call(request.method.toLowerCase() as Method, request.path, key));
        expect(answers.map((res) => [res.status, res.text])).toEqual([
          [200, '{"post":{"id":"p-1","status":"exploded"},"extra":1}'],
          [418, '<h1>teapot</h1>'],
          [404, '{"error":{"code":"NOT_FOUND","message":"Gone."}}'],
          [204, ''],
        ]);
        expect(answers[1]?.headers['content-type']).toMatch(/^text\/html/);
        expect(answers[3]?.headers['x-trace']).toBe('abc');
        const journal = (await replay.control('get', '/__control/journal', key)).body.data as Array<{ effect: string; injected: boolean; errorCode: string | null }>;
        expect(journal.map(({ effect, injected, errorCode }) => [effect, injected, errorCode])).toEqual([
          ['respond', true, null],
          ['respond', true, null],
          ['respond', false, 'NOT_FOUND'],
          ['respond', true, null],
        ]);
      } finally {
        // Fails if the mock counted any of the drift as its own CONTRACT_VIOLATION.
        await replay.close();
      }
    });
  });

  describe('when it cannot', () => {
    it.each([
      ['a missing folder', (dir: string) => join(dir, 'nowhere'), /cannot read recording/],
      ['an empty folder', (dir: string) => dir, /holds no recorded exchange/],
      [
        'a file that is not an exchange',
        (dir: string) => {
          writeFileSync(join(dir, '000001-x.json'), '{"format":"other"}');
          return dir;
        },
        /000001-x\.json: not an exchange of format/,
      ],
      [
        'nothing replayable',
        (dir: string) => {
          mkdirSync(dir, { recursive: true });
          writeExchange(dir, { format: RECORDING_FORMAT, seq: 1, operationId: null, startedAt: '2026-03-02T09:00:00Z', durationMs: 1, request: { method: 'GET', path: '/v2/elsewhere', query: '', headers: {} }, response: { status: 404, headers: {} } });
          return dir;
        },
        /none of its 1 exchanges reached an operation/,
      ],
    ])('exits 2 with one line on stderr for %s', async (_what, folder, message) => {
      const dir = folder(tempDir());
      const { streams, out, err } = cliIo();
      expect(await main(['scenario', 'from-recording', dir], streams)).toEqual({ exitCode: 2 });
      expect(out).toEqual([]);
      expect(err).toHaveLength(1);
      expect(err[0]).toMatch(message);
    });

    it.each([[['scenario']], [['scenario', 'to-recording', 'x']], [['scenario', 'from-recording']], [['scenario', 'from-recording', 'a', 'b']], [['scenario', 'from-recording', '--bogus', 'a']]])('exits 2 on bad usage %j', async (argv) => {
      const { streams, err } = cliIo();
      expect(await main(argv, streams)).toEqual({ exitCode: 2 });
      expect(err[0]).toMatch(/^social-gateway-mock: /);
    });

    it('writes the scenario to --out, its $schema line a path from the file\'s own folder', async () => {
      const cwd = tempDir();
      const { streams, out, err } = cliIo({}, cwd);
      expect(await main(['scenario', 'from-recording', recordingDir, '--out', 'scenarios/replay.yaml'], streams)).toEqual({ exitCode: 0 });
      expect(out).toEqual([]);
      expect(err).toEqual([`social-gateway-mock: wrote ${join(cwd, 'scenarios', 'replay.yaml')}`]);
      const written = readFileSync(join(cwd, 'scenarios', 'replay.yaml'), 'utf8');
      const [schemaLine, ...rest] = written.trimEnd().split('\n');
      // Named after the file it is written to, so the name holds wherever the YAML is sent.
      expect(rest).toEqual(yaml.replace(/^name: .*$/m, 'name: replay').split('\n').slice(1));
      const schema = /\$schema=(\S+)$/.exec(schemaLine ?? '')?.[1] ?? '';
      expect(existsSync(join(cwd, 'scenarios', schema))).toBe(true);
      expect(schema.endsWith('scenarios/scenario.schema.json')).toBe(true);
    });

    it('prints its help with --help, and the main help names it', async () => {
      const scenarioHelp = cliIo();
      expect(await main(['scenario', '--help'], scenarioHelp.streams)).toEqual({ exitCode: 0 });
      expect(scenarioHelp.out.join('\n')).toMatch(/^Usage: social-gateway-mock scenario from-recording <DIR>/);
      const mainHelp = cliIo();
      await main(['--help'], mainHelp.streams);
      expect(mainHelp.out.join('\n')).toContain('scenario from-recording <DIR>');
    });
  });
});
