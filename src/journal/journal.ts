/** One request the workspace answered, as the journal keeps it. */
export interface JournalEntry {
  /** Position in the workspace's journal; increases by one per request, never reused. */
  seq: number;
  /** Virtual time at which the request arrived. */
  at: string;
  method: string;
  path: string;
  operationId: string | null;
  status: number;
  /** The error code of an error response, when the body carried one. */
  errorCode: string | null;
  /** Wall-clock time spent answering, in milliseconds. */
  durationMs: number;
  /** The scenario rule that intercepted the request, when one did. */
  matchedRule: string | null;
}

/**
 * A bounded ring of the workspace's most recent requests. Memory stays flat however
 * long a suite runs: once full, each new entry replaces the oldest.
 */
export class Journal {
  private readonly ring: Array<JournalEntry | undefined>;
  private nextSeq = 1;

  constructor(readonly capacity: number) {
    this.ring = new Array<JournalEntry | undefined>(Math.max(1, capacity));
  }

  record(entry: Omit<JournalEntry, 'seq'>): JournalEntry {
    const full: JournalEntry = { seq: this.nextSeq++, ...entry };
    this.ring[(full.seq - 1) % this.ring.length] = full;
    return full;
  }

  get size(): number {
    return Math.min(this.nextSeq - 1, this.ring.length);
  }

  /** Entries oldest first, optionally only those after `afterSeq`. */
  entries(afterSeq = 0): JournalEntry[] {
    const out: JournalEntry[] = [];
    const first = Math.max(this.nextSeq - this.ring.length, 1, afterSeq + 1);
    for (let seq = first; seq < this.nextSeq; seq++) {
      const entry = this.ring[(seq - 1) % this.ring.length];
      if (entry) out.push(entry);
    }
    return out;
  }

  clear(): void {
    this.ring.fill(undefined);
  }
}
