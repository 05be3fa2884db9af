import { spawn, type ChildProcess } from 'node:child_process';
import { readdir, readFile, readlink } from 'node:fs/promises';
import { expect } from 'vitest';
import { packagePath } from '../../src/lib/package-root.js';

/** The real command line in its own process, as `npx social-gateway-mock` runs it. */
export interface MockProcess {
  child: ChildProcess;
  /** The base URL from the start banner. */
  url: string;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code (null when killed by a signal) and the signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts `src/bin.ts` under tsx (the source, so no build is needed: CI runs the
 * suite right after `npm ci`, and a stale dist/ would test old code) and waits for
 * the banner. Fails with the process's stderr when it exits or takes too long.
 * `nodeArgs` go to Node itself, before the entry (a V8 trace flag, say).
 */
export function spawnMock(args: string[], startTimeoutMs = 60_000, nodeArgs: string[] = []): Promise<MockProcess> {
  return spawnEntry([...nodeArgs, '--import', 'tsx', 'src/bin.ts', '--port', '0', ...args], startTimeoutMs);
}

/** Spawns Node with `nodeArgs` (an entry and the command line's arguments) and waits for the mock's banner, as `spawnMock`. */
export function spawnEntry(nodeArgs: string[], startTimeoutMs = 60_000): Promise<MockProcess> {
  const child = spawn(process.execPath, nodeArgs, {
    cwd: packagePath(),
    env: { ...process.env, NODE_ENV: 'test' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the mock did not start within ${startTimeoutMs} ms; stderr:\n${err}`));
    }, startTimeoutMs);
    child.stderr?.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /API\s+(http:\/\/\S+)\/v1/.exec(out);
      if (!match?.[1]) return;
      clearTimeout(timer);
      resolve({
        child,
        url: match[1],
        stdout: () => out,
        stderr: () => err,
        exited,
        kill(signal) {
          child.kill(signal);
          return exited;
        },
      });
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`the mock exited (code ${code}, signal ${signal}) before listening; stderr:\n${err}`));
    });
  });
}

/** Whether a process runs, by pid (signal 0 checks without sending; EPERM: it runs, as another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Processes whose command line or working directory is in `dir` (this process aside). */
export async function processesIn(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const commandLine = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    const cwd = await readlink(`/proc/${entry}/cwd`).catch(() => '');
    // A zombie has an empty command line: it holds nothing (no port, no file) and is its parent's to reap.
    if (commandLine === '') continue;
    if (commandLine.includes(dir) || cwd === dir || cwd.startsWith(`${dir}/`)) found.push(`${entry} ${commandLine.replaceAll('\0', ' ').trim()}`);
  }
  return found;
}

/**
 * Asserts that no process of the project is left, after waiting up to 5 s for them to end
 * (the bound for a server to stop), then kills any that are, so one failure does not
 * leave a server behind for the next test.
 */
export async function expectNoProcessLeft(dir: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  let left = await processesIn(dir);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    left = await processesIn(dir);
  }
  for (const line of left) {
    try {
      process.kill(Number(line.split(' ')[0]), 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  expect(left, `processes left in ${dir}`).toEqual([]);
}
