import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDACTED } from '../../src/redaction/redactor.js';
import { SseClient } from '../helpers/sse-client.js';
import { listening, plainServer, proxyTo, temporaryDir, type Listening } from './helpers.js';

/** Real-looking secrets, each sent once through the proxy in a header, a body or a query string. */
const SECRETS = {
  apiKey: 'sgw_live_Secret_Key_7f3a9c1e',
  appPassword: 'app-pass-9d8c-7b6a-5f4e',
  webhookSecret: 'whsec_super_secret_0123456789',
  tempToken: 'tmp_secret_token_5e4d3c2b',
  queryToken: 'query_token_z9y8x7w6',
  cookie: 'cookie_secret_a1b2c3d4',
  controlToken: 'ctl_secret_token_f00dfeed',
  tenantHeader: 'tenant_secret_q9w8e7r6',
  tenantField: 'tenant_field_secret_k1j2',
  session: 'os_ws_secret_session_77aa',
} as const;

/** Every secret must be absent from `text`; the message names where one was found. */
function expectNoSecret(text: string, where: string): void {
  for (const [name, secret] of Object.entries(SECRETS)) expect(text.includes(secret), `${name} (${secret}) in ${where}`).toBe(false);
}

/** Reads the stream until the journal entry `seq` has been told on it. */
async function untilRecorded(client: SseClient, seq: number): Promise<void> {
  while (!client.events().some((message) => message.id === `journal_${seq}`)) await client.waitFor(client.messages.length + 1);
}

describe('secrets sent through the proxy', () => {
  let upstream: Listening;
  let proxy: Listening;
  let stream: SseClient;
  const logs: string[] = [];
  const recording = temporaryDir();

  beforeAll(async () => {
    upstream = await listening({ apiKey: SECRETS.apiKey });
    proxy = await proxyTo(upstream.url, { recordDir: recording }, { redact: ['x-tenant-secret', 'tenantSecret'], logRequests: (line) => logs.push(line) });
    // A dashboard watching the Requests view.
    stream = await SseClient.open(`${proxy.url}/__control/events?requests=true`);
    const bearer = { authorization: `Bearer ${SECRETS.apiKey}`, 'content-type': 'application/json' };
    const sent = [
      fetch(`${proxy.url}/v1/connections/bluesky/connect`, { method: 'POST', headers: { ...bearer, cookie: `sid=${SECRETS.cookie}`, 'x-tenant-secret': SECRETS.tenantHeader }, body: JSON.stringify({ identifier: 'studio.bsky.social', appPassword: SECRETS.appPassword, metadata: { tenantSecret: SECRETS.tenantField } }) }),
      fetch(`${proxy.url}/v1/webhooks`, { method: 'POST', headers: { ...bearer, 'x-control-token': SECRETS.controlToken }, body: JSON.stringify({ name: 'hook', url: 'https://hooks.example.com/in', events: ['post.published'], secret: SECRETS.webhookSecret }) }),
      fetch(`${proxy.url}/v1/connections/oauth/instagram/accounts?tempToken=${SECRETS.tempToken}`, { headers: { 'x-api-key': SECRETS.apiKey } }),
      fetch(`${proxy.url}/v1/connections?token=${SECRETS.queryToken}`, { headers: { 'x-api-key': SECRETS.apiKey } }),
      fetch(`${proxy.url}/v1/connect-sessions/${SECRETS.session}/candidates`, { headers: { 'x-api-key': SECRETS.apiKey } }),
    ];
    for (const request of sent) await (await request).arrayBuffer();
    await untilRecorded(stream, sent.length);
  });
  afterAll(async () => {
    stream.close();
    await proxy.close();
    await upstream.close();
  });

  it('reached the upstream (the secrets were real, not refused before they travelled)', async () => {
    const journal = (await (await fetch(`${upstream.url}/__control/journal`, { headers: { 'x-api-key': SECRETS.apiKey } })).json()) as { data: Array<{ operationId: string; status: number }> };
    expect(journal.data.map((entry) => entry.operationId).sort()).toEqual(['connectAccount', 'createWebhook', 'listConnectCandidates', 'listConnections', 'listPendingInstagramAccounts']);
    expect(journal.data.find((entry) => entry.operationId === 'createWebhook')?.status).toBe(201);
  });

  it('are in no recorded file', () => {
    const files = readdirSync(recording);
    expect(files).toHaveLength(5);
    for (const file of files) expectNoSecret(readFileSync(join(recording, file), 'utf8'), file);
    const connect = JSON.parse(readFileSync(join(recording, files.find((file) => file.includes('connectAccount')) as string), 'utf8')) as { request: { json: Record<string, unknown>; headers: Record<string, string> } };
    expect(connect.request.json).toMatchObject({ identifier: 'studio.bsky.social', appPassword: REDACTED, metadata: { tenantSecret: REDACTED } });
    expect(connect.request.headers).toMatchObject({ authorization: `Bearer ${REDACTED}`, cookie: REDACTED, 'x-tenant-secret': REDACTED });
  });

  it('are in no journal entry', async () => {
    const text = await (await fetch(`${proxy.url}/__control/journal`)).text();
    expect(text).toContain('/v1/connections/oauth/instagram/accounts');
    expect(text).toContain(`/v1/connect-sessions/${REDACTED}/candidates`);
    expectNoSecret(text, 'the journal');
  });

  it("are in nothing the event stream (the dashboard's Requests view) carried", () => {
    const text = stream.messages.map((message) => message.data ?? '').join('\n');
    expect(text).toContain('"detail"');
    expect(text).toContain('studio.bsky.social');
    expectNoSecret(text, 'the event stream');
  });

  it('are in no log line', () => {
    expect(logs.filter((line) => line.includes(' /v1/'))).toHaveLength(5);
    expect(logs.join('\n')).toContain(`tempToken=${REDACTED}`);
    expectNoSecret(logs.join('\n'), 'the log');
  });
});

describe('secrets sent to the mock itself (not a proxy)', () => {
  it('are hidden from the event stream, the journal and the log in the same way', async () => {
    const logs: string[] = [];
    const mock = await listening({ apiKey: SECRETS.apiKey, logRequests: (line) => logs.push(line) });
    const stream = await SseClient.open(`${mock.url}/__control/events?requests=true`, { 'x-api-key': SECRETS.apiKey });
    try {
      const headers = { 'x-api-key': SECRETS.apiKey, 'content-type': 'application/json' };
      await (await fetch(`${mock.url}/v1/connections/bluesky/connect`, { method: 'POST', headers, body: JSON.stringify({ identifier: 'studio.bsky.social', appPassword: SECRETS.appPassword }) })).arrayBuffer();
      await (await fetch(`${mock.url}/v1/connections/oauth/instagram/accounts?tempToken=${SECRETS.tempToken}`, { headers })).arrayBuffer();
      await (await fetch(`${mock.url}/v1/connect-sessions/${SECRETS.session}/candidates`, { headers })).arrayBuffer();
      await untilRecorded(stream, 3);
      // A minted key revoked through the control plane: the key is in the path the log prints.
      const minted = (await (await fetch(`${mock.url}/__control/keys`, { method: 'POST', headers, body: '{}' })).json()) as { apiKey: string };
      await (await fetch(`${mock.url}/__control/keys/${minted.apiKey}`, { method: 'DELETE', headers })).arrayBuffer();
      expect(logs.some((line) => line.startsWith(`DELETE /__control/keys/${REDACTED} 200`))).toBe(true);
      expect(logs.join('\n')).not.toContain(minted.apiKey);
      const streamed = stream.messages.map((message) => message.data ?? '').join('\n');
      expect(streamed).toContain('studio.bsky.social');
      expectNoSecret(streamed, 'the event stream');
      expectNoSecret(await (await fetch(`${mock.url}/__control/journal`, { headers })).text(), 'the journal');
      expectNoSecret(logs.join('\n'), 'the log');
    } finally {
      stream.close();
      await mock.close();
    }
  });
});

describe('a compressed answer echoing a secret', () => {
  it('is shown on the event stream decoded and redacted, never as compressed bytes that keep the secret, nor in a header echoing it', async () => {
    const upstream = await plainServer((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'x-debug-echo': SECRETS.appPassword });
      res.end(gzipSync(JSON.stringify({ error: { code: 'VALIDATION_ERROR', message: `appPassword ${SECRETS.appPassword} is not valid` } })));
    });
    const proxy = await proxyTo(upstream.url);
    const stream = await SseClient.open(`${proxy.url}/__control/events?requests=true`);
    try {
      const res = await fetch(`${proxy.url}/v1/connections/bluesky/connect`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': SECRETS.apiKey }, body: JSON.stringify({ identifier: 'me', appPassword: SECRETS.appPassword }) });
      expect(res.status).toBe(400);
      await untilRecorded(stream, 1);
      const streamed = stream.messages.map((message) => message.data ?? '').join('\n');
      expect(streamed).toContain(`appPassword ${REDACTED} is not valid`);
      expectNoSecret(streamed, 'the event stream');
    } finally {
      stream.close();
      await proxy.close();
      await upstream.close();
    }
  });
});
