import type { EventStreams } from '../events/streams.js';
import { beyondWorkspace } from '../http/authenticate.js';
import { ApiError } from '../lib/errors.js';
import { ok, route, type RouteDefinition } from '../http/route.js';
import { DEFAULT_WORKSPACE_ID, type WorkspaceFacts, type WorkspaceRegistry } from '../workspaces/registry.js';

/**
 * One workspace as `GET /__control/workspaces` lists it. `createdAt` and `lastUsedAt`
 * are instants of the workspace's own virtual clock, as every time the mock shows is
 * (one clock, issue 19): its start, and where its clock stood at its last request.
 * Idleness is wall time (what `--workspace-ttl` measures), so it is a duration,
 * `idleMs`, never an instant of a second clock. Listing builds no workspace's world: one
 * not used yet shows the size of what it holds (its identity and keys) and no timer.
 */
function listing(registry: WorkspaceRegistry, eventStreams: EventStreams, facts: WorkspaceFacts) {
  const id = facts.data.id;
  return {
    workspaceId: id,
    default: id === DEFAULT_WORKSPACE_ID,
    plan: facts.data.plan,
    createdAt: facts.data.createdAt,
    lastUsedAt: new Date(registry.lastUsed(id).virtualMs).toISOString(),
    idleMs: registry.idleMs(id),
    // The length of its data as JSON: what a snapshot or --data holds of it, read on each list.
    sizeBytes: registry.sizeOf(id),
    pendingJobs: facts.pendingJobs,
    timerArmed: facts.timerArmed,
    deliveriesInFlight: facts.deliveriesInFlight,
    eventStreams: eventStreams.count(id),
  };
}

/** What can be read of a workspace named in a path, or a 404: the key of the request plays no part. */
function named(registry: WorkspaceRegistry, id: string): WorkspaceFacts {
  const facts = registry.facts(id);
  if (!facts) throw new ApiError(404, 'NOT_FOUND', `There is no workspace '${id}' on this server (deleted, evicted, or never made).`, { param: 'id' });
  return facts;
}

/**
 * `POST /__control/workspaces { from }`: a fork of an existing workspace. It copies a
 * world as it stands, so the fields that describe a fresh one (plan, seed, clock, …)
 * have nothing to apply to.
 */
export function forkWorkspace(registry: WorkspaceRegistry, from: string, fields: string[]): WorkspaceFacts {
  const others = fields.filter((name) => name !== 'from');
  if (others.length > 0) {
    throw new ApiError(400, 'VALIDATION_ERROR', `from forks a workspace as it stands and takes no other field; got ${others.join(', ')}.`, { param: 'from' });
  }
  const source = registry.get(from);
  if (!source) throw new ApiError(404, 'NOT_FOUND', `There is no workspace '${from}' on this server to fork (deleted, evicted, or never made).`, { param: 'from' });
  return registry.fork(source);
}

/**
 * `GET /__control/workspaces` and `DELETE /__control/workspaces/{id}`: the server's
 * workspaces and their end (docs/decisions/0017). The registry does the work; these
 * only read parameters and shape answers.
 */
export function workspaceRoutes(registry: WorkspaceRegistry, eventStreams: EventStreams): RouteDefinition[] {
  return [
    route('listWorkspaces', () => ok({ data: registry.ids().flatMap((id) => registry.facts(id) ?? []).map((facts) => listing(registry, eventStreams, facts)) })),

    route<{ id: string }>('deleteWorkspace', ({ params, caller, workspace }) => {
      // A key may end its own workspace (the kit does, after each test), never another.
      if (caller !== 'owner' && params.id !== workspace.id) throw beyondWorkspace('Deleting another workspace than the key\'s own');
      const facts = named(registry, params.id);
      const id = facts.data.id;
      // Its key is the server's key (--api-key): the banner, the ready file and `run` hand it out, and --data brings it back.
      if (id === DEFAULT_WORKSPACE_ID) {
        throw new ApiError(409, 'CONFLICT', "The default workspace cannot be deleted; reset it instead (POST /__control/reset).", { param: 'id' });
      }
      const released = { pendingJobs: facts.pendingJobs, eventStreams: eventStreams.count(id) };
      registry.delete(id);
      return ok({ workspaceId: id, deleted: true, released });
    }),
  ];
}
