import { describe, expect, it } from 'vitest';
import { FLAGS, resolveOptions } from '../../src/cli/options.js';
import type { MockServerOptions } from '../../src/server.js';

const CWD = '/nonexistent';

function server(argv: string[]): MockServerOptions {
  const resolved = resolveOptions(argv, { env: {}, cwd: CWD });
  if (resolved === 'help' || resolved === 'version') throw new Error(`unexpected ${resolved}`);
  return resolved.server;
}

/** Each flag of the server, given on the command line, and what createMockServer is given for it. */
const SERVER_FLAGS: Array<[argv: string[], options: MockServerOptions]> = [
  [['--api-key', 'sgw_test_other'], { apiKey: 'sgw_test_other' }],
  [['--seed', '7'], { seed: 7 }],
  [['--data', 'state.json'], { dataFile: `${CWD}/state.json` }],
  [['--plan', 'free'], { plan: 'free' }],
  [['--clock', '2026-01-15T09:00:00Z'], { clock: '2026-01-15T09:00:00Z' }],
  [['--clock-frozen'], { clockFrozen: true }],
  [['--strict-responses'], { strictResponses: true }],
  [['--rate-limit', 'off'], { rateLimit: false }],
  [['--pending-work', 'off'], { pending: false }],
  [['--journal-size', '50'], { journalSize: 50 }],
  [['--scenario', 'network-outage'], { scenario: 'network-outage', cwd: CWD }],
  [['--control-token', 'a-long-enough-control-token'], { controlToken: 'a-long-enough-control-token' }],
  [['--cors', 'http://a.example, http://b.example'], { cors: ['http://a.example', 'http://b.example'] }],
  [['--allowed-hosts', 'mock.internal'], { allowedHosts: ['mock.internal'] }],
  [['--body-limit', '2mb'], { bodyLimit: '2mb' }],
  [['--media-quota', '1mb'], { mediaQuotaBytes: 1024 ** 2 }],
  [['--media-quota-server', '2mb'], { mediaQuotaServerBytes: 2 * 1024 ** 2 }],
  [['--webhook-timeout', '2000'], { webhookTimeoutMs: 2000 }],
  [['--webhook-allow', 'hooks.example'], { webhookAllow: ['hooks.example'] }],
  [['--webhook-deny', '10.0.0.0/8'], { webhookDeny: ['10.0.0.0/8'] }],
  [['--workspace-ttl', 'PT1M'], { workspaceTtlMs: 60_000 }],
  [['--max-workspaces', '5', '--on-max-workspaces', 'evict'], { maxWorkspaces: 5, onMaxWorkspaces: 'evict' }],
  [['--redact', 'x-tenant'], { redact: ['x-tenant'] }],
];

/** Flags of the command line itself: where it listens, what it prints and writes, where its flags come from. */
const COMMAND_FLAGS = ['host', 'port', 'log-level', 'coverage-report', 'coverage-min', 'fail-on-unfired-rules', 'coverage-ops', 'coverage-from', 'ready-file', 'config', 'help', 'version'];

describe('the server options the command line builds', () => {
  const untouched = server([]);

  it.each(SERVER_FLAGS)('%j reaches the server as %j, in the one shape createMockServer takes', (argv, options) => {
    expect(server(argv)).toEqual({ ...untouched, ...options });
  });

  it('hold every flag of the table that is not the command line’s own', () => {
    const routed = new Set(SERVER_FLAGS.flatMap(([argv]) => argv.filter((arg) => arg.startsWith('--')).map((arg) => arg.slice(2))));
    const unaccounted = Object.keys(FLAGS).filter((flag) => !routed.has(flag) && !COMMAND_FLAGS.includes(flag));
    expect(unaccounted).toEqual([]);
  });
});
