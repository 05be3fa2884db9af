import { statSync } from 'node:fs';
import { Low, Memory } from 'lowdb';
import { collectGarbage } from '../lib/collect-garbage.js';
import { InputFileError, parseInputJson, readInputText } from '../lib/input-file.js';
import { MAX_STORED_DEPTH } from '../lib/nesting.js';
import { DataWriteError, DurableJsonFile } from './durable-file.js';
import type { ClockState } from '../clock/virtual-clock.js';
import type { JobRecord } from '../clock/scheduler.js';
import type { KeyScope } from './key-scopes.js';
import type { PlanName } from './plans.js';

/** Marks a file as ours, so a foreign JSON file is refused instead of overwritten. */
export const DATA_FORMAT = 'social-gateway-mock';
export const DATA_VERSION = 1;

/** Everything one workspace (one world) keeps. Each API area's state lives under `stores`. */
export interface WorkspaceData {
  id: string;
  plan: PlanName;
  seed: number;
  /** Keys that resolve to this workspace; all share its request budget. */
  apiKeys: string[];
  /** The scope of each key that is not a full key (a `read` key); absent in older data files: all full. */
  keyScopes?: Record<string, KeyScope>;
  createdAt: string;
  clock: ClockState;
  /** Position of the workspace's id stream, so ids stay unique after a reload. */
  idCounter: number;
  /** Due work of the scheduler, by job id. */
  jobs: Record<string, JobRecord>;
  /** Per-area state, created on first use by `defineStore`. */
  stores: Record<string, unknown>;
  /** How the workspace was made, so a reset brings it back to that start (absent in older data files). */
  origin?: WorkspaceOrigin;
  /**
   * Made with the fixture world and not used yet: the world is built on first use, as
   * it would have been at `createdAt` (docs/decisions/0018). Absent once built.
   */
  unbuilt?: true;
}

/** A scenario as it was given: kept whole so a reset or a restart can apply it again. */
export interface ScenarioSource {
  /** The scenario's name (its file name without `.yaml`, or its `name` field). */
  name: string;
  /** Where it came from, for error messages: a path, or `<inline>`. */
  file: string;
  yaml: string;
}

/** How a workspace is built, before any scenario. */
export interface WorkspaceBase {
  plan: PlanName;
  seed: number;
  clockStartMs: number;
  clockFrozen: boolean;
  /** Whether the fixture world is loaded. */
  fixtures: boolean;
  /**
   * false: the fixture world is built without work of its own to do (decision 0035). Left
   * out, as in data files written before it, the world has its pending work.
   */
  pending?: boolean;
}

/** What a workspace starts from: the world a reset returns to. */
export interface WorkspaceOrigin extends WorkspaceBase {
  /** The scenario applied on top of it, if any (its plan, seed, clock and fixtures are already in the fields above). */
  scenario: ScenarioSource | null;
  /** The start without the scenario: another scenario loaded later builds on this, not on the first one's choices. */
  base?: WorkspaceBase;
}

export interface DatabaseShape {
  format: typeof DATA_FORMAT;
  version: typeof DATA_VERSION;
  /** Counts workspaces ever created, so control-made workspace ids repeat for the same seed. */
  workspaceCounter: number;
  workspaces: Record<string, WorkspaceData>;
}

/**
 * Loading a data file leaves its whole text (as large as the file) and the parser's
 * leftovers on the heap until V8's next full collection, which a quiet mock may
 * not reach for a long time: with 100k posts the mock held 370 MB right after
 * start, 250 MB once collected. From this size on, the load is collected at once
 * (about a tenth of a second per 50 MB of file, paid once at start).
 */
const COLLECT_AFTER_LOADING_BYTES = 32 * 1024 * 1024;

/** The largest data file read: about the longest string Node makes (2^29 characters), which JSON.parse needs whole. */
export const MAX_DATA_FILE_BYTES = 512 * 1024 * 1024;

/** A workspace sits one level deeper in the file (`workspaces.<id>`) than in a snapshot to restore (`workspace`, MAX_STORED_DEPTH). */
const DATA_FILE_DEPTH = MAX_STORED_DEPTH + 1;

export class DataFileError extends Error {
  override name = 'DataFileError';
}

function emptyData(): DatabaseShape {
  return { format: DATA_FORMAT, version: DATA_VERSION, workspaceCounter: 0, workspaces: {} };
}

/**
 * lowdb behind its adapter: Memory by default (a fresh, known world every start),
 * a durable JSON file with --data (durable-file.ts: a temporary file, fsync, rename,
 * so a crash leaves the old file or the new one, never half of one). Writes are
 * grouped: every change made before a write starts goes out in it, and while a write
 * is running at most one more waits behind it, taking every change made meanwhile. (Each write serialises the whole file: with 100k posts that is
 * about a second, so a queue of one write per change would grow without end under load.)
 */
export class Database {
  /** Changes not yet taken by a write. */
  private dirty = false;
  private tickScheduled = false;
  /** The write in progress, and the one waiting behind it. */
  private running: Promise<void> | undefined;
  private waiting: Promise<void> | undefined;
  private readonly beforeWrite: Array<() => void> = [];
  private readonly writeNow = (): Promise<void> => this.write();
  private background: (write: () => Promise<void>) => void = (write) => void write().catch(() => undefined);
  /** Whether the last write failed: said once when writes start failing and once when they work again, not per write. */
  private failing = false;
  /** Set once start-up has written (flushChanges): from then on a failed write is the operator's to hear of. */
  private serving = false;

  private constructor(
    private readonly low: Low<DatabaseShape>,
    readonly file: string | undefined,
  ) {}

  static async open(file?: string): Promise<Database> {
    const low = new Low<DatabaseShape>(file ? new DurableJsonFile<DatabaseShape>(file) : new Memory<DatabaseShape>(), emptyData());
    // Read here rather than by lowdb: a file too large, not UTF-8 or nested too deep is refused
    // before it is parsed or written back, and JSON.parse's message (which quotes the file) is not shown.
    if (file !== undefined && statSync(file, { throwIfNoEntry: false }) !== undefined) {
      try {
        low.data = parseInputJson(readInputText(file, MAX_DATA_FILE_BYTES), file, DATA_FILE_DEPTH) as DatabaseShape;
      } catch (error) {
        const reason = error instanceof InputFileError ? error.problem : error instanceof Error ? error.message : String(error);
        throw new DataFileError(`Cannot read data file ${file}: ${reason}. The file was left untouched; fix or remove it.`);
      }
    }
    const data = low.data as Partial<DatabaseShape> | null;
    if (!data || typeof data !== 'object' || data.format !== DATA_FORMAT) {
      throw new DataFileError(`Data file ${file} is not a social-gateway-mock data file (no "format": "${DATA_FORMAT}"). The file was left untouched.`);
    }
    if (data.version !== DATA_VERSION) {
      throw new DataFileError(`Data file ${file} has version ${String(data.version)}; this build reads version ${DATA_VERSION}. The file was left untouched.`);
    }
    const loadedBytes = file ? (statSync(file, { throwIfNoEntry: false })?.size ?? 0) : 0;
    if (loadedBytes >= COLLECT_AFTER_LOADING_BYTES) collectGarbage();
    return new Database(low, file);
  }

  get data(): DatabaseShape {
    return this.low.data;
  }

  get persistent(): boolean {
    return this.file !== undefined;
  }

  /**
   * How a write with no request waiting on it (a job's change) is started: the server's
   * containment takes its failure (decision 0041). By default a failure is left to the next write.
   */
  writeInBackground(start: (write: () => Promise<void>) => void): void {
    this.background = start;
  }

  /** Registers work that brings runtime state (clocks) into the data before each write. */
  onBeforeWrite(hook: () => void): void {
    this.beforeWrite.push(hook);
  }

  /**
   * Notes a change; with --data a write follows once the current turn of the event
   * loop is over (a job the running clock fired has no request to flush it).
   */
  markDirty(): void {
    if (!this.persistent) return;
    this.dirty = true;
    if (this.tickScheduled) return;
    this.tickScheduled = true;
    setImmediate(() => {
      this.tickScheduled = false;
      // No request waits on this write: a failure is counted, and the next write takes the changes along.
      if (this.dirty) this.background(this.writeNow);
    });
  }

  /**
   * Resolves once everything changed before the call is in the file (synced and
   * renamed into place); rejects with a DataWriteError when the file cannot be
   * written. The responder waits on it before answering a write (and answers 503 when
   * it rejects), and shutdown before exiting (running clocks move even without
   * changes, so it always writes). A failed write leaves the changes in memory: the
   * next write that succeeds takes them along.
   */
  flush(): Promise<void> {
    if (!this.persistent) return Promise.resolve();
    return this.write();
  }

  /**
   * Writes only if something changed since the last write. Start-up calls it: a new
   * file is created at once, and a file loaded unchanged is not rewritten (at 100k
   * posts that rewrite was seconds of start and a second copy of the file in memory).
   */
  async flushChanges(): Promise<void> {
    try {
      if (this.persistent && this.dirty) await this.write();
    } catch (error) {
      // A file that cannot be written stops the start (exit 2), rather than a server that answers 503.
      throw new DataFileError(`Cannot write data file ${this.file}: ${(error as Error).message}.`);
    } finally {
      this.serving = true;
    }
  }

  private write(): Promise<void> {
    // The waiting write serialises the data when it starts, so it takes this change too.
    if (this.waiting) return this.waiting;
    // A failed write before it does not stop this one (it was reported where it failed).
    const write: Promise<void> = (this.running ?? Promise.resolve()).catch(() => undefined).then(async () => {
      this.waiting = undefined;
      this.running = write;
      this.dirty = false;
      try {
        for (const hook of this.beforeWrite) hook();
        await this.low.write();
      } catch (error) {
        // Still unwritten: a background write (a clock's job) retries it at the next change.
        this.dirty = true;
        const failure = error instanceof DataWriteError ? error : new DataWriteError(error instanceof Error ? error.message : String(error));
        if (!this.failing && this.serving) console.error(`social-gateway-mock: cannot write ${this.file}: ${failure.message}. Writes answer 503 until one succeeds.`);
        this.failing = true;
        throw failure;
      } finally {
        if (this.running === write) this.running = undefined;
      }
      if (this.failing) console.error(`social-gateway-mock: ${this.file} is written again; writes are acknowledged again.`);
      this.failing = false;
    });
    this.waiting = write;
    return write;
  }
}
