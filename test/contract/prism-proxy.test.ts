import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packagePath } from '../../src/lib/package-root.js';
import { createMockServer, type MockServer } from '../../src/server.js';
import { TEST_CLOCK } from '../helpers/mock.js';
import { boundEventStreams, CONTROL_OPERATIONS, walkEveryControlOperation } from './every-control-operation.js';
import { answered2xx, OPERATIONS, walkEveryOperation, type Exchange } from './every-operation.js';

/*
 * An independent validator in front of the mock: Prism's validation proxy (with
 * --errors, a request or response that breaks the contract is answered by Prism itself
 * with a problem+json and logged), one for openapi.yaml and one for control.yaml, over
 * traffic that reaches every operation of each with a 2xx and a few declared errors.
 * Any violation Prism reports, any answer that is Prism's rather than the mock's, and
 * any warning or error in its log fails the test.
 *
 * The control proxy reaches the mock through a relay that ends `GET /__control/events`
 * after its first event: Prism reads a whole answer before it validates it, and the
 * stream would otherwise never end. Every other answer passes through unchanged.
 */

const PRISM = packagePath('node_modules', '.bin', 'prism');

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

interface Prism {
  url: string;
  /** Everything it has logged so far. */
  log(): string;
  stop(): Promise<void>;
}

/** `prism proxy <contract> <upstream> --errors`, ready once its log says it listens (a probe would itself be a request it judges). */
async function startPrism(contract: string, upstream: string): Promise<Prism> {
  const port = await freePort();
  const child: ChildProcess = spawn(PRISM, ['proxy', packagePath(contract), upstream, '--errors', '-h', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    const check = () => {
      if (log.includes('Prism is listening')) resolve();
      else if (child.exitCode !== null) reject(new Error(`prism (${contract}) exited with ${child.exitCode}: ${log}`));
      else setTimeout(check, 50);
    };
    check();
  });
  return {
    url: `http://127.0.0.1:${port}`,
    log: () => log,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Runs a walk and answers its exchanges and what Prism logged meanwhile. */
async function walkThrough(prism: Prism, walk: () => Promise<Exchange[]>): Promise<{ exchanges: Exchange[]; walkLog: string }> {
  const start = prism.log().length;
  const exchanges = await walk();
  return { exchanges, walkLog: prism.log().slice(start) };
}

/** Prism's own answers: problem+json of type https://stoplight.io/prism/errors#… */
function prismAnswered(exchange: Exchange): boolean {
  const type = (exchange.body as { type?: unknown } | undefined)?.type;
  return typeof type === 'string' && type.startsWith('https://stoplight.io/prism/errors');
}

/** The exchanges Prism flagged (a violation header) or answered itself, one line each. */
function flagged(exchanges: Exchange[]): string[] {
  return exchanges
    .filter((exchange) => prismAnswered(exchange) || exchange.headers.get('sl-violations') !== null)
    .map((exchange) => `${exchange.operationId} ${exchange.status} ${exchange.headers.get('sl-violations') ?? JSON.stringify(exchange.body)}`);
}

/** Lines of Prism's log that report a violation, a warning or an error. */
function complaints(walkLog: string): string[] {
  return walkLog.split('\n').filter((line) => /✖|⚠|violation|unable|could not/i.test(line));
}

let mock: MockServer;
let receiver: Server;
let relay: Awaited<ReturnType<typeof boundEventStreams>>;
let apiPrism: Prism;
let controlPrism: Prism;
let mockUrl: string;
let hookUrl: string;

beforeAll(async () => {
  mock = await createMockServer({ seed: 1, clock: TEST_CLOCK, clockFrozen: true, strictResponses: true });
  mockUrl = await mock.listen(0);
  receiver = createServer((_req, res) => res.writeHead(204).end());
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  relay = await boundEventStreams(mockUrl);
  [apiPrism, controlPrism] = await Promise.all([startPrism('openapi.yaml', mockUrl), startPrism('control.yaml', relay.url)]);
}, 30_000);

afterAll(async () => {
  await Promise.all([apiPrism?.stop(), controlPrism?.stop()]);
  await relay?.close();
  await new Promise((resolve) => receiver?.close(resolve));
  await mock?.close();
});

describe("Prism's validation proxy in front of the mock, for openapi.yaml", () => {
  let walked: { exchanges: Exchange[]; walkLog: string };

  beforeAll(async () => {
    const workspace = await fetch(`${mockUrl}/__control/workspaces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    const { apiKey } = (await workspace.json()) as { apiKey: string };
    walked = await walkThrough(apiPrism, () => walkEveryOperation({ apiUrl: apiPrism.url, mockUrl, apiKey, hookUrl }));
  }, 30_000);

  it('forwards a request for every operation of openapi.yaml, each answered with a 2xx', () => {
    expect(OPERATIONS.map((op) => op.operationId).filter((id) => !answered2xx(walked.exchanges).has(id))).toEqual([]);
  });

  it('answers every request with the mock’s own answer, never one of its violation errors', () => {
    expect(flagged(walked.exchanges)).toEqual([]);
  });

  it('logs no violation, warning or error over the walk', () => {
    expect(complaints(walked.walkLog)).toEqual([]);
  });

  it('would have reported a violation: a request the contract refuses is answered by Prism (the detector works)', async () => {
    const res = await fetch(`${apiPrism.url}/v1/posts?limit=1000`, { headers: { 'x-api-key': 'sgw_test_default' } });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { type: string }).type).toBe('https://stoplight.io/prism/errors#UNPROCESSABLE_ENTITY');
  });
});

describe("Prism's validation proxy in front of the mock, for control.yaml", () => {
  let walked: { exchanges: Exchange[]; walkLog: string };

  beforeAll(async () => {
    walked = await walkThrough(controlPrism, () => walkEveryControlOperation({ controlUrl: controlPrism.url, mockUrl, hookUrl }));
  }, 30_000);

  it('forwards a request for every operation of control.yaml, each answered with a 2xx', () => {
    expect(CONTROL_OPERATIONS.length).toBeGreaterThan(20);
    expect(CONTROL_OPERATIONS.map((op) => op.operationId).filter((id) => !answered2xx(walked.exchanges).has(id))).toEqual([]);
  });

  it('answers every request with the mock’s own answer, never one of its violation errors', () => {
    expect(flagged(walked.exchanges)).toEqual([]);
  });

  it('logs no violation, warning or error over the walk', () => {
    expect(complaints(walked.walkLog)).toEqual([]);
  });

  it('validated the event stream too: Prism answered it with the mock’s first event', () => {
    const stream = walked.exchanges.find((exchange) => exchange.operationId === 'streamEvents');
    expect(stream?.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(stream?.body).toMatch(/^: connected to ws_/);
  });

  it('would have reported a violation: a request the contract refuses is answered by Prism (the detector works)', async () => {
    const res = await fetch(`${controlPrism.url}/__control/clock/advance`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ by: 'PT1H', ms: 5 }) });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { type: string }).type).toBe('https://stoplight.io/prism/errors#UNPROCESSABLE_ENTITY');
  });
});
