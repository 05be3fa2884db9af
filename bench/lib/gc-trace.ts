/**
 * What the collector did during a load, read from `node --trace-gc-nvp`'s lines (one per
 * collection: `pause=… gc=s … allocated=… promoted=… new_space_survived=…`). Per request,
 * so builds compare: the bytes promoted to the old generation are what a request leaves
 * alive long enough to be copied twice (a created post's record, its kept events, its jobs),
 * and unlike CPU time they hardly move with the host's load.
 */

export interface GcKindSummary {
  /** `s` (scavenge), `mc` (mark-compact), `mmc` (memory-reducing mark-compact), as V8 names them. */
  kind: string;
  count: number;
  pauseUsPerRequest: number;
  allocatedBytesPerRequest: number;
  promotedBytesPerRequest: number;
  survivedBytesPerRequest: number;
}

/** One summary per kind of collection in `trace`, per request of `requests`; O(length of the trace). */
export function summariseGcTrace(trace: string, requests: number): GcKindSummary[] {
  const totals = new Map<string, { count: number; pauseMs: number; allocated: number; promoted: number; survived: number }>();
  for (const line of trace.split('\n')) {
    if (!line.includes(' pause=')) continue;
    const fields = new Map<string, string>();
    for (const part of line.trim().split(/\s+/)) {
      const at = part.indexOf('=');
      if (at > 0) fields.set(part.slice(0, at), part.slice(at + 1));
    }
    const kind = fields.get('gc');
    if (kind === undefined) continue;
    const number = (name: string) => Number(fields.get(name) ?? 0) || 0;
    const total = totals.get(kind) ?? { count: 0, pauseMs: 0, allocated: 0, promoted: 0, survived: 0 };
    total.count++;
    total.pauseMs += number('pause');
    total.allocated += number('allocated');
    total.promoted += number('promoted');
    total.survived += number('new_space_survived');
    totals.set(kind, total);
  }
  const per = (value: number) => (requests > 0 ? Math.round(value / requests) : 0);
  return [...totals].map(([kind, total]) => ({
    kind,
    count: total.count,
    pauseUsPerRequest: requests > 0 ? Math.round((total.pauseMs * 1000 * 10) / requests) / 10 : 0,
    allocatedBytesPerRequest: per(total.allocated),
    promotedBytesPerRequest: per(total.promoted),
    survivedBytesPerRequest: per(total.survived),
  }));
}

const KIND_NAMES: Record<string, string> = { s: 'scavenge', mc: 'mark-compact', mmc: 'mark-compact (reducing memory)' };

/** The summaries as lines for the console. */
export function formatGcSummary(summaries: readonly GcKindSummary[]): string {
  if (summaries.length === 0) return '  no collection during the load';
  return summaries
    .map(
      (s) =>
        `  ${(KIND_NAMES[s.kind] ?? s.kind).padEnd(12)} ${String(s.count).padStart(4)} times: ${s.pauseUsPerRequest} µs of pause a request; ` +
        `${s.allocatedBytesPerRequest} B allocated, ${s.survivedBytesPerRequest} B survived and ${s.promotedBytesPerRequest} B promoted a request`,
    )
    .join('\n');
}
