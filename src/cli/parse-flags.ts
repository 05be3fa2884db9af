import { parseArgs, type ParseArgsConfig } from 'node:util';
import { didYouMean } from '../lib/did-you-mean.js';
import { UsageError } from './usage-error.js';

/** What a command says of a word on its command line that is neither a flag nor a flag's value. */
export type PositionalHint = (word: string, index: number) => string;

/** A word as a shell would need it written. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/**
 * What `run` and `proxy` say of a word among their flags: without `--` it is the start of the
 * command, so the line is shown as it should have been written; before a `--` it is a value
 * given to a flag that takes none, or a typo.
 */
export function commandAfterDashes(name: 'run' | 'proxy', flags: string[], hadSeparator: boolean, table: Readonly<Record<string, { type: string }>>): PositionalHint {
  return (word, index) => {
    if (hadSeparator) {
      const previous = /^--([^=]+)$/.exec(flags[index - 1] ?? '')?.[1];
      const boolean = previous !== undefined && table[previous]?.type === 'boolean' ? ` (--${previous} takes no value)` : '';
      return `'${word}' before -- is neither an option nor an option's value${boolean}; the command goes after --`;
    }
    const written = ['social-gateway-mock', name, ...flags.slice(0, index), '--', ...flags.slice(index)].map(shellWord).join(' ');
    return `${name} takes the command to run after --, apart from its own options: ${written}`;
  };
}

type FlagOptions = NonNullable<ParseArgsConfig['options']>;

/** What was given: each flag's value (a boolean flag's `true`), and the words. */
export interface ParsedFlags<T extends FlagOptions> {
  values: { [K in keyof T]?: T[K]['type'] extends 'boolean' ? boolean : string };
  positionals: string[];
}

/**
 * Node's `parseArgs`, with the errors a person can act on: an unknown flag names the nearest
 * known one, and a stray word gets the command's own hint (`run` says to put the command after
 * `--`) instead of "This command does not take positional arguments". Without a hint, words are
 * the command's positionals.
 */
export function parseFlags<T extends FlagOptions>(args: string[], options: T, hint?: PositionalHint): ParsedFlags<T> {
  // A loose pass first: it sees every token, where the strict one stops at the first problem with a generic message.
  const { tokens } = parseArgs({ args, options, strict: false, allowPositionals: true, tokens: true });
  // The first problem on the line is the one to name: after a stray word (`run npm test --watch`) the rest is the command's, not ours.
  for (const token of tokens) {
    if (token.kind === 'option' && !Object.hasOwn(options, token.name)) {
      const suggestion = token.rawName.startsWith('--') ? didYouMean(token.name, Object.keys(options), '--') : '';
      throw new UsageError(`unknown option '${token.rawName}'${suggestion}`);
    }
    if (token.kind === 'positional' && hint) throw new UsageError(hint(token.value, token.index));
  }
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: hint === undefined }) as ParsedFlags<T>;
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}
