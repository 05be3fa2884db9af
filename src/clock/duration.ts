import { Duration } from 'luxon';

/**
 * Parses an ISO 8601 duration ("PT2H", "P1DT30M", "P2W") into milliseconds.
 * Years and months have no fixed length, so a duration naming them is refused
 * rather than guessed.
 */
export function parseIsoDuration(text: string): number | undefined {
  // A clock moved in steps asks for the same duration again and again (P1D every tick): the last answer is kept, O(1) for it.
  if (last !== undefined && last.text === text) return last.ms;
  const ms = parse(text);
  last = { text, ms };
  return ms;
}

/** The last duration read, and what it read as. */
let last: { text: string; ms: number | undefined } | undefined;

function parse(text: string): number | undefined {
  // Luxon reads a bare "PT" as zero; a duration names at least one amount.
  if (!/\d/.test(text)) return undefined;
  const duration = Duration.fromISO(text);
  if (!duration.isValid) return undefined;
  if (duration.years !== 0 || duration.quarters !== 0 || duration.months !== 0) return undefined;
  const ms = duration.toMillis();
  return Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}
