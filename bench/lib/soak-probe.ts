/**
 * What `npm run soak` reads of its own process to judge a shared server's health:
 * memory after a full collection, the active resources by type, the mock's open
 * connections, and whether deleted workspaces were given back to the collector.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { getHeapSpaceStatistics } from 'node:v8';
import { collectGarbage } from '../../src/lib/collect-garbage.js';

/** The process at one moment, as the soak compares it. */
export interface HealthSnapshot {
  heapMb: number;
  rssMb: number;
  /** Where RSS goes besides the heap in use: the heap V8 holds, and memory outside it (buffers). */
  heapTotalMb: number;
  externalMb: number;
  /** The heap in use by space (old, code, large objects, …), to tell data from compiled code when the heap grows. */
  heapSpacesMb: Record<string, number>;
  /** `process.getActiveResourcesInfo()` by type: timers, sockets, servers, pending fs requests. */
  resources: Record<string, number>;
  /** Connections the mock's HTTP server holds open. */
  serverConnections: number;
}

export const toMb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

/** Counts of a list of names: `['Timeout', 'Timeout']` → `{ Timeout: 2 }`. */
export function countByType(names: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const name of names) counts[name] = (counts[name] ?? 0) + 1;
  return counts;
}

/** The resource types of which `end` holds more than `start`, as `Timeout 3 → 5`. */
export function resourcesGrown(start: Record<string, number>, end: Record<string, number>): string[] {
  return Object.entries(end)
    .filter(([type, n]) => n > (start[type] ?? 0))
    .map(([type, n]) => `${type} ${start[type] ?? 0} → ${n}`);
}

/** `end` over `start` as a ratio rounded to 0.01, and whether it stays within `limit` (0.1: within 10%). */
export function withinShare(start: number, end: number, limit: number): { ratio: number; within: boolean } {
  const ratio = Math.round((end / start) * 100) / 100;
  return { ratio, within: end <= start * (1 + limit) && end >= start * (1 - limit) };
}

/**
 * Finds the mock's HTTP server when it answers its first request: `createMockServer`
 * keeps its server to itself, and Node announces each request with the server it came
 * to on a diagnostics channel. Only the server listening on `port` is kept (the
 * webhook receiver shares the process).
 */
export class ServerWatch {
  private server: Server | undefined;
  private readonly onRequest = (message: unknown) => {
    const server = (message as { server?: Server }).server;
    if (this.server || !server) return;
    if ((server.address() as AddressInfo | null)?.port === this.port) this.server = server;
  };

  constructor(private readonly port: number) {
    subscribe('http.server.request.start', this.onRequest);
  }

  /** The server's open connections (0 before it answered anything). */
  connections(): Promise<number> {
    const server = this.server;
    if (!server) return Promise.resolve(0);
    return new Promise((resolve, reject) => server.getConnections((error, count) => (error ? reject(error) : resolve(count))));
  }

  stop(): void {
    unsubscribe('http.server.request.start', this.onRequest);
  }
}

/** Two full collections a turn apart: a WeakRef's target is held until the turn it was read in ends. */
export async function fullCollection(): Promise<boolean> {
  await nextTurn();
  if (!collectGarbage()) return false;
  await nextTurn();
  return collectGarbage();
}

/** Readings a second apart that must agree (within 2%) for RSS to count as settled. */
const SETTLED_READINGS = 8;

/**
 * RSS once the process has given back what it will after a burst: V8 unmaps freed
 * pages on a background thread, seconds after the collection, and in steps. Read
 * after a last-resort collection each second until eight readings in a row stay
 * within 2% (at most `maxMs`).
 */
export async function settledRss(maxMs: number): Promise<{ rssMb: number; afterSeconds: number }> {
  const started = performance.now();
  const readings: number[] = [];
  for (;;) {
    await nextTurn();
    collectGarbage({ lastResort: true });
    readings.push(process.memoryUsage.rss());
    const last = readings.slice(-SETTLED_READINGS);
    const stable = last.length === SETTLED_READINGS && Math.max(...last) <= Math.min(...last) * 1.02;
    const afterSeconds = Math.round((performance.now() - started) / 100) / 10;
    if (stable || performance.now() - started >= maxMs) return { rssMb: toMb(readings[readings.length - 1] as number), afterSeconds };
    await sleep(1_000);
  }
}

/** Memory after a full collection, resources by type and the server's connections. */
export async function healthSnapshot(watch: ServerWatch): Promise<HealthSnapshot> {
  await fullCollection();
  const usage = process.memoryUsage();
  const heapSpacesMb: Record<string, number> = {};
  for (const space of getHeapSpaceStatistics()) if (space.space_used_size > 0) heapSpacesMb[space.space_name.replace(/_space$/, '')] = toMb(space.space_used_size);
  return {
    heapMb: toMb(usage.heapUsed),
    rssMb: toMb(usage.rss),
    heapTotalMb: toMb(usage.heapTotal),
    externalMb: toMb(usage.external),
    heapSpacesMb,
    resources: countByType(process.getActiveResourcesInfo()),
    serverConnections: await watch.connections(),
  };
}
