import { describe, expect, it } from 'vitest';
import { OperationIndex } from '../../src/http/operations.js';
import { loadSpec } from '../../src/http/spec.js';
import { expectApiError, useMock } from '../helpers/mock.js';

// Every path of the contract is asked several times: no budget to run out of.
const mock = useMock({ rateLimit: false });

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** Each path template with each of its parameters left empty in turn (`/v1/posts/{id}` → `/v1/posts/`). */
function emptySegmentCases(file: 'openapi.yaml' | 'control.yaml'): Array<[string, Method, string]> {
  const cases: Array<[string, Method, string]> = [];
  for (const operation of new OperationIndex(loadSpec(file).document).operations) {
    const names = [...operation.path.matchAll(/\{(\w+)\}/g)].map((found) => found[1] as string);
    names.forEach((emptied) => {
      const path = operation.path.replace(/\{(\w+)\}/g, (_all, name: string) => (name === emptied ? '' : `x-${name}`));
      cases.push([`${operation.method} ${operation.path} with ${emptied} empty`, operation.method.toLowerCase() as Method, path]);
    });
  }
  return cases;
}

describe('a path with an empty segment', () => {
  describe('on the API', () => {
    const cases = emptySegmentCases('openapi.yaml');

    it('is derived from the contract: GET /v1/posts/{id} is among the cases', () => {
      expect(cases).toContainEqual(['GET /v1/posts/{id} with id empty', 'get', '/v1/posts/']);
    });

    it.each(cases)('answers 404 NOT_FOUND for %s', async (_label, method, path) => {
      const res = await mock.call(method, path).send(method === 'get' || method === 'delete' ? undefined : {});
      expectApiError(res, 404, 'NOT_FOUND');
      expect(res.body.error.message).toContain('No route for');
    });
  });

  describe('on the control plane', () => {
    it.each(emptySegmentCases('control.yaml'))('answers 404 NOT_FOUND for %s', async (_label, method, path) => {
      const res = await mock.control(method, path).send(method === 'get' || method === 'delete' ? undefined : {});
      expectApiError(res, 404, 'NOT_FOUND');
      expect(res.body.error.message).toContain('No route for');
    });
  });

  describe('as a trailing slash after a collection', () => {
    it.each([
      ['GET /v1/posts/', 'get', '/v1/posts/'],
      ['POST /v1/posts/', 'post', '/v1/posts/'],
      ['GET /v1/accounts/', 'get', '/v1/accounts/'],
      ['GET /v1/webhooks/', 'get', '/v1/webhooks/'],
      ['GET /v1/posts/{id}/ with an id', 'get', '/v1/posts/post_1/'],
    ] as Array<[string, Method, string]>)('answers 404 NOT_FOUND for %s, not the list', async (_label, method, path) => {
      const res = await mock.call(method, path).send(method === 'post' ? {} : undefined);
      expectApiError(res, 404, 'NOT_FOUND');
      expect(res.body).not.toHaveProperty('data');
    });

    it('still answers the list without the slash', async () => {
      expect((await mock.call('get', '/v1/posts')).status).toBe(200);
    });
  });
});
