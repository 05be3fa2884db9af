import { describe, expect, it } from 'vitest';
import { Journal, type JournalEntry } from '../../src/journal/journal.js';

function entry(overrides: Partial<JournalEntry> = {}): Omit<JournalEntry, 'seq'> {
  return { at: '2026-03-02T09:00:00.000Z', method: 'GET', path: '/v1/connections', query: '', operationId: 'listConnections', status: 200, errorCode: null, durationMs: 1, matchedRule: null, effect: null, injected: false, ...overrides };
}

describe('the journal', () => {
  it('never holds more than its capacity, keeping the most recent', () => {
    const journal = new Journal(5);
    for (let i = 0; i < 10_000; i++) journal.record(entry({ durationMs: i }));
    expect(journal.size).toBe(5);
    expect(journal.entries().map((e) => e.seq)).toEqual([9996, 9997, 9998, 9999, 10000]);
    expect(journal.entries(9998).map((e) => e.seq)).toEqual([9999, 10000]);
  });

  it('filters by method, status, operation, rule and position, and keeps the most recent `limit`', () => {
    const journal = new Journal(100);
    journal.record(entry());
    journal.record(entry({ method: 'POST', path: '/v1/profiles', operationId: 'createProfile', status: 201 }));
    journal.record(entry({ status: 429, errorCode: 'RATE_LIMITED', matchedRule: 'burst', effect: 'error' }));
    journal.record(entry({ status: 429, errorCode: 'RATE_LIMITED', matchedRule: 'burst', effect: 'error' }));
    journal.record(entry({ status: 0, matchedRule: 'drop', effect: 'drop' }));
    expect(journal.query({ method: 'post' }).map((e) => e.seq)).toEqual([2]);
    expect(journal.query({ status: 429 }).map((e) => e.seq)).toEqual([3, 4]);
    expect(journal.query({ status: 0 }).map((e) => e.seq)).toEqual([5]);
    expect(journal.query({ operationId: 'listConnections', after: 3 }).map((e) => e.seq)).toEqual([4, 5]);
    expect(journal.query({ matchedRule: 'burst', limit: 1 }).map((e) => e.seq)).toEqual([4]);
    expect(journal.query({}).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
  });
});
