import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packagePath } from '../../src/lib/package-root.js';
import { createMockServer, type MockServer } from '../../src/server.js';
import { TEST_CLOCK } from '../helpers/mock.js';
import { answered2xx, OPERATIONS, walkEveryOperation, type Exchange } from './every-operation.js';

/*
 * An independent validator in front of the mock: Prism's validation proxy (with
 * --errors, a request or response that breaks openapi.yaml is answered by Prism itself
 * with a problem+json and logged) over traffic that reaches every operation with a 2xx
 * and a few declared errors. Any violation Prism reports, any answer that is Prism's
 * rather than the mock's, and any warning or error in its log fails the test.
 */

const PRISM = packagePath('node_modules', '.bin', 'prism');

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Prism's own answers: problem+json of type https://stoplight.io/prism/errors#… */
function prismAnswered(exchange: Exchange): boolean {
  const type = (exchange.body as { type?: unknown } | undefined)?.type;
  return typeof type === 'string' && type.startsWith('https://stoplight.io/prism/errors');
}

let mock: MockServer;
let receiver: Server;
let prism: ChildProcess;
let prismUrl: string;
let mockUrl: string;
let log = '';

beforeAll(async () => {
  mock = await createMockServer({ seed: 1, clock: TEST_CLOCK, clockFrozen: true, strictResponses: true });
  mockUrl = await mock.listen(0);
  receiver = createServer((_req, res) => res.writeHead(204).end());
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const port = await freePort();
  prismUrl = `http://127.0.0.1:${port}`;
  prism = spawn(PRISM, ['proxy', packagePath('openapi.yaml'), mockUrl, '--errors', '-h', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  prism.stdout?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  prism.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  // Ready when its log says it listens (a readiness probe would itself be a request Prism judges).
  await new Promise<void>((resolve, reject) => {
    const check = () => {
      if (log.includes('Prism is listening')) resolve();
      else if (prism.exitCode !== null) reject(new Error(`prism exited with ${prism.exitCode}: ${log}`));
      else setTimeout(check, 50);
    };
    check();
  });
}, 30_000);

afterAll(async () => {
  if (prism && prism.exitCode === null) {
    const exited = new Promise((resolve) => prism.once('exit', resolve));
    prism.kill('SIGTERM');
    await exited;
  }
  await new Promise((resolve) => receiver?.close(resolve));
  await mock?.close();
});

describe("Prism's validation proxy in front of the mock", () => {
  let exchanges: Exchange[] = [];
  let walkLog = '';

  beforeAll(async () => {
    const workspace = await fetch(`${mockUrl}/__control/workspaces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    const { apiKey } = (await workspace.json()) as { apiKey: string };
    const start = log.length;
    exchanges = await walkEveryOperation({ apiUrl: prismUrl, mockUrl, apiKey, hookUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook` });
    walkLog = log.slice(start);
  }, 30_000);

  it('forwards a request for every operation of openapi.yaml, each answered with a 2xx', () => {
    expect(OPERATIONS.map((op) => op.operationId).filter((id) => !answered2xx(exchanges).has(id))).toEqual([]);
  });

  it('answers every request with the mock’s own answer, never one of its violation errors', () => {
    const flagged = exchanges.filter((exchange) => prismAnswered(exchange) || exchange.headers.get('sl-violations') !== null);
    expect(flagged.map((exchange) => `${exchange.operationId} ${exchange.status} ${exchange.headers.get('sl-violations') ?? JSON.stringify(exchange.body)}`)).toEqual([]);
  });

  it('logs no violation, warning or error over the walk', () => {
    const lines = walkLog.split('\n').filter((line) => /✖|⚠|violation|unable|could not/i.test(line));
    expect(lines).toEqual([]);
  });

  it('would have reported a violation: a request the contract refuses is answered by Prism (the detector works)', async () => {
    const res = await fetch(`${prismUrl}/v1/posts?limit=1000`, { headers: { 'x-api-key': 'sgw_test_default' } });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { type: string }).type).toBe('https://stoplight.io/prism/errors#UNPROCESSABLE_ENTITY');
  });
});
