/**
 * When the server must stop: a signal (SIGINT from Ctrl-C, SIGTERM from a CI runner or
 * `kill`, SIGHUP from a closed terminal), or the parent process gone.
 *
 * The parent matters because of wrappers: `npx social-gateway-mock` runs the bin through
 * `sh -c`, and on Debian's dash the shell dies of the SIGTERM that npm forwards to it,
 * without passing it on. The server is left orphaned, holding its port and the job's
 * output, with nobody to stop it. So the server watches the process that started it and
 * shuts down (cleanly: coverage report and --data written) once that process is gone.
 */
export interface ShutdownSource {
  /** Calls `listener` once, at the first request to stop (at once if one came already). Answers an unsubscribe. */
  onShutdown(listener: (reason: string) => void): () => void;
}

export interface ProcessWatch extends ShutdownSource {
  /** Removes the signal handlers and stops watching the parent. */
  dispose(): void;
}

export interface WatchOptions {
  /** Whether the parent process still runs (default: the process's parent is still the one it started with). */
  parentAlive?: () => boolean;
  /** How often the parent is looked at, in milliseconds of wall time (default 500). */
  pollMs?: number;
  /** Called on a second signal, when the first shutdown takes too long for the person waiting (default: exit 130). */
  forceExit?: () => void;
  /** The process to watch (default: this one). */
  target?: NodeJS.Process;
}

const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

export function watchProcess(options: WatchOptions = {}): ProcessWatch {
  const target = options.target ?? process;
  const listeners = new Set<(reason: string) => void>();
  let reason: string | undefined;
  const request = (why: string) => {
    if (reason !== undefined) return;
    reason = why;
    for (const listener of listeners) listener(why);
  };

  const onSignal = (signal: NodeJS.Signals) => {
    // A second Ctrl-C means: stop now, whatever is still being written.
    if (reason !== undefined) (options.forceExit ?? (() => target.exit(130)))();
    else request(`${signal} received`);
  };
  for (const signal of STOP_SIGNALS) target.on(signal, onSignal);

  // Started directly by init (a container's entry point) there is no parent to lose.
  const parent = target.ppid;
  // An orphan is adopted by init or a subreaper: its parent pid changes (Node reads it anew each time).
  const parentAlive = options.parentAlive ?? (() => target.ppid === parent);
  const poll = parent > 1 || options.parentAlive ? setInterval(() => parentAlive() || request('parent process exited'), options.pollMs ?? 500) : undefined;
  // The watch never keeps the process alive on its own.
  poll?.unref();

  return {
    onShutdown(listener) {
      if (reason !== undefined) {
        listener(reason);
        return () => undefined;
      }
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    dispose() {
      if (poll) clearInterval(poll);
      for (const signal of STOP_SIGNALS) target.off(signal, onSignal);
      listeners.clear();
    },
  };
}
