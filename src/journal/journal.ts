import type { LiveDetail } from './live-detail.js';

/** One request the workspace answered, as the journal keeps it. */
export interface JournalEntry {
  /** Position in the workspace's journal; increases by one per request, never reused. */
  seq: number;
  /** Virtual time at which the request arrived. */
  at: string;
  method: string;
  path: string;
  /** The query string without its `?`, secret parameters redacted; empty when there was none. */
  query: string;
  operationId: string | null;
  /** The status answered; 0 when no answer was sent (a scenario dropped or reset the connection). */
  status: number;
  /** The error code of an error response, when the body carried one. */
  errorCode: string | null;
  /** Wall-clock time spent answering, in milliseconds. */
  durationMs: number;
  /** The scenario rule that intercepted the request, when one did. */
  matchedRule: string | null;
  /** What the scenario did (`error`, `respond`, `latency`, `drop`, `reset`, `malformed`, `unknownValues`, `outage`, `fault`, `truncated`, `drip`; combined with `+`); null when nothing. */
  effect: string | null;
  /** What an error answer said (its envelope's message, param and details); absent when it carried none. */
  error?: AnsweredError;
  /** The answer was an off-contract fault a rule injected (a proxy's page, a cut or dripped body, a dropped or reset connection, a broken body, a recorded answer the contract does not describe). */
  injected: boolean;
  /** The answer's Retry-After in seconds, when it carried one. */
  retryAfter?: number;
  /** Who sent it: the key's last four characters and the User-Agent's first product (`key …ault, undici`). */
  caller?: string;
  /** Proxy mode: what the exchange broke of openapi.yaml (absent outside proxy mode; empty when nothing). */
  violations?: ContractFindingSummary[];
}

/** An error envelope's message, the field it names and its details, as the journal keeps them. */
export interface AnsweredError {
  message: string;
  param?: string;
  details?: Record<string, unknown>;
}

/** One finding of the proxy's comparison, as the journal keeps it. */
export interface ContractFindingSummary {
  side: 'request' | 'response';
  kind: string;
  /** `status`, `header x-foo`, `body/data/0/status`, `query limit`. */
  field: string;
  message: string;
  /** The contract allows it (an open schema or enumeration): drift rather than a violation. */
  tolerated?: boolean;
}

/** What the journal can be asked for; every filter given must hold. */
export interface JournalQuery {
  /** Only entries whose seq is greater than this. */
  after?: number;
  method?: string;
  status?: number;
  operationId?: string;
  matchedRule?: string;
  /** The most recent this many of those that pass. */
  limit?: number;
}

/**
 * A bounded ring of the workspace's most recent requests. Memory stays flat however
 * long a suite runs: once full, each new entry replaces the oldest. The ring grows
 * with use up to its capacity, so a workspace that answered nothing holds no slots
 * (ten thousand idle workspaces would otherwise hold 80 MB of empty rings).
 */
export class Journal {
  private readonly ring: Array<JournalEntry | undefined> = [];
  private nextSeq = 1;

  constructor(
    readonly capacity: number,
    /** Told of each entry as it is recorded (the event streams' `request.recorded`), with its detail when captured; it must not throw. */
    private readonly onRecord?: (entry: JournalEntry, detail?: LiveDetail) => void,
  ) {}

  /**
   * Records an entry; one that does not say is not injected (the control plane's own entries, for
   * one). `detail` (headers and bodies, captured while a dashboard watches) is passed on to the
   * listener and never kept.
   */
  record(entry: Omit<JournalEntry, 'seq' | 'injected' | 'query'> & { injected?: boolean; query?: string }, detail?: LiveDetail): JournalEntry {
    const full: JournalEntry = { seq: this.nextSeq++, ...entry, query: entry.query ?? '', injected: entry.injected ?? false };
    this.ring[(full.seq - 1) % this.slots] = full;
    this.onRecord?.(full, detail);
    return full;
  }

  get size(): number {
    return Math.min(this.nextSeq - 1, this.slots);
  }

  /** Entries oldest first, optionally only those after `afterSeq`. */
  entries(afterSeq = 0): JournalEntry[] {
    const out: JournalEntry[] = [];
    const first = Math.max(this.nextSeq - this.slots, 1, afterSeq + 1);
    for (let seq = first; seq < this.nextSeq; seq++) {
      const entry = this.ring[(seq - 1) % this.slots];
      if (entry) out.push(entry);
    }
    return out;
  }

  /** Entries oldest first that pass every filter of the query, at most `limit` (the most recent). */
  query(query: JournalQuery): JournalEntry[] {
    const matching = this.entries(query.after ?? 0).filter(
      (entry) =>
        (query.method === undefined || entry.method === query.method.toUpperCase()) &&
        (query.status === undefined || entry.status === query.status) &&
        (query.operationId === undefined || entry.operationId === query.operationId) &&
        (query.matchedRule === undefined || entry.matchedRule === query.matchedRule),
    );
    return query.limit === undefined ? matching : matching.slice(-query.limit);
  }

  clear(): void {
    this.ring.fill(undefined);
  }

  /** How many entries the ring holds at most (one at least). */
  private get slots(): number {
    return Math.max(1, this.capacity);
  }
}
