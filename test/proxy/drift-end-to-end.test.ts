import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriftReport } from '../../src/cli/drift-command.js';
import { main } from '../../src/cli/main.js';
import { DEFAULT_API_KEY } from '../../src/server.js';
import { walkEveryOperation } from '../contract/every-operation.js';
import { cliIo } from '../helpers/cli-io.js';
import { listening, plainServer, proxyTo, temporaryDir, type Listening } from './helpers.js';

/*
 * The whole workflow of issue 22's drift report, over real sockets: clients talk to the proxy,
 * the proxy records, `drift` reads the folder. Against a second mock instance the report finds
 * nothing; against an upstream that plants one difference per request it names each of them and
 * nothing else.
 */

async function drift(args: string[]): Promise<{ exitCode: number | undefined; out: string; err: string }> {
  const { streams, out, err } = cliIo();
  const result = await main(['drift', ...args], streams);
  return { exitCode: result.exitCode, out: out.join('\n'), err: err.join('\n') };
}

type Connection = Record<string, unknown>;
type Answer = { connections: Connection[] };

/** What the drifting upstream plants in a real listConnections answer, per the request's `x-drift`. */
const PLANTS: Record<string, (answer: Answer) => { status?: number; headers?: Record<string, string>; body: unknown }> = {
  none: (answer) => ({ body: answer }),
  'extra-field': (answer) => ({ body: { connections: answer.connections.map((c, i) => (i === 0 ? { ...c, loyaltyTier: 'gold' } : c)) } }),
  'undeclared-status': () => ({ status: 409, body: { error: { code: 'CONFLICT', message: 'Busy.' } } }),
  'new-enum-value': (answer) => ({ body: { connections: answer.connections.map((c, i) => (i === 1 ? { ...c, authHealth: 'degraded' } : c)) } }),
  'missing-required-field': (answer) => ({ body: { connections: answer.connections.map((c, i) => (i === 0 ? Object.fromEntries(Object.entries(c).filter(([name]) => name !== 'status')) : c)) } }),
  'wrong-format': (answer) => ({ body: { connections: answer.connections.map((c) => ({ ...c, createdAt: 'last tuesday' })) } }),
  'undeclared-header': (answer) => ({ headers: { 'x-ratelimit-burst': '20', 'x-request-id': 'req-1', server: 'nginx' }, body: answer }),
};

describe('proxy --record, then drift', () => {
  let upstream: Listening;

  beforeAll(async () => {
    upstream = await listening({});
  });
  afterAll(async () => {
    await upstream.close();
  });

  describe('in front of a second mock instance', () => {
    let proxy: Listening;
    let receiver: Server;
    const recording = temporaryDir();

    beforeAll(async () => {
      proxy = await proxyTo(upstream.url, { recordDir: recording });
      receiver = createServer((_req, res) => res.writeHead(204).end());
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      // Every operation of openapi.yaml, answered by the upstream through the proxy.
      await walkEveryOperation({ apiUrl: proxy.url, mockUrl: upstream.url, apiKey: DEFAULT_API_KEY, hookUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook` });
      await proxy.close();
    });
    afterAll(async () => {
      await new Promise((resolve) => receiver.close(resolve));
    });

    it('finds no drift, and exits 0', async () => {
      const result = await drift([recording, '--json']);
      const report = JSON.parse(result.out) as DriftReport;
      expect(report.exchanges).toBeGreaterThan(60);
      expect(report.totals.operations).toBeGreaterThan(50);
      expect(report.operations.filter((operation) => operation.undeclared.length + operation.missing.length + operation.requestProblems.length > 0)).toEqual([]);
      expect(result.exitCode).toBe(0);
    });
  });

  describe('in front of an upstream that drifts', () => {
    let drifting: Awaited<ReturnType<typeof plainServer>>;
    let proxy: Listening;
    const recording = temporaryDir();

    beforeAll(async () => {
      const real = await fetch(`${upstream.url}/v1/connections`, { headers: { 'x-api-key': DEFAULT_API_KEY } });
      const answer = (await real.json()) as Answer;
      expect(answer.connections.length).toBeGreaterThan(1);
      const rateHeaders = Object.fromEntries([...real.headers].filter(([name]) => name.startsWith('x-ratelimit-')));
      drifting = await plainServer((req, res) => {
        const plant = String(req.headers['x-drift']);
        if (plant === 'slow') return; // Never answers: the proxy's timeout ends it.
        if (plant === 'drop') return req.socket.destroy();
        const planted = (PLANTS[plant] as (typeof PLANTS)[string])(structuredClone(answer));
        res.writeHead(planted.status ?? 200, { 'content-type': 'application/json', ...rateHeaders, ...planted.headers });
        res.end(JSON.stringify(planted.body));
      });
      proxy = await proxyTo(drifting.url, { recordDir: recording, upstreamTimeoutMs: 200 });
      for (const plant of ['none', ...Object.keys(PLANTS).filter((name) => name !== 'none'), 'slow', 'drop', 'none']) {
        await fetch(`${proxy.url}/v1/connections`, { headers: { 'x-api-key': 'sgw_live_real_key_1', 'x-drift': plant } });
      }
      await proxy.close();
    });
    afterAll(async () => {
      await drifting.close();
    });

    it('names each planted difference with its count and nothing else, and exits 1', async () => {
      const result = await drift([recording]);
      expect(result.err).toBe('');
      expect(result.exitCode).toBe(1);
      expect(result.out).toContain('listConnections: 10 exchanges (200 ×7, 409 ×1, no answer ×2)');
      const rows = result.out.split('\n').filter((line) => line.startsWith('    '));
      expect(rows.map((line) => line.trim().split(/\s{2,}/).slice(0, 3)).sort()).toEqual(
        [
          ['undeclared-field', 'body/connections/*/loyaltyTier', '1 of 10'],
          ['undeclared-status', 'status', '1 of 10'],
          ['undeclared-enum-value', 'body/connections/*/authHealth', '1 of 10'],
          ['missing-required-field', 'body/connections/*/status', '1 of 10'],
          ['wrong-format', 'body/connections/*/createdAt', '1 of 10'],
          ['undeclared-header', 'header x-ratelimit-burst', '1 of 10'],
        ].sort(),
      );
      expect(result.out).toMatch(/undeclared-enum-value +body\/connections\/\*\/authHealth +1 of 10 +e\.g\. "degraded"/);
      expect(result.out).toMatch(/wrong-format +body\/connections\/\*\/createdAt +1 of 10 +e\.g\. "last tuesday"/);
      expect(result.out).toContain('  no answer (not drift): PLATFORM_ERROR ×2');
      expect(result.out.split('\n').at(-1)).toBe('Drift: 5 differences that break the contract in 1 of 1 operation (4 not in the contract, 1 required and missing); 1 more the contract allows; 2 exchanges without an answer.');
    });
  });
});
