import { describe, expect, it } from 'vitest';
import { resolveOptions } from '../../src/cli/options.js';
import type { MockServerOptions } from '../../src/server.js';
import { sweepIntervalMs } from '../../src/workspaces/registry.js';

function server(argv: string[]): MockServerOptions {
  const resolved = resolveOptions(argv, { env: {}, cwd: '/nonexistent' });
  if (resolved === 'help' || resolved === 'version') throw new Error(`unexpected ${resolved}`);
  return resolved.server;
}

describe('--workspace-ttl', () => {
  it.each([
    ['PT30M', 1_800_000],
    ['P1D', 86_400_000],
    ['PT1H30M', 5_400_000],
    ['90000', 90_000],
  ])('reads %s as %i ms', (raw, ms) => {
    expect(server(['--workspace-ttl', raw]).workspaceTtlMs).toBe(ms);
  });

  it('is off when not given', () => {
    expect(server([]).workspaceTtlMs).toBeUndefined();
  });

  it.each(['0', 'PT0S', 'P1M', 'soon', '1.5'])('refuses %s', (raw) => {
    expect(() => server(['--workspace-ttl', raw])).toThrow(/--workspace-ttl must be/);
  });
});

describe('--max-workspaces and --on-max-workspaces', () => {
  it('sets the limit, refusing past it unless told to evict', () => {
    expect(server(['--max-workspaces', '50'])).toMatchObject({ maxWorkspaces: 50 });
    expect(server(['--max-workspaces', '50']).onMaxWorkspaces).toBeUndefined();
    expect(server(['--max-workspaces', '50', '--on-max-workspaces', 'evict'])).toMatchObject({ maxWorkspaces: 50, onMaxWorkspaces: 'evict' });
  });

  it.each([
    [['--max-workspaces', '0'], /--max-workspaces must be/],
    [['--max-workspaces', 'many'], /--max-workspaces must be/],
    [['--max-workspaces', '5', '--on-max-workspaces', 'drop'], /--on-max-workspaces must be refuse or evict/],
    [['--on-max-workspaces', 'evict'], /--on-max-workspaces needs --max-workspaces/],
  ])('refuses %j', (argv, message) => {
    expect(() => server(argv)).toThrow(message);
  });
});

describe('sweepIntervalMs', () => {
  it.each([
    [500, 1_000],
    [10_000, 5_000],
    [1_800_000, 60_000],
  ])('sweeps a TTL of %i ms every %i ms', (ttl, interval) => {
    expect(sweepIntervalMs(ttl)).toBe(interval);
  });
});
