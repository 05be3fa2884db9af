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
  /** How the workspace was made, so a reset brings it back to that start (absent in older data files). */
  origin?: WorkspaceOrigin;
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

export class DataFileError extends Error {
  override name = 'DataFileError';
}

function emptyData(): DatabaseShape {
  return { format: DATA_FORMAT, version: DATA_VERSION, workspaceCounter: 0, workspaces: {} };
}

/**
 * lowdb behind its adapter: Memory by default (a fresh, known world every start),
 * the JSON file adapter with --data (atomic write-then-rename by steno). Writes are
 * coalesced: many changes in one tick cost one serialisation.
 */
export class Database {
  private writeScheduled = false;
  private writing: Promise<void> = Promise.resolve();
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

  /** Notes a change; with --data a write follows within the same turn of the event loop. */
  markDirty(): void {
    if (!this.persistent || this.writeScheduled) return;
    this.writeScheduled = true;
    setImmediate(() => {
      this.writeScheduled = false;
      void this.write();
    });
  }

  /** Writes now and waits for it; shutdown calls this. */
  async flush(): Promise<void> {
    if (!this.persistent) return;
    this.writeScheduled = false;
    await this.write();
  }

  private write(): Promise<void> {
    for (const hook of this.beforeWrite) hook();
    this.writing = this.writing.then(() => this.low.write()).catch((error: unknown) => {
      console.error(`social-gateway-mock: could not write ${this.file}: ${error instanceof Error ? error.message : String(error)}`);
    });
    return this.writing;
  }
}
