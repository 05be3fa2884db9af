import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * Servers run in their own processes, pinned to core 0; the load generator (this
 * process) moves itself to core 1. On a machine without `taskset`, or with one
 * core, nothing is pinned and the report says so.
 */
export interface Pinning {
  available: boolean;
  server: string | undefined;
  generator: string | undefined;
  note: string;
}

export function detectPinning(): Pinning {
  const probe = spawnSync('taskset', ['-p', String(process.pid)], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    return { available: false, server: undefined, generator: undefined, note: 'taskset not found: server and load generator share the cores' };
  }
  const cores = spawnSync('nproc', [], { encoding: 'utf8' });
  const count = Number(cores.stdout.trim());
  if (!(count >= 2)) return { available: false, server: undefined, generator: undefined, note: 'one core: server and load generator share it' };
  // -a moves every thread of this process, including libuv's pool, onto the generator's core.
  const pinned = spawnSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { encoding: 'utf8' });
  if (pinned.status !== 0) return { available: false, server: undefined, generator: undefined, note: `taskset could not pin the generator: ${pinned.stderr.trim()}` };
  return { available: true, server: '0', generator: '1', note: `server on core 0, load generator on core 1 (taskset; ${count} cores)` };
}

/** Units of /proc/<pid>/stat times (USER_HZ); 100 on every common Linux. */
const CLOCK_TICKS = (() => {
  const probe = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  const value = Number(probe.stdout?.trim());
  return Number.isFinite(value) && value > 0 ? value : 100;
})();

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

export interface ServerSpec {
  /** The command and its arguments, without the pinning. */
  command: string;
  args: string[];
  cwd: string;
  env?: NodeJS.ProcessEnv;
}

export class ServerProcess {
  private output = '';
  private exited: Promise<number | null>;

  constructor(
    readonly child: ChildProcess,
    readonly spawnedAt: number,
  ) {
    child.stdout?.on('data', (chunk: Buffer) => this.keep(chunk));
    child.stderr?.on('data', (chunk: Buffer) => this.keep(chunk));
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  /** What the server printed (the last 4 KB), for error reports. */
  get log(): string {
    return this.output;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Resident memory now, and its peak since start, in MB (Linux /proc; undefined elsewhere). */
  memory(): { rssMb: number; peakRssMb: number } | undefined {
    try {
      const status = readFileSync(`/proc/${this.pid}/status`, 'utf8');
      const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
      return { rssMb: Math.round(kb('VmRSS') / 102.4) / 10, peakRssMb: Math.round(kb('VmHWM') / 102.4) / 10 };
    } catch {
      return undefined;
    }
  }

  /**
   * CPU time the server has used so far (user + system), in seconds, from
   * /proc/<pid>/stat; undefined where there is no /proc. Unlike throughput, CPU
   * time per request barely moves when other processes compete for the core.
   */
  cpuSeconds(): number | undefined {
    try {
      const stat = readFileSync(`/proc/${this.pid}/stat`, 'utf8');
      // The command name is in parentheses and may hold spaces: count fields after it.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
    } catch {
      return undefined;
    }
  }

  /** SIGTERM (or the signal given), then SIGKILL if it has not left within 10 s. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    if (!this.running) return;
    this.child.kill(signal);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await this.exited;
    clearTimeout(timer);
  }

  private keep(chunk: Buffer): void {
    this.output = (this.output + chunk.toString('utf8')).slice(-4096);
  }
}

export function startProcess(spec: ServerSpec, pinning: Pinning): ServerProcess {
  const [command, args] = pinning.available && pinning.server !== undefined ? ['taskset', ['-c', pinning.server, spec.command, ...spec.args]] : [spec.command, spec.args];
  const spawnedAt = performance.now();
  // taskset execs the command, so the child's pid is the server's own (its RSS is the server's).
  const child = spawn(command as string, args as string[], { cwd: spec.cwd, env: { ...process.env, ...spec.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  return new ServerProcess(child, spawnedAt);
}

export interface Probe {
  url: string;
  headers?: Record<string, string>;
}

/**
 * Polls until the probe answers 200; resolves with the milliseconds since the
 * process was spawned. Fails when the process exits or the timeout passes.
 */
export async function waitForOk(server: ServerProcess, probe: Probe, timeoutMs = 60_000): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (!server.running) throw new Error(`the server exited before answering ${probe.url}:\n${server.log}`);
    try {
      const res = await fetch(probe.url, { headers: probe.headers ?? {} });
      await res.arrayBuffer();
      if (res.status === 200) return performance.now() - server.spawnedAt;
    } catch {
      // Not listening yet.
    }
    if (performance.now() > deadline) throw new Error(`no 200 from ${probe.url} within ${timeoutMs} ms:\n${server.log}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
