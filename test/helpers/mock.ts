import request from 'supertest';
import type { Response } from 'supertest';
import { afterAll, beforeAll, expect } from 'vitest';
import { createMockServer, DEFAULT_API_KEY, type MockServer, type MockServerOptions } from '../../src/server.js';

/** Every test world starts at this instant, frozen, unless a test says otherwise. */
export const TEST_CLOCK = '2026-03-02T09:00:00.000Z';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** A mock as tests and the helpers call it. */
export interface TestMock {
  server: MockServer;
  /** A request with the default workspace's key. */
  call(method: Method, path: string, apiKey?: string | null): request.Test;
  /** A control-plane request, for the default workspace unless a key is given. */
  control(method: Method, path: string, apiKey?: string): request.Test;
}

/** A mock a test started itself, and closes. */
export interface StartedMock extends TestMock {
  /** Closes the server and fails if any response broke the contract. */
  close(): Promise<void>;
}

/**
 * A mock in-process, responses checked against openapi.yaml and control.yaml
 * (strictResponses: a violation becomes a 500 CONTRACT_VIOLATION, and close()
 * fails on any), seed 1, clock frozen at TEST_CLOCK.
 */
export async function startMock(options: MockServerOptions = {}): Promise<StartedMock> {
  const server = await createMockServer({ seed: 1, clock: TEST_CLOCK, clockFrozen: true, strictResponses: true, ...options });
  const agent = request(server.app);
  return {
    server,
    call(method, path, apiKey = DEFAULT_API_KEY) {
      const test = agent[method](path);
      return apiKey === null ? test : test.set('x-api-key', apiKey);
    },
    control(method, path, apiKey) {
      const test = agent[method](path);
      return apiKey === undefined ? test : test.set('x-api-key', apiKey);
    },
    async close() {
      await server.close();
      expect(server.violations, 'responses that broke the contract').toEqual([]);
    },
  };
}

/** The mock useMock() keeps for a block of tests. */
export interface UsedMock extends TestMock {
  /** Its base URL (http://127.0.0.1:port), when used with `{ listen: true }`. */
  readonly url: string;
}

/**
 * One mock for the tests of the enclosing describe block (or of the file, at its top): started
 * by startMock() before them, closed after them, failing if any response broke the contract.
 * The handle reads the running mock, so its members are there inside tests and hooks, not
 * while the file is collected. Options that an earlier hook prepares can be given as a function.
 *
 * @example
 * const mock = useMock({ fixtures: false });
 *
 * it('lists no posts', async () => {
 *   expectStatus(await mock.call('get', '/v1/posts'), 200);
 * });
 */
export function useMock(options: MockServerOptions | (() => MockServerOptions) = {}, { listen = false }: { listen?: boolean } = {}): UsedMock {
  let running: StartedMock | undefined;
  let url: string | undefined;
  beforeAll(async () => {
    running = await startMock(typeof options === 'function' ? options() : options);
    if (listen) url = await running.server.listen(0);
  });
  afterAll(() => running?.close());
  const mock = (): StartedMock => {
    if (running === undefined) throw new Error('useMock(): the mock runs from its block\'s first hook to its last; read it inside a test or a hook');
    return running;
  };
  return {
    get server() {
      return mock().server;
    },
    call: (method, path, apiKey) => mock().call(method, path, apiKey),
    control: (method, path, apiKey) => mock().control(method, path, apiKey),
    get url() {
      if (url === undefined) throw new Error(listen ? 'useMock(): the mock is not listening yet' : 'useMock(): give { listen: true } for a URL');
      return url;
    },
  };
}

/** Asserts the nested error envelope: status, code and (when given) param. */
export function expectApiError(res: Response, status: number, code: string, param?: string): void {
  const context = `${res.status} ${JSON.stringify(res.body)}`;
  expect(res.status, context).toBe(status);
  expect(res.headers['content-type'], context).toMatch(/^application\/json/);
  expect(res.body, context).toMatchObject({ error: { code, message: expect.any(String) } });
  if (param !== undefined) expect(res.body.error.param, context).toBe(param);
}

/** Asserts a success status, printing the body when it is not. */
export function expectStatus(res: Response, status: number): void {
  expect(res.status, `${res.status} ${JSON.stringify(res.body)}`).toBe(status);
}
