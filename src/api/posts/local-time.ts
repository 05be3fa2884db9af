import { DateTime, IANAZone } from 'luxon';
import { StringMemo } from '../../lib/string-memo.js';

/**
 * Turning a post's time-zone-naive `scheduledFor` into the UTC instant it fires
 * at. The rule for the two DST edge cases is docs/decisions/0002-scheduling-time-zones.md:
 * a local time skipped by a spring-forward gap moves forward by the length of the
 * gap (02:30 → 03:30 on that morning); a local time that occurs twice in a
 * fall-back overlap means its first occurrence. That is RFC 5545's rule, java.time's
 * and Temporal's `compatible` disambiguation, so the mock agrees with the
 * calendars integrators already use. Pure functions, unit-tested in test/unit.
 */

/** What the local time turned out to be. */
export type LocalTimeCase = 'exact' | 'gap' | 'overlap';

export interface ResolvedLocalTime {
  /** The UTC instant, in ms. */
  instantMs: number;
  /** `gap`: the time did not exist and moved forward; `overlap`: it existed twice and the first was taken. */
  case: LocalTimeCase;
}

const LOCAL_SHAPE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/;
const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

/**
 * Zone names already looked up: each lookup builds an Intl.DateTimeFormat, most of the cost of
 * scheduling a post. Names are few in practice; the bound only keeps a stream of made-up ones from
 * growing the memo for ever.
 */
const knownZones = new StringMemo<boolean>(1000);

/**
 * Whether the runtime's time-zone database knows the zone (`America/New_York`,
 * `america/new_york`, `US/Eastern`). Only a check: the post keeps the name as the client
 * sent it, never the runtime's own name for the zone, which differs with the ICU build
 * (Node 20's ICU answers `Asia/Calcutta` for `Asia/Kolkata`, `Europe/Kiev` for
 * `Europe/Kyiv`): decision 0049.
 */
export function isKnownZone(name: string): boolean {
  return knownZones.get(name) ?? knownZones.set(name, IANAZone.isValidZone(name));
}

/**
 * The wall-clock reading `YYYY-MM-DDTHH:MM:SS` as if it were UTC, in ms, or
 * undefined for a date or time that does not exist on any calendar (Feb 30, 24:00).
 */
export function parseLocalTime(local: string): number | undefined {
  const match = LOCAL_SHAPE.exec(local);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as [number, number, number, number, number, number];
  const parsed = DateTime.fromObject({ year, month, day, hour, minute, second }, { zone: 'utc' });
  // Luxon refuses out-of-range units; the round trip also catches anything it would roll over.
  if (!parsed.isValid || parsed.toFormat("yyyy-MM-dd'T'HH:mm:ss") !== local) return undefined;
  return parsed.toMillis();
}

/**
 * The instant a local time in `zone` stands for, by the gap and overlap rule above.
 * Undefined when the zone or the local time is invalid.
 */
export function resolveLocalTime(local: string, zone: string): ResolvedLocalTime | undefined {
  const wallMs = parseLocalTime(local);
  if (wallMs === undefined || !isKnownZone(zone)) return undefined;
  const tz = IANAZone.create(zone);
  // The offsets in force a day before and a day after: any transition near the wall time lies between them.
  const offsetBefore = tz.offset(wallMs - DAY_MS);
  const offsetAfter = tz.offset(wallMs + DAY_MS);
  const candidates = [...new Set([offsetBefore, offsetAfter])]
    .map((offset) => wallMs - offset * MINUTE_MS)
    // An instant is a reading of the wall time only if the zone's offset at that instant is the one assumed.
    .filter((instant) => wallMs - tz.offset(instant) * MINUTE_MS === instant)
    .sort((a, b) => a - b);
  const first = candidates[0];
  if (first === undefined) {
    // In the gap: read with the offset before the transition, which lands as far past the gap's end as the time was past its start.
    return { instantMs: wallMs - offsetBefore * MINUTE_MS, case: 'gap' };
  }
  return { instantMs: first, case: candidates.length > 1 ? 'overlap' : 'exact' };
}

/** The local wall-clock reading of an instant in a zone, in the `scheduledFor` shape. */
export function formatLocalTime(instantMs: number, zone: string): string {
  return DateTime.fromMillis(instantMs, { zone }).toFormat("yyyy-MM-dd'T'HH:mm:ss");
}
