import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { watchProcess } from '../../src/cli/lifecycle.js';
import { packagePath } from '../../src/lib/package-root.js';
import { processAlive } from '../helpers/process.js';

/** Enough of a process for the watch: signals, a parent pid, exit. */
function fakeProcess(ppid = 4242) {
  const emitter = new EventEmitter() as EventEmitter & { ppid: number; exit: (code?: number) => void; exits: number[] };
  emitter.ppid = ppid;
  emitter.exits = [];
  emitter.exit = (code = 0) => void emitter.exits.push(code);
  return emitter;
}

describe('watchProcess', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it.each(['SIGINT', 'SIGTERM', 'SIGHUP'] as const)('asks to stop on %s, once', (signal) => {
    const target = fakeProcess();
    const watch = watchProcess({ target: target as unknown as NodeJS.Process });
    const reasons: string[] = [];
    watch.onShutdown((reason) => reasons.push(reason));
    target.emit(signal, signal);
    expect(reasons).toEqual([`${signal} received`]);
    watch.dispose();
  });

  it('exits at once on a second signal, for the person who pressed Ctrl-C twice', () => {
    const target = fakeProcess();
    const watch = watchProcess({ target: target as unknown as NodeJS.Process });
    target.emit('SIGINT', 'SIGINT');
    expect(target.exits).toEqual([]);
    target.emit('SIGINT', 'SIGINT');
    expect(target.exits).toEqual([130]);
    watch.dispose();
  });

  it('asks to stop once its parent is gone (an orphan is adopted: its parent pid changes)', () => {
    vi.useFakeTimers();
    const target = fakeProcess(4242);
    const watch = watchProcess({ target: target as unknown as NodeJS.Process, pollMs: 500 });
    const reasons: string[] = [];
    watch.onShutdown((reason) => reasons.push(reason));
    vi.advanceTimersByTime(2000);
    expect(reasons).toEqual([]);
    target.ppid = 1;
    vi.advanceTimersByTime(500);
    expect(reasons).toEqual(['parent process exited']);
    watch.dispose();
  });

  it('tells a listener that subscribes late about a stop asked for during the start', () => {
    const target = fakeProcess();
    const watch = watchProcess({ target: target as unknown as NodeJS.Process });
    target.emit('SIGTERM', 'SIGTERM');
    const reasons: string[] = [];
    watch.onShutdown((reason) => reasons.push(reason));
    expect(reasons).toEqual(['SIGTERM received']);
    watch.dispose();
  });

  it('leaves no signal handler behind once disposed', () => {
    const target = fakeProcess();
    watchProcess({ target: target as unknown as NodeJS.Process }).dispose();
    expect(target.listenerCount('SIGTERM') + target.listenerCount('SIGINT') + target.listenerCount('SIGHUP')).toBe(0);
  });
});

describe('a server whose parent dies (npx on dash: the shell dies of SIGTERM and does not pass it on)', { timeout: 90_000 }, () => {
  it('notices, shuts down cleanly, writes its coverage report and frees its port', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sgw-orphan-'));
    const ready = join(dir, 'ready.json');
    const coverage = join(dir, 'coverage.json');
    // The same shape as `npx`: a shell that starts the server as its child (not exec'd).
    const bin = `${JSON.stringify(process.execPath)} --import tsx src/bin.ts --port 0 --ready-file ${JSON.stringify(ready)} --coverage-report ${JSON.stringify(coverage)}; echo after`;
    const shell = spawn('sh', ['-c', bin], { cwd: packagePath(), stdio: 'ignore' });
    await expect.poll(() => existsSync(ready), { timeout: 60_000, interval: 100 }).toBe(true);
    const { pid, url } = JSON.parse(readFileSync(ready, 'utf8')) as { pid: number; url: string };
    expect((await fetch(`${url}/v1/connections`, { headers: { 'x-api-key': 'sgw_test_default' } })).status).toBe(200);

    shell.kill('SIGKILL');
    await expect.poll(() => processAlive(pid), { timeout: 10_000, interval: 100 }).toBe(false);
    const report = JSON.parse(readFileSync(coverage, 'utf8')) as { byOperation: Array<{ operationId: string; calls: number }> };
    expect(report.byOperation.find((operation) => operation.operationId === 'listConnections')?.calls).toBe(1);
    expect(existsSync(ready)).toBe(false);
    await expect(fetch(`${url}/__control/health`)).rejects.toThrow();
  });
});
