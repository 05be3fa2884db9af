import { describe, expect, it } from 'vitest';
import { RECORDING_FORMAT, type RecordedExchange } from '../../src/proxy/recording.js';
import { REDACTED } from '../../src/redaction/redactor.js';
import { redactExchange } from '../../src/proxy/redact-exchange.js';
import { parseRedactList, Redactor, valueScrubber } from '../../src/redaction/redactor.js';

const redactor = new Redactor();

describe('Redactor', () => {
  it.each([
    ['authorization', true],
    ['Authorization', true],
    ['proxy-authorization', true],
    ['x-api-key', true],
    ['X-Control-Token', true],
    ['cookie', true],
    ['set-cookie', true],
    ['content-type', false],
    ['idempotency-key', false],
  ])('header %s is a secret: %s', (name, secret) => {
    expect(redactor.isSecretHeader(name)).toBe(secret);
  });

  it('keeps the scheme of an Authorization header, not its credentials', () => {
    expect(redactor.headers({ Authorization: 'Bearer sgw_live_abcdef', 'proxy-authorization': 'Basic dXNlcjpwdw==', authorization: 'sgw_bare_key' })).toEqual({
      Authorization: `Bearer ${REDACTED}`,
      'proxy-authorization': `Basic ${REDACTED}`,
      authorization: REDACTED,
    });
  });

  it('hides secret headers and the query of a Location, keeps the rest', () => {
    expect(redactor.headers({ 'x-api-key': 'sgw_live_abcdef', 'content-type': 'application/json', location: 'https://app.example/cb?code=abc123&state=xyz789&ok=1' })).toEqual({
      'x-api-key': REDACTED,
      'content-type': 'application/json',
      location: `https://app.example/cb?code=${REDACTED}&state=${REDACTED}&ok=1`,
    });
  });

  it.each([
    ['limit=2&token=abc', `limit=2&token=${REDACTED}`],
    ['tempToken=tmp_1&platform=instagram', `tempToken=${REDACTED}&platform=instagram`],
    ['TEMPTOKEN=tmp_1', `TEMPTOKEN=${REDACTED}`],
    ['code=c0de&state=s7&limit=5', `code=${REDACTED}&state=${REDACTED}&limit=5`],
    ['status=published&include=metrics', 'status=published&include=metrics'],
    ['', ''],
    ['flag&x=%zz', 'flag&x=%zz'],
  ])('query %j becomes %j, the second time too (from the memo)', (query, expected) => {
    expect(redactor.query(query)).toBe(expected);
    expect(redactor.query(query)).toBe(expected);
  });

  it('hides a secret path parameter (the sessionId of connect-sessions)', () => {
    expect(redactor.path('/v1/connect-sessions/os_ws_secret1/candidates', { sessionId: 'os_ws_secret1' })).toBe(`/v1/connect-sessions/${REDACTED}/candidates`);
    expect(redactor.path('/v1/posts/p_1', { id: 'p_1' })).toBe('/v1/posts/p_1');
    // In a path, `key` is an API key (DELETE /__control/keys/{key}); in a body, a media file's key, which reads the file (decision 0025).
    expect(redactor.path('/__control/keys/sgw_minted_123456', { key: 'sgw_minted_123456' })).toBe(`/__control/keys/${REDACTED}`);
    expect(redactor.json({ key: 'f00d.jpg' })).toEqual({ key: REDACTED });
    expect(redactor.url('/v1/connect-sessions/os_1x/candidates?limit=2&session=s', { sessionId: 'os_1x' })).toBe(`/v1/connect-sessions/${REDACTED}/candidates?limit=2&session=${REDACTED}`);
  });

  it('hides secret JSON fields at any depth, case-insensitively, and the secrets in URL strings', () => {
    const body = {
      identifier: 'studio.bsky.social',
      AppPassword: 'abcd-efgh-ijkl-mnop',
      webhook: { url: 'https://hooks.example/x', secret: 'whsec_0123456789abcdef', hasSecret: true },
      list: [{ accessToken: 'at_1' }, { refreshToken: { nested: 'rt' } }],
      error: { code: 'VALIDATION_ERROR', message: 'no' },
      state: 'active',
      uploadUrl: 'http://127.0.0.1:4010/__uploads/k.jpg?token=9c2d4e6f',
      oauth: { url: 'http://127.0.0.1:4010/__oauth/authorize?session=os_ws_default_7c1e' },
      connectSession: null,
    };
    expect(redactor.json(body)).toEqual({
      identifier: 'studio.bsky.social',
      AppPassword: REDACTED,
      webhook: { url: 'https://hooks.example/x', secret: REDACTED, hasSecret: true },
      list: [{ accessToken: REDACTED }, { refreshToken: REDACTED }],
      error: { code: 'VALIDATION_ERROR', message: 'no' },
      state: 'active',
      uploadUrl: `http://127.0.0.1:4010/__uploads/k.jpg?token=${REDACTED}`,
      oauth: { url: `http://127.0.0.1:4010/__oauth/authorize?session=${REDACTED}` },
      connectSession: null,
    });
  });

  it('hides secrets in a body that is not JSON by pattern', () => {
    expect(redactor.text('{"appPassword": "abcd-efgh", "x": "y"')).toBe(`{"appPassword": "${REDACTED}", "x": "y"`);
    expect(redactor.text('grant=1&client_secret=s3cr3t&code=abc')).toBe(`grant=1&client_secret=${REDACTED}&code=${REDACTED}`);
  });

  it('extends the list with --redact names, as header, field and query parameter', () => {
    // Asked of the plain redactor first: what one remembers is never another's answer.
    expect(redactor.query('ssn=1')).toBe('ssn=1');
    const extended = new Redactor(parseRedactList(' x-tenant-key, ssn ,,'));
    expect(extended.headers({ 'X-Tenant-Key': 'tk_1' })).toEqual({ 'X-Tenant-Key': REDACTED });
    expect(extended.json({ person: { ssn: '123-45-6789' } })).toEqual({ person: { ssn: REDACTED } });
    expect(extended.query('ssn=1')).toBe(`ssn=${REDACTED}`);
    expect(redactor.json({ ssn: '1' })).toEqual({ ssn: '1' });
  });

  it('scrubs every value held under a secret name wherever else it appears in an exchange', () => {
    const exchange: RecordedExchange = {
      format: RECORDING_FORMAT,
      seq: 1,
      operationId: 'connectAccount',
      startedAt: '2026-03-02T09:00:00.000Z',
      durationMs: 3,
      request: {
        method: 'POST',
        path: '/v1/connections/bluesky/connect',
        query: 'apiKey=sgw_query_secret',
        headers: { authorization: 'Bearer sgw_live_bearer_secret', 'content-type': 'application/json' },
        json: { identifier: 'me', appPassword: 'pw-echoed-secret' },
      },
      response: {
        status: 400,
        headers: { 'x-echo': 'sgw_live_bearer_secret' },
        json: { error: { code: 'VALIDATION_ERROR', message: 'appPassword pw-echoed-secret is wrong for sgw_query_secret' } },
      },
    };
    const text = JSON.stringify(redactExchange(redactor, exchange));
    for (const secret of ['sgw_live_bearer_secret', 'pw-echoed-secret', 'sgw_query_secret']) expect(text).not.toContain(secret);
    const redacted = redactExchange(redactor, exchange);
    expect(redacted.request.headers.authorization).toBe(`Bearer ${REDACTED}`);
    expect(redacted.response?.headers['x-echo']).toBe(REDACTED);
    expect(redacted.response?.json).toEqual({ error: { code: 'VALIDATION_ERROR', message: `appPassword ${REDACTED} is wrong for ${REDACTED}` } });
    // The original is left as it was.
    expect(exchange.request.json).toEqual({ identifier: 'me', appPassword: 'pw-echoed-secret' });
  });

  it('does not scrub short values or plain words, which would match everywhere', () => {
    const scrub = valueScrubber(['1', 'true', 'active', 'pending_review', 'longer-secret-7']);
    expect(scrub('1 true active pending_review longer-secret-7 longer-secret-7%20')).toBe(`1 true active pending_review ${REDACTED} ${REDACTED}%20`);
    expect(redactor.query('state=active')).toBe(`state=${REDACTED}`);
    expect(valueScrubber(['a/b-secret-1'])('x=a%2Fb-secret-1 a/b-secret-1')).toBe(`x=${REDACTED} ${REDACTED}`);
  });
});

describe('redaction of what a client may send (found by fuzzing through the proxy)', () => {
  it('scrubs a secret value of any size, and a thousand of them, by plain search', () => {
    const huge = 'h'.repeat(1_000_000);
    const many = Array.from({ length: 1000 }, (_, i) => `secret-value-${i}-padding`);
    const scrub = valueScrubber([huge, ...many]);
    expect(scrub(`a${huge}b`)).toBe(`a${REDACTED}b`);
    expect(scrub('x secret-value-999-padding y secret-value-0-padding')).toBe(`x ${REDACTED} y ${REDACTED}`);
  });

  it('hides a secret field of a long text body without overflowing the pattern engine', () => {
    const text = `{"appPassword": "${'p'.repeat(2_000_000)}", "note": "kept"}`;
    expect(redactor.text(text)).toBe(`{"appPassword": "${REDACTED}", "note": "kept"}`);
  });

  it('walks a body nested deeper than the stack would allow, and hides the secret at its bottom', () => {
    let deep: unknown = { appPassword: 'deep-secret-value' };
    for (let i = 0; i < 100_000; i++) deep = { next: deep };
    let bottom = redactor.json(deep) as { next?: unknown; appPassword?: string };
    let depth = 0;
    while (bottom.next !== undefined) {
      bottom = bottom.next as typeof bottom;
      depth++;
    }
    expect(depth).toBe(100_000);
    expect(bottom).toEqual({ appPassword: REDACTED });
  });

  it('records a body nested deeper than the API accepts hidden whole, the other body and the headers as always', () => {
    let deep: unknown = { appPassword: 'deep-secret-value' };
    for (let i = 0; i < 100_000; i++) deep = { next: deep };
    const exchange: RecordedExchange = {
      format: RECORDING_FORMAT,
      seq: 1,
      operationId: 'createPost',
      startedAt: '2026-03-02T09:00:00.000Z',
      durationMs: 1,
      request: { method: 'POST', path: '/v1/posts', query: '', headers: { 'x-api-key': 'sgw_live_deep_key' }, json: deep },
      response: { status: 400, headers: {}, json: { error: { code: 'VALIDATION_ERROR', message: 'nope' } } },
    };
    const redacted = redactExchange(redactor, exchange);
    expect(redacted.request.headers).toEqual({ 'x-api-key': REDACTED });
    expect(redacted.request.text).toBe(REDACTED);
    expect(redacted.request.json).toBeUndefined();
    expect(redacted.response?.json).toEqual({ error: { code: 'VALIDATION_ERROR', message: 'nope' } });
  });
});
