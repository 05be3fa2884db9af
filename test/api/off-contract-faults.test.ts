import { connect } from 'node:net';
import { get } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { declaredOperations } from '../../src/http/declared-responses.js';
import { loadSpec } from '../../src/http/spec.js';
import { expectApiError, expectStatus, useMock } from '../helpers/mock.js';
import { accountOn, addRule, advance, freshWorkspace, workspaceWith } from '../helpers/scenarios.js';

const mock = useMock();
let port: number;
beforeAll(async () => {
  port = Number(new URL(await mock.server.listen(0)).port);
});

/** What a client reading the raw connection saw: the status line and headers, each piece of body as it came, and how the connection ended. */
interface Received {
  status: number | undefined;
  headers: Record<string, string>;
  body: Buffer;
  /** The body as the reads delivered it (a dripped body comes in several). */
  bodyReads: Buffer[];
  /** `end`: the server closed (FIN); `reset`: it reset the connection (RST). */
  ending: 'end' | 'reset';
}

/** A GET over a bare TCP socket with `Connection: close`, read until the server ends or resets the connection. */
function rawGet(path: string, key: string): Promise<Received> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let head = Buffer.alloc(0);
    let headEnd = -1;
    const bodyReads: Buffer[] = [];
    let ending: Received['ending'] = 'end';
    socket.on('connect', () => socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${key}\r\nConnection: close\r\n\r\n`));
    socket.on('data', (chunk: Buffer) => {
      if (headEnd >= 0) {
        bodyReads.push(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      headEnd = head.indexOf('\r\n\r\n');
      if (headEnd >= 0 && head.length > headEnd + 4) bodyReads.push(head.subarray(headEnd + 4));
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNRESET') ending = 'reset';
      else reject(error);
    });
    socket.on('close', () => {
      const [statusLine = '', ...lines] = head.subarray(0, Math.max(headEnd, 0)).toString('latin1').split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const status = /^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1];
      resolve({ status: status === undefined ? undefined : Number(status), headers, body: Buffer.concat(bodyReads), bodyReads, ending });
    });
  });
}

async function journal(key: string) {
  return (await mock.control('get', '/__control/journal', key)).body.data as Array<{ operationId: string; status: number; effect: string | null; injected: boolean; matchedRule: string | null }>;
}

const declared = declaredOperations(loadSpec('openapi.yaml').document);

describe('a rule with fault', () => {
  describe('status 502, by default an HTML body', () => {
    it("answers nginx's 502 page, whatever the operation declares, and the handler does not run", async () => {
      const key = await freshWorkspace(mock);
      expect(declared.get('listProfiles')?.statuses.has(502)).toBe(false);
      await addRule(mock, key, { match: { operationId: 'listProfiles' }, then: { fault: { status: 502 } } });
      const got = await rawGet('/v1/profiles', key);
      expect(got).toMatchObject({ status: 502, ending: 'end' });
      // UTF-8, said as Express's res.type('text/html').send() said it before the API left Express (decision 0023).
      expect(got.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(got.headers['server']).toBe('nginx');
      expect(got.body.toString()).toBe('<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n');
      expect(Number(got.headers['content-length'])).toBe(got.body.length);
    });

    it('changes nothing: a write it answers never happens', async () => {
      const key = await freshWorkspace(mock);
      await addRule(mock, key, { match: { operationId: 'createProfile' }, then: { fault: { status: 502 } }, times: 1 });
      expect((await mock.call('post', '/v1/profiles', key).send({ name: 'Ghost' })).status).toBe(502);
      expect((await mock.call('get', '/v1/profiles', key)).body.data.map((profile: { name: string }) => profile.name)).not.toContain('Ghost');
    });
  });

  describe('status 503 with retryAfter', () => {
    it('sends Retry-After with the page', async () => {
      const key = await freshWorkspace(mock);
      await addRule(mock, key, { match: { operationId: 'listAccounts' }, then: { fault: { status: 503, retryAfter: 120 } } });
      const got = await rawGet('/v1/accounts', key);
      expect(got.status).toBe(503);
      expect(got.headers['retry-after']).toBe('120');
      expect(got.body.toString()).toContain('<title>503 Service Temporarily Unavailable</title>');
    });

    it('answers only inside its window of virtual time', async () => {
      const key = await freshWorkspace(mock);
      await addRule(mock, key, { match: { operationId: 'listAccounts', window: { until: 'PT1M' } }, then: { fault: { status: 503, retryAfter: 60 } } });
      expect((await rawGet('/v1/accounts', key)).status).toBe(503);
      await advance(mock, key, 'PT1M');
      expect((await rawGet('/v1/accounts', key)).status).toBe(200);
    });
  });

  describe('status 504 with an empty body', () => {
    it('answers no body at all', async () => {
      const key = await freshWorkspace(mock);
      await addRule(mock, key, { match: { operationId: 'listAccounts' }, then: { fault: { status: 504, body: 'empty' } } });
      const got = await rawGet('/v1/accounts', key);
      expect(got).toMatchObject({ status: 504, ending: 'end' });
      expect(got.headers['content-length']).toBe('0');
      expect(got.headers['content-type']).toBeUndefined();
      expect(got.body.length).toBe(0);
    });
  });

  describe('status 500, by default the JSON envelope', () => {
    it("answers the API's error envelope with INTERNAL_ERROR, or the code it is given", async () => {
      const key = await freshWorkspace(mock);
      await addRule(mock, key, { match: { operationId: 'listAccounts' }, then: { fault: { status: 500 } }, times: 1 });
      await addRule(mock, key, { match: { operationId: 'listAccounts' }, then: { fault: { status: 502, body: 'json', code: 'UPSTREAM_DOWN', message: 'Upstream down.' } } });
      expectApiError(await mock.call('get', '/v1/accounts', key), 500, 'INTERNAL_ERROR');
      const second = await mock.call('get', '/v1/accounts', key);
      expectApiError(second, 502, 'UPSTREAM_DOWN');
      expect(second.body.error.message).toBe('Upstream down.');
    });
  });
});

describe('a fault answered to a request with an Idempotency-Key', () => {
  // The reference: a 429 or 5xx response is not kept, so a retry with the same key runs again.
  it('is not kept: the retry with the same key runs, and only its answer is replayed after', async () => {
    const key = await freshWorkspace(mock);
    const account = await accountOn(mock, key, 'bluesky');
    await addRule(mock, key, { match: { operationId: 'syncAccount' }, then: { fault: { status: 503, retryAfter: 5 } }, times: 1 });
    const sync = () => mock.call('post', `/v1/accounts/${account}/sync`, key).set('Idempotency-Key', 'retry-after-fault').send({});

    expect((await sync()).status).toBe(503);
    const retry = await sync();
    expectStatus(retry, 200);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    const again = await sync();
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(retry.body);
  });
});

describe('a rule with truncated', () => {
  describe('on the real answer', () => {
    it('sends the status and the whole length, then half the body, then closes', async () => {
      const key = await freshWorkspace(mock);
      const id = await accountOn(mock, key, 'twitter');
      const whole = await rawGet(`/v1/accounts/${id}`, key);
      await addRule(mock, key, { match: { operationId: 'getAccount' }, then: { truncated: true } });
      const got = await rawGet(`/v1/accounts/${id}`, key);
      expect(got).toMatchObject({ status: 200, ending: 'end' });
      expect(got.headers['content-length']).toBe(String(whole.body.length));
      expect(got.body.length).toBe(Math.floor(whole.body.length / 2));
      expect(whole.body.subarray(0, got.body.length).equals(got.body)).toBe(true);
      expect(() => JSON.parse(got.body.toString())).toThrow(SyntaxError);
    });

    it('makes node:http report the answer aborted', async () => {
      const key = await freshWorkspace(mock);
      await addRule(mock, key, { match: { operationId: 'listAccounts' }, then: { truncated: { afterBytes: 5 } } });
      const outcome = await new Promise<{ status?: number; received: string; failure: string }>((resolve) => {
        const request = get({ port, host: '127.0.0.1', path: '/v1/accounts', headers: { 'x-api-key': key } }, (res) => {
          let received = '';
          res.on('data', (chunk: Buffer) => {
            received += chunk.toString();
          });
          res.on('error', (error) => resolve({ ...(res.statusCode !== undefined && { status: res.statusCode }), received, failure: error.message }));
          res.on('end', () => resolve({ ...(res.statusCode !== undefined && { status: res.statusCode }), received, failure: 'none' }));
        });
        request.on('error', (error) => resolve({ received: '', failure: error.message }));
      });
      expect(outcome).toEqual({ status: 200, received: '{"dat', failure: 'aborted' });
    });
  });

  describe('with a fault', () => {
    it('cuts the fault page after the bytes it names', async () => {
      const key = await freshWorkspace(mock);
      await addRule(mock, key, { match: { operationId: 'listAccounts' }, then: { fault: { status: 502 }, truncated: { afterBytes: 10 } } });
      const got = await rawGet('/v1/accounts', key);
      expect(got.status).toBe(502);
      expect(got.body.toString()).toBe('<html>\r\n<h');
      expect(Number(got.headers['content-length'])).toBeGreaterThan(10);
    });
  });
});

describe('a rule with reset and afterBytes', () => {
  it('sends the status, the headers and the first bytes of the body, then resets the connection', async () => {
    const key = await freshWorkspace(mock);
    const whole = await rawGet('/v1/accounts', key);
    await addRule(mock, key, { match: { operationId: 'listAccounts' }, then: { reset: { afterBytes: 20 } } });
    const got = await rawGet('/v1/accounts', key);
    expect(got).toMatchObject({ status: 200, ending: 'reset' });
    expect(got.body.toString()).toBe(whole.body.subarray(0, 20).toString());
    expect(got.headers['content-length']).toBe(String(whole.body.length));
  });

  it('with afterBytes 0, resets right after the headers', async () => {
    const key = await freshWorkspace(mock);
    await addRule(mock, key, { match: { operationId: 'listAccounts' }, then: { error: { status: 429, code: 'RATE_LIMITED' }, reset: { afterBytes: 0 } } });
    const got = await rawGet('/v1/accounts', key);
    expect(got).toMatchObject({ status: 429, ending: 'reset' });
    expect(got.headers['retry-after']).toBe('60');
    expect(got.body.length).toBe(0);
  });
});

describe('a rule with drip', () => {
  it('sends the real body in several pieces, whole in the end', async () => {
    const key = await freshWorkspace(mock);
    const id = await accountOn(mock, key, 'bluesky');
    const whole = await rawGet(`/v1/accounts/${id}`, key);
    // Four pieces, 25 ms apart: the reads see them apart however fast the machine is.
    await addRule(mock, key, { match: { operationId: 'getAccount' }, then: { drip: { chunkBytes: Math.ceil(whole.body.length / 4), intervalMs: 25 } } });
    const got = await rawGet(`/v1/accounts/${id}`, key);
    expect(got).toMatchObject({ status: 200, ending: 'end' });
    expect(got.body.equals(whole.body)).toBe(true);
    expect(got.bodyReads.length).toBeGreaterThanOrEqual(2);
  });

  it('drips a fault page too, and can cut it short', async () => {
    const key = await freshWorkspace(mock);
    await addRule(mock, key, { match: { operationId: 'listAccounts' }, then: { fault: { status: 503 }, drip: { chunkBytes: 30, intervalMs: 25 }, reset: { afterBytes: 90 } } });
    const got = await rawGet('/v1/accounts', key);
    expect(got).toMatchObject({ status: 503, ending: 'reset' });
    expect(got.body.length).toBe(90);
    expect(got.bodyReads.length).toBeGreaterThanOrEqual(2);
  });
});

describe('answers of off-contract faults', () => {
  describe('in the journal', () => {
    it('are marked injected, with the status sent and the effects', async () => {
      const key = await freshWorkspace(mock);
      await addRule(mock, key, { id: 'lb', match: { operationId: 'listAccounts' }, then: { fault: { status: 502 }, drip: { chunkBytes: 64, intervalMs: 5 } }, times: 1 });
      await addRule(mock, key, { id: 'cut', match: { operationId: 'listProfiles' }, then: { truncated: true }, times: 1 });
      await addRule(mock, key, { id: 'gone', match: { operationId: 'listConnections' }, then: { drop: true }, times: 1 });
      await addRule(mock, key, { id: 'scripted', match: { operationId: 'listAccounts' }, then: { error: { status: 400, code: 'VALIDATION_ERROR' } }, times: 1 });
      await rawGet('/v1/accounts', key);
      await rawGet('/v1/profiles', key);
      await rawGet('/v1/connections', key);
      await rawGet('/v1/accounts', key);
      await rawGet('/v1/accounts', key);
      expect((await journal(key)).map(({ operationId, status, effect, injected, matchedRule }) => ({ operationId, status, effect, injected, matchedRule }))).toEqual([
        { operationId: 'listAccounts', status: 502, effect: 'fault+drip', injected: true, matchedRule: 'lb' },
        { operationId: 'listProfiles', status: 200, effect: 'truncated', injected: true, matchedRule: 'cut' },
        { operationId: 'listConnections', status: 0, effect: 'drop', injected: true, matchedRule: 'gone' },
        { operationId: 'listAccounts', status: 400, effect: 'error', injected: false, matchedRule: 'scripted' },
        { operationId: 'listAccounts', status: 200, effect: null, injected: false, matchedRule: null },
      ]);
    });
  });

  describe('in the coverage report', () => {
    it('are counted as injected, never as statuses of the contract', async () => {
      const key = await freshWorkspace(mock);
      await addRule(mock, key, { match: { operationId: 'listAccounts' }, then: { fault: { status: 503 } }, times: 2 });
      await rawGet('/v1/accounts', key);
      await rawGet('/v1/accounts', key);
      await rawGet('/v1/accounts', key);
      const report = (await mock.control('get', '/__control/coverage?scope=workspace', key)).body;
      const listAccounts = report.byOperation.find((operation: { operationId: string }) => operation.operationId === 'listAccounts');
      expect(listAccounts).toMatchObject({ calls: 3, injected: 2, statuses: [{ status: 200, count: 1, declared: true }] });
      const markdown = (await mock.control('get', '/__control/coverage?scope=workspace&format=markdown', key)).text;
      expect(markdown).toMatch(/`listAccounts` \| `GET \/v1\/accounts` \| 3 \| 200 ×1, injected ×2 \|/);
    });
  });

  describe('under --strict-responses', () => {
    it('are not contract violations', async () => {
      const key = await freshWorkspace(mock);
      await addRule(mock, key, { match: { operationId: 'listAccounts' }, then: { fault: { status: 504, body: 'html' } }, times: 1 });
      await addRule(mock, key, { match: { operationId: 'listAccounts' }, then: { malformed: true }, times: 1 });
      expect((await rawGet('/v1/accounts', key)).status).toBe(504);
      expect((await rawGet('/v1/accounts', key)).status).toBe(200);
      expect(mock.server.violations).toEqual([]);
    });
  });
});

describe('off-contract faults in a scenario file', () => {
  it('load and answer like run-time rules', async () => {
    const { key } = await workspaceWith(mock, 'rules:\n  - id: lb\n    match: { operationId: listAccounts }\n    then: { fault: { status: 502, retryAfter: 5 } }\n');
    const got = await rawGet('/v1/accounts', key);
    expect(got.status).toBe(502);
    expect(got.headers['retry-after']).toBe('5');
  });

  it.each([
    ['a status no proxy answers', { fault: { status: 418 } }, 'then.fault.status'],
    ['a drip of no answer', { drop: true, drip: {} }, 'then.drip'],
    ['a cut of no answer', { reset: true, truncated: true }, 'then.truncated'],
    ['two cuts', { truncated: true, reset: { afterBytes: 3 } }, 'then.reset'],
    ['two answers', { fault: { status: 503 }, malformed: true }, 'then.fault'],
  ])('refuse %s, naming the field', async (_case, then, field) => {
    const key = await freshWorkspace(mock);
    expectApiError(await mock.control('post', '/__control/rules', key).send({ then }), 400, 'INVALID_SCENARIO', field);
  });
});
