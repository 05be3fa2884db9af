import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ShutdownSource } from '../../src/cli/lifecycle.js';
import { main } from '../../src/cli/main.js';
import { cliIo } from '../helpers/cli-io.js';

/** The command `run` starts needs PATH to be found. */
const io = (cwd?: string) => cliIo({ PATH: process.env.PATH }, cwd);

/** A shutdown the test triggers, as a signal or a lost parent would. */
function manualShutdown(): ShutdownSource & { request(reason: string): void } {
  const listeners = new Set<(reason: string) => void>();
  return {
    onShutdown(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    request(reason) {
      for (const listener of listeners) listener(reason);
    },
  };
}

/** A node one-liner as the command `run` starts. */
function node(script: string): string[] {
  return [process.execPath, '-e', script];
}

/** Whether something still listens at the URL's port. */
function portInUse(url: string): Promise<boolean> {
  const port = Number(new URL(url).port);
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(true));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(false)));
  });
}

const listConnections = `
  const res = await fetch(process.env.SOCIAL_GATEWAY_MOCK_URL + '/v1/connections', { headers: { 'x-api-key': process.env.SOCIAL_GATEWAY_MOCK_API_KEY } });
  const health = await fetch(process.env.SOCIAL_GATEWAY_MOCK_CONTROL_URL + '/health');
  console.log(JSON.stringify({ connections: res.status, health: health.status, url: process.env.SOCIAL_GATEWAY_MOCK_URL }));
`;

describe('social-gateway-mock run -- <command>', { timeout: 60_000 }, () => {
  it("runs the command against the server, with the server's URL, key and control URL in its environment, and exits 0 when it does", async () => {
    const { streams, err, cwd } = io();
    const output = join(cwd, 'out.json');
    const script = `${listConnections.replace('console.log(', `require('node:fs').writeFileSync(${JSON.stringify(output)}, `)}`;
    const result = await main(['run', '--port', '0', '--', ...node(`(async () => { ${script} })()`)], streams);
    expect(result, err.join('\n')).toEqual({ exitCode: 0 });
    const seen = JSON.parse(readFileSync(output, 'utf8')) as { connections: number; health: number; url: string };
    expect(seen).toMatchObject({ connections: 200, health: 200 });
    expect(seen.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // The banner went to stderr: the command owns stdout.
    expect(err.join('\n')).toContain(`${seen.url}/v1`);
    expect(await portInUse(seen.url)).toBe(false);
  });

  it("exits with the command's status when it fails", async () => {
    const { streams } = io();
    expect(await main(['run', '--port', '0', '--', ...node('process.exit(3)')], streams)).toEqual({ exitCode: 3 });
  });

  it('writes the coverage report after the command, counting its requests', async () => {
    const { streams, cwd } = io();
    const result = await main(['run', '--port', '0', '--coverage-report', 'coverage.json', '--', ...node(`(async () => { ${listConnections} })()`)], streams);
    expect(result).toEqual({ exitCode: 0 });
    const report = JSON.parse(readFileSync(join(cwd, 'coverage.json'), 'utf8')) as { byOperation: Array<{ operationId: string; calls: number }> };
    expect(report.byOperation.find((operation) => operation.operationId === 'listConnections')?.calls).toBe(1);
  });

  it("exits 1 when the command passed but coverage is under --coverage-min, and with the command's status when it failed", async () => {
    const passed = io();
    expect(await main(['run', '--port', '0', '--coverage-min', '50', '--', ...node('')], passed.streams)).toEqual({ exitCode: 1 });
    expect(passed.err.join('\n')).toMatch(/below --coverage-min 50%/);
    const failed = io();
    expect(await main(['run', '--port', '0', '--coverage-min', '50', '--', ...node('process.exit(4)')], failed.streams)).toEqual({ exitCode: 4 });
  });

  describe('with a scenario', () => {
    const scenario = (cwd: string) => {
      writeFileSync(
        join(cwd, 'replay.yaml'),
        ['name: replay', 'rules:', '  - id: connections', '    match: { operationId: listConnections }', '    then: { latencyMs: 0 }', '  - id: never-asked', '    match: { operationId: listMedia }', '    then: { latencyMs: 0 }'].join('\n'),
      );
    };
    // The command asks for the connections of every workspace it is given (the default one, and one it makes as the kit would).
    const command = `(async () => {
      const env = process.env;
      const made = await (await fetch(env.SOCIAL_GATEWAY_MOCK_CONTROL_URL + '/workspaces', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ scenario: require('node:fs').readFileSync(env.SOCIAL_GATEWAY_MOCK_RUN_SCENARIO, 'utf8') }) })).json();
      await fetch(env.SOCIAL_GATEWAY_MOCK_URL + '/v1/connections', { headers: { 'x-api-key': made.apiKey } });
      require('node:fs').writeFileSync('passed-on.txt', env.SOCIAL_GATEWAY_MOCK_RUN_SCENARIO);
    })()`;

    it('passes its file on (absolute) for the kit, and names each rule that fired in no workspace at its end', async () => {
      const { streams, err, cwd } = io();
      scenario(cwd);
      expect(await main(['run', '--port', '0', '--scenario', 'replay.yaml', '--coverage-report', 'coverage.json', '--', ...node(command)], streams)).toEqual({ exitCode: 0 });
      expect(readFileSync(join(cwd, 'passed-on.txt'), 'utf8')).toBe(join(cwd, 'replay.yaml'));
      // connections fired in the workspace the command made, not in the default one: fired all the same.
      expect(err.filter((line) => line.includes('never fired'))).toEqual(['social-gateway-mock: rule never-asked of scenario replay never fired (in none of the 2 workspaces that loaded it)']);
      const report = JSON.parse(readFileSync(join(cwd, 'coverage.json'), 'utf8')) as { unfiredRules: unknown };
      expect(report.unfiredRules).toEqual([{ scenario: 'replay', ruleId: 'never-asked', workspaces: 2 }]);
    });

    it('exits 1 for an unfired rule with --fail-on-unfired-rules, and with the command\'s own failure first', async () => {
      const failing = io();
      scenario(failing.cwd);
      expect(await main(['run', '--port', '0', '--scenario', 'replay.yaml', '--fail-on-unfired-rules', '--', ...node(command)], failing.streams)).toEqual({ exitCode: 1 });
      expect(failing.err.join('\n')).toContain('1 scenario rule never fired: failing, as --fail-on-unfired-rules asks');
      const broken = io();
      scenario(broken.cwd);
      expect(await main(['run', '--port', '0', '--scenario', 'replay.yaml', '--fail-on-unfired-rules', '--', ...node('process.exit(5)')], broken.streams)).toEqual({ exitCode: 5 });
    });

    it('passes no scenario on without one, so a nested run does not inherit an outer one', async () => {
      const { streams, cwd } = io();
      const script = `require('node:fs').writeFileSync('passed-on.txt', JSON.stringify(process.env.SOCIAL_GATEWAY_MOCK_RUN_SCENARIO))`;
      expect(await main(['run', '--port', '0', '--', ...node(script)], { ...streams, env: { ...streams.env, SOCIAL_GATEWAY_MOCK_RUN_SCENARIO: '/outer.yaml' } })).toEqual({ exitCode: 0 });
      expect(readFileSync(join(cwd, 'passed-on.txt'), 'utf8')).toBe('""');
    });
  });

  it('exits 127 naming a command that does not exist, and stops the server', async () => {
    const { streams, err } = io();
    expect(await main(['run', '--port', '0', '--', 'no-such-command-sgw'], streams)).toEqual({ exitCode: 127 });
    expect(err.join('\n')).toMatch(/cannot run no-such-command-sgw: command not found/);
  });

  it('passes a shutdown on to the command as SIGTERM, then stops the server and writes coverage', async () => {
    const { streams, err, cwd } = io();
    const shutdown = manualShutdown();
    const readyFile = join(cwd, 'ready.json');
    // The command tells it started by a file, then waits to be stopped.
    const started = join(cwd, 'started');
    const running = main(['run', '--port', '0', '--ready-file', readyFile, '--coverage-report', 'coverage.md', '--', ...node(`require('node:fs').writeFileSync(${JSON.stringify(started)}, ''); setInterval(() => {}, 1000);`)], streams, shutdown);
    await expect.poll(() => existsSync(started), { timeout: 30_000, interval: 50 }).toBe(true);
    const { url } = JSON.parse(readFileSync(readyFile, 'utf8')) as { url: string };
    shutdown.request('SIGTERM received');
    expect(await running).toEqual({ exitCode: 143 });
    expect(err.join('\n')).toContain('SIGTERM received, stopping the command');
    expect(readFileSync(join(cwd, 'coverage.md'), 'utf8')).toContain('# Contract coverage');
    expect(existsSync(readyFile)).toBe(false);
    expect(await portInUse(url)).toBe(false);
  });

  it.each([
    [['run', '--port', '0'], /run needs the command after --/],
    [['run', '--bogus', '--', 'true'], /bogus/],
  ])('exits 2 for %j', async (argv, message) => {
    const { streams, err } = io();
    expect(await main(argv, streams)).toEqual({ exitCode: 2 });
    expect(err.join('\n')).toMatch(message);
  });

  it('prints its own help, naming the environment it gives the command', async () => {
    const { streams, out } = io();
    expect(await main(['run', '--help'], streams)).toEqual({ exitCode: 0 });
    for (const name of ['SOCIAL_GATEWAY_MOCK_URL', 'SOCIAL_GATEWAY_MOCK_API_KEY', 'SOCIAL_GATEWAY_MOCK_CONTROL_URL', '--coverage-min']) expect(out.join('\n')).toContain(name);
  });
});

describe('defaults that fit CI', { timeout: 60_000 }, () => {
  it('listens on a free port unless --port is given: two runs at once on one machine both pass, each told its own URL', async () => {
    const { cwd } = io();
    // Each command writes the URL it was given, then waits (bounded) for the other's: both servers are up at once.
    const command = (name: string, other: string) =>
      node(`
        const fs = require('node:fs');
        fs.writeFileSync(${JSON.stringify(join(cwd, name))}, process.env.SOCIAL_GATEWAY_MOCK_URL);
        const deadline = Date.now() + 30000;
        const wait = setInterval(async () => {
          if (Date.now() > deadline) process.exit(9);
          if (!fs.existsSync(${JSON.stringify(join(cwd, other))})) return;
          clearInterval(wait);
          const res = await fetch(process.env.SOCIAL_GATEWAY_MOCK_URL + '/v1/connections', { headers: { 'x-api-key': process.env.SOCIAL_GATEWAY_MOCK_API_KEY } });
          process.exit(res.status === 200 ? 0 : 1);
        }, 20);
      `);
    const [first, second] = [io(cwd), io(cwd)];
    const results = await Promise.all([main(['run', '--', ...command('a', 'b')], first.streams), main(['run', '--', ...command('b', 'a')], second.streams)]);
    expect(results, [...first.err, ...second.err].join('\n')).toEqual([{ exitCode: 0 }, { exitCode: 0 }]);
    const urls = ['a', 'b'].map((name) => readFileSync(join(cwd, name), 'utf8'));
    expect(urls[0]).not.toBe(urls[1]);
    for (const url of urls) expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('keeps the port it is given, by flag or environment, and says a busy one is busy, naming the way out', async () => {
    const held = createServer();
    await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve));
    const port = (held.address() as { port: number }).port;
    try {
      const byFlag = io();
      expect(await main(['run', '--port', String(port), '--', 'true'], byFlag.streams)).toEqual({ exitCode: 2 });
      expect(byFlag.err[0]).toBe(
        `social-gateway-mock: cannot listen on 127.0.0.1:${port}: port ${port} is in use by another program (perhaps another social-gateway-mock); give no port at all, and a free one is picked and passed to the command in SOCIAL_GATEWAY_MOCK_URL; or choose one with --port <number>`,
      );
      const byEnvironment = cliIo({ PATH: process.env.PATH, SOCIAL_GATEWAY_MOCK_PORT: String(port) });
      expect(await main(['run', '--', 'true'], byEnvironment.streams)).toEqual({ exitCode: 2 });
      expect(byEnvironment.err[0]).toContain(`port ${port} (from SOCIAL_GATEWAY_MOCK_PORT) is in use`);
    } finally {
      held.close();
    }
  });

  it.each([
    [['run', 'npm', 'test'], 'run takes the command to run after --, apart from its own options: social-gateway-mock run -- npm test'],
    [['run', '--seed', '3', 'vitest', 'run', '--reporter', 'verbose'], 'social-gateway-mock run --seed 3 -- vitest run --reporter verbose'],
    [['run', 'sh', '-c', 'npm test && echo done'], "social-gateway-mock run -- sh -c 'npm test && echo done'"],
    [['run', '--clock-frozen', 'true', '--', 'npm', 'test'], "'true' before -- is neither an option nor an option's value (--clock-frozen takes no value); the command goes after --"],
  ])('without the -- before its command, %j shows the line as it should be written', async (argv, message) => {
    const { streams, err } = io();
    expect(await main(argv, streams)).toEqual({ exitCode: 2 });
    expect(err[0]).toContain(message);
    expect(err.join('\n')).not.toMatch(/positional/);
  });

  it.each([
    [['run', '--prot', '0', '--', 'true'], "unknown option '--prot'; did you mean --port?"],
    [['run', '--coverage', 'x.md', '--', 'true'], "unknown option '--coverage'; did you mean --coverage-report, --coverage-min, --coverage-ops or --coverage-from?"],
    [['--clock-frozn'], "unknown option '--clock-frozn'; did you mean --clock-frozen?"],
    [['proxy', '--upstream', 'http://127.0.0.1:9', '--recrod', 'rec'], "unknown option '--recrod'; did you mean --record?"],
    [['drift', 'rec', '--jsno'], "unknown option '--jsno'; did you mean --json?"],
    [['--banana'], "unknown option '--banana'"],
  ])('an unknown flag names the nearest known one: %j', async (argv, message) => {
    const { streams, err } = io();
    expect(await main(argv, streams)).toEqual({ exitCode: 2 });
    expect(err[0]).toBe(`social-gateway-mock: ${message}`);
  });

  it.each([
    [['rnu', '--', 'npm', 'test'], "unknown command 'rnu'; did you mean run?"],
    [['mpc'], "unknown command 'mpc'; did you mean mcp?"],
    [['npm', 'test'], "unknown command 'npm'; the commands are serve, run, proxy, drift, scenario, mcp. To serve while a command runs: social-gateway-mock run -- npm test"],
  ])('a first word that is no command says which it meant: %j', async (argv, message) => {
    const { streams, err } = io();
    expect(await main(argv, streams)).toEqual({ exitCode: 2 });
    expect(err[0]).toBe(`social-gateway-mock: ${message}`);
  });

  it('names the nearest option of a config file', async () => {
    const { streams, err, cwd } = io();
    writeFileSync(join(cwd, 'social-gateway-mock.config.yaml'), 'prot: 4011\n');
    expect(await main(['run', '--', 'true'], streams)).toEqual({ exitCode: 2 });
    expect(err[0]).toBe(`social-gateway-mock: config file ${join(cwd, 'social-gateway-mock.config.yaml')}: unknown option 'prot'; did you mean port?`);
  });
});

describe("the default workspace's world under run", { timeout: 60_000 }, () => {
  /** What the default workspace's scheduler holds when the command starts, as the command reads it. */
  async function pendingJobsSeen(flags: string[]): Promise<number> {
    const { streams, err, cwd } = io();
    const output = join(cwd, 'clock.json');
    const script = `(async () => { const clock = await (await fetch(process.env.SOCIAL_GATEWAY_MOCK_CONTROL_URL + '/clock')).json(); require('node:fs').writeFileSync(${JSON.stringify(output)}, JSON.stringify(clock)); })()`;
    expect(await main(['run', ...flags, '--', ...node(script)], streams), err.join('\n')).toEqual({ exitCode: 0 });
    return (JSON.parse(readFileSync(output, 'utf8')) as { pendingJobs: number }).pendingJobs;
  }

  it('has no pending work of its own, so a clock move runs only what the tests start', async () => {
    expect(await pendingJobsSeen([])).toBe(0);
  });

  it('has the fixture world\'s queued and scheduled posts and expiring tokens back with --pending-work on', async () => {
    expect(await pendingJobsSeen(['--pending-work', 'on'])).toBeGreaterThan(0);
  });

  it('refuses a --pending-work that is neither on nor off, before anything starts', async () => {
    const { streams, err } = io();
    expect(await main(['run', '--pending-work', 'maybe', '--', ...node('process.exit(0)')], streams)).toEqual({ exitCode: 2 });
    expect(err.join('\n')).toContain("--pending-work must be on or off; got 'maybe'");
  });
});

describe('run under proxy -- <command>', () => {
  it("starts no server of its own: it runs the command against the proxy, with the proxy's variables and the real key as they came", async () => {
    // The proxy's environment, as `proxy --upstream-key … -- social-gateway-mock run -- <command>` leaves it; the key is the real service's, not a mock's.
    const proxyEnvironment = { SOCIAL_GATEWAY_MOCK_URL: 'http://127.0.0.1:9', SOCIAL_GATEWAY_MOCK_PROXY_UPSTREAM: 'https://gateway.example.com', SOCIAL_GATEWAY_MOCK_API_KEY: 'live-key-of-the-real-service' };
    const { streams, err, cwd } = cliIo({ PATH: process.env.PATH, ...proxyEnvironment });
    const seen = join(cwd, 'seen.json');
    const script = `require('node:fs').writeFileSync(${JSON.stringify(seen)}, JSON.stringify(Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('SOCIAL_GATEWAY_MOCK_')))))`;
    expect(await main(['run', '--seed', '3', '--coverage-min', '50', '--', ...node(script)], streams), err.join('\n')).toEqual({ exitCode: 0 });
    expect(JSON.parse(readFileSync(seen, 'utf8'))).toEqual(proxyEnvironment);
    expect(err).toEqual([
      'social-gateway-mock: run is under proxy -- <command> (SOCIAL_GATEWAY_MOCK_PROXY_UPSTREAM=https://gateway.example.com): it starts no server and runs the command against the proxy at http://127.0.0.1:9; --seed, --coverage-min are not applied (the proxy serves, records and reports coverage)',
    ]);
  });
});

describe('--ready-file', () => {
  it('is written once the server answers, with its URL, key and control URL, and removed at shutdown', async () => {
    const { streams, cwd } = io();
    const readyFile = join(cwd, 'ready.json');
    writeFileSync(readyFile, '{"stale": true}');
    const result = await main(['--port', '0', '--ready-file', 'ready.json', '--api-key', 'sgw_ready_key'], streams);
    if (result.exitCode !== undefined) throw new Error('expected a running server');
    try {
      const ready = JSON.parse(readFileSync(readyFile, 'utf8')) as Record<string, unknown>;
      expect(ready).toEqual({ url: result.url, apiUrl: `${result.url}/v1`, apiKey: 'sgw_ready_key', controlUrl: `${result.url}/__control`, pid: process.pid });
    } finally {
      await result.stop();
    }
    expect(existsSync(readyFile)).toBe(false);
  });
});

describe('the banner', () => {
  it('names the scenario, seed, plan, clock (and that it is frozen), data and docs', async () => {
    const { streams, out, cwd } = io();
    const result = await main(['--port', '0', '--scenario', 'network-outage', '--seed', '7', '--plan', 'free', '--clock', '2026-05-01T10:00:00Z', '--clock-frozen', '--data', 'state.json'], streams);
    if (result.exitCode !== undefined) throw new Error('expected a running server');
    try {
      const banner = out.join('\n');
      expect(banner).toMatch(/Scenario\s+network-outage/);
      expect(banner).toMatch(/World\s+seed 7, plan free/);
      expect(banner).toMatch(/Clock\s+2026-05-01T10:00:00\.000Z \(frozen/);
      expect(banner).toContain(join(cwd, 'state.json').replace(cwd, '').slice(1));
      expect(banner).toContain(`${result.url}/docs`);
    } finally {
      await result.stop();
    }
  });
});

describe('coverage limited to what the client uses', () => {
  async function serve(argv: string[], cwd?: string) {
    const context = io(cwd);
    const result = await main(['--port', '0', '--coverage-report', 'coverage.json', ...argv], context.streams);
    if (result.exitCode !== undefined) throw new Error(`expected a running server: ${context.err.join('\n')}`);
    await fetch(`${result.url}/v1/connections`, { headers: { 'x-api-key': 'sgw_test_default' } });
    const exitCode = await result.stop();
    const report = JSON.parse(readFileSync(join(context.cwd, 'coverage.json'), 'utf8')) as {
      limitedTo?: string[];
      operations: { exercised: number; total: number; percent: number };
      byOperation: Array<{ operationId: string; missingStatuses: number[] }>;
    };
    return { exitCode, report, err: context.err };
  }

  it('--coverage-ops counts only the listed operations, gates on them, and says what each never saw', async () => {
    const { exitCode, report, err } = await serve(['--coverage-ops', 'listConnections,createPost', '--coverage-min', '50']);
    expect(exitCode).toBe(0);
    expect(report.limitedTo).toEqual(['listConnections', 'createPost']);
    expect(report.operations).toEqual({ exercised: 1, total: 2, percent: 50 });
    expect(report.byOperation.map((operation) => operation.operationId)).toEqual(['listConnections', 'createPost']);
    const lines = err.join('\n');
    expect(lines).toMatch(/coverage: createPost was never called with a declared status; never saw status .*429.*; never saw error code .*VELOCITY_LIMITED/);
    // Only the codes listConnections can answer: not INVALID_CURSOR or TEXT_TOO_LONG of the shared 400 (decision 0036).
    expect(lines).toMatch(/coverage: listConnections never saw status 400, 401, 429; never saw error code RATE_LIMITED, UNAUTHORIZED, VALIDATION_ERROR$/m);
  });

  it('--coverage-ops reads a file of operationIds, with comments', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'sgw-run-'));
    writeFileSync(join(cwd, 'ops.txt'), '# what our client calls\nlistConnections\nlistPosts, getPost\n');
    const { exitCode, report } = await serve(['--coverage-ops', 'ops.txt', '--coverage-min', '40'], cwd);
    expect(report.limitedTo).toEqual(['listConnections', 'listPosts', 'getPost']);
    expect(report.operations.percent).toBe(33.3);
    expect(exitCode).toBe(1);
  });

  it("--coverage-from reads the client's own OpenAPI subset, by operationId or by method and path", async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'sgw-run-'));
    writeFileSync(
      join(cwd, 'client.yaml'),
      ['openapi: 3.0.3', 'info: { title: client, version: "1" }', 'paths:', '  /v1/connections:', '    get: { operationId: fetchConnections }', '  /v1/posts/{postId}:', '    get: {}', ''].join('\n'),
    );
    const { report } = await serve(['--coverage-from', 'client.yaml'], cwd);
    expect(report.limitedTo).toEqual(['listConnections', 'getPost']);
  });

  it.each([
    [['--coverage-ops', 'listConnections,noSuchOperation'], /--coverage-ops: not operationIds of openapi.yaml: noSuchOperation$/m],
    [['--coverage-ops', 'listConections'], /--coverage-ops: not operationIds of openapi.yaml: listConections; did you mean listConnections\?$/m],
    [['--coverage-ops', 'listConnections', '--coverage-from', 'x.yaml'], /give one of them/],
    [['--coverage-from', 'missing.yaml'], /cannot read the OpenAPI file/],
  ])('exits 2 at start for %j', async (argv, message) => {
    const { streams, err } = io();
    expect(await main(['--port', '0', ...argv], streams)).toEqual({ exitCode: 2 });
    expect(err.join('\n')).toMatch(message);
  });
});
