import type { Database, WorkspaceData } from '../store/database.js';
import { drawHex } from '../lib/ids.js';
import type { PlanName } from './plans.js';
import { Workspace, type WorkspaceRuntime } from './workspace.js';

/** Every key has this prefix, as the reference's keys have a fixed prefix. */
export const API_KEY_PREFIX = 'sgw_';
export const DEFAULT_WORKSPACE_ID = 'ws_default';

export interface NewWorkspace {
  plan: PlanName;
  seed: number;
  /** Virtual time the workspace starts at. */
  clockStartMs: number;
  clockFrozen: boolean;
  /** Whether the fixture world is loaded into it. */
  fixtures: boolean;
}

export interface RegistryOptions {
  database: Database;
  runtime: WorkspaceRuntime;
  /** Server seed: decides the ids and keys of workspaces made from the control plane. */
  seed: number;
  defaultApiKey: string;
  defaults: Omit<NewWorkspace, 'seed'>;
  /** Fills a new or reset workspace with the fixture world. */
  populate: (workspace: Workspace) => void;
}

/**
 * All workspaces of the server, found by id or by any of their keys. The data lives
 * in the database; a Workspace object adds the runtime (clock, scheduler, faker).
 */
export class WorkspaceRegistry {
  private readonly byId = new Map<string, Workspace>();
  private readonly byKey = new Map<string, Workspace>();

  constructor(private readonly options: RegistryOptions) {
    for (const data of Object.values(options.database.data.workspaces)) this.attach(data);
    if (!this.byId.has(DEFAULT_WORKSPACE_ID)) {
      this.createWith(DEFAULT_WORKSPACE_ID, [options.defaultApiKey], { ...options.defaults, seed: options.seed });
    }
    // --api-key on a reloaded data file: the default workspace answers to the key asked for.
    const defaultWorkspace = this.defaultWorkspace;
    if (!defaultWorkspace.data.apiKeys.includes(options.defaultApiKey)) {
      defaultWorkspace.data.apiKeys.unshift(options.defaultApiKey);
      this.byKey.set(options.defaultApiKey, defaultWorkspace);
      defaultWorkspace.changed();
    }
    options.database.onBeforeWrite(() => {
      for (const workspace of this.byId.values()) workspace.data.clock = workspace.clock.state();
    });
  }

  get defaultWorkspace(): Workspace {
    const workspace = this.byId.get(DEFAULT_WORKSPACE_ID);
    if (!workspace) throw new Error('The default workspace is missing');
    return workspace;
  }

  byApiKey(key: string): Workspace | undefined {
    return this.byKey.get(key);
  }

  get(id: string): Workspace | undefined {
    return this.byId.get(id);
  }

  all(): Workspace[] {
    return [...this.byId.values()];
  }

  /** A fresh, isolated world with its own key: what a parallel test worker asks for. */
  create(overrides: Partial<NewWorkspace>): Workspace {
    const db = this.options.database.data;
    const n = ++db.workspaceCounter;
    const hex = drawHex(this.options.seed, 'workspace', n);
    const id = `ws_${hex.slice(0, 12)}`;
    const key = `${API_KEY_PREFIX}test_${hex.slice(12, 44)}`;
    return this.createWith(id, [key], { ...this.options.defaults, seed: this.options.seed + n, ...overrides });
  }

  /** Mints another key for the workspace; it shares the workspace's one budget. */
  addApiKey(workspace: Workspace): string {
    const n = ++this.options.database.data.workspaceCounter;
    const key = `${API_KEY_PREFIX}test_${drawHex(this.options.seed, 'key', n).slice(0, 32)}`;
    workspace.data.apiKeys.push(key);
    this.byKey.set(key, workspace);
    workspace.changed();
    return key;
  }

  /** Clears a world back to its start: data, jobs, clock and journal; its keys stay. */
  reset(workspace: Workspace, overrides: Partial<NewWorkspace> = {}): Workspace {
    const previous = workspace.data;
    this.detach(workspace);
    return this.createWith(previous.id, previous.apiKeys, {
      ...this.options.defaults,
      plan: previous.plan,
      seed: previous.seed,
      ...overrides,
    });
  }

  stopAll(): void {
    for (const workspace of this.byId.values()) workspace.dispose();
  }

  private createWith(id: string, apiKeys: string[], spec: NewWorkspace): Workspace {
    const data: WorkspaceData = {
      id,
      plan: spec.plan,
      seed: spec.seed,
      apiKeys,
      createdAt: new Date(spec.clockStartMs).toISOString(),
      clock: { nowMs: spec.clockStartMs, frozen: spec.clockFrozen },
      idCounter: 0,
      jobs: {},
      stores: {},
    };
    this.options.database.data.workspaces[id] = data;
    const workspace = this.attach(data);
    if (spec.fixtures) this.options.populate(workspace);
    workspace.changed();
    return workspace;
  }

  private attach(data: WorkspaceData): Workspace {
    const workspace = new Workspace(data, this.options.runtime);
    this.byId.set(data.id, workspace);
    for (const key of data.apiKeys) this.byKey.set(key, workspace);
    workspace.scheduler.arm();
    return workspace;
  }

  private detach(workspace: Workspace): void {
    workspace.dispose();
    this.byId.delete(workspace.id);
    for (const key of workspace.data.apiKeys) this.byKey.delete(key);
    delete this.options.database.data.workspaces[workspace.id];
  }
}
