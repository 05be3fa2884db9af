import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { DEFAULT_API_KEY } from '../../src/server.js';
import { VERSION } from '../../src/version.js';
import { cliIo } from '../helpers/cli-io.js';
import { startMock, TEST_CLOCK, useMock } from '../helpers/mock.js';

const TEST_CLOCK_ISO = new Date(TEST_CLOCK).toISOString();

// The index is built from the Host the request came to: one the server was told to answer.
const mock = useMock({ allowedHosts: ['mock.example.test'] });

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

describe('GET /', () => {
  describe('when the client names no preference', () => {
    it('answers the index as JSON, with absolute URLs on the host it called', async () => {
      const res = await mock.call('get', '/', null).set('Host', 'mock.example.test:4011');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toEqual({
        name: 'social-gateway-mock',
        version: VERSION,
        api: 'http://mock.example.test:4011/v1',
        docs: 'http://mock.example.test:4011/docs',
        dashboard: 'http://mock.example.test:4011/__dashboard',
        openapi: 'http://mock.example.test:4011/openapi.yaml',
        control: 'http://mock.example.test:4011/__control',
        controlContract: 'http://mock.example.test:4011/control.yaml',
        health: 'http://mock.example.test:4011/__control/health',
        mcp: 'http://mock.example.test:4011/mcp',
        apiKey: DEFAULT_API_KEY,
        scenario: null,
        world: { seed: 1, plan: 'payg' },
        clock: { now: TEST_CLOCK_ISO, frozen: true },
        data: 'memory',
      });
    });
  });

  describe('when the server has a control token', () => {
    it('leaves out the default key and the data file, which the token guards', async () => {
      const guarded = await startMock({ controlToken: 'index-page-control-token-0123456789' });
      try {
        const res = await guarded.call('get', '/', null);
        expect(res.status).toBe(200);
        expect(res.body).not.toHaveProperty('apiKey');
        expect(res.body).not.toHaveProperty('data');
        expect(JSON.stringify(res.body)).not.toContain(DEFAULT_API_KEY);
        expect(res.body).toMatchObject({ scenario: null, world: { seed: 1 }, clock: { frozen: true } });
      } finally {
        await guarded.close();
      }
    });
  });

  describe('as the start banner prints it', () => {
    it('answers the same map: every line of the banner is a value of GET /', async () => {
      const { streams, out } = cliIo();
      const started = await main(['--port', '0', '--seed', '7', '--clock', '2026-03-02T09:00:00Z', '--clock-frozen', '--scenario', 'rate-limit-exhaustion'], streams);
      if (started.exitCode !== undefined) throw new Error(`the server did not start: exit ${started.exitCode}`);
      try {
        const index = (await (await fetch(`${started.url}/`)).json()) as Record<string, unknown>;
        const banner = Object.fromEntries(
          out
            .join('\n')
            .split('\n')
            .slice(1)
            .map((line) => /^ {2}(\S+(?: key)?) +(.*)$/.exec(line))
            .filter((match) => match !== null)
            .map((match) => [match[1], match[2]]),
        );
        expect(Object.keys(banner)).toEqual(['API', 'API key', 'Control', 'Dashboard', 'Docs', 'Contract', 'MCP', 'Scenario', 'World', 'Clock', 'Data']);
        expect(banner).toEqual({
          API: index['api'],
          'API key': `${String(index['apiKey'])}   (send as x-api-key, or Authorization: Bearer)`,
          Control: index['control'],
          Dashboard: index['dashboard'],
          Docs: index['docs'],
          Contract: index['openapi'],
          MCP: index['mcp'],
          Scenario: index['scenario'],
          World: `seed ${(index['world'] as { seed: number }).seed}, plan ${(index['world'] as { plan: string }).plan}`,
          Clock: `${(index['clock'] as { now: string }).now} (frozen: only the control plane moves it)`,
          Data: 'in memory',
        });
        expect(index).toMatchObject({ scenario: 'rate-limit-exhaustion', world: { seed: 7 }, clock: { now: '2026-03-02T09:00:00.000Z', frozen: true }, data: 'memory' });
      } finally {
        await started.stop();
      }
    });
  });

  describe('when the client asks for JSON', () => {
    it('answers JSON', async () => {
      const res = await mock.call('get', '/', null).set('Accept', 'application/json');
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body.api).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    });
  });

  describe('when the client prefers HTML (a browser)', () => {
    it('answers a page linking to the dashboard, the docs, both contracts and the health check', async () => {
      const res = await mock.call('get', '/', null).set('Accept', BROWSER_ACCEPT);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['vary']).toMatch(/Accept/);
      for (const href of ['/__dashboard', '/docs', '/openapi.yaml', '/control.yaml', '/__control/health']) {
        expect(res.text).toContain(`href="${href}"`);
      }
      expect(res.text).toContain(VERSION);
    });

    it('escapes the host it shows, even with the Host check off', async () => {
      // With the check on, such a Host is refused before the page (test/api/host-check.test.ts).
      const open = await startMock({ allowedHosts: true });
      try {
        const res = await open.call('get', '/', null).set('Accept', BROWSER_ACCEPT).set('Host', 'a"><script>x</script>');
        expect(res.text).not.toContain('<script>');
        expect(res.text).toContain('&lt;script&gt;');
      } finally {
        await open.close();
      }
    });

    it('leads to pages that answer', async () => {
      for (const path of ['/__dashboard', '/docs', '/openapi.yaml', '/control.yaml', '/__control/health']) {
        expect((await mock.call('get', path, null)).status, path).toBe(200);
      }
    });
  });

  describe('as a request outside both contracts', () => {
    it('counts in no coverage and no journal', async () => {
      const coverage = async () => (await mock.control('get', '/__control/coverage')).body as { byOperation: Array<{ path: string; calls: number }> };
      const journal = async () => (await mock.control('get', '/__control/journal')).body as unknown;
      const [coverageBefore, journalBefore] = [await coverage(), await journal()];
      await mock.call('get', '/');
      await mock.call('get', '/', null).set('Accept', BROWSER_ACCEPT);
      const coverageAfter = await coverage();
      expect(coverageAfter).toEqual(coverageBefore);
      expect(coverageAfter.byOperation.map((operation) => operation.path)).not.toContain('/');
      expect(await journal()).toEqual(journalBefore);
    });
  });
});
