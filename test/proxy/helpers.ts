import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { createMockServer, type MockServer, type MockServerOptions } from '../../src/server.js';
import type { ProxyOptions } from '../../src/proxy/proxy-router.js';
import { TEST_CLOCK } from '../helpers/mock.js';

/** A mock instance listening on a free port: the proxy's upstream, or the proxy itself. */
export interface Listening {
  server: MockServer;
  url: string;
  close(): Promise<void>;
}

/**
 * Control-plane answers (the journal with its findings, the coverage report) are checked against
 * control.yaml, as every test mock's are; `close` fails on any that broke it. A proxy's /v1
 * answers are the upstream's and are not the mock's to check.
 */
export async function listening(options: MockServerOptions): Promise<Listening> {
  const server = await createMockServer({ seed: 1, clock: TEST_CLOCK, clockFrozen: true, strictResponses: true, ...options });
  const url = await server.listen(0);
  return {
    server,
    url,
    async close() {
      await server.close();
      expect(server.violations, 'responses that broke the contract').toEqual([]);
    },
  };
}

/** A proxy in front of `upstream`, with an empty world of its own (it answers nothing of /v1 itself). */
export function proxyTo(upstream: string, proxy: Omit<ProxyOptions, 'upstream'> = {}, options: MockServerOptions = {}): Promise<Listening> {
  return listening({ fixtures: false, ...options, proxy: { upstream, ...proxy } });
}

export function temporaryDir(): string {
  return mkdtempSync(join(tmpdir(), 'sgw-proxy-'));
}

/** A plain node:http server on a free port; `close` also ends connections it left open (a slow answer). */
export async function plainServer(handle: (req: IncomingMessage, res: ServerResponse, body: string) => void): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A URL nothing listens on: a port taken and let go. */
export async function refusedUrl(): Promise<string> {
  const { url, close } = await plainServer((_req, res) => res.end());
  await close();
  return url;
}
