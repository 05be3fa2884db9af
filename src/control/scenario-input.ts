import { ApiError } from '../lib/errors.js';
import { scenarioByName, unknownScenarioReason } from '../scenarios/library.js';
import { readScenarioChoice } from '../scenarios/load.js';
import { checkSentScenarioSize, ScenarioError } from '../scenarios/parse.js';
import type { ScenarioSource, WorkspaceOrigin } from '../store/database.js';
import type { ScenarioChoice, WorkspaceRegistry } from '../workspaces/registry.js';
import type { Workspace } from '../workspaces/workspace.js';

/*
 * A scenario named or written in a control body (Workspaces' create, Scenarios' load, State's
 * reset), read once and refused as one 400 whichever operation took it.
 */

/** A scenario that cannot be used, as a 400 naming the file, line and column; any other error as it is. */
function invalidScenario(error: unknown, param: string): unknown {
  return error instanceof ScenarioError ? new ApiError(400, 'INVALID_SCENARIO', error.message, { param, details: error.details }) : error;
}

/** Runs `work`, turning a ScenarioError into the control plane's 400. */
export function withScenario<T>(param: string, work: () => T): T {
  try {
    return work();
  } catch (error) {
    throw invalidScenario(error, param);
  }
}

/** A ready-made scenario by name, or a 400 listing the names there are. */
export function namedScenario(name: string, param: string): ScenarioSource {
  const source = scenarioByName(name);
  if (!source) throw new ApiError(400, 'INVALID_SCENARIO', unknownScenarioReason(name), { param });
  return source;
}

/**
 * Reads and checks a scenario (a bad one is a 400), and what it asks of the workspace it builds.
 * One with more lines and entries than a request may make the server parse is refused unread;
 * the rest is read in slices that let other tenants' requests in between (decision 0057).
 */
export async function chooseScenario(source: ScenarioSource, param: string): Promise<ScenarioChoice> {
  withScenario(param, () => checkSentScenarioSize(source));
  return readChoice(source, param);
}

/**
 * Reads, in slices, the scenario a reset will build the workspace from again (its origin's): the
 * registry then takes that reading instead of parsing the text at once while every tenant waits.
 */
export async function readResetScenario(origin: WorkspaceOrigin): Promise<void> {
  if (origin.scenario) await readChoice(origin.scenario, 'scenario');
}

/**
 * The workspace as it is once a scenario has been read in slices, other requests served between
 * them: the same, or what replaced it meanwhile (a reset, a restore); one deleted or evicted
 * meanwhile is gone, as its keys are, and is not brought back by building it again.
 */
export function stillThere(registry: WorkspaceRegistry, workspace: Workspace): Workspace {
  const current = registry.get(workspace.id);
  if (!current) throw new ApiError(401, 'UNAUTHORIZED', `The workspace ${workspace.id} ended (deleted or evicted) while its scenario was read.`);
  return current;
}

async function readChoice(source: ScenarioSource, param: string): Promise<ScenarioChoice> {
  try {
    return await readScenarioChoice(source);
  } catch (error) {
    throw invalidScenario(error, param);
  }
}
