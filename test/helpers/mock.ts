import request from 'supertest';
import type { Response } from 'supertest';
import { expect } from 'vitest';
import { createMockServer, DEFAULT_API_KEY, type MockServer, type MockServerOptions } from '../../src/server.js';

/** Every test world starts at this instant, frozen, unless a test says otherwise. */
export const TEST_CLOCK = '2026-03-02T09:00:00.000Z';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface TestMock {
  server: MockServer;
  /** A request with the default workspace's key. */
  call(method: Method, path: string, apiKey?: string | null): request.Test;
  /** A control-plane request, for the default workspace unless a key is given. */
  control(method: Method, path: string, apiKey?: string): request.Test;
  /** Closes the server and fails if any response broke the contract. */
  close(): Promise<void>;
}

/**
 * A mock in-process, responses checked against openapi.yaml and control.yaml
 * (strictResponses: a violation becomes a 500 CONTRACT_VIOLATION, and close()
 * fails on any), seed 1, clock frozen at TEST_CLOCK.
 */
export async function startMock(options: MockServerOptions = {}): Promise<TestMock> {
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
