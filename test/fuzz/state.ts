import { storeInits } from '../../src/store/define-store.js';
import type { Workspace } from '../../src/workspaces/workspace.js';

/** True for a store as it is made on first use: it holds nothing yet. */
function fresh(name: string, store: unknown): boolean {
  const init = storeInits.get(name);
  return init !== undefined && JSON.stringify(init()) === JSON.stringify(store);
}

/** The workspace's `data` (what --data persists: records, id counter, jobs, plan, keys) as JSON. */
export function snapshot(workspace: Workspace): string {
  return JSON.stringify(workspace.data);
}

/**
 * A snapshot with what may change on a refused request taken out:
 *  - with an Idempotency-Key, the idempotency store: a keyed 4xx is remembered on
 *    purpose, so that a retry gets the same answer, and a keyed request prunes the
 *    entries older than 24 virtual hours;
 *  - stores as they are first made (each store's own initial state): a store is
 *    created on first use, and reading one that holds nothing is not a change.
 */
function normalized(json: string, idempotencyKey: string | undefined): string {
  const data = JSON.parse(json) as { stores: Record<string, unknown> };
  if (idempotencyKey !== undefined) delete data.stores.idempotency;
  for (const [name, store] of Object.entries(data.stores)) if (fresh(name, store)) delete data.stores[name];
  return JSON.stringify(data);
}

/**
 * Whether the workspace is where `before` left it: byte for byte, or else equal once
 * the two allowed differences are taken out (see `normalized`). Not in `data`, so
 * never compared: the journal, the request-budget windows, the clock's running
 * anchor (frozen in the fuzz), the faker's position. Answers the first difference.
 */
export function unchangedSince(before: string, workspace: Workspace, idempotencyKey?: string): { same: true } | { same: false; before: string; after: string } {
  const after = snapshot(workspace);
  if (after === before) return { same: true };
  const [a, b] = [normalized(before, idempotencyKey), normalized(after, idempotencyKey)];
  if (a === b) return { same: true };
  let at = 0;
  while (at < a.length && a[at] === b[at]) at++;
  return { same: false, before: a.slice(Math.max(0, at - 200), at + 200), after: b.slice(Math.max(0, at - 200), at + 200) };
}

/**
 * Ids the workspace holds, for requests to aim at real records: every string under
 * a key named `id` or `…Id` in its stores, in document order (deterministic). Read
 * from the data, so areas that arrive later are covered without naming them.
 */
export function idsOf(workspace: Workspace): string[] {
  return idsIn(workspace.data.stores);
}

/** `idsOf` over a workspace's stores as JSON (`GET /__control/state`'s `workspace.stores`). */
export function idsIn(stores: Record<string, unknown>): string[] {
  const found = new Set<string>();
  const walk = (value: unknown, key: string) => {
    if (typeof value === 'string') {
      if (key === 'id' || /[a-z]Id$/.test(key)) found.add(value);
      return;
    }
    if (Array.isArray(value)) for (const item of value) walk(item, key);
    else if (typeof value === 'object' && value !== null) for (const [child, inner] of Object.entries(value)) walk(inner, child);
  };
  for (const [name, store] of Object.entries(stores)) if (name !== 'idempotency') walk(store, name);
  return [...found];
}
