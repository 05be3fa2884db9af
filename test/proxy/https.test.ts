import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { DEFAULT_API_KEY } from '../../src/server.js';
import { cliIo } from '../helpers/cli-io.js';
import { proxyTo, temporaryDir, type Listening } from './helpers.js';

/* A self-signed certificate for 127.0.0.1, made for this test alone (test/proxy/fixtures). */
const fixture = (name: string) => readFileSync(fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url)), 'utf8');
const CERT = fixture('test-upstream.cert.pem');

describe('an https upstream', () => {
  let upstream: Server;
  let url: string;
  const body = JSON.stringify({ connections: [] });

  beforeAll(async () => {
    upstream = createServer({ cert: CERT, key: fixture('test-upstream.key.pem') }, (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'x-ratelimit-limit': '600', 'x-ratelimit-remaining': '599', 'x-ratelimit-reset': '1772442060' });
      res.end(body);
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  });
  afterAll(
    () =>
      new Promise<void>((resolve) => {
        upstream.closeAllConnections();
        upstream.close(() => resolve());
      }),
  );

  async function through(proxy: Listening): Promise<Response> {
    try {
      return await fetch(`${proxy.url}/v1/connections`, { headers: { 'x-api-key': DEFAULT_API_KEY } });
    } finally {
      await proxy.close();
    }
  }

  it('whose certificate Node does not trust answers 502 PLATFORM_ERROR, reason tls', async () => {
    const res = await through(await proxyTo(url));
    expect(res.status).toBe(502);
    expect(((await res.json()) as { error: { details: { reason: string } } }).error.details.reason).toBe('tls');
  });

  it('is reached when its CA is given, and its answer passed on', async () => {
    const res = await through(await proxyTo(url, { upstreamCa: CERT }));
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(body);
  });

  it('--upstream-ca reads the file, and refuses one that holds no certificate', async () => {
    const { streams: io, err } = cliIo({}, temporaryDir());
    const started = await main(['proxy', '--upstream', url, '--port', '0', '--upstream-ca', fileURLToPath(new URL('./fixtures/test-upstream.cert.pem', import.meta.url))], io);
    if (started.exitCode !== undefined) throw new Error(err.join('\n'));
    const res = await fetch(`${started.url}/v1/connections`, { headers: { 'x-api-key': DEFAULT_API_KEY } });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    expect(await started.stop()).toBe(0);

    expect(await main(['proxy', '--upstream', url, '--upstream-ca', fileURLToPath(new URL('./fixtures/test-upstream.key.pem', import.meta.url))], io)).toEqual({ exitCode: 2 });
    expect(err.at(-2)).toMatch(/--upstream-ca .* holds no PEM certificate/);
    expect(await main(['proxy', '--upstream', url, '--upstream-ca', 'missing.pem'], io)).toEqual({ exitCode: 2 });
    expect(err.at(-2)).toMatch(/cannot read --upstream-ca/);
  });
});
