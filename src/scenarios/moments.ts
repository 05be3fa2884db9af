import { parseIsoDuration } from '../clock/duration.js';

/**
 * A point in virtual time as a scenario writes it: relative to the moment the
 * scenario is loaded (`PT2H`, `-PT30M`) or absolute (`2026-03-02T11:00:00Z`).
 * Scenarios say "two hours in" far more often than a date, and a relative moment
 * keeps a file valid whatever clock it is loaded on.
 */
export type Moment = { relativeMs: number } | { absoluteMs: number };

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

export function parseMoment(text: string): Moment | undefined {
  if (/^-?P/.test(text)) {
    const negative = text.startsWith('-');
    const ms = parseIsoDuration(negative ? text.slice(1) : text);
    if (ms === undefined) return undefined;
    return { relativeMs: negative && ms !== 0 ? -ms : ms };
  }
  if (!DATE_TIME.test(text)) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : { absoluteMs: ms };
}

/** An ISO 8601 date-time with a zone, in ms; undefined when it is not one. */
export function parseDateTime(text: string): number | undefined {
  if (!DATE_TIME.test(text)) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}

export function resolveMoment(moment: Moment, loadedAtMs: number): number {
  return 'relativeMs' in moment ? loadedAtMs + moment.relativeMs : moment.absoluteMs;
}
