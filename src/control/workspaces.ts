import type { EventStreams } from '../events/streams.js';
import { beyondWorkspace } from '../http/authenticate.js';
import { created, ok, route } from '../http/route.js';
import { clockStartProblem } from '../clock/virtual-clock.js';
import { ApiError } from '../lib/errors.js';
import { inlineScenario, SCENARIO_NAME } from '../scenarios/library.js';
import { loadedScenario } from '../scenarios/store.js';
import type { WorkspaceBase } from '../store/database.js';
import { scopeOfKey, type KeyScope } from '../store/key-scopes.js';
import type { PlanName } from '../store/plans.js';
import { DEFAULT_WORKSPACE_ID, type ScenarioChoice, type WorkspaceFacts, type WorkspaceRegistry } from '../workspaces/registry.js';
import { CONTROL_BODY_LIMITS } from './body-limits.js';
import type { ControlRouteFactory } from './dependencies.js';
import { chooseScenario, namedScenario, withScenario } from './scenario-input.js';
import { clockView } from './views.js';

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
function forkWorkspace(registry: WorkspaceRegistry, from: string, fields: string[]): WorkspaceFacts {
  const others = fields.filter((name) => name !== 'from');
  if (others.length > 0) {
    throw new ApiError(400, 'VALIDATION_ERROR', `from forks a workspace as it stands and takes no other field; got ${others.join(', ')}.`, { param: 'from' });
  }
  const source = registry.get(from);
  if (!source) throw new ApiError(404, 'NOT_FOUND', `There is no workspace '${from}' on this server to fork (deleted, evicted, or never made).`, { param: 'from' });
  return registry.fork(source);
}

/** The answer of a workspace made from the control plane (fresh or forked), read without building its world. */
function createdWorkspace(facts: WorkspaceFacts) {
  return created({
    workspaceId: facts.data.id,
    apiKey: facts.data.apiKeys[0],
    plan: facts.data.plan,
    seed: facts.data.seed,
    // A workspace with a scenario is built at once; one not built yet has none.
    scenario: (facts.workspace && loadedScenario(facts.workspace)?.name) ?? null,
    clock: clockView(facts),
  });
}

interface CreateWorkspaceBody {
  plan?: PlanName;
  seed?: number;
  fixtures?: boolean;
  pending?: boolean;
  clock?: { start?: string; frozen?: boolean };
  scenario?: string;
  /** Fork: the id of the workspace to copy. */
  from?: string;
}

/**
 * The operations of control.yaml's tag Workspaces: the server's workspaces, their making
 * and end (docs/decisions/0017), and each one's keys, full or read-only, all sharing the
 * workspace's one budget (docs/decisions/0013). The registry does the work; these only read
 * parameters and shape answers.
 */
export const workspacesRoutes: ControlRouteFactory = ({ registry, eventStreams }) => [
  {
    ...route<never, never, CreateWorkspaceBody | undefined>('createWorkspace', async ({ body, caller, workspace }) => {
      // On a shared server (decision 0024) anyone may make a workspace while --max-workspaces
      // bounds how many; a key may fork only its own.
      if (caller !== 'owner' && !registry.bounded) {
        throw beyondWorkspace('Creating a workspace', 'A server that lets clients make their own sets --max-workspaces.');
      }
      if (caller !== 'owner' && body?.from !== undefined && (caller !== 'workspace' || body.from !== workspace.id)) {
        throw beyondWorkspace("Forking another workspace than the key's own");
      }
      if (body?.from !== undefined) {
        // Validation fills in `fixtures: true`, the contract's default: only `false` was asked for.
        const asked = Object.keys(body).filter((name) => name !== 'fixtures' || body.fixtures === false);
        return createdWorkspace(forkWorkspace(registry, body.from, asked));
      }
      const explicit: Partial<WorkspaceBase> = {
        ...(body?.plan && { plan: body.plan }),
        ...(body?.seed !== undefined && { seed: body.seed }),
        ...(body?.fixtures !== undefined && { fixtures: body.fixtures }),
        ...(body?.pending !== undefined && { pending: body.pending }),
        ...(body?.clock?.start !== undefined && { clockStartMs: clockStart(body.clock.start) }),
        ...(body?.clock?.frozen !== undefined && { clockFrozen: body.clock.frozen }),
      };
      let scenario: ScenarioChoice | undefined;
      if (body?.scenario !== undefined) {
        // A bare name is a ready-made scenario; anything else (it has a colon or a line break) is YAML.
        const source = SCENARIO_NAME.test(body.scenario) ? namedScenario(body.scenario, 'scenario') : inlineScenario(body.scenario);
        scenario = await chooseScenario(source, 'scenario');
      }
      return createdWorkspace(withScenario('scenario', () => registry.create(explicit, scenario)));
    }),
    ...CONTROL_BODY_LIMITS.createWorkspace,
  },

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

  route<never, never, { scope?: KeyScope } | undefined>('createApiKey', ({ workspace, body }) => {
    const scope = body?.scope ?? 'full';
    return created({ workspaceId: workspace.id, apiKey: registry.addApiKey(workspace, scope), scope });
  }),

  route<{ key: string }>('revokeApiKey', ({ workspace, params }) => {
    const { key } = params;
    // A key of another workspace is as unknown here as any id of another workspace.
    if (!workspace.data.apiKeys.includes(key)) throw new ApiError(404, 'NOT_FOUND', 'This workspace has no such key.', { param: 'key' });
    // The server's own key comes back at the next start with --data, and the banner, the
    // ready file and `run`'s environment keep handing it out: revoking it would be a lie.
    if (registry.isDefaultApiKey(key)) {
      throw new ApiError(409, 'CONFLICT', "The server's default key (--api-key) cannot be revoked; mint another key for the boundary you want to draw.", { param: 'key' });
    }
    const scope = scopeOfKey(workspace.data, key);
    // A workspace always keeps a key that can write: without one, no client could ever change it again.
    const otherFull = workspace.data.apiKeys.some((candidate) => candidate !== key && scopeOfKey(workspace.data, candidate) === 'full');
    if (scope === 'full' && !otherFull) {
      throw new ApiError(409, 'CONFLICT', "This is the workspace's last full key; mint another full key before revoking it.", { param: 'key' });
    }
    registry.revokeApiKey(workspace, key);
    return ok({ workspaceId: workspace.id, apiKey: key, scope });
  }),
];

/** A new workspace's `clock.start`, or a 400 naming it when the clock cannot start there. */
function clockStart(start: string): number {
  const ms = Date.parse(start);
  const problem = clockStartProblem(ms);
  if (problem !== undefined) throw new ApiError(400, 'VALIDATION_ERROR', `clock.start '${start}' ${problem}.`, { param: 'clock.start' });
  return ms;
}
