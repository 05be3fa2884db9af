import { Low, Memory } from 'lowdb';
import { JSONFile } from 'lowdb/node';
import type { ClockState } from '../clock/virtual-clock.js';
import type { JobRecord } from '../clock/scheduler.js';
import type { PlanName } from '../workspaces/plans.js';

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
  createdAt: string;
  clock: ClockState;
  /** Position of the workspace's id stream, so ids stay unique after a reload. */
  idCounter: number;
  /** Due work of the scheduler, by job id. */
  jobs: Record<string, JobRecord>;
  /** Per-area state, created on first use by `defineStore`. */
  stores: Record<string, unknown>;
}

export interface DatabaseShape {
  format: typeof DATA_FORMAT;
  version: typeof DATA_VERSION;
  /** Counts workspaces ever created, so control-made workspace ids repeat for the same seed. */
  workspaceCounter: number;
  workspaces: Record<string, WorkspaceData>;
}

export class DataFileError extends Error {
  override name = 'DataFileError';
}

function emptyData(): DatabaseShape {
  return { format: DATA_FORMAT, version: DATA_VERSION, workspaceCounter: 0, workspaces: {} };
}

/**
 * lowdb behind its adapter: Memory by default (a fresh, known world every start),
 * the JSON file adapter with --data (steno writes a temporary file and renames it
 * over the data file, so a crash leaves the old file or the new one, never half of
 * one). Writes are grouped: every change made before a write starts goes out in it,
 * so many concurrent requests cost one serialisation, not one each.
 */
export class Database {
  private writeScheduled = false;
  /** The write that has not started yet; changes made until it starts are in it. */
  private queued: Promise<void> | undefined;
  /** The last write queued; the next one starts after it. */
  private tail: Promise<void> = Promise.resolve();
  private readonly beforeWrite: Array<() => void> = [];

  private constructor(
    private readonly low: Low<DatabaseShape>,
    readonly file: string | undefined,
  ) {}

  static async open(file?: string): Promise<Database> {
    const low = new Low<DatabaseShape>(file ? new JSONFile<DatabaseShape>(file) : new Memory<DatabaseShape>(), emptyData());
    try {
      await low.read();
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new DataFileError(`Cannot read data file ${file}: ${reason}. The file was left untouched; fix or remove it.`);
    }
    const data = low.data as Partial<DatabaseShape> | null;
    if (!data || typeof data !== 'object' || data.format !== DATA_FORMAT) {
      throw new DataFileError(`Data file ${file} is not a social-gateway-mock data file (no "format": "${DATA_FORMAT}"). The file was left untouched.`);
    }
    if (data.version !== DATA_VERSION) {
      throw new DataFileError(`Data file ${file} has version ${String(data.version)}; this build reads version ${DATA_VERSION}. The file was left untouched.`);
    }
    return new Database(low, file);
  }

  get data(): DatabaseShape {
    return this.low.data;
  }

  get persistent(): boolean {
    return this.file !== undefined;
  }

  /** Registers work that brings runtime state (clocks) into the data before each write. */
  onBeforeWrite(hook: () => void): void {
    this.beforeWrite.push(hook);
  }

  /**
   * Notes a change made outside a request (a job the running clock fired); with
   * --data a write follows once the current turn of the event loop is over.
   */
  markDirty(): void {
    if (!this.persistent || this.writeScheduled) return;
    this.writeScheduled = true;
    setImmediate(() => {
      this.writeScheduled = false;
      this.flush().catch(() => undefined);
    });
  }

  /**
   * Resolves once everything changed before the call is in the file (renamed into
   * place); rejects when the file cannot be written. The responder waits on it
   * before answering a write, and shutdown before exiting.
   */
  flush(): Promise<void> {
    if (!this.persistent) return Promise.resolve();
    if (this.queued) return this.queued;
    const write = this.tail.then(() => {
      // From here on, a change needs the next write: this one serialises the data now.
      this.queued = undefined;
      for (const hook of this.beforeWrite) hook();
      return this.low.write();
    });
    this.queued = write;
    this.tail = write.catch((error: unknown) => {
      console.error(`social-gateway-mock: could not write ${this.file}: ${error instanceof Error ? error.message : String(error)}`);
    });
    return write;
  }
}
