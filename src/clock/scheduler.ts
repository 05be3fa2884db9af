import { LastIso } from './last-iso.js';
import { PriorityQueue } from './priority-queue.js';
import type { VirtualClock } from './virtual-clock.js';

/** JSON that a job carries; jobs persist with the workspace, so no functions or class instances. */
export type JobData = Record<string, unknown>;

/** One piece of due work: a scheduled post firing, a publishing step, a webhook retry, a token expiring. */
export interface JobRecord {
  id: string;
  /** Breaks ties between jobs due at the same instant: first scheduled, first run. */
  seq: number;
  dueAt: number;
  kind: string;
  label: string;
  data: JobData;
}

/** What a run of the scheduler did: the entries of the jobs it listed, and how many it ran in all. */
export interface RunReport {
  ran: RanJob[];
  total: number;
}

/** What `advance` reports for each job it ran. */
export interface RanJob {
  id: string;
  kind: string;
  label: string;
  dueAt: string;
  ok: boolean;
  error?: string;
}

export type JobHandler<C> = (context: C, job: JobRecord) => void | Promise<void>;

/** A handler per job kind; each API area registers the kinds it schedules. */
export type JobHandlers<C> = ReadonlyMap<string, JobHandler<C>>;

/** A runaway job that keeps rescheduling itself at the same instant must not hang `advance`. */
const MAX_JOBS_PER_RUN = 1_000_000;
/**
 * A long run (years of token renewals) lets the event loop in this often: the server is shared,
 * and a clock move in one workspace must not stop every other from being answered meanwhile.
 * A hundred renewals take about 5 ms; at 500 the longest gap between two turns of the event loop
 * during ten virtual years was 16 to 29 ms, at 100 it is 8 to 27 (garbage collection, mostly).
 */
export const JOBS_BETWEEN_YIELDS = 100;
/** setTimeout cannot wait longer than this; the timer simply re-arms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface SchedulerOptions<C> {
  clock: VirtualClock;
  /** The workspace's persisted job table as it was read (empty for a new workspace); from then on the heap holds the jobs, and `jobTable` writes the table. */
  jobs: Readonly<Record<string, JobRecord>>;
  handlers: JobHandlers<C>;
  context: () => C;
  newId: () => string;
  onJobError: (job: JobRecord, error: unknown) => void;
  /** Called after a run that ran jobs: they changed the workspace, maybe outside any request. */
  onRan?: () => void;
  /**
   * How the running clock's timer starts a run, with nobody above it to take a failure: the
   * server's containment catches what it throws (decision 0041). By default the run's promise is left alone.
   */
  fire?: (run: () => Promise<unknown>) => void;
}

/**
 * One scheduler per workspace: a priority queue on virtual time. `advanceTo` runs
 * what falls due in order (moving the clock to each job's instant first, so a job
 * sees the time it was due at); with a running clock a real timer runs due work
 * promptly. Runs never overlap: advance and the timer share one queue of turns.
 */
export class Scheduler<C> {
  private readonly queue = new PriorityQueue<JobRecord>((a, b) => a.dueAt < b.dueAt || (a.dueAt === b.dueAt && a.seq < b.seq));
  private nextSeq = 0;
  private turn: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** Jobs come due together (a day's posts start at one instant): their instant is formatted once for them. */
  private readonly dueIso = new LastIso();
  /** Real I/O started for the workspace (webhook requests) that `advanceTo` waits for. */
  private readonly inFlight = new Set<Promise<unknown>>();
  /** The timer's callback, made once: a run of what is due, handed to `fire`. */
  private readonly onTimer = (): void => {
    const run = () => this.runDue();
    if (this.options.fire) this.options.fire(run);
    else void run();
  };

  constructor(private readonly options: SchedulerOptions<C>) {
    for (const job of Object.values(options.jobs)) {
      this.queue.push(job);
      this.nextSeq = Math.max(this.nextSeq, job.seq + 1);
    }
  }

  get size(): number {
    return this.queue.size;
  }

  /** Whether it was stopped: its workspace was deleted, evicted or replaced (a reset, a restore). */
  get isStopped(): boolean {
    return this.stopped;
  }

  schedule(kind: string, dueAt: number, data: JobData, label = kind): JobRecord {
    if (!this.options.handlers.has(kind)) throw new Error(`No handler registered for job kind '${kind}'`);
    const job: JobRecord = { id: this.options.newId(), seq: this.nextSeq++, dueAt, kind, label, data };
    // Only the heap, O(log n): the persisted table is written when asked for (jobTable). Keeping a plain
    // object keyed by each new job's id in step, an insert and a delete per job, was most of schedule's cost.
    this.queue.push(job);
    this.arm();
    return job;
  }

  /** Removes pending jobs the predicate selects (a cancelled post's publish job, say). */
  cancel(predicate: (job: JobRecord) => boolean): number {
    const removed = this.queue.removeWhere(predicate);
    if (removed > 0) this.arm();
    return removed;
  }

  /** The job that runs next, without sorting the others (the clock view asks on every call). */
  next(): JobRecord | undefined {
    return this.queue.peek();
  }

  /** The next `count` pending jobs, in the order they will run, without sorting the rest. */
  upcoming(count: number): JobRecord[] {
    return this.queue.first(count);
  }

  /**
   * The pending jobs as the workspace persists them, by id, in the order they were scheduled (the
   * order a table kept in step held them in): O(n log n), asked for only when the workspace is
   * written, copied or sized, never on the way of a request.
   */
  jobTable(): Record<string, JobRecord> {
    const table: Record<string, JobRecord> = {};
    for (const job of this.queue.toArray().sort((a, b) => a.seq - b.seq)) table[job.id] = job;
    return table;
  }

  /** Pending jobs in the order they will run. */
  pending(): JobRecord[] {
    return this.queue.toArray().sort((a, b) => a.dueAt - b.dueAt || a.seq - b.seq);
  }

  /**
   * Registers real I/O started on the workspace's behalf (a webhook request). Jobs
   * start such work without awaiting it, so the timer of a running clock is never
   * held up by a slow receiver; `advanceTo` waits for it instead, so what the work
   * schedules when it ends (a retry) runs in the same advance when it falls due.
   */
  track(work: Promise<unknown>): void {
    const settled: Promise<unknown> = work.then(
      () => this.inFlight.delete(settled),
      () => this.inFlight.delete(settled),
    );
    this.inFlight.add(settled);
  }

  /** Whether a real timer is set to fire the next job (a running clock with work pending). */
  get armed(): boolean {
    return this.timer !== undefined;
  }

  /** How many tracked pieces of I/O are still running. */
  get inFlightCount(): number {
    return this.inFlight.size;
  }

  /** Moves the clock to `targetMs`, running everything due on the way, in order, and waiting for tracked I/O. */
  async advanceTo(targetMs: number): Promise<RanJob[]> {
    return (await this.advance(targetMs)).ran;
  }

  /**
   * advanceTo, keeping only the first `listed` jobs' entries and a count of the rest: ten virtual
   * years run 222,849 jobs, and their entries, kept to the end of the move, were a quarter of what
   * the garbage collector had to carry through it (decision 0057).
   */
  advance(targetMs: number, listed = Infinity): Promise<RunReport> {
    return this.exclusive(async () => {
      const report = await this.runUntil(targetMs, true, listed);
      this.options.clock.moveTo(targetMs);
      // runUntil armed the timer for the clock before this move; a running clock needs it re-armed from here.
      this.arm();
      return report;
    });
  }

  /**
   * Runs at once, in order, every job due up to `targetMs`, each at its own instant,
   * and leaves the clock there: a world built after the fact (a workspace first used
   * a while after it was made) catches up on what its timer would have run by now.
   * Synchronous, so the request that built the world is answered from it caught up;
   * a handler's asynchronous part (a webhook request) is tracked, as a timer's would
   * be, not awaited. Only for a scheduler no turn has started on yet.
   */
  catchUp(targetMs: number): RanJob[] {
    const ran: RanJob[] = [];
    for (let job = this.due(targetMs); job && ran.length < MAX_JOBS_PER_RUN; job = this.due(targetMs)) {
      const entry = this.ranEntry(job);
      try {
        const work = this.start(job);
        if (work) this.track(work.catch((error: unknown) => this.options.onJobError(job, error)));
      } catch (error) {
        this.failed(entry, job, error);
      }
      ran.push(entry);
    }
    this.options.clock.moveTo(targetMs);
    this.arm();
    if (ran.length > 0) this.options.onRan?.();
    return ran;
  }

  /** Runs whatever is due now; the running clock's timer calls this. */
  async runDue(): Promise<RanJob[]> {
    return (await this.exclusive(() => this.runUntil(this.options.clock.now()))).ran;
  }

  /** Called when the clock is frozen, resumed or moved: the timer follows the clock. */
  arm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const next = this.queue.peek();
    if (this.stopped || !next || this.options.clock.frozen) return;
    const delay = Math.min(Math.max(0, next.dueAt - this.options.clock.now()), MAX_TIMER_MS);
    this.timer = setTimeout(this.onTimer, delay);
    // A pending job must never keep the process alive on shutdown.
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }


  /** Waits until no tracked I/O runs, including I/O that finishing I/O started. */
  async settle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all(this.inFlight);
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const result = this.turn.then(work, work);
    // The next turn waits for this one's end, not its result: a run's report kept here until then held 74 MB after ten virtual years.
    this.turn = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  private async runUntil(limitMs: number, waitForInFlight = false, listed = Infinity): Promise<RunReport> {
    const ran: RanJob[] = [];
    let total = 0;
    while (total < MAX_JOBS_PER_RUN) {
      // Tracked I/O may schedule work (a retry) that is due before the next job: let it land first.
      if (waitForInFlight && !this.stopped && this.inFlight.size > 0) await this.settle();
      const job = this.due(limitMs);
      if (!job) break;
      const entry = this.ranEntry(job);
      try {
        // A handler that finished synchronously (most: a publishing step) is not awaited: that was two turns of the microtask queue per job.
        const work = this.start(job);
        if (work) await work;
      } catch (error) {
        this.failed(entry, job, error);
      }
      if (total++ < listed) ran.push(entry);
      if (total % JOBS_BETWEEN_YIELDS === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    }
    this.arm();
    if (total > 0) this.options.onRan?.();
    return { ran, total };
  }

  /** The next job if it is due by `limitMs`, taken off the queue. */
  private due(limitMs: number): JobRecord | undefined {
    // A stopped scheduler belongs to a workspace that was deleted or replaced: nothing of it runs any more.
    if (this.stopped) return undefined;
    const job = this.queue.peek();
    if (!job || job.dueAt > limitMs) return undefined;
    this.queue.pop();
    return job;
  }

  /** Moves the clock to the job's instant and runs its handler (which may go on asynchronously). */
  private start(job: JobRecord): void | Promise<void> {
    this.options.clock.moveTo(job.dueAt);
    return this.options.handlers.get(job.kind)?.(this.options.context(), job);
  }

  private ranEntry(job: JobRecord): RanJob {
    return { id: job.id, kind: job.kind, label: job.label, dueAt: this.dueIso.of(job.dueAt), ok: true };
  }

  /** One failing job must not stop the others or the server; it is reported instead. */
  private failed(entry: RanJob, job: JobRecord, error: unknown): void {
    entry.ok = false;
    entry.error = error instanceof Error ? error.message : String(error);
    this.options.onJobError(job, error);
  }
}
