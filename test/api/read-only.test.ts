import { describe, expect, it } from 'vitest';
import { loadSpec } from '../../src/http/spec.js';
import { operationModels, requestTarget, type OperationModel } from '../fuzz/operations.js';
import { takeSnapshot } from '../../src/workspaces/snapshot.js';
import type { Workspace } from '../../src/workspaces/workspace.js';
import { expectStatus, useMock } from '../helpers/mock.js';
import { advance, workspaceWith } from '../helpers/scenarios.js';
import { SseClient } from '../helpers/sse-client.js';

/*
 * Reads never change what they read: the control plane's inspection endpoints
 * (STYLE.md, issue 8) and the API's GETs. Every GET is read from the contracts, so
 * one added later is held to it with no list to update. (The isolation walk and the
 * fuzz check API reads on the fixture world too.)
 */

const mock = useMock({}, { listen: true });

interface Read {
  operationId: string;
  path: string;
  /** Answers a Server-Sent Events stream, which never ends by itself. */
  streams: boolean;
}

const control = loadSpec('control.yaml').document;
const reads: Read[] = operationModels(control, 'control')
  .filter((op) => op.method === 'GET')
  .map((op) => {
    const responses = (control.paths[op.path]?.get as { responses?: Record<string, { content?: Record<string, unknown> }> }).responses;
    return { operationId: op.operationId, path: op.path, streams: 'text/event-stream' in (responses?.['200']?.content ?? {}) };
  });

/** Rules with counters, a timeline with a step to come, states: something to disturb. */
const SCENARIO = [
  'states: [calm, storm]',
  'rules:',
  '  - { id: every-other, match: { operationId: listProfiles, every: 2 }, then: { latencyMs: 1 } }',
  '  - { id: once, match: { operationId: listConnections }, then: { error: { status: 400, code: VALIDATION_ERROR } }, times: 1 }',
  'timeline:',
  '  - { at: PT1H, do: emit, event: webhook.test, data: { note: one } }',
  '  - { at: PT2H, do: state, to: storm }',
  '  - { at: PT5H, do: account.expire, account: twitter }',
].join('\n');

/** Everything a workspace holds that a request could change, as text. */
function stateOf(workspace: Workspace): string {
  return JSON.stringify({
    snapshot: takeSnapshot(workspace),
    pending: workspace.scheduler.pending(),
    journal: workspace.journal.size,
    events: workspace.events.recent().length,
  });
}

async function read(key: string, { path, streams }: Read): Promise<void> {
  if (!streams) {
    expectStatus(await mock.control('get', path, key), 200);
    return;
  }
  // A stream is read until its first message (the replayed events, or the comment that opens it).
  const client = await SseClient.open(`${mock.url}${path}?replay=true`, { 'x-api-key': key });
  try {
    expect(client.response.statusCode).toBe(200);
    await client.waitFor(1);
  } finally {
    client.close();
  }
}

describe('the control plane’s GET operations', () => {
  it('are read from the contract, the event stream among them', () => {
    expect(reads.length).toBeGreaterThanOrEqual(8);
    expect(reads.filter((entry) => entry.streams).map((entry) => entry.operationId)).toHaveLength(1);
  });

  /** A world mid-scenario (rules with counters, a timeline half played, jobs, a journal, events), and one with nothing in it yet. */
  const worlds: Array<[string, () => Promise<string>]> = [
    [
      'the fixture world mid-scenario',
      async () => {
        const { key } = await workspaceWith(mock, SCENARIO);
        for (let i = 0; i < 3; i++) await mock.call('get', '/v1/profiles', key);
        await mock.call('get', '/v1/connections', key);
        await advance(mock, key, 'PT90M');
        return key;
      },
    ],
    [
      'an empty workspace',
      async () => {
        const res = await mock.control('post', '/__control/workspaces').send({ fixtures: false });
        expectStatus(res, 201);
        return res.body.apiKey as string;
      },
    ],
  ];

  describe.each(worlds)('in %s', (_name, makeWorld) => {
    it.each(reads)('$operationId ($path) leaves the workspace exactly as it was', async (entry) => {
      const key = await makeWorld();
      const workspace = mock.server.registry.byApiKey(key) as Workspace;
      const before = stateOf(workspace);

      await read(key, entry);
      await read(key, entry);

      expect(stateOf(workspace)).toBe(before);
    });
  });
});

/** A value for a required query parameter: the schema's example or first allowed value, else something of its type. */
function sampleValue(schema: { example?: unknown; enum?: unknown[]; type?: string; minimum?: number }): string {
  if (schema.example !== undefined) return String(schema.example);
  if (schema.enum?.[0] !== undefined) return String(schema.enum[0]);
  if (schema.type === 'integer' || schema.type === 'number') return String(Math.max(schema.minimum ?? 1, 1));
  return 'none';
}

/** The operation's path with every path parameter naming nothing, and its required query parameters filled. */
function targetOf(op: OperationModel): string {
  return requestTarget(op, (param) => (param === 'platform' ? 'bluesky' : 'nothing-here'), (p) => sampleValue(p.schema as never)) as string;
}

describe('the API’s GET operations, on a workspace that holds nothing', () => {
  const gets = operationModels(loadSpec('openapi.yaml').document, 'api').filter((op) => op.method === 'GET');

  it('are read from the contract', () => {
    expect(gets.length).toBeGreaterThan(20);
  });

  it.each(gets.map((op) => [op.operationId, op] as const))('%s creates nothing, whatever it answers', async (_id, op) => {
    const created = await mock.control('post', '/__control/workspaces').send({ fixtures: false });
    expectStatus(created, 201);
    const key = created.body.apiKey as string;
    const workspace = mock.server.registry.byApiKey(key) as Workspace;
    // The journal records API requests, reads too, by design: what is compared is the world itself.
    const before = JSON.stringify(takeSnapshot(workspace));
    const res = await mock.call('get', targetOf(op), key);
    expect(res.status, `${targetOf(op)}: ${res.text.slice(0, 200)}`).toBeLessThan(500);
    expect(JSON.stringify(takeSnapshot(workspace))).toBe(before);
  });
});
