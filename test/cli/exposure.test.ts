import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main, type CliResult } from '../../src/cli/main.js';
import { cliIo } from '../helpers/cli-io.js';

function running(result: CliResult): Extract<CliResult, { url: string }> {
  if (result.exitCode !== undefined) throw new Error(`expected a running server, got exit code ${result.exitCode}`);
  return result;
}

// Each test starts a whole server through the CLI: seconds on a busy machine.
describe('the command line, for exposure', { timeout: 60_000 }, () => {
  describe('without --host', () => {
    it('binds 127.0.0.1 and prints no warning', async () => {
      const { streams, out, err } = cliIo();
      const result = running(await main(['--port', '0'], streams));
      try {
        expect(result.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        expect(out.join('\n')).toContain(`${result.url}/v1`);
        expect(err.join('\n')).not.toMatch(/warning/);
      } finally {
        await result.stop();
      }
    });
  });

  describe('with a non-loopback --host', () => {
    it('warns that the server is reachable and suggests --control-token', async () => {
      const { streams, err } = cliIo();
      const result = running(await main(['--port', '0', '--host', '0.0.0.0'], streams));
      try {
        expect(result.url).toMatch(/^http:\/\/0\.0\.0\.0:\d+$/);
        expect(err.join('\n')).toMatch(/warning: listening on 0\.0\.0\.0, reachable from other machines\. Use --control-token/);
        expect(err.join('\n')).toContain('need it in --allowed-hosts');
      } finally {
        await result.stop();
      }
    });

    it('answers a request that came over the network by address, and refuses a name nobody allowed (decision 0019)', async (context) => {
      const lan = Object.values(networkInterfaces()).flat().find((address) => address?.family === 'IPv4' && !address.internal)?.address;
      if (lan === undefined) return context.skip('no non-loopback IPv4 address on this machine');
      const { streams } = cliIo();
      const result = running(await main(['--port', '0', '--host', '0.0.0.0'], streams));
      const port = new URL(result.url).port;
      const statusFor = (address: string, host: string) =>
        new Promise<number | undefined>((resolve, reject) => {
          get({ hostname: address, port, path: '/__control/health', headers: { host } }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode));
          }).on('error', reject);
        });
      try {
        expect(await statusFor(lan, `${lan}:${port}`)).toBe(200);
        expect(await statusFor(lan, `0.0.0.0:${port}`)).toBe(200);
        expect(await statusFor(lan, `evil.example:${port}`)).toBe(403);
        // Over loopback, the loopback rules: a rebinding to 127.0.0.1 is refused the same.
        expect(await statusFor('127.0.0.1', `evil.example:${port}`)).toBe(403);
        expect(await statusFor('127.0.0.1', `localhost:${port}`)).toBe(200);
      } finally {
        await result.stop();
      }
    });

    it('with --control-token: warns without the hint, and the control plane needs the token', async () => {
      const { streams, err } = cliIo();
      const result = running(await main(['--port', '0', '--host', '0.0.0.0', '--control-token', 's3cret-token'], streams));
      try {
        expect(err.join('\n')).toMatch(/warning: listening on 0\.0\.0\.0/);
        expect(err.join('\n')).not.toContain('Use --control-token');
        const base = result.url.replace('0.0.0.0', '127.0.0.1');
        // The health check is open (x-access: open); the workspace's own calls are not.
        expect((await fetch(`${base}/__control/health`)).status).toBe(200);
        const refused = await fetch(`${base}/__control/journal`);
        expect(refused.status).toBe(401);
        expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('UNAUTHORIZED');
        const wrong = await fetch(`${base}/__control/workspaces`, { method: 'POST', headers: { 'x-control-token': 'guess' } });
        expect(wrong.status).toBe(401);
        expect((await fetch(`${base}/__control/journal`, { headers: { 'x-control-token': 's3cret-token' } })).status).toBe(200);
        // The API itself still takes its own key, not the control token.
        expect((await fetch(`${base}/v1/connections`, { headers: { 'x-api-key': 'sgw_test_default' } })).status).toBe(200);
      } finally {
        await result.stop();
      }
    });
  });

  describe('with --data naming a file that is not ours', () => {
    it.each([
      ['corrupt JSON', '{"format": "social-gateway-mock", "workspaces": {'],
      ['a foreign JSON file', '{"users": [{"id": 1}]}'],
      ['another version', '{"format": "social-gateway-mock", "version": 99, "workspaceCounter": 0, "workspaces": {}}'],
      ['an empty file', ''],
    ])('exits 2 naming the file and leaves %s byte for byte', async (_kind, content) => {
      const file = join(mkdtempSync(join(tmpdir(), 'sgw-exposure-')), 'state.json');
      writeFileSync(file, content);
      const { streams, err, out } = cliIo();
      expect(await main(['--port', '0', '--data', file], streams)).toEqual({ exitCode: 2 });
      expect(err.join('\n')).toContain(file);
      expect(out.join('\n')).not.toContain('listening');
      expect(readFileSync(file, 'utf8')).toBe(content);
    });
  });

  describe('with a config file holding __proto__', () => {
    it('exits 2 naming the key and pollutes nothing', async () => {
      const cwd = mkdtempSync(join(tmpdir(), 'sgw-exposure-'));
      writeFileSync(join(cwd, 'social-gateway-mock.config.yaml'), '__proto__:\n  polluted: yes\n');
      const { streams, err } = cliIo({}, cwd);
      expect(await main([], streams)).toEqual({ exitCode: 2 });
      expect(err.join('\n')).toContain("unknown option '__proto__'");
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });
  });
});
