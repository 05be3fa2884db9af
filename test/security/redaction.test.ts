import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { curlCommand } from '../../src/dashboard/ui/curl.js';
import type { JournalEntry, LiveDetail } from '../../src/dashboard/ui/contract.js';
import { maskUserInfo } from '../../src/lib/uri.js';
import { RECORDING_FORMAT, readRecording, writeExchange } from '../../src/proxy/recording.js';
import { hideSecretShapes, REDACTED } from '../../src/redaction/redactor.js';
import { cliIo } from '../helpers/cli-io.js';
import { SseClient } from '../helpers/sse-client.js';
import { listening, plainServer, proxyTo, temporaryDir, type Listening } from '../proxy/helpers.js';

/*
 * One table of secrets, in every spelling a client or a real service uses, and every place a
 * request is shown or kept: recordings, the journal, the event stream (the dashboard's Requests
 * view and its "Copy as curl"), the request log and `scenario from-recording`'s output (decision 0030).
 */

const PEM = '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAzq1exampleonlyPEMbody0123456789\n-----END RSA PRIVATE KEY-----';

/** A value each, so a leak names its row. */
const SECRETS = {
  'field api_key': 'field-api-key-value-01',
  'field apiKey': 'field-apikey-value-02',
  'field API-KEY': 'field-api-dash-value-03',
  'field access_token': 'field-access-token-04',
  'field client_secret': 'field-client-secret-05',
  'field db_password': 'field-db-password-06',
  'field private_key (PEM)': PEM,
  'header x-auth-token': 'header-auth-token-07',
  'header X-Service-Password': 'header-service-pass-08',
  'query token[]': 'query-token-array-09',
  'query api_key': 'query-api-key-value-10',
  'query accessToken': 'query-access-token-11',
  'webhook URL password': 'hook-url-password-12',
  'a live key in a text field': 'sk_live_51TextFieldSecret13',
  'a GitHub token the upstream echoes': 'ghp_EchoedByUpstream0123456789ab',
  'the request key, echoed': 'sgw_live_request_key_14',
  'a Bearer credential in a header of no secret name': 'fwdBearer0a1b2c3d15',
} as const;

/** What must stay visible: no secret, and what a person reads the journal for. */
const VISIBLE = ['idem-visible-123', 'launch-keyword', 'studio.bsky.social', '2026-04-01T00:00:00Z'];

function expectNoSecret(text: string, where: string): void {
  for (const [row, secret] of Object.entries(SECRETS)) {
    const probe = secret === PEM ? 'exampleonlyPEMbody' : secret;
    expect(text.includes(probe), `${row} in ${where}`).toBe(false);
  }
}

/** The requests a client sends: each secret once, where its row says. */
function requests(base: string): Array<[string, RequestInit]> {
  const headers = {
    'content-type': 'application/json',
    'x-api-key': SECRETS['the request key, echoed'],
    'x-auth-token': SECRETS['header x-auth-token'],
    'X-Service-Password': SECRETS['header X-Service-Password'],
    'Idempotency-Key': 'idem-visible-123',
    'X-Forwarded-Authorization': `Bearer ${SECRETS['a Bearer credential in a header of no secret name']}`,
  };
  const body = {
    text: `Launch day ${SECRETS['a live key in a text field']}`,
    destinations: [{ connectionId: 'conn-1' }],
    metadata: {
      identifier: 'studio.bsky.social',
      keywords: ['launch-keyword'],
      tokenExpiresAt: '2026-04-01T00:00:00Z',
      api_key: SECRETS['field api_key'],
      apiKey: SECRETS['field apiKey'],
      'API-KEY': SECRETS['field API-KEY'],
      nested: [{ access_token: SECRETS['field access_token'], client_secret: SECRETS['field client_secret'] }],
      db_password: SECRETS['field db_password'],
      private_key: SECRETS['field private_key (PEM)'],
    },
  };
  const query = `token[]=${SECRETS['query token[]']}&api_key=${SECRETS['query api_key']}&accessToken=${SECRETS['query accessToken']}&limit=5`;
  return [
    [`${base}/v1/posts`, { method: 'POST', headers, body: JSON.stringify(body) }],
    [`${base}/v1/connections?${query}`, { headers }],
    [`${base}/v1/webhooks`, { method: 'POST', headers, body: JSON.stringify({ name: 'hook', url: `https://hookuser:${SECRETS['webhook URL password']}@hooks.example/in`, events: ['post.published'] }) }],
  ];
}

async function untilRecorded(client: SseClient, seq: number): Promise<void> {
  while (!client.events().some((message) => message.id === `journal_${seq}`)) await client.waitFor(client.messages.length + 1);
}

describe('secrets, spelled every way, through the proxy', () => {
  let upstream: Awaited<ReturnType<typeof plainServer>>;
  let proxy: Listening;
  let stream: SseClient;
  const logs: string[] = [];
  const recording = temporaryDir();

  beforeAll(async () => {
    // An upstream that echoes what it got, and adds a token of its own: the answer must be redacted too.
    upstream = await plainServer((req, res, body) => {
      res.writeHead(200, { 'content-type': 'application/json', 'x-upstream-token': SECRETS['a GitHub token the upstream echoes'] });
      res.end(JSON.stringify({ echoed: { url: req.url, headers: req.headers, body }, note: `issued ${SECRETS['a GitHub token the upstream echoes']}` }));
    });
    proxy = await proxyTo(upstream.url, { recordDir: recording }, { logRequests: (line) => logs.push(line) });
    stream = await SseClient.open(`${proxy.url}/__control/events?requests=true`);
    const sent = requests(proxy.url);
    for (const [url, init] of sent) await (await fetch(url, init)).arrayBuffer();
    await untilRecorded(stream, sent.length);
  });
  afterAll(async () => {
    stream.close();
    await proxy.close();
    await upstream.close();
  });

  it('reached the upstream in clear (they were real secrets, not refused before they travelled)', () => {
    const files = readdirSync(recording);
    expect(files).toHaveLength(3);
  });

  it('are in no recorded file, while what is no secret stays readable', () => {
    const text = readdirSync(recording)
      .map((file) => readFileSync(join(recording, file), 'utf8'))
      .join('\n');
    expectNoSecret(text, 'the recordings');
    for (const visible of VISIBLE) expect(text).toContain(visible);
    expect(text).toContain(REDACTED);
    expect(text).toContain('https://***@hooks.example/in');
  });

  it('are in no journal entry', async () => {
    const text = await (await fetch(`${proxy.url}/__control/journal`)).text();
    expect(text).toContain('limit=5');
    expectNoSecret(text, 'the journal');
  });

  it("are in nothing the event stream carried, nor in the dashboard's Copy as curl built from it", () => {
    const text = stream.messages.map((message) => message.data ?? '').join('\n');
    expect(text).toContain('"detail"');
    for (const visible of VISIBLE) expect(text).toContain(visible);
    expectNoSecret(text, 'the event stream');
    const recorded = stream.events().filter((message) => message.event === 'request.recorded').map((message) => JSON.parse(message.data ?? '{}') as { data: { entry: JournalEntry; detail?: LiveDetail } });
    expect(recorded).toHaveLength(3);
    const curls = recorded.map(({ data }) => curlCommand(data.entry, proxy.url, data.detail)).join('\n');
    expect(curls).toContain('idempotency-key: idem-visible-123');
    expectNoSecret(curls, 'Copy as curl');
  });

  it('are in no log line', () => {
    expect(logs.filter((line) => line.includes(' /v1/'))).toHaveLength(3);
    expectNoSecret(logs.join('\n'), 'the log');
  });

  it('are in no scenario made from the recording', async () => {
    const io = cliIo();
    expect(await main(['scenario', 'from-recording', recording], io.streams)).toEqual({ exitCode: 0 });
    const yaml = io.out.join('\n');
    expect(yaml).toContain('respond');
    expectNoSecret(yaml, 'scenario from-recording');
  });
});

describe('secrets, spelled every way, sent to the mock itself', () => {
  it('are hidden from its journal, its event stream and its log in the same way, each request sent twice (the second query parsed and hidden from memory)', async () => {
    const logs: string[] = [];
    const mock = await listening({ apiKey: SECRETS['the request key, echoed'], logRequests: (line) => logs.push(line) });
    const stream = await SseClient.open(`${mock.url}/__control/events?requests=true`, { 'x-api-key': SECRETS['the request key, echoed'] });
    try {
      const sent = [...requests(mock.url), ...requests(mock.url)];
      for (const [url, init] of sent) await (await fetch(url, init)).arrayBuffer();
      await untilRecorded(stream, sent.length);
      const journal = (await (await fetch(`${mock.url}/__control/journal`, { headers: { 'x-api-key': SECRETS['the request key, echoed'] } })).json()) as { data: Array<{ path: string; query: string }> };
      const queries = journal.data.filter((entry) => entry.path === '/v1/connections').map((entry) => entry.query);
      expect(queries).toHaveLength(2);
      expect(queries[1]).toBe(queries[0]);
      expect(queries[0]).toContain('limit=5');
      expectNoSecret(stream.messages.map((message) => message.data ?? '').join('\n'), 'the event stream');
      expectNoSecret(await (await fetch(`${mock.url}/__control/journal`, { headers: { 'x-api-key': SECRETS['the request key, echoed'] } })).text(), 'the journal');
      expectNoSecret(logs.join('\n'), 'the log');
    } finally {
      stream.close();
      await mock.close();
    }
  });
});

describe('a recording written before names were judged by family (or by hand)', () => {
  it('gives a scenario with none of its secrets: from-recording redacts what it reads as the proxy now would', async () => {
    const recording = temporaryDir();
    // What a proxy of decision 0022 wrote: only the names of its fixed list hidden.
    writeExchange(recording, {
      format: RECORDING_FORMAT,
      seq: 1,
      operationId: 'listConnections',
      startedAt: '2026-03-02T09:00:00.000Z',
      durationMs: 3,
      request: {
        method: 'GET',
        path: '/v1/connections',
        query: `token[]=${SECRETS['query token[]']}&api_key=${SECRETS['query api_key']}&limit=5`,
        headers: { 'x-api-key': REDACTED, 'x-auth-token': SECRETS['header x-auth-token'], 'idempotency-key': 'idem-visible-123' },
      },
      response: {
        status: 200,
        headers: { 'content-type': 'application/json', 'x-upstream-token': SECRETS['a GitHub token the upstream echoes'] },
        json: {
          data: [],
          nextCursor: null,
          hasMore: false,
          echoed: {
            client_secret: SECRETS['field client_secret'],
            private_key: SECRETS['field private_key (PEM)'],
            hook: `https://hookuser:${SECRETS['webhook URL password']}@hooks.example/in`,
            note: `token ${SECRETS['query token[]']} and ${SECRETS['a live key in a text field']}`,
            keywords: ['launch-keyword'],
          },
        },
      },
    });
    const io = cliIo();
    expect(await main(['scenario', 'from-recording', recording], io.streams)).toEqual({ exitCode: 0 });
    const yaml = io.out.join('\n');
    expect(yaml).toContain('launch-keyword');
    expect(yaml).toContain('limit=5');
    expectNoSecret(yaml, 'scenario from-recording of an old recording');
  });
});

describe('an upstream answer nested deeper than the API accepts', () => {
  it('is recorded hidden whole, so the recording stays one that drift and from-recording can read', async () => {
    const nested = (depth: number) => `${'['.repeat(depth)}"${SECRETS['field api_key']}"${']'.repeat(depth)}`;
    const upstream = await plainServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      // 200 levels: written, then refused when read back; 5,000: past what JSON.stringify writes.
      res.end(nested(req.url?.includes('limit=1') ? 200 : 5_000));
    });
    const recording = temporaryDir();
    const proxy = await proxyTo(upstream.url, { recordDir: recording });
    try {
      for (const limit of [1, 2]) await (await fetch(`${proxy.url}/v1/connections?limit=${limit}`, { headers: { 'x-api-key': 'sgw_test_default' } })).arrayBuffer();
      const exchanges = readRecording(recording);
      expect(exchanges.map((exchange) => exchange.response?.text)).toEqual([REDACTED, REDACTED]);
      const io = cliIo();
      expect(await main(['scenario', 'from-recording', recording], io.streams)).toEqual({ exitCode: 0 });
      expect(io.out.join('\n').match(/respond:/g)).toHaveLength(2);
    } finally {
      await proxy.close();
      await upstream.close();
    }
  });
});

describe('the shapes are searched in linear time', () => {
  // Each the worst case of a pattern that scanned a run once per word start: minutes for a megabyte
  // before, from any body through the proxy or the live detail, while every tenant waited.
  it.each([
    ['a scheme-like run before an @ (user info)', `${'a.'.repeat(128 * 1024)}@`],
    ['JSON Web Token heads joined by - with no dot', 'eyJaaaaaaaa-'.repeat(40 * 1024)],
  ])('%s: answers, and a real one in it is still found', (_case, hostile) => {
    const secret = `https://u:${SECRETS['webhook URL password']}@h.example/ and eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlMDEyMw`;
    const shown = hideSecretShapes(`${hostile} ${secret}`);
    expect(shown.startsWith(hostile.slice(0, 1000))).toBe(true);
    expect(shown).not.toContain(SECRETS['webhook URL password']);
    expect(shown).not.toContain('c2lnbmF0dXJlMDEyMw');
    expect(maskUserInfo(`${hostile} ${secret}`)).not.toContain(SECRETS['webhook URL password']);
  });
});

describe("the dashboard's Copy as curl", () => {
  it('leaves out every header the server masked, however its name is spelt, and keeps the rest', () => {
    const detail: LiveDetail = {
      requestHeaders: { 'x-auth-token': '••••n-07', 'X-Service-Password': '••••s-08', 'x-api-key': '••••_14', 'idempotency-key': 'idem-visible-123', 'x-forwarded-authorization': `Bearer ${REDACTED}` },
      requestBody: null,
      requestBodyTruncated: false,
      responseHeaders: {},
      responseBody: null,
      responseBodyTruncated: false,
    };
    const curl = curlCommand({ method: 'GET', path: '/v1/connections', query: `token[]=${REDACTED}` }, 'http://127.0.0.1:4010', detail);
    expect(curl).not.toContain('••••');
    expect(curl).toContain("-H 'idempotency-key: idem-visible-123'");
    expect(curl).toContain(`-H 'x-forwarded-authorization: Bearer ${REDACTED}'`);
    expect(curl).toContain('"x-api-key: $SOCIAL_GATEWAY_MOCK_API_KEY"');
  });
});
