import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { expectApiError, useMock } from '../helpers/mock.js';
import { expectToolError, httpClient, jsonOf } from '../helpers/mcp.js';

const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'test', version: '1' } } };
const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };

describe('/mcp behind the control plane’s checks', () => {
  describe('on a laptop (no control token)', () => {
    const mock = useMock();

    it('answers an MCP client of its own origin, or of none', async () => {
      const res = await request(mock.server.app).post('/mcp').set(MCP_HEADERS).send(INITIALIZE);
      expect(res.status).toBe(200);
    });

    describe('when a page of another origin calls it', () => {
      it('answers 403 FORBIDDEN naming the origin, whatever the method (DNS rebinding)', async () => {
        for (const method of ['post', 'get', 'delete'] as const) {
          const res = await request(mock.server.app)[method]('/mcp').set(MCP_HEADERS).set('origin', 'https://evil.example').send(method === 'post' ? INITIALIZE : undefined);
          expectApiError(res, 403, 'FORBIDDEN', 'Origin');
          expect(res.body.error.message).toContain('https://evil.example');
        }
      });
    });

    describe('when the Host is not the server’s own', () => {
      it('answers 403 FORBIDDEN as every route does', async () => {
        const res = await request(mock.server.app).post('/mcp').set(MCP_HEADERS).set('host', 'rebound.example:4010').send(INITIALIZE);
        expectApiError(res, 403, 'FORBIDDEN', 'Host');
      });
    });
  });

  describe('on a shared server (--control-token)', () => {
    const token = 'mcp-test-control-token-0123456789';
    const mock = useMock({ controlToken: token }, { listen: true });

    it('answers 401 UNAUTHORIZED without the token or a workspace key', async () => {
      expectApiError(await request(mock.server.app).post('/mcp').set(MCP_HEADERS).send(INITIALIZE), 401, 'UNAUTHORIZED');
    });

    it('answers 401 UNAUTHORIZED for a wrong token or an unknown key', async () => {
      expectApiError(await request(mock.server.app).post('/mcp').set(MCP_HEADERS).set('x-control-token', 'wrong').send(INITIALIZE), 401, 'UNAUTHORIZED');
      expectApiError(await request(mock.server.app).post('/mcp').set(MCP_HEADERS).set('x-api-key', 'sgw_nobody').send(INITIALIZE), 401, 'UNAUTHORIZED');
    });

    it('gives the token holder every operation', async () => {
      const client = await httpClient(mock.url, 'legacy', { 'x-control-token': token });
      expect(jsonOf<{ data: unknown[] }>(await client.callTool({ name: 'workspaces', arguments: { operation: 'listWorkspaces' } })).data.length).toBeGreaterThan(0);
      await client.close();
    });

    it("gives a workspace's key its own workspace alone, as /__control does", async () => {
      const created = await request(mock.server.app).post('/__control/workspaces').set('x-control-token', token).send({});
      const key = created.body.apiKey as string;
      const other = (await request(mock.server.app).post('/__control/workspaces').set('x-control-token', token).send({})).body.workspaceId as string;
      const client = await httpClient(mock.url, 'legacy', { 'x-api-key': key });
      expect(jsonOf(await client.callTool({ name: 'clock', arguments: { operation: 'getClock' } }))).toHaveProperty('now');
      expect(jsonOf<{ status: number }>(await client.callTool({ name: 'call_api', arguments: { method: 'GET', path: '/v1/connections' } })).status).toBe(200);
      expectToolError(await client.callTool({ name: 'workspaces', arguments: { operation: 'listWorkspaces' } }), '403 FORBIDDEN');
      expectToolError(await client.callTool({ name: 'clock', arguments: { operation: 'getClock', workspace: other } }), '403 FORBIDDEN');
      expectToolError(await client.callTool({ name: 'call_api', arguments: { workspace: other, method: 'GET', path: '/v1/connections' } }), '403 FORBIDDEN');
      await client.close();
    });
  });
});
