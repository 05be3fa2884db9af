import { readFileSync, statSync } from 'node:fs';
import { nestedDeeperThan, tooDeepReason } from './nesting.js';
import { parseYamlDocument } from './yaml-document.js';

/*
 * Files the command line is handed (--config, --scenario, --data, a recording's exchanges) are
 * read here: a size cap before anything is read, UTF-8 or a refusal, and problems said in one
 * line that names the file and never quotes it (a file may hold secrets, or be something else
 * entirely: a binary, a key, a dump), as decision 0026 asks.
 */

/** A file the server was given that it cannot use; the message names the file and the problem, never its content. */
export class InputFileError extends Error {
  override name = 'InputFileError';

  constructor(
    readonly path: string,
    /** What is wrong, without the file's name. */
    readonly problem: string,
  ) {
    super(`${path}: ${problem}`);
  }
}

/** Sizes as people read them in a message: `1 MiB (1048576 bytes)`. */
export function sizeText(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return Number.isInteger(mib) ? `${mib} MiB (${bytes} bytes)` : `${bytes} bytes`;
}

/** The text of a file of at most `maxBytes`, which must be UTF-8 (a byte-order mark is dropped). */
export function readInputText(path: string, maxBytes: number): string {
  let bytes: Buffer;
  try {
    const stat = statSync(path);
    if (!stat.isFile()) throw new InputFileError(path, 'not a file');
    // Checked before reading: a file of gigabytes is refused, not loaded to be refused.
    if (stat.size > maxBytes) throw new InputFileError(path, `${stat.size} bytes, over the ${sizeText(maxBytes)} the server reads from such a file`);
    bytes = readFileSync(path);
  } catch (error) {
    if (error instanceof InputFileError) throw error;
    throw new InputFileError(path, `cannot read it (${(error as NodeJS.ErrnoException).code ?? 'read error'})`);
  }
  // The file may have grown since it was measured.
  if (bytes.length > maxBytes) throw new InputFileError(path, `over the ${sizeText(maxBytes)} the server reads from such a file`);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new InputFileError(path, 'not UTF-8 text');
  }
}

/**
 * JSON text parsed, and refused when it nests deeper than `maxDepth`. JSON.parse's own message
 * quotes the text it stopped at; only the position is kept.
 */
export function parseInputJson(text: string, path: string, maxDepth: number): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const position = /at position (\d+)/.exec(error instanceof Error ? error.message : '')?.[1];
    throw new InputFileError(path, `not valid JSON${position === undefined ? '' : ` (at character ${position})`}`);
  }
  if (nestedDeeperThan(value, maxDepth)) throw new InputFileError(path, tooDeepReason('the file', maxDepth));
  return value;
}

/**
 * YAML text parsed as data, refused when it nests deeper than MAX_JSON_DEPTH (in the text, or
 * through its aliases) or uses aliases to multiply itself. The yaml package's messages quote the
 * line at fault; only its code and position are kept.
 */
export function parseInputYaml(text: string, path: string): unknown {
  const document = parseYamlDocument(text);
  if (!document) throw new InputFileError(path, tooDeepReason('the file'));
  const error = document.errors[0];
  if (error) {
    const at = error.linePos?.[0];
    throw new InputFileError(path, `not valid YAML${at ? ` at line ${at.line}, column ${at.col}` : ''} (${error.code})`);
  }
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: 100 });
  } catch {
    // An alias to nothing, one inside itself, or so many that they multiply the data.
    throw new InputFileError(path, 'not valid YAML (its aliases cannot be resolved, or multiply the data)');
  }
  if (nestedDeeperThan(value)) throw new InputFileError(path, tooDeepReason('the file (with its aliases)'));
  return value;
}
