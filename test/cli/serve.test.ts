import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { get } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { resolveOptions } from '../../src/cli/options.js';
import { cliIo } from '../helpers/cli-io.js';

describe('the command line', () => {
  it('prints help with every flag and exits 0', async () => {
    const { streams, out } = cliIo();
    expect(await main(['--help'], streams)).toEqual({ exitCode: 0 });
    for (const flag of ['--port', '--host', '--api-key', '--seed', '--data', '--plan', '--clock', '--clock-frozen', '--strict-responses', '--control-token', '--cors', '--log-level', '--rate-limit', '--scenario', '--coverage-report', '--coverage-min', '--allowed-hosts']) {
      expect(out.join('\n')).toContain(flag);
    }
  });

  it.each([
    [['--bogus'], /bogus/],
    [['--port', 'abc'], /--port/],
    [['--port', '70000'], /--port/],
    [['--seed', '-1'], /--seed|argument/],
    [['--plan', 'gold'], /--plan/],
    [['--clock', 'tomorrow'], /--clock/],
    [['--log-level', 'loud'], /--log-level/],
    [['--rate-limit', 'maybe'], /--rate-limit/],
    [['--api-key', 'abc'], /sgw_/],
    [['--port', '0', 'stray-positional'], /'stray-positional' is neither an option nor an option's value/],
    [['--coverage-min', '120'], /--coverage-min/],
    [['--coverage-min', 'most'], /--coverage-min/],
  ])('exits 2 with a clear message for %j', async (argv, message) => {
    const { streams, err } = cliIo();
    expect(await main(argv, streams)).toEqual({ exitCode: 2 });
    expect(err.join('\n')).toMatch(message);
  });

  it('starts, prints the banner with URL, key, control, dashboard and docs, and serves the default key', async () => {
    const { streams, out } = cliIo();
    const result = await main(['--port', '0', '--clock', '2026-03-02T09:00:00Z', '--seed', '3'], streams);
    if (result.exitCode !== undefined) throw new Error('expected a running server');
    try {
      const banner = out.join('\n');
      expect(banner).toContain(`${result.url}/v1`);
      expect(banner).toContain('sgw_test_default');
      expect(banner).toContain(`${result.url}/__control`);
      expect(banner).toContain(`${result.url}/__dashboard`);
      expect(banner).toContain(`${result.url}/docs`);
      const res = await fetch(`${result.url}/v1/connections`, { headers: { 'x-api-key': 'sgw_test_default' } });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { connections: unknown[] }).connections).toHaveLength(10);
    } finally {
      await result.stop();
    }
  });

  it('says a busy port is busy and names the flag that moves it, wherever the port came from', async () => {
    const held = createServer();
    await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve));
    const port = (held.address() as AddressInfo).port;
    try {
      const byFlag = cliIo();
      expect(await main(['--port', String(port)], byFlag.streams)).toEqual({ exitCode: 2 });
      expect(byFlag.err).toEqual([
        `social-gateway-mock: cannot listen on 127.0.0.1:${port}: port ${port} is in use by another program (perhaps another social-gateway-mock); choose another with --port <number>, or --port 0 for any free one (printed in the banner)`,
      ]);
      const cwd = mkdtempSync(join(tmpdir(), 'sgw-cfg-'));
      writeFileSync(join(cwd, 'social-gateway-mock.config.yaml'), `port: ${port}\n`);
      const byFile = cliIo({}, cwd);
      expect(await main([], byFile.streams)).toEqual({ exitCode: 2 });
      expect(byFile.err[0]).toContain(`port ${port} (from the config file ${join(cwd, 'social-gateway-mock.config.yaml')}) is in use`);
    } finally {
      held.close();
    }
  });

  it('reads options from the environment and the config file, flags first', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'sgw-cfg-'));
    writeFileSync(join(cwd, 'social-gateway-mock.config.yaml'), 'api-key: sgw_from_file\nport: 0\nplan: free\n');
    const { streams } = cliIo({ SOCIAL_GATEWAY_MOCK_API_KEY: 'sgw_from_env' }, cwd);
    const result = await main([], streams);
    if (result.exitCode !== undefined) throw new Error('expected a running server');
    try {
      const res = await fetch(`${result.url}/v1/connections`, { headers: { 'x-api-key': 'sgw_from_env' } });
      expect(res.status).toBe(200);
    } finally {
      await result.stop();
    }
  });

  it('exits 2 naming an unknown key in the config file', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'sgw-cfg-'));
    writeFileSync(join(cwd, 'social-gateway-mock.config.yaml'), 'colour: red\n');
    const { streams, err } = cliIo({}, cwd);
    expect(await main([], streams)).toEqual({ exitCode: 2 });
    expect(err.join('\n')).toContain("unknown option 'colour'");
  });

  it('exits 2 with the file named when the data file is corrupt', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sgw-cli-')), 'broken.json');
    writeFileSync(file, '{ nope');
    const { streams, err } = cliIo();
    expect(await main(['--port', '0', '--data', file], streams)).toEqual({ exitCode: 2 });
    expect(err.join('\n')).toContain(file);
  });

  describe('--scenario', () => {
    it('loads a ready-made scenario by name into the default workspace', async () => {
      const { streams } = cliIo();
      const result = await main(['--port', '0', '--scenario', 'rate-limit-exhaustion'], streams);
      if (result.exitCode !== undefined) throw new Error('expected a running server');
      try {
        const res = await fetch(`${result.url}/v1/connections`, { headers: { 'x-api-key': 'sgw_test_default' } });
        expect(res.status).toBe(429);
        expect(res.headers.get('retry-after')).toBe('30');
        const clock = (await (await fetch(`${result.url}/__control/clock`)).json()) as { now: string; frozen: boolean };
        expect(clock).toMatchObject({ now: '2026-03-02T09:00:00.000Z', frozen: true });
      } finally {
        await result.stop();
      }
    });

    it('reads a file relative to the working directory', async () => {
      const cwd = mkdtempSync(join(tmpdir(), 'sgw-scenario-'));
      writeFileSync(join(cwd, 'mine.yaml'), 'plan: free\nrules:\n  - { id: gone, match: { operationId: listProfiles }, then: { error: { status: 429, code: RATE_LIMITED } } }\n');
      const { streams } = cliIo({}, cwd);
      const result = await main(['--port', '0', '--scenario', 'mine.yaml'], streams);
      if (result.exitCode !== undefined) throw new Error('expected a running server');
      try {
        const res = await fetch(`${result.url}/v1/profiles`, { headers: { 'x-api-key': 'sgw_test_default' } });
        expect(res.status).toBe(429);
      } finally {
        await result.stop();
      }
    });

    it.each([
      ['a malformed file', 'broken.yaml', 'rules:\n  - id: a\n    then:\n      error: { status: 429, code: RATE_LIMITED }\n      colour: red\n', /^social-gateway-mock: broken\.yaml:5:7: rules\[0\]\.then\.colour: unknown field "colour"/],
      ['a file that is not there', 'missing.yaml', undefined, /^social-gateway-mock: missing\.yaml: cannot read the scenario file/],
      ['an unknown name', 'no-such-scenario', undefined, /^social-gateway-mock: no-such-scenario: no scenario named "no-such-scenario"/],
    ])('exits 2 on %s, naming where and why', async (_what, argument, content, message) => {
      const cwd = mkdtempSync(join(tmpdir(), 'sgw-scenario-'));
      if (content !== undefined) writeFileSync(join(cwd, argument), content);
      const { streams, err } = cliIo({}, cwd);
      expect(await main(['--port', '0', '--scenario', argument], streams)).toEqual({ exitCode: 2 });
      expect(err[0]).toMatch(message);
    });
  });

  describe('--coverage-report and --coverage-min', () => {
    async function run(argv: string[]) {
      const cwd = mkdtempSync(join(tmpdir(), 'sgw-coverage-'));
      const { streams, err } = cliIo({}, cwd);
      const result = await main(['--port', '0', ...argv], streams);
      if (result.exitCode !== undefined) throw new Error('expected a running server');
      await fetch(`${result.url}/v1/connections`, { headers: { 'x-api-key': 'sgw_test_default' } });
      return { cwd, err, result };
    }

    it('writes Markdown on shutdown and exits 1 when fewer operations than asked were exercised', async () => {
      const { cwd, err, result } = await run(['--coverage-report', 'coverage.md', '--coverage-min', '5']);
      expect(existsSync(join(cwd, 'coverage.md'))).toBe(false);
      expect(await result.stop()).toBe(1);
      expect(readFileSync(join(cwd, 'coverage.md'), 'utf8')).toMatch(/^# Contract coverage\n[\s\S]*\| `listConnections` \| `GET \/v1\/connections` \| 1 \| 200 ×1 \|/);
      expect(err.join('\n')).toContain('contract coverage 1.8% (1 of 56 operations) is below --coverage-min 5%');
    });

    it('writes JSON on shutdown and exits 0 when coverage reaches the minimum', async () => {
      const { cwd, result } = await run(['--coverage-report', 'coverage.json', '--coverage-min', '1.5']);
      expect(await result.stop()).toBe(0);
      const report = JSON.parse(readFileSync(join(cwd, 'coverage.json'), 'utf8'));
      expect(report.operations).toEqual({ exercised: 1, total: 56, percent: 1.8 });
    });
  });
  describe('--allowed-hosts', () => {
    const allowedHosts = (argv: string[], env: NodeJS.ProcessEnv = {}) => {
      const resolved = resolveOptions(argv, { env, cwd: '/nonexistent' });
      if (resolved === 'help' || resolved === 'version') throw new Error(`unexpected ${resolved}`);
      return resolved.server.allowedHosts;
    };

    it.each([
      [[], undefined],
      [['--allowed-hosts', 'mock.test'], ['mock.test']],
      [['--allowed-hosts', ' mock.test , .corp.example,'], ['mock.test', '.corp.example']],
      [['--allowed-hosts', 'all'], true],
      // A server told to listen on a name expects to be called by it; an address or localhost adds nothing.
      [['--host', 'devbox.lan'], ['devbox.lan']],
      [['--host', 'devbox.lan', '--allowed-hosts', 'mock.test'], ['mock.test', 'devbox.lan']],
      [['--host', '0.0.0.0'], undefined],
      [['--host', 'localhost'], undefined],
    ])('reads %j as %j', (argv, expected) => {
      expect(allowedHosts(argv)).toEqual(expected);
    });

    it('comes from the environment too', () => {
      expect(allowedHosts([], { SOCIAL_GATEWAY_MOCK_ALLOWED_HOSTS: 'mock.test' })).toEqual(['mock.test']);
    });

    it.each([
      [['--allowed-hosts', '*.corp.example'], /--allowed-hosts: '\*\.corp\.example' is a wildcard; write '\.corp\.example'/],
      [['--allowed-hosts', 'mock.test:8080'], /--allowed-hosts: 'mock\.test:8080' has a port/],
      [['--allowed-hosts', 'http://mock.test'], /--allowed-hosts: 'http:\/\/mock\.test' is a URL/],
      [['--allowed-hosts', 'mock.test,all'], /--allowed-hosts: 'all' turns the check off/],
    ])('exits 2 for %j', async (argv, message) => {
      const { streams, err } = cliIo();
      expect(await main(argv, streams)).toEqual({ exitCode: 2 });
      expect(err.join('\n')).toMatch(message);
    });

    it('lets a running server answer the named host, and only it', async () => {
      const { streams } = cliIo();
      const result = await main(['--port', '0', '--allowed-hosts', 'mock.test'], streams);
      if (result.exitCode !== undefined) throw new Error('expected a running server');
      // fetch() will not send a Host of our choosing; node:http will.
      const statusFor = (host: string) =>
        new Promise<number | undefined>((resolve, reject) => {
          const { hostname, port } = new URL(result.url);
          get({ hostname, port, path: '/v1/connections', headers: { host, 'x-api-key': 'sgw_test_default' } }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode));
          }).on('error', reject);
        });
      try {
        expect(await statusFor('mock.test:4010')).toBe(200);
        expect(await statusFor('evil.example:4010')).toBe(403);
      } finally {
        await result.stop();
      }
    });
  });
});
