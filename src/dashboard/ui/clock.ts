/*
 * The Clock view's pure logic (docs/dashboard.md), apart from the DOM so unit tests can load it:
 * the Advance presets, how many due jobs are listed, where a running clock stands between two reads, the Set field's value,
 * and how much of a long advance's answer is drawn.
 */

/** Advance's presets, as the ISO 8601 durations `POST /__control/clock/advance` takes in `by`. */
export const ADVANCE_PRESETS = [
  { label: '1 min', by: 'PT1M' },
  { label: '1 h', by: 'PT1H' },
  { label: '1 day', by: 'P1D' },
] as const;

/** The most pending jobs listed under "Due next" (`GET /__control/clock/jobs?limit=`). */
export const JOBS_SHOWN = 20;

/** The most ran jobs drawn after one advance: a day's worth of retries must not freeze the page. */
export const RAN_SHOWN = 50;

/**
 * Where the clock stands now, from its last read: a frozen clock stays put, a running one has
 * moved with the wall clock since (control.yaml, `resumeClock`). `readAt` and `nowAt` are
 * readings of one monotonic timer (the page's `performance.now()`), in ms.
 */
export function clockNow(read: { now: string; frozen: boolean }, readAt: number, nowAt: number): number {
  const at = Date.parse(read.now);
  return read.frozen ? at : at + Math.max(0, nowAt - readAt);
}

/** An instant as the view prints it: ISO 8601 in UTC, to the second. */
export function formatInstant(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** How far ahead an instant is, in words ("in 59 min", "in 2 d 3 h", "due now"). */
export function formatUntil(fromMs: number, toMs: number): string {
  const seconds = Math.round((toMs - fromMs) / 1000);
  if (seconds <= 0) return 'due now';
  const parts: string[] = [];
  const units: Array<[string, number]> = [
    ['d', 86_400],
    ['h', 3600],
    ['min', 60],
    ['s', 1],
  ];
  let rest = seconds;
  for (const [unit, size] of units) {
    const count = Math.floor(rest / size);
    rest -= count * size;
    if (count > 0) parts.push(`${count} ${unit}`);
    // Two units say enough: "in 2 d 3 h", not to the second.
    if (parts.length === 2) break;
  }
  return `in ${parts.join(' ')}`;
}

/** The Set field's value (`<input type="datetime-local">`, read as UTC) for an instant. */
export function toUtcField(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19);
}

/** The instant a Set field's value names (UTC), as `POST /__control/clock/set` takes it; null for an empty field. */
export function fromUtcField(value: string): string | null {
  if (value === '') return null;
  // A browser drops the seconds when they are zero ("2026-03-02T10:00").
  return `${value.length === 16 ? `${value}:00` : value}Z`;
}

/** The first `limit` of a list and how many are left out. */
export function firstOf<T>(items: readonly T[], limit = RAN_SHOWN): { shown: readonly T[]; more: number } {
  return { shown: items.slice(0, limit), more: Math.max(0, items.length - limit) };
}
