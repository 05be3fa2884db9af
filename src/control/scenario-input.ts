import { ApiError } from '../lib/errors.js';
import { scenarioByName, unknownScenarioReason } from '../scenarios/library.js';
import { scenarioChoice } from '../scenarios/load.js';
import { checkSentScenarioSize, ScenarioError } from '../scenarios/parse.js';
import type { ScenarioSource } from '../store/database.js';
import type { ScenarioChoice } from '../workspaces/registry.js';

/*
 * A scenario named or written in a control body (Workspaces' create, Scenarios' load, State's
 * reset), read once and refused as one 400 whichever operation took it.
 */

/** A scenario that cannot be used, as a 400 naming the file, line and column. */
function invalidScenario(error: ScenarioError, param: string): ApiError {
  return new ApiError(400, 'INVALID_SCENARIO', error.message, { param, details: error.details });
}

/** Runs `work`, turning a ScenarioError into the control plane's 400. */
export function withScenario<T>(param: string, work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof ScenarioError) throw invalidScenario(error, param);
    throw error;
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
 * One with more lines and entries than a request may make the server parse is refused unread.
 */
export function chooseScenario(source: ScenarioSource, param: string): ScenarioChoice {
  return withScenario(param, () => {
    checkSentScenarioSize(source);
    return scenarioChoice(source);
  });
}
