import type { Database, ScenarioSource, WorkspaceBase, WorkspaceData, WorkspaceOrigin } from '../store/database.js';
import type { Journal } from '../journal/journal.js';
import { VirtualClock } from '../clock/virtual-clock.js';
import { ApiError } from '../lib/errors.js';
import { randomHex } from '../lib/credentials.js';
import { drawHex } from '../lib/ids.js';
import { StringMemo } from '../lib/string-memo.js';
import type { KeyScope } from '../store/key-scopes.js';
import { takeSnapshot } from './snapshot.js';
import { Workspace, type WorkspaceRuntime } from './workspace.js';

/** Every key has this prefix, as the reference's keys have a fixed prefix. */
export const API_KEY_PREFIX = 'sgw_';
export const DEFAULT_WORKSPACE_ID = 'ws_default';

/** A scenario to build a workspace from, and the plan, seed, clock and fixtures it asks for. */
export interface ScenarioChoice {
  source: ScenarioSource;
  start: Partial<WorkspaceBase>;
}

/**
 * A key the server makes (a created or forked workspace's, a minted one): 128 random bits,
 * never drawn from the seed, which anyone may know (decision 0025). Stored with the
 * workspace, so it survives a restart with --data; the default workspace's is --api-key.
 */
function newApiKey(): string {
  return `${API_KEY_PREFIX}test_${randomHex(32)}`;
}

/** A workspace's start without its scenario (older data files lack `base`: then the start itself). */
export function baseOf(origin: WorkspaceBase & Pick<WorkspaceOrigin, 'base'>): WorkspaceBase {
  const { plan, seed, clockStartMs, clockFrozen, fixtures, pending } = origin.base ?? origin;
  return { plan, seed, clockStartMs, clockFrozen, fixtures, ...(pending !== undefined && { pending }) };
}

export interface RegistryOptions {
  database: Database;
  runtime: WorkspaceRuntime;
  /** Server seed: decides the ids (never the keys) of workspaces made from the control plane. */
  seed: number;
  defaultApiKey: string;
  /** How workspaces are made unless told otherwise (their seed comes from the server seed). */
  defaults: Omit<WorkspaceBase, 'seed'>;
  /** The default workspace's own start over the defaults (--plan, --scenario, …). */
  defaultWorkspace?: { explicit?: Partial<WorkspaceBase>; scenario?: ScenarioChoice };
  /** Fills a new or reset workspace with the fixture world. */
  populate: (workspace: Workspace) => void;
  /** Picks up what a workspace loaded from the database or restored from a snapshot had in flight. */
  resume?: (workspace: Workspace) => void;
  /** Applies a scenario's world, rules and timeline to a freshly populated workspace; throws when it cannot. */
  applyScenario?: (workspace: Workspace, source: ScenarioSource) => void;
  /**
   * Releases what the server holds for a workspace outside it (its open event streams)
   * once the workspace is deleted or evicted (built or not). The registry calls it; nothing else does.
   */
  release?: (workspace: Pick<Workspace, 'id'>) => void;
  /**
   * Ends what the server holds for a workspace under a key it no longer has (the event streams
   * opened with it) once a key is revoked or the world restored. The registry calls it.
   */
  keysChanged?: (workspace: Pick<Workspace, 'id' | 'data'>) => void;
  /**
   * Evict workspaces (never the default one) idle longer than this, in wall milliseconds
   * of `runtime.realTime` (--workspace-ttl). Off when left out.
   */
  workspaceTtlMs?: number;
  /** At most this many workspaces, the default one included (--max-workspaces). No limit when left out. */
  maxWorkspaces?: number;
  /** At the limit: refuse a new workspace with 503 (the default), or evict the longest idle one. */
  onMaxWorkspaces?: MaxWorkspacesPolicy;
}

export const MAX_WORKSPACES_POLICIES = ['refuse', 'evict'] as const;

/**
 * How long a workspace must have been idle before a creation may evict it to make room
 * (--on-max-workspaces evict): 5 minutes, or --workspace-ttl when that is shorter. Anyone
 * may create a workspace on a shared server, so without a floor two creations would end a
 * stranger's workspace between two of its requests (decision 0045).
 */
export const EVICTION_FLOOR_MS = 5 * 60_000;
export type MaxWorkspacesPolicy = (typeof MAX_WORKSPACES_POLICIES)[number];

/** How often idle workspaces are looked for: often enough for a short TTL, at most once a minute. */
export function sweepIntervalMs(ttlMs: number): number {
  return Math.min(60_000, Math.max(1_000, Math.floor(ttlMs / 2)));
}

/** When a workspace was last used: wall time (what idleness and eviction are measured in) and its own clock. */
interface LastUse {
  wallMs: number;
  virtualMs: number;
}

/**
 * A workspace made with the fixture world and not used yet (docs/decisions/0018): its
 * data holds its identity, keys, plan, seed and origin, and no world; its clock runs
 * from its creation. The registry builds the world into it on first use, as eager
 * creation would have built it, and replaces it with the Workspace.
 */
class UnbuiltWorkspace {
  constructor(
    readonly data: WorkspaceData,
    readonly clock: VirtualClock,
  ) {}

  get id(): string {
    return this.data.id;
  }
}

/** A workspace as the registry holds it: built, or still waiting for its first use. */
type Held = Workspace | UnbuiltWorkspace;

/**
 * What can be read of a workspace without building its world: what the list, a delete
 * and the answer of a creation show. An unbuilt workspace shows the jobs its world will
 * start with (the answers are those of a built one), and holds no timer.
 */
export interface WorkspaceFacts {
  /** Identity, keys, plan, seed and origin; an unbuilt workspace's stores are still empty. */
  data: Readonly<WorkspaceData>;
  /** The workspace with its world, once built (first used). */
  workspace: Workspace | undefined;
  nowMs: number;
  frozen: boolean;
  pendingJobs: number;
  nextDueAtMs: number | null;
  /** A real timer is set to fire its next job. */
  timerArmed: boolean;
  deliveriesInFlight: number;
}

/** What `WorkspaceRegistry.facts` reads of a built workspace. */
export function workspaceFacts(workspace: Workspace): WorkspaceFacts {
  const { scheduler } = workspace;
  const { nowMs, frozen } = workspace.clock.state();
  return { data: workspace.data, workspace, nowMs, frozen, pendingJobs: scheduler.size, nextDueAtMs: scheduler.next()?.dueAt ?? null, timerArmed: scheduler.armed, deliveriesInFlight: scheduler.inFlightCount };
}

/** The jobs a fresh fixture world starts with: how many, and when the first falls due. */
interface StartingJobs {
  count: number;
  nextDueAtMs: number | null;
}

/** How many creation instants' starting jobs are remembered (every workspace made without `clock.start` shares one). */
const STARTING_JOBS_KEPT = 16;

/**
 * All workspaces of the server, found by id or by any of their keys. The data lives
 * in the database; a Workspace object adds the runtime (clock, scheduler, faker).
 * A workspace made with the fixture world gets its world on first use: every way to a
 * Workspace (`byApiKey`, `get`, `defaultWorkspace`) builds it, and nothing else does.
 */
export class WorkspaceRegistry {
  private readonly byId = new Map<string, Held>();
  /** Each key's workspace id. */
  private readonly byKey = new Map<string, string>();
  /** The jobs a fresh fixture world starts with, by creation instant and `pending`: what an unbuilt workspace shows. */
  private readonly startingJobs = new StringMemo<StartingJobs>(STARTING_JOBS_KEPT);
  /** Kept beside the data, never in it: a read must not make --data write the file. */
  private readonly lastUse = new Map<string, LastUse>();
  /**
   * How many requests each workspace is answering now: a workspace in use is never idle. A
   * workspace's count stays at 0 between requests rather than leaving the map, which goes only
   * with the workspace: an entry added and deleted on every request made the map rebuild its
   * table over and over (in a profile of the mixed workload, 1.5% of the samples were there;
   * a connections list gained 6 to 7% in turns).
   */
  private readonly busy = new Map<string, number>();
  /** The real timer of the idle sweep (with --workspace-ttl). */
  private sweeper: NodeJS.Timeout | undefined;

  constructor(private readonly options: RegistryOptions) {
    for (const data of Object.values(options.database.data.workspaces)) {
      if (data.unbuilt) {
        this.hold(new UnbuiltWorkspace(data, new VirtualClock(data.clock, options.runtime.realTime)));
        continue;
      }
      const workspace = this.install(data);
      options.resume?.(workspace);
    }
    const chosen = options.defaultWorkspace ?? {};
    const defaultStart = this.startFrom({ ...options.defaults, seed: options.seed, ...chosen.explicit }, chosen.explicit ?? {}, chosen.scenario);
    const existing = this.get(DEFAULT_WORKSPACE_ID);
    if (!existing) {
      this.createWith(DEFAULT_WORKSPACE_ID, { apiKeys: [options.defaultApiKey] }, defaultStart);
    } else if (chosen.scenario && existing.data.origin?.scenario?.yaml !== chosen.scenario.source.yaml) {
      // --scenario on a reloaded data file: the same scenario keeps the saved world; another one starts it afresh.
      this.reset(existing, defaultStart);
    }
    // --api-key on a reloaded data file: the default workspace answers to the key asked for.
    const defaultWorkspace = this.defaultWorkspace;
    if (!defaultWorkspace.data.apiKeys.includes(options.defaultApiKey)) {
      defaultWorkspace.data.apiKeys.unshift(options.defaultApiKey);
      this.byKey.set(options.defaultApiKey, DEFAULT_WORKSPACE_ID);
      defaultWorkspace.changed();
    }
    // An unbuilt workspace is written as it is (its world is built at its creation instant whenever it is first used).
    options.database.onBeforeWrite(() => {
      for (const held of this.byId.values()) held.data.clock = held.clock.state();
    });
    if (options.workspaceTtlMs !== undefined) {
      const sweep = () => this.evictIdle();
      // A timer has nobody above it: its failure stops at the server's containment (decision 0041).
      this.sweeper = setInterval(options.runtime.containment.guard('timer', sweep), sweepIntervalMs(options.workspaceTtlMs));
      // The sweep never keeps the process alive.
      this.sweeper.unref();
    }
  }

  get defaultWorkspace(): Workspace {
    const workspace = this.get(DEFAULT_WORKSPACE_ID);
    if (!workspace) throw new Error('The default workspace is missing');
    return workspace;
  }

  /**
   * The workspace of a key, built. One idle past --workspace-ttl is evicted on the spot,
   * so a key stops working at its TTL exactly, whenever the sweep comes by.
   */
  byApiKey(key: string): Workspace | undefined {
    const id = this.byKey.get(key);
    if (id !== undefined && this.expired(id)) {
      this.delete(id);
      return undefined;
    }
    return id === undefined ? undefined : this.get(id);
  }

  /** The workspace with this id, built: the first use of one made with the fixture world builds it. */
  get(id: string): Workspace | undefined {
    const held = this.byId.get(id);
    if (held === undefined || held instanceof Workspace) return held;
    return this.build(held);
  }

  /** How many workspaces there are, the default one included. */
  get size(): number {
    return this.byId.size;
  }

  /**
   * Every workspace, built: one not used yet gets its world here. For tests and tools
   * that look into worlds; the server's own paths read `ids()`, `facts()` or `used()`,
   * which build nothing.
   */
  all(): Workspace[] {
    return this.ids().flatMap((id) => this.get(id) ?? []);
  }

  /** Every workspace's id, the default first. */
  ids(): string[] {
    return [...this.byId.keys()];
  }

  /** The workspaces that have been used, and so have a world: the only ones that can hold what a request made. */
  used(): Workspace[] {
    return [...this.byId.values()].filter((held) => held instanceof Workspace);
  }

  /** What can be read of a workspace without building its world (undefined when there is none by that id). */
  facts(id: string): WorkspaceFacts | undefined {
    const held = this.byId.get(id);
    if (held === undefined) return undefined;
    if (held instanceof Workspace) return workspaceFacts(held);
    const { nowMs, frozen } = held.clock.state();
    const jobs = this.startingJobsOf(held.data);
    return { data: held.data, workspace: undefined, nowMs, frozen, pendingJobs: jobs.count, nextDueAtMs: jobs.nextDueAtMs, timerArmed: false, deliveriesInFlight: 0 };
  }

  /**
   * Notes that a request began using the workspace (authentication calls it, and calls
   * what it returns once the request's answer ends): what `GET /__control/workspaces`
   * shows as last used. Until then the workspace is in use: neither --workspace-ttl nor
   * --on-max-workspaces evict picks it, and its idle time starts again when the answer
   * ends, so a long request (an advance waiting on slow webhook receivers) is not idleness.
   * The virtual time shown stays the request's arrival.
   */
  use(workspace: Pick<Held, 'id' | 'clock'>): () => void {
    const { id } = workspace;
    this.touch(workspace);
    this.busy.set(id, (this.busy.get(id) ?? 0) + 1);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const count = this.busy.get(id);
      // Deleted meanwhile: nothing of it is kept, and nothing is put back.
      if (count === undefined) return;
      this.busy.set(id, count - 1);
      if (count > 1) return;
      const last = this.lastUse.get(id);
      if (last) last.wallMs = this.options.runtime.realTime();
    };
  }

  /** Whether a request is answering in the workspace now. */
  private isBusy(id: string): boolean {
    return (this.busy.get(id) ?? 0) > 0;
  }

  /** Notes a use of the workspace now (its creation): what `GET /__control/workspaces` shows as last used. */
  touch(workspace: Pick<Held, 'id' | 'clock'>): void {
    this.lastUse.set(workspace.id, { wallMs: this.options.runtime.realTime(), virtualMs: workspace.clock.now() });
  }

  /** When the workspace was last used (its creation, when never since). */
  lastUsed(id: string): LastUse {
    return this.lastUse.get(id) ?? { wallMs: this.options.runtime.realTime(), virtualMs: this.byId.get(id)?.clock.now() ?? Number.NaN };
  }

  /** Wall milliseconds since the workspace was last used. */
  idleMs(id: string): number {
    return Math.max(0, this.options.runtime.realTime() - this.lastUsed(id).wallMs);
  }

  /**
   * About how much the workspace holds: the length of its data as JSON (a snapshot's
   * size). An unbuilt workspace holds only its identity and keys, and weighs that.
   */
  sizeOf(id: string): number {
    const held = this.byId.get(id);
    // The running clock read, not written back: listing changes nothing.
    return held === undefined ? 0 : JSON.stringify({ ...held.data, clock: held.clock.state() }).length;
  }

  /**
   * Deletes a workspace (never the default one): its keys answer 401 from now on, its
   * scheduler stops (no job fires, no webhook retry is sent), its open event streams
   * close, and the registry and the database forget it (with --data, it leaves the file).
   * A webhook request already on the wire is not called back. An unbuilt workspace is
   * deleted without building its world.
   */
  delete(id: string): void {
    if (id === DEFAULT_WORKSPACE_ID) throw new Error('The default workspace cannot be deleted');
    const held = this.byId.get(id);
    if (held === undefined) return;
    this.detach(held);
    this.lastUse.delete(id);
    this.busy.delete(id);
    this.options.release?.(held);
    this.options.database.markDirty();
  }

  /**
   * Evicts every workspace (never the default one) idle longer than --workspace-ttl, as
   * `delete` does; answers their ids. The sweep's timer calls it; tests call it after
   * moving the injected wall clock.
   */
  evictIdle(): string[] {
    const evicted: string[] = [];
    for (const id of [...this.byId.keys()]) {
      if (!this.expired(id)) continue;
      this.delete(id);
      evicted.push(id);
    }
    return evicted;
  }

  /** Whether this build has a handler for a job kind (a restored snapshot may name others). */
  canRun(jobKind: string): boolean {
    return this.options.runtime.jobHandlers.has(jobKind);
  }

  /**
   * A fresh, isolated world with its own key: what a parallel test worker asks for.
   * Its start: the server's defaults, then the scenario's choices, then `explicit`.
   * Without a scenario its world is built on first use (decision 0018): making one
   * costs its identity and keys. A scenario is applied at once, since a scenario that
   * does not fit the world must be refused now, naming its line.
   */
  create(explicit: Partial<WorkspaceBase> = {}, scenario?: ScenarioChoice): WorkspaceFacts {
    this.admit();
    const db = this.options.database.data;
    const { n, id, key } = this.nextIdentity();
    const start = this.startFrom({ ...this.options.defaults, seed: this.options.seed + n, ...explicit }, explicit, scenario);
    if (!start.scenario) {
      this.hold(new UnbuiltWorkspace({ ...this.startingData(id, { apiKeys: [key] }, start), unbuilt: true }, new VirtualClock({ nowMs: start.clockStartMs, frozen: start.clockFrozen }, this.options.runtime.realTime)));
      this.options.database.markDirty();
      return this.factsOf(id);
    }
    try {
      return this.factsOf(this.createWith(id, { apiKeys: [key] }, start).id);
    } catch (error) {
      // A workspace that could not be made leaves no trace, so the next one gets the same id it would have had.
      db.workspaceCounter--;
      throw error;
    }
  }

  /**
   * A new workspace holding a copy of `source`'s whole world as it stands (every store,
   * pending jobs, clock, scenario and its counters, run-time rules), with its own id and
   * one full key: for tests that share an expensive setup. From then on the two are
   * independent. Its journal starts empty; its origin is the source's, so a reset brings
   * it back to where the source started, not to the fork.
   */
  fork(source: Workspace): WorkspaceFacts {
    this.admit();
    const { id, key } = this.nextIdentity();
    // The snapshot machinery's copy: the running clock read, nothing of the source touched.
    const { keyScopes: _scopes, ...world } = takeSnapshot(source).workspace;
    const data: WorkspaceData = { ...world, id, apiKeys: [key], createdAt: new Date(world.clock.nowMs).toISOString() };
    const workspace = this.install(data);
    this.options.resume?.(workspace);
    workspace.changed();
    return this.factsOf(id);
  }

  /** Mints another key for the workspace; it shares the workspace's one budget. */
  addApiKey(workspace: Workspace, scope: KeyScope = 'full'): string {
    // A minted key keeps the place in the server's count it had when keys were drawn from the seed: workspaces made after it keep their ids.
    this.options.database.data.workspaceCounter++;
    const key = newApiKey();
    workspace.data.apiKeys.push(key);
    // Only the keys that are not full are listed, so data files from before scopes read as they were.
    if (scope !== 'full') workspace.data.keyScopes = { ...workspace.data.keyScopes, [key]: scope };
    this.byKey.set(key, workspace.id);
    workspace.changed();
    return key;
  }

  /** The key the server was started with (--api-key): the banner, the ready file and `run`'s environment name it. */
  isDefaultApiKey(key: string): boolean {
    return key === this.options.defaultApiKey;
  }

  /** Forgets one of the workspace's keys: from now on it is a key no workspace has (401). */
  revokeApiKey(workspace: Workspace, key: string): void {
    workspace.data.apiKeys = workspace.data.apiKeys.filter((candidate) => candidate !== key);
    if (workspace.data.keyScopes?.[key] !== undefined) {
      const { [key]: _revoked, ...rest } = workspace.data.keyScopes;
      workspace.data.keyScopes = rest;
    }
    this.byKey.delete(key);
    workspace.changed();
    this.options.keysChanged?.(workspace);
  }

  /**
   * Starts the workspace afresh from a scenario, built on its start without any earlier
   * scenario. Left as it was when the scenario does not apply.
   */
  loadScenario(workspace: Workspace, scenario: ScenarioChoice): Workspace {
    const base = baseOf(this.originOf(workspace));
    return this.reset(workspace, this.startFrom(base, {}, scenario));
  }

  /** Where a workspace starts from (older data files lack it: the defaults, with its plan and seed). */
  originOf(workspace: Workspace): WorkspaceOrigin {
    return workspace.data.origin ?? { ...this.options.defaults, plan: workspace.data.plan, seed: workspace.data.seed, scenario: null };
  }

  /**
   * Brings a world back to its start (its origin, or a new start): data, jobs, clock
   * and journal; its id and keys stay. When the start cannot be built (a scenario that
   * does not apply), the world is left exactly as it was.
   */
  reset(workspace: Workspace, start: WorkspaceOrigin = this.originOf(workspace)): Workspace {
    const previous = this.settle(workspace);
    this.detach(workspace);
    try {
      return this.createWith(previous.id, { apiKeys: previous.apiKeys, ...(previous.keyScopes && { keyScopes: previous.keyScopes }) }, start);
    } catch (error) {
      this.install(previous, workspace.journal);
      throw error;
    }
  }

  /**
   * Replaces a world's data with a snapshot's (already checked) and rebuilds its
   * runtime from it: clock, scheduler jobs, faker. Its id and keys stay, so a snapshot
   * of one workspace can seed another; the journal carries on. The keys keep their
   * scopes: a snapshot never grants or takes away what a key may do.
   */
  restore(workspace: Workspace, snapshot: WorkspaceData): Workspace {
    const { keyScopes: _theirs, ...world } = structuredClone(snapshot);
    const keyScopes = workspace.data.keyScopes;
    const data: WorkspaceData = { ...world, id: workspace.id, apiKeys: [...workspace.data.apiKeys], ...(keyScopes && { keyScopes: { ...keyScopes } }) };
    this.detach(workspace);
    const restored = this.install(data, workspace.journal);
    this.options.resume?.(restored);
    this.options.keysChanged?.(restored);
    return restored;
  }

  /** The workspace's data with the clock brought up to date, as a snapshot or a write sees it. */
  settle(workspace: Workspace): WorkspaceData {
    workspace.data.clock = workspace.clock.state();
    return workspace.data;
  }

  stopAll(): void {
    clearInterval(this.sweeper);
    this.sweeper = undefined;
    for (const workspace of this.used()) workspace.dispose();
  }

  /**
   * Waits for the real I/O every workspace has in flight (webhook attempts) to end,
   * for at most `timeoutMs`. Shutdown calls it so that what a receiver answered is
   * recorded (and, with --data, written) before exit.
   */
  async settleAll(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    });
    try {
      await Promise.race([Promise.all(this.used().map((workspace) => workspace.scheduler.settle())), timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Whether the workspace has been idle longer than --workspace-ttl (the default workspace never is). */
  private expired(id: string): boolean {
    const ttl = this.options.workspaceTtlMs;
    return ttl !== undefined && id !== DEFAULT_WORKSPACE_ID && !this.isBusy(id) && this.idleMs(id) > ttl;
  }

  /** Whether --max-workspaces bounds how many workspaces this server holds. */
  get bounded(): boolean {
    return this.options.maxWorkspaces !== undefined;
  }

  /** How long a workspace must have been idle before a creation may evict it: EVICTION_FLOOR_MS, or --workspace-ttl when shorter. */
  get evictionFloorMs(): number {
    return Math.min(EVICTION_FLOOR_MS, this.options.workspaceTtlMs ?? EVICTION_FLOOR_MS);
  }

  /**
   * Makes room for one more workspace under --max-workspaces: idle ones past their TTL go
   * first; then, at the limit, the longest idle is evicted (--on-max-workspaces evict) when
   * it has been idle at least the eviction floor, or the new one is refused with 503
   * WORKSPACE_LIMIT_REACHED.
   */
  private admit(): void {
    const max = this.options.maxWorkspaces;
    if (max === undefined) return;
    if (this.byId.size >= max) this.evictIdle();
    while (this.byId.size >= max) {
      const evicting = this.options.onMaxWorkspaces === 'evict';
      const idlest = evicting ? this.longestIdle() : undefined;
      if (!idlest) {
        const floor = evicting ? ` None has been idle ${this.evictionFloorMs} ms, which eviction asks.` : '';
        throw new ApiError(503, 'WORKSPACE_LIMIT_REACHED', `This server holds at most ${max} workspaces (--max-workspaces ${max}, the default one included); delete one (DELETE /__control/workspaces/{id}) before creating another.${floor}`, {
          details: { maxWorkspaces: max, workspaces: this.byId.size },
        });
      }
      this.delete(idlest);
    }
  }

  /**
   * The id of the workspace used longest ago, if it has been idle at least the eviction floor;
   * the default one and those answering a request left out.
   */
  private longestIdle(): string | undefined {
    let idlest: string | undefined;
    for (const id of this.byId.keys()) {
      if (id === DEFAULT_WORKSPACE_ID || this.isBusy(id)) continue;
      if (idlest === undefined || this.lastUsed(id).wallMs < this.lastUsed(idlest).wallMs) idlest = id;
    }
    return idlest !== undefined && this.idleMs(idlest) >= this.evictionFloorMs ? idlest : undefined;
  }

  /** The id (from the server seed) and first key (random) of the next workspace made from the control plane. */
  private nextIdentity(): { n: number; id: string; key: string } {
    const n = ++this.options.database.data.workspaceCounter;
    return { n, id: `ws_${drawHex(this.options.seed, 'workspace', n).slice(0, 12)}`, key: newApiKey() };
  }

  /** The start of a workspace: its base, the scenario's choices over it, and what was asked explicitly over those. */
  private startFrom(base: WorkspaceBase, explicit: Partial<WorkspaceBase>, scenario: ScenarioChoice | undefined): WorkspaceOrigin {
    const plain = baseOf(base);
    if (!scenario) return { ...plain, scenario: null };
    return { ...plain, ...scenario.start, ...explicit, scenario: scenario.source, base: plain };
  }

  /** A new workspace's data before anything is built into it. */
  private startingData(id: string, keys: Pick<WorkspaceData, 'apiKeys' | 'keyScopes'>, spec: WorkspaceOrigin): WorkspaceData {
    return {
      id,
      plan: spec.plan,
      seed: spec.seed,
      ...keys,
      createdAt: new Date(spec.clockStartMs).toISOString(),
      clock: { nowMs: spec.clockStartMs, frozen: spec.clockFrozen },
      idCounter: 0,
      jobs: {},
      stores: {},
      origin: structuredClone(spec),
    };
  }

  private createWith(id: string, keys: Pick<WorkspaceData, 'apiKeys' | 'keyScopes'>, spec: WorkspaceOrigin): Workspace {
    const workspace = this.install(this.startingData(id, keys, spec));
    try {
      if (spec.fixtures) this.options.populate(workspace);
      if (spec.scenario) {
        if (!this.options.applyScenario) throw new Error('This registry cannot apply scenarios');
        this.options.applyScenario(workspace, spec.scenario);
      }
    } catch (error) {
      this.detach(workspace);
      throw error;
    }
    workspace.changed();
    return workspace;
  }

  /**
   * The first use of a workspace made with the fixture world: its world is built as
   * eager creation would have built it. The fixture world is built with its clock
   * pinned at its creation instant (every id and fake value comes from its seed, id and
   * id position, and nothing drew from them before), then what fell due since is run in
   * order, each job at its own instant, as its timer would have, before anyone reads
   * the world; then its clock carries on from where it stands.
   */
  private build(unbuilt: UnbuiltWorkspace): Workspace {
    const { data } = unbuilt;
    const now = unbuilt.clock.state();
    delete data.unbuilt;
    data.clock = { nowMs: Date.parse(data.createdAt), frozen: true };
    const workspace = this.install(data);
    if (data.origin?.fixtures) this.options.populate(workspace);
    workspace.scheduler.catchUp(now.nowMs);
    if (!now.frozen) {
      workspace.clock.resume();
      workspace.scheduler.arm();
    }
    workspace.changed();
    return workspace;
  }

  /** What `facts` reads, for a workspace known to exist. */
  private factsOf(id: string): WorkspaceFacts {
    const facts = this.facts(id);
    if (!facts) throw new Error(`Workspace ${id} is missing`);
    return facts;
  }

  /**
   * The jobs the fixture world of an unbuilt workspace will start with. They follow from
   * the fixture file, the creation instant and `pending` alone (never from the seed or the
   * id: a test holds this), so one world built aside per creation instant and `pending`
   * answers for every workspace made so, and the answer of a creation is that of an eager one.
   */
  private startingJobsOf(data: WorkspaceData): StartingJobs {
    const atMs = Date.parse(data.createdAt);
    if (!data.origin?.fixtures) return { count: 0, nextDueAtMs: null };
    const key = `${atMs} ${data.origin.pending ?? true}`;
    const known = this.startingJobs.get(key);
    if (known) return known;
    const probe = new Workspace({ ...this.startingData('ws_probe', { apiKeys: [] }, { ...data.origin, clockStartMs: atMs }), clock: { nowMs: atMs, frozen: true } }, this.options.runtime);
    this.options.populate(probe);
    const jobs = { count: probe.scheduler.size, nextDueAtMs: probe.scheduler.next()?.dueAt ?? null };
    probe.dispose();
    return this.startingJobs.set(key, jobs);
  }

  private install(data: WorkspaceData, journal?: Journal): Workspace {
    const workspace = new Workspace(data, this.options.runtime, journal);
    this.hold(workspace);
    workspace.scheduler.arm();
    return workspace;
  }

  /** Files a workspace under its id and keys, and in the database. */
  private hold(held: Held): void {
    this.options.database.data.workspaces[held.id] = held.data;
    this.byId.set(held.id, held);
    if (!this.lastUse.has(held.id)) this.touch(held);
    for (const key of held.data.apiKeys) this.byKey.set(key, held.id);
  }

  private detach(held: Held): void {
    if (held instanceof Workspace) held.dispose();
    this.byId.delete(held.id);
    for (const key of held.data.apiKeys) this.byKey.delete(key);
    delete this.options.database.data.workspaces[held.id];
  }
}
