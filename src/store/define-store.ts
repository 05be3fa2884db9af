import type { WorkspaceData } from './database.js';

/** Anything that owns a workspace's data (a Workspace). */
export interface HasWorkspaceData {
  readonly data: WorkspaceData;
}

export interface StoreDefinition<T> {
  readonly name: string;
  /** The area's state in this workspace, created on first use. */
  get(workspace: HasWorkspaceData): T;
  /** The area's state if it exists, without creating it: for read paths that must not change the data. */
  peek(workspace: HasWorkspaceData): T | undefined;
  /** The area's state for reading: the stored one, or a fresh initial state that is not stored. */
  read(workspace: HasWorkspaceData): T;
}

/** Every store's initial state by name: a store that still equals it holds nothing yet. */
export const storeInits = new Map<string, () => object>();

/**
 * Declares one API area's state once (LocalStack's `get_store`): every store is
 * keyed by workspace and created on first use, and resetting a workspace clears
 * them all because they live inside its data.
 */
export function defineStore<T extends object>(name: string, init: () => T): StoreDefinition<T> {
  storeInits.set(name, init);
  return {
    name,
    get(workspace) {
      const stores = workspace.data.stores;
      let store = stores[name] as T | undefined;
      if (store === undefined) {
        store = init();
        stores[name] = store;
      }
      return store;
    },
    peek(workspace) {
      return workspace.data.stores[name] as T | undefined;
    },
    read(workspace) {
      return (workspace.data.stores[name] as T | undefined) ?? init();
    },
  };
}
