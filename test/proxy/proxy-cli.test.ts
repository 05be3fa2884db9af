import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main, resolveOptions, type CliResult } from '../../src/cli/main.js';
import { DEFAULT_API_KEY } from '../../src/server.js';
import { cliIo } from '../helpers/cli-io.js';
import { listening, temporaryDir, type Listening } from './helpers.js';

function running(result: CliResult): Extract<CliResult, { url: string }> {
  if (result.exitCode !== undefined) throw new Error(`expected a running proxy, got exit ${result.exitCode}`);
  return result;
}

describe('social-gateway-mock proxy', () => {
  let upstream: Listening;
  beforeAll(async () => {
    upstream = await listening({});
  });
  afterAll(() => upstream.close());

  it('starts a proxy that says so, forwards /v1, and writes the findings summary in the coverage report at exit', async () => {
    const { streams, out, err, cwd } = cliIo();
    const started = running(await main(['proxy', '--upstream', `${upstream.url}/`, '--port', '0', '--record', 'rec', '--coverage-report', 'coverage.md', '--upstream-timeout', '5000'], streams));
    const banner = out.join('\n');
    expect(banner).toContain(`is proxying to ${upstream.url}`);
    expect(banner).toContain(`Recording  ${join(cwd, 'rec')}`);
    expect(banner).not.toContain('API key');
    const res = await fetch(`${started.url}/v1/connections`, { headers: { 'x-api-key': DEFAULT_API_KEY } });
    expect(res.status).toBe(200);
    expect(await started.stop()).toBe(0);
    const report = readFileSync(join(cwd, 'coverage.md'), 'utf8');
    expect(report).toContain('## Contract violations (proxy)');
    expect(report).toContain('0 of 1 exchange with the upstream broke openapi.yaml.');
    expect(err.join('\n')).toContain('coverage report written');
    expect(JSON.parse(readFileSync(join(cwd, 'rec', '000001-listConnections.json'), 'utf8'))).toMatchObject({ operationId: 'listConnections', response: { status: 200 } });
  });

  it('started again on the same --record folder, appends after the exchanges already there', async () => {
    const { streams, out, cwd } = cliIo();
    for (const run of [1, 2]) {
      const started = running(await main(['proxy', '--upstream', upstream.url, '--port', '0', '--record', 'rec'], streams));
      await (await fetch(`${started.url}/v1/connections`, { headers: { 'x-api-key': DEFAULT_API_KEY } })).arrayBuffer();
      expect(await started.stop()).toBe(0);
      if (run === 2) expect(out.join('\n')).toContain(`Recording  ${join(cwd, 'rec')} (appending after exchange 1 already there)`);
    }
    expect(readdirSync(join(cwd, 'rec')).sort()).toEqual(['000001-listConnections.json', '000002-listConnections.json']);
  });

  it('takes its flags from the environment too', async () => {
    const { streams, out } = cliIo();
    streams.env = { SOCIAL_GATEWAY_MOCK_UPSTREAM: upstream.url, SOCIAL_GATEWAY_MOCK_STRICT: 'true' };
    const started = running(await main(['proxy', '--port', '0'], streams));
    expect(out.join('\n')).toContain('strict, a broken answer becomes 502 CONTRACT_VIOLATION');
    expect(await started.stop()).toBe(0);
  });

  it('lists its flags in its help, and the main help names the command', async () => {
    const proxyHelp = cliIo();
    expect(await main(['proxy', '--help'], proxyHelp.streams)).toEqual({ exitCode: 0 });
    for (const flag of ['--upstream', '--strict', '--record', '--redact', '--upstream-timeout', '--upstream-ca', '--port', '--coverage-report']) expect(proxyHelp.out.join('\n')).toContain(flag);
    // Flags that only shape the proxy's own empty workspace are not offered as if they changed the proxy.
    for (const flag of ['--seed <value>', '--plan <value>', '--scenario <value>', '--strict-responses']) expect(proxyHelp.out.join('\n')).not.toContain(flag);
    const mainHelp = cliIo();
    expect(await main(['--help'], mainHelp.streams)).toEqual({ exitCode: 0 });
    expect(mainHelp.out.join('\n')).toContain('social-gateway-mock proxy --upstream <url>');
    expect(mainHelp.out.join('\n')).toContain('--redact');
  });

  it.each([
    [[], /needs --upstream/],
    [['--upstream', 'not a url'], /--upstream must be an http or https URL/],
    [['--upstream', 'ftp://example.com'], /--upstream must be an http or https URL/],
    [['--upstream', 'http://example.com/?a=1'], /no query/],
    [['--upstream', 'http://user:pw@example.com'], /credentials/],
    [['--upstream', 'http://example.com', '--upstream-timeout', 'soon'], /--upstream-timeout/],
    [['--upstream', 'http://example.com', '--upstream-timeout', '0'], /--upstream-timeout/],
    [['--upstream', 'http://example.com', '--bogus'], /bogus/],
    [['--upstream', 'http://example.com', '--scenario', 'flaky-network'], /--scenario has no effect/],
  ])('exits 2 with one clear line for %j', async (argv, message) => {
    const { streams, err } = cliIo();
    expect(await main(['proxy', ...argv], streams)).toEqual({ exitCode: 2 });
    expect(err[0]).toMatch(message);
  });

  it('passes --redact names to the server in every mode, the plain server included', () => {
    const resolved = resolveOptions(['--redact', 'x-tenant-key, ssn,,'], { env: {}, cwd: temporaryDir() });
    expect(resolved !== 'help' && resolved !== 'version' && resolved.server.redact).toEqual(['x-tenant-key', 'ssn']);
  });

  it('refuses a --record folder it cannot create', async () => {
    const { streams, err, cwd } = cliIo();
    writeFileSync(join(cwd, 'taken'), 'a file, not a folder');
    expect(await main(['proxy', '--upstream', upstream.url, '--record', 'taken/rec'], streams)).toEqual({ exitCode: 2 });
    expect(err[0]).toMatch(/cannot record into --record .*taken\/rec/);
  });

  it('keeps the proxy flags out of the plain server', async () => {
    const { streams, err } = cliIo();
    expect(await main(['--upstream', upstream.url], streams)).toEqual({ exitCode: 2 });
    expect(err[0]).toMatch(/upstream/);
  });
  describe('with a command after --', () => {
    // The command: one call through the proxy with its own key, then what its environment held, as JSON on the last line of a file.
    const SCRIPT = [
      "const res = await fetch(process.env.SOCIAL_GATEWAY_MOCK_URL + '/v1/connections', { headers: { 'x-api-key': 'sgw_test_default' } });",
      "const env = Object.keys(process.env).filter((name) => name.startsWith('SOCIAL_GATEWAY_MOCK_'));",
      "(await import('node:fs')).writeFileSync('seen.json', JSON.stringify({ status: res.status, env }));",
      'process.exit(Number(process.argv[1] ?? 0));',
    ].join('\n');

    it('serves while the command runs, tells it its root and the upstream, records its calls and exits with its status', async () => {
      const { streams, err, cwd } = cliIo();
      const result = await main(['proxy', '--upstream', upstream.url, '--port', '0', '--record', 'rec', '--', process.execPath, '-e', SCRIPT, '3'], streams);
      expect(result.exitCode).toBe(3);
      // No mock key and no control plane: the command's key goes upstream, and the upstream tells the kit and `run` there is no mock world to use.
      expect(JSON.parse(readFileSync(join(cwd, 'seen.json'), 'utf8'))).toEqual({ status: 200, env: ['SOCIAL_GATEWAY_MOCK_URL', 'SOCIAL_GATEWAY_MOCK_PROXY_UPSTREAM'] });
      expect(readdirSync(join(cwd, 'rec'))).toEqual(['000001-listConnections.json']);
      expect(readFileSync(join(cwd, 'rec', '000001-listConnections.json'), 'utf8')).not.toContain('sgw_test_default');
      // The banner went to stderr: the command owns stdout.
      expect(err.join('\n')).toContain(`is proxying to ${upstream.url}`);
    });

    it('listens on a free port unless --port is given, and hands the command the real key of --upstream-key where run puts the mock key', async () => {
      const { streams, err, cwd } = cliIo({ SOCIAL_GATEWAY_MOCK_UPSTREAM_KEY: 'live_key-of.the~service' });
      const script = "(await import('node:fs')).writeFileSync('seen.json', JSON.stringify(Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('SOCIAL_GATEWAY_MOCK_')))));";
      expect((await main(['proxy', '--upstream', upstream.url, '--', process.execPath, '--input-type=module', '-e', script], streams)).exitCode, err.join('\n')).toBe(0);
      const seen = JSON.parse(readFileSync(join(cwd, 'seen.json'), 'utf8')) as Record<string, string>;
      expect(seen).toEqual({
        SOCIAL_GATEWAY_MOCK_UPSTREAM_KEY: 'live_key-of.the~service',
        SOCIAL_GATEWAY_MOCK_URL: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
        SOCIAL_GATEWAY_MOCK_PROXY_UPSTREAM: upstream.url,
        SOCIAL_GATEWAY_MOCK_API_KEY: 'live_key-of.the~service',
      });
      expect(seen.SOCIAL_GATEWAY_MOCK_URL).not.toBe('http://127.0.0.1:4010');
      const bad = cliIo();
      expect((await main(['proxy', '--upstream', upstream.url, '--upstream-key', 'two words', '--', 'true'], bad.streams)).exitCode).toBe(2);
      expect(bad.err[0]).toMatch(/--upstream-key must be the real service's key: printable characters without spaces/);
    });

    it('answers 0 when the command passes, and refuses a -- with no command', async () => {
      const { streams } = cliIo();
      expect((await main(['proxy', '--upstream', upstream.url, '--port', '0', '--', process.execPath, '-e', SCRIPT], streams)).exitCode).toBe(0);
      const bare = cliIo();
      expect((await main(['proxy', '--upstream', upstream.url, '--'], bare.streams)).exitCode).toBe(2);
      expect(bare.err.join('\n')).toContain('proxy needs the command after --');
    });
  });
});
