import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main, type CliIo } from '../src/cli.js';

function io(env: NodeJS.ProcessEnv = {}, cwd = mkdtempSync(join(tmpdir(), 'sgw-cli-'))) {
  const out: string[] = [];
  const err: string[] = [];
  const streams: CliIo = { out: (line) => out.push(line), err: (line) => err.push(line), env, cwd };
  return { streams, out, err };
}

describe('the command line', () => {
  it('prints help with every flag and exits 0', async () => {
    const { streams, out } = io();
    expect(await main(['--help'], streams)).toEqual({ exitCode: 0 });
    for (const flag of ['--port', '--host', '--api-key', '--seed', '--data', '--plan', '--clock', '--clock-frozen', '--strict-responses', '--control-token', '--cors', '--log-level', '--rate-limit']) {
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
    [['stray-positional'], /positional|Unexpected/i],
  ])('exits 2 with a clear message for %j', async (argv, message) => {
    const { streams, err } = io();
    expect(await main(argv, streams)).toEqual({ exitCode: 2 });
    expect(err.join('\n')).toMatch(message);
  });

  it('starts, prints the banner with URL, key, control and docs, and serves the default key', async () => {
    const { streams, out } = io();
    const result = await main(['--port', '0', '--clock', '2026-03-02T09:00:00Z', '--seed', '3'], streams);
    if (result.exitCode !== undefined) throw new Error('expected a running server');
    try {
      const banner = out.join('\n');
      expect(banner).toContain(`${result.url}/v1`);
      expect(banner).toContain('sgw_test_default');
      expect(banner).toContain(`${result.url}/__control`);
      expect(banner).toContain(`${result.url}/docs`);
      const res = await fetch(`${result.url}/v1/connections`, { headers: { 'x-api-key': 'sgw_test_default' } });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { connections: unknown[] }).connections).toHaveLength(10);
    } finally {
      await result.stop();
    }
  });

  it('reads options from the environment and the config file, flags first', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'sgw-cfg-'));
    writeFileSync(join(cwd, 'social-gateway-mock.config.yaml'), 'api-key: sgw_from_file\nport: 0\nplan: free\n');
    const { streams } = io({ SOCIAL_GATEWAY_MOCK_API_KEY: 'sgw_from_env' }, cwd);
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
    const { streams, err } = io({}, cwd);
    expect(await main([], streams)).toEqual({ exitCode: 2 });
    expect(err.join('\n')).toContain("unknown option 'colour'");
  });

  it('exits 2 with the file named when the data file is corrupt', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sgw-cli-')), 'broken.json');
    writeFileSync(file, '{ nope');
    const { streams, err } = io();
    expect(await main(['--port', '0', '--data', file], streams)).toEqual({ exitCode: 2 });
    expect(err.join('\n')).toContain(file);
  });
});
