import { ApiError } from '../lib/errors.js';
import type { WorkspaceData } from '../store/database.js';
import type { Workspace } from './workspace.js';

/** Marks a snapshot of this mock: a restore refuses anything else. */
export const SNAPSHOT_FORMAT = 'social-gateway-mock/workspace';
export const SNAPSHOT_VERSION = 1;

/** A workspace's whole world at one virtual instant: what GET /__control/state answers and PUT takes. */
export interface WorkspaceSnapshot {
  format: typeof SNAPSHOT_FORMAT;
  version: typeof SNAPSHOT_VERSION;
  takenAt: string;
  workspace: WorkspaceData;
}

/** Reads the world without touching it: a copy, with the running clock read rather than written back. */
export function takeSnapshot(workspace: Workspace): WorkspaceSnapshot {
  const data = structuredClone(workspace.data);
  data.clock = workspace.clock.state();
  return { format: SNAPSHOT_FORMAT, version: SNAPSHOT_VERSION, takenAt: new Date(data.clock.nowMs).toISOString(), workspace: data };
}

/**
 * What the contract's schema cannot check about a snapshot (it checks the format,
 * version and every field's shape): that each job is filed under its own id and is of
 * a kind this build can run, and that a scenario in it has the shape the request
 * pipeline reads. Throws 400 naming the field; the workspace is not touched until
 * everything passes.
 */
export function checkSnapshot(snapshot: WorkspaceSnapshot, canRun: (kind: string) => boolean): WorkspaceData {
  const data = snapshot.workspace;
  for (const [id, job] of Object.entries(data.jobs)) {
    const param = `workspace.jobs.${id}`;
    if (job.id !== id) throw new ApiError(400, 'VALIDATION_ERROR', `Job '${id}' carries the id '${job.id}'; the snapshot is broken.`, { param: `${param}.id` });
    if (!canRun(job.kind)) {
      throw new ApiError(400, 'VALIDATION_ERROR', `Job '${id}' is of kind '${job.kind}', which this build cannot run; the snapshot comes from another build or is broken.`, { param: `${param}.kind` });
    }
    if (!Number.isFinite(job.dueAt)) throw new ApiError(400, 'VALIDATION_ERROR', `Job '${id}' has no due time.`, { param: `${param}.dueAt` });
  }
  const scenario = (data.stores['scenario'] as { loaded?: unknown } | undefined)?.loaded;
  if (scenario !== undefined && scenario !== null) {
    const loaded = scenario as { rules?: unknown; ruleStates?: unknown; states?: unknown; loadedAtMs?: unknown };
    const rulesOk = Array.isArray(loaded.rules) && loaded.rules.every((rule) => typeof rule === 'object' && rule !== null && typeof (rule as { id?: unknown }).id === 'string' && typeof (rule as { match?: unknown }).match === 'object' && typeof (rule as { then?: unknown }).then === 'object');
    if (!rulesOk || typeof loaded.ruleStates !== 'object' || loaded.ruleStates === null || !Array.isArray(loaded.states) || typeof loaded.loadedAtMs !== 'number') {
      throw new ApiError(400, 'VALIDATION_ERROR', "The snapshot's scenario is broken (rules, ruleStates, states or loadedAtMs).", { param: 'workspace.stores.scenario' });
    }
  }
  const runtime = data.stores['rules'] as { rules?: unknown; ruleStates?: unknown; nextId?: unknown; addedAt?: unknown } | undefined;
  if (runtime !== undefined) {
    const rulesOk = Array.isArray(runtime.rules) && runtime.rules.every((rule) => typeof rule === 'object' && rule !== null && typeof (rule as { id?: unknown }).id === 'string' && typeof (rule as { match?: unknown }).match === 'object' && typeof (rule as { then?: unknown }).then === 'object');
    if (!rulesOk || typeof runtime.ruleStates !== 'object' || runtime.ruleStates === null || typeof runtime.nextId !== 'number' || typeof runtime.addedAt !== 'object' || runtime.addedAt === null) {
      throw new ApiError(400, 'VALIDATION_ERROR', "The snapshot's run-time rules are broken (rules, ruleStates, nextId or addedAt).", { param: 'workspace.stores.rules' });
    }
  }
  if (Number.isNaN(Date.parse(data.createdAt))) throw new ApiError(400, 'VALIDATION_ERROR', 'workspace.createdAt is not a date-time.', { param: 'workspace.createdAt' });
  return data;
}
