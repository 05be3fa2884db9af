import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, extname, isAbsolute, resolve } from 'node:path';
import { parse } from 'yaml';
import { InputFileError, readInputText } from '../lib/input-file.js';
import { packagePath } from '../lib/package-root.js';
import type { ScenarioSource } from '../store/database.js';
import { ScenarioError } from './parse.js';

/** A scenario file read from disk: the contract's 1,000,000 characters of YAML, four bytes each at most in UTF-8. */
export const MAX_SCENARIO_FILE_BYTES = 4 * 1024 * 1024;

/** A name of a ready-made scenario: a file `scenarios/<name>.yaml`. */
export const SCENARIO_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;

/** The folder of ready-made scenarios shipped with the package. */
export function scenariosDir(): string {
  return packagePath('scenarios');
}

export interface ScenarioListing {
  name: string;
  description: string | null;
}

/** The ready-made scenarios, by name, with the first line of each one's description. */
export function availableScenarios(): ScenarioListing[] {
  return readdirSync(scenariosDir())
    .filter((file) => file.endsWith('.yaml'))
    .sort()
    .map((file) => {
      let description: string | null = null;
      try {
        const raw = parse(readFileSync(`${scenariosDir()}/${file}`, 'utf8')) as { description?: unknown } | null;
        if (typeof raw?.description === 'string') description = raw.description.split('\n')[0] ?? null;
      } catch {
        // A broken file is reported when someone loads it, with its line; the listing just has no description.
      }
      return { name: basename(file, '.yaml'), description };
    });
}

/** Reads a scenario file; a missing or unreadable file is a ScenarioError naming it (as `shownAs`, by default its path). */
export function scenarioFromFile(path: string, shownAs = path): ScenarioSource {
  let yaml: string;
  try {
    yaml = readInputText(path, MAX_SCENARIO_FILE_BYTES);
  } catch (error) {
    if (!(error instanceof InputFileError)) throw error;
    throw new ScenarioError(shownAs, null, null, '', `cannot read the scenario file: ${error.problem}`);
  }
  return { name: basename(path, extname(path)), file: shownAs, yaml };
}

/** A ready-made scenario by name; undefined when there is none of that name. */
export function scenarioByName(name: string): ScenarioSource | undefined {
  if (!SCENARIO_NAME.test(name)) return undefined;
  const file = `${scenariosDir()}/${name}.yaml`;
  return existsSync(file) ? scenarioFromFile(file, `scenarios/${name}.yaml`) : undefined;
}

export function inlineScenario(yaml: string): ScenarioSource {
  return { name: 'inline', file: '<inline>', yaml };
}

export function unknownScenarioReason(name: string): string {
  return `no scenario named "${name}" (ready-made: ${availableScenarios().map((s) => s.name).join(', ')})`;
}

/** Whether a `--scenario` argument names a file (a path, or anything ending in .yaml/.yml) rather than a ready-made scenario. */
function looksLikeFile(argument: string): boolean {
  return argument.includes('/') || argument.includes('\\') || /\.ya?ml$/i.test(argument);
}

/**
 * What `--scenario` names, said so that another process in another folder finds the same: a
 * file's absolute path, or a ready-made scenario's name.
 */
export function scenarioReference(argument: string, cwd: string): string {
  if (looksLikeFile(argument)) return isAbsolute(argument) ? argument : resolve(cwd, argument);
  return scenarioByName(argument) === undefined && existsSync(resolve(cwd, argument)) ? resolve(cwd, argument) : argument;
}

/**
 * What `--scenario` names: a file (a path, or anything ending in .yaml/.yml, relative
 * to `cwd`) or the name of a ready-made scenario.
 */
export function scenarioFromArgument(argument: string, cwd: string): ScenarioSource {
  if (looksLikeFile(argument)) return scenarioFromFile(isAbsolute(argument) ? argument : resolve(cwd, argument), argument);
  const byName = scenarioByName(argument);
  if (byName) return byName;
  if (existsSync(resolve(cwd, argument))) return scenarioFromFile(resolve(cwd, argument), argument);
  throw new ScenarioError(argument, null, null, '', unknownScenarioReason(argument));
}
