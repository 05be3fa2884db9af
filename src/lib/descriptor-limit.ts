import { readFileSync } from 'node:fs';

/*
 * How many files (sockets included) this process may hold open, and what the HTTP server
 * derives from it (decision 0045). Node raises its soft limit to the hard one at start, so the
 * soft limit read here is what the process really has.
 */

/** Where the limit is unknown (no /proc: macOS, Windows): the usual soft limit of a Linux shell. */
export const ASSUMED_OPEN_FILES = 1024;

/** The soft limit of open files from `/proc/self/limits` (Linux), or undefined where it cannot be read. */
export function readOpenFileLimit(limitsText?: string): number | undefined {
  let text = limitsText;
  if (text === undefined) {
    try {
      text = readFileSync('/proc/self/limits', 'utf8');
    } catch {
      return undefined;
    }
  }
  const soft = /^Max open files\s+(\S+)/m.exec(text)?.[1];
  if (soft === undefined) return undefined;
  // `unlimited` is possible in principle; the kernel's own ceiling (fs.nr_open) is about a million.
  if (soft === 'unlimited') return 1_048_576;
  const value = Number(soft);
  return Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

/** What a limit of open files leaves for connections and for event streams. */
export interface ConnectionBudget {
  /** `server.maxConnections`: three quarters of the files, the rest kept for the data file, webhook deliveries and the proxy's upstream sockets. */
  maxConnections: number;
  /** Event streams open at once on the server: half the connections, so requests always find room beside them. */
  maxEventStreams: number;
}

export function connectionBudget(openFiles: number): ConnectionBudget {
  const maxConnections = Math.max(32, Math.floor((openFiles * 3) / 4));
  return { maxConnections, maxEventStreams: Math.max(16, Math.floor(maxConnections / 2)) };
}
