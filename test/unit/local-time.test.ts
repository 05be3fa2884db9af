import { describe, expect, it } from 'vitest';
import { formatLocalTime, isKnownZone, parseLocalTime, resolveLocalTime } from '../../src/api/posts/local-time.js';

describe('resolveLocalTime', () => {
  it.each([
    // zone, local time, UTC instant, case
    ['America/New_York', '2026-01-15T12:00:00', '2026-01-15T17:00:00.000Z', 'exact'],
    ['America/New_York', '2026-07-15T12:00:00', '2026-07-15T16:00:00.000Z', 'exact'],
    // Spring forward, 2026-03-08: 02:00 EST jumps to 03:00 EDT; 02:xx moves forward by the hour.
    ['America/New_York', '2026-03-08T01:59:59', '2026-03-08T06:59:59.000Z', 'exact'],
    ['America/New_York', '2026-03-08T02:00:00', '2026-03-08T07:00:00.000Z', 'gap'],
    ['America/New_York', '2026-03-08T02:30:00', '2026-03-08T07:30:00.000Z', 'gap'],
    ['America/New_York', '2026-03-08T02:59:59', '2026-03-08T07:59:59.000Z', 'gap'],
    ['America/New_York', '2026-03-08T03:00:00', '2026-03-08T07:00:00.000Z', 'exact'],
    // Fall back, 2026-11-01: 02:00 EDT returns to 01:00 EST; 01:xx happens twice, the first (EDT) is meant.
    ['America/New_York', '2026-11-01T00:59:59', '2026-11-01T04:59:59.000Z', 'exact'],
    ['America/New_York', '2026-11-01T01:00:00', '2026-11-01T05:00:00.000Z', 'overlap'],
    ['America/New_York', '2026-11-01T01:30:00', '2026-11-01T05:30:00.000Z', 'overlap'],
    ['America/New_York', '2026-11-01T01:59:59', '2026-11-01T05:59:59.000Z', 'overlap'],
    ['America/New_York', '2026-11-01T02:00:00', '2026-11-01T07:00:00.000Z', 'exact'],
    // Southern hemisphere, and a half-hour change (Lord Howe moves by 30 minutes).
    ['Australia/Sydney', '2026-10-04T02:30:00', '2026-10-03T16:30:00.000Z', 'gap'],
    ['Australia/Sydney', '2026-04-05T02:30:00', '2026-04-04T15:30:00.000Z', 'overlap'],
    ['Australia/Lord_Howe', '2026-10-04T02:15:00', '2026-10-03T15:45:00.000Z', 'gap'],
    ['Australia/Lord_Howe', '2026-04-05T01:45:00', '2026-04-04T14:45:00.000Z', 'overlap'],
    // Europe changes at 01:00 UTC.
    ['Europe/Berlin', '2026-03-29T02:30:00', '2026-03-29T01:30:00.000Z', 'gap'],
    ['Europe/Berlin', '2026-10-25T02:30:00', '2026-10-25T00:30:00.000Z', 'overlap'],
    // Zones without DST, and odd offsets.
    ['UTC', '2026-03-08T02:30:00', '2026-03-08T02:30:00.000Z', 'exact'],
    ['Asia/Kolkata', '2026-03-08T09:00:00', '2026-03-08T03:30:00.000Z', 'exact'],
    ['Asia/Kathmandu', '2026-03-08T09:00:00', '2026-03-08T03:15:00.000Z', 'exact'],
    ['Etc/GMT+5', '2026-07-01T12:00:00', '2026-07-01T17:00:00.000Z', 'exact'],
  ] as const)('reads %s %s as %s (%s)', (zone, local, utc, kind) => {
    expect(resolveLocalTime(local, zone)).toEqual({ instantMs: Date.parse(utc), case: kind });
  });

  it.each([
    ['an unknown zone', '2026-03-08T02:30:00', 'Mars/Olympus_Mons'],
    ['a day that does not exist', '2026-02-29T10:00:00', 'UTC'],
    ['hour 24', '2026-03-08T24:00:00', 'UTC'],
    ['minute 60', '2026-03-08T10:60:00', 'UTC'],
    ['a time with a zone', '2026-03-08T10:00:00Z', 'UTC'],
    ['a date alone', '2026-03-08', 'UTC'],
  ])('is undefined for %s', (_label, local, zone) => {
    expect(resolveLocalTime(local, zone)).toBeUndefined();
  });

  it('reads back what formatLocalTime wrote, outside the overlap', () => {
    for (let ms = Date.parse('2026-03-07T00:00:00Z'); ms < Date.parse('2026-03-10T00:00:00Z'); ms += 15 * 60_000) {
      const local = formatLocalTime(ms, 'America/New_York');
      expect(resolveLocalTime(local, 'America/New_York')?.instantMs).toBe(ms);
    }
  });
});

describe('parseLocalTime', () => {
  it('accepts a leap day and refuses one in a common year', () => {
    expect(parseLocalTime('2028-02-29T00:00:00')).toBe(Date.parse('2028-02-29T00:00:00Z'));
    expect(parseLocalTime('2027-02-29T00:00:00')).toBeUndefined();
  });
});

describe('isKnownZone', () => {
  it.each([
    ['America/New_York', true],
    ['america/new_york', true],
    ['US/Eastern', true],
    ['Asia/Kolkata', true],
    ['Europe/Kyiv', true],
    ['UTC', true],
    ['Mars/Olympus_Mons', false],
    ['+02:00', false],
    ['UTC+3', false],
    ['', false],
  ])('%s → %s', (zone, known) => {
    expect(isKnownZone(zone)).toBe(known);
  });
});
