import { parseIsoDuration } from '../clock/duration.js';
import { ok, route } from '../http/route.js';
import { validationError } from '../lib/errors.js';
import type { Workspace } from '../workspaces/workspace.js';
import type { ControlRouteFactory } from './dependencies.js';
import { clockView } from './views.js';

/** Jobs a clock move lists: writing the 222,849 of ten virtual years as JSON held every workspace for half a second. */
const RAN_LISTED = 1000;

async function moveClock(workspace: Workspace, targetMs: number) {
  const from = workspace.nowIso();
  const { ran, total } = await workspace.scheduler.advance(targetMs, RAN_LISTED);
  workspace.changed();
  return ok({ from, now: workspace.nowIso(), ran, ranTotal: total, clock: clockView(workspace) });
}

/** The operations of control.yaml's tag Clock: the workspace's virtual clock and its scheduler. */
export const clockRoutes: ControlRouteFactory = () => [
  route('getClock', ({ workspace }) => ok(clockView(workspace))),

  route<never, { limit: number }>('listClockJobs', ({ workspace, query }) =>
    ok({
      data: workspace.scheduler.upcoming(query.limit).map(({ id, kind, label, dueAt }) => ({ id, kind, label, dueAt: new Date(dueAt).toISOString() })),
      total: workspace.scheduler.size,
    }),
  ),

  route<never, never, { by?: string; ms?: number }>('advanceClock', ({ workspace, body }) => {
    let ms = body.ms;
    if (body.by !== undefined) {
      ms = parseIsoDuration(body.by);
      if (ms === undefined) throw validationError('by', `by must be an ISO 8601 duration without years or months, such as PT2H; got '${body.by}'.`);
    }
    return moveClock(workspace, workspace.now() + (ms ?? 0));
  }),

  route<never, never, { to: string }>('setClock', ({ workspace, body }) => {
    const target = Date.parse(body.to);
    if (target < workspace.now()) {
      throw validationError('to', `The clock only moves forward: ${body.to} is before ${workspace.nowIso()}.`);
    }
    return moveClock(workspace, target);
  }),

  route('freezeClock', ({ workspace }) => {
    workspace.clock.freeze();
    workspace.scheduler.arm();
    workspace.changed();
    return ok(clockView(workspace));
  }),

  route('resumeClock', ({ workspace }) => {
    workspace.clock.resume();
    workspace.scheduler.arm();
    workspace.changed();
    return ok(clockView(workspace));
  }),
];
