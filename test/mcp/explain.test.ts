import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock, TEST_CLOCK, type StartedMock } from '../helpers/mock.js';
import { expectToolError, httpClient, jsonOf } from '../helpers/mcp.js';

/*
 * explain_request on the answers an agent meets most: a velocity cap a rule injected (the issue's
 * "make the third post fail with the velocity cap"), and a spent request budget. It never prints
 * a placeholder, its advice waits the answer's own Retry-After, and for a spent budget it names
 * what spent it.
 */

interface Explained {
  entry: { retryAfter?: number; caller?: string; matchedRule: string | null };
  why: string[];
  next: string[];
  spentBy?: { budget: string; requests: number; operations: Array<{ operationId: string; requests: number }>; callers: Array<{ caller: string; requests: number }> };
}

describe('explain_request', () => {
  let mock: StartedMock;
  let url: string;
  let client: Client;

  beforeAll(async () => {
    mock = await startMock();
    url = await mock.server.listen(0);
    client = await httpClient(url);
  });
  afterAll(async () => {
    await client.close();
    await mock.close();
  });

  async function newWorkspace(plan: 'free' | 'payg'): Promise<{ workspace: string; apiKey: string }> {
    const made = jsonOf<{ workspaceId: string; apiKey: string }>(await client.callTool({ name: 'workspaces', arguments: { operation: 'createWorkspace', body: { plan, clock: { start: TEST_CLOCK, frozen: true } } } }));
    return { workspace: made.workspaceId, apiKey: made.apiKey };
  }

  it('explains a velocity cap a rule put on the third post: no placeholder, and the wait the answer asked for', async () => {
    const { workspace } = await newWorkspace('payg');
    const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: { workspace, ...args } });
    const connections = jsonOf<{ body: { connections: Array<{ id: string; platform: string }> } }>(await call('call_api', { method: 'GET', path: '/v1/connections' })).body.connections;
    const bluesky = connections.find((connection) => connection.platform === 'bluesky')?.id ?? '';
    jsonOf(await call('scenarios', { operation: 'addRule', body: { id: 'third-post-capped', match: { operationId: 'createPost', nth: 3 }, then: { error: { status: 429, code: 'VELOCITY_LIMITED' } }, times: 1 } }));
    const post = (n: number) => call('call_api', { method: 'POST', path: '/v1/posts', body: { text: `Post ${n}`, destinations: [{ connectionId: bluesky }] } });
    jsonOf(await post(1));
    jsonOf(await post(2));
    const refused = expectToolError(await post(3), '429 VELOCITY_LIMITED').body as { headers: Record<string, string>; body: { error: { details: Record<string, unknown> } } };
    const retryAfter = Number(refused.headers['retry-after']);
    expect(refused.body.error.details).toMatchObject({ accountId: bluesky, platform: 'bluesky', window: 'hour', limit: 25, retryAfterSeconds: retryAfter });

    const explained = jsonOf<Explained>(await call('explain_request', {}));
    const said = [...explained.why, ...explained.next].join(' ');
    expect(said).not.toMatch(/\?/);
    expect(explained.entry).toMatchObject({ retryAfter, matchedRule: 'third-post-capped' });
    // The agent's own calls are named as such, apart from the client's.
    expect(explained.entry.caller).toMatch(/^key …\w{4}, social-gateway-mock-mcp\/\d/);
    expect(explained.why.join(' ')).toContain(`The posting velocity cap of account ${bluesky} (bluesky) was reached: 25 published posts per rolling hour.`);
    expect(explained.next.join(' ')).toContain(`${retryAfter} s: advance the clock (clock tool, advanceClock, body {"by":"PT${retryAfter}S"})`);
  });

  it('names what spent a rate budget: the top operations and callers of the window, and waits its Retry-After', async () => {
    const { workspace, apiKey } = await newWorkspace('free');
    const send = (path: string, agent: string) => fetch(`${url}${path}`, { headers: { 'x-api-key': apiKey, 'user-agent': agent } });
    // One client polls the posts 50 times; a dashboard reads the accounts 10 times, 30 s later.
    for (let n = 0; n < 50; n++) expect((await send('/v1/posts', 'status-poller/1.4 (cron)')).status).toBe(200);
    jsonOf(await client.callTool({ name: 'clock', arguments: { workspace, operation: 'advanceClock', body: { by: 'PT30S' } } }));
    for (let n = 0; n < 10; n++) expect((await send('/v1/accounts', 'dashboard/2.0')).status).toBe(200);
    const refused = await send('/v1/accounts', 'dashboard/2.0');
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBe(30);

    const explained = jsonOf<Explained>(await client.callTool({ name: 'explain_request', arguments: { workspace } }));
    const hint = `key …${apiKey.slice(-4)}`;
    expect(explained.spentBy).toEqual({
      budget: 'requests',
      requests: 60,
      windowSeconds: 60,
      operations: [{ operationId: 'listPosts', requests: 50 }, { operationId: 'listAccounts', requests: 10 }],
      callers: [{ caller: `${hint}, status-poller/1.4`, requests: 50 }, { caller: `${hint}, dashboard/2.0`, requests: 10 }],
    });
    expect(explained.why.join(' ')).toContain(`by operation listPosts 50, listAccounts 10; by caller ${hint}, status-poller/1.4 50, ${hint}, dashboard/2.0 10.`);
    expect(explained.next.join(' ')).toContain(`"by":"PT${retryAfter}S"`);
    expect(explained.next.join(' ')).toContain(`Most of the budget went to ${hint}, status-poller/1.4`);
    expect([...explained.why, ...explained.next].join(' ')).not.toMatch(/\?/);
  });
});
