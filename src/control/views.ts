import { loadedScenario } from '../scenarios/store.js';
import { workspaceFacts, type WorkspaceFacts } from '../workspaces/registry.js';
import { Workspace } from '../workspaces/workspace.js';

/*
 * Answers several tags show: a workspace's clock (Clock, Workspaces, Scenarios, State) and its
 * summary (State).
 */

/** The clock as the control plane shows it: of a workspace, or of what can be read of one not built yet. */
export function clockView(of: Workspace | WorkspaceFacts) {
  const facts = of instanceof Workspace ? workspaceFacts(of) : of;
  return {
    now: new Date(facts.nowMs).toISOString(),
    frozen: facts.frozen,
    pendingJobs: facts.pendingJobs,
    nextDueAt: facts.nextDueAtMs === null ? null : new Date(facts.nextDueAtMs).toISOString(),
  };
}

/** A workspace after a reset or a restore: who it is, and where its clock and scenario stand. */
export function workspaceSummary(workspace: Workspace) {
  return {
    workspaceId: workspace.id,
    plan: workspace.data.plan,
    seed: workspace.data.seed,
    scenario: loadedScenario(workspace)?.name ?? null,
    clock: clockView(workspace),
  };
}
