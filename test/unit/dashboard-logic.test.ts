import { describe, expect, it } from 'vitest';
import { CURL_KEY_VARIABLE, curlCommand, requestTarget } from '../../src/dashboard/ui/curl.js';
import { RUN_ENVIRONMENT } from '../../src/lib/run-environment.js';
import { parseSseMessage } from '../../src/dashboard/ui/sse.js';
import { viewOfHash } from '../../src/dashboard/ui/views.js';

/* The dashboard's pure logic (src/dashboard/ui), outside a browser. */

describe('parseSseMessage', () => {
  it.each([
    [': connected to ws_default', null],
    ['id: journal_1\nevent: request.recorded\ndata: {"a":1}', { event: 'request.recorded', data: '{"a":1}' }],
    ['data: one\ndata: two', { event: 'message', data: 'one\ntwo' }],
    ['event: post.published\ndata:{"b":2}', { event: 'post.published', data: '{"b":2}' }],
  ])('reads %j as %j', (block, expected) => {
    expect(parseSseMessage(block)).toEqual(expected);
  });
});

describe('viewOfHash', () => {
  it.each([
    ['', 'Requests'],
    ['#/webhooks', 'Webhooks'],
    ['#coverage', 'Coverage'],
    ['#/nowhere', 'Requests'],
  ])('reads %j as %s', (hash, view) => {
    expect(viewOfHash(hash).label).toBe(view);
  });
});

describe('curlCommand', () => {
  const origin = 'http://127.0.0.1:4010';

  it('sends the query the journal kept, a redacted parameter left for the user to fill in', () => {
    expect(curlCommand({ method: 'GET', path: '/v1/posts', query: 'limit=5&status=published' }, origin)).toBe(`curl 'http://127.0.0.1:4010/v1/posts?limit=5&status=published' -H "x-api-key: $SOCIAL_GATEWAY_MOCK_API_KEY"`);
    expect(requestTarget({ path: '/v1/connections/oauth/instagram/accounts', query: 'tempToken=[REDACTED]' })).toBe('/v1/connections/oauth/instagram/accounts?tempToken=[REDACTED]');
    expect(requestTarget({ path: '/v1/posts', query: '' })).toBe('/v1/posts');
  });

  it('names the key by the variable run sets for its command, so a pasted command runs in a suite as it is', () => {
    expect(CURL_KEY_VARIABLE).toBe(RUN_ENVIRONMENT.apiKey);
    expect(curlCommand({ method: 'GET', path: '/v1/posts', query: '' }, origin)).toContain(`"x-api-key: $${RUN_ENVIRONMENT.apiKey}"`);
  });

  it('gives the method and path alone when the page saw no detail, the key as a variable', () => {
    expect(curlCommand({ method: 'GET', path: '/v1/posts', query: '' }, origin)).toBe(`curl 'http://127.0.0.1:4010/v1/posts' -H "x-api-key: $SOCIAL_GATEWAY_MOCK_API_KEY"`);
    expect(curlCommand({ method: 'DELETE', path: '/v1/posts/p_1', query: '' }, origin)).toBe(`curl -X DELETE 'http://127.0.0.1:4010/v1/posts/p_1' -H "x-api-key: $SOCIAL_GATEWAY_MOCK_API_KEY"`);
  });

  it('adds the headers a request chose and its body, quoted for a shell, and leaves out the key and the connection headers', () => {
    const detail = {
      requestHeaders: { host: '127.0.0.1:4010', 'x-api-key': '••••ault', 'content-type': 'application/json', 'idempotency-key': "it's-1", 'sec-fetch-mode': 'cors', 'user-agent': 'node' },
      requestBody: `{"text":"it's"}`,
      requestBodyTruncated: false,
      responseHeaders: {},
      responseBody: null,
      responseBodyTruncated: false,
    };
    expect(curlCommand({ method: 'POST', path: '/v1/posts', query: '' }, origin, detail)).toBe(
      `curl -X POST 'http://127.0.0.1:4010/v1/posts' -H "x-api-key: $SOCIAL_GATEWAY_MOCK_API_KEY" -H 'content-type: application/json' -H 'idempotency-key: it'\\''s-1' --data-raw '{"text":"it'\\''s"}'`,
    );
  });

  it('sends no body that was cut: it would not be the one sent', () => {
    const detail = { requestHeaders: {}, requestBody: '{"text":"xx', requestBodyTruncated: true, responseHeaders: {}, responseBody: null, responseBodyTruncated: false };
    expect(curlCommand({ method: 'POST', path: '/v1/posts', query: '' }, origin, detail)).not.toContain('--data-raw');
  });
});
