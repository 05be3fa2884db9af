import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Runs a full garbage collection now (`lastResort`: V8's most thorough, which also
 * releases pooled pages); false where the runtime does not allow it.
 * Node exposes `gc` only with --expose-gc, which the mock cannot ask its users to
 * pass, so the flag is set for one new context and unset again at once.
 */
export function collectGarbage(options: { lastResort?: boolean } = {}): boolean {
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    setFlagsFromString('--no-expose-gc');
    if (typeof gc !== 'function') return false;
    // V8's last-resort collection also gives the pages it pooled back to the system: what a measure of RSS needs.
    (gc as (options?: object) => void)(options.lastResort ? { type: 'major', execution: 'sync', flavor: 'last-resort' } : undefined);
    return true;
  } catch {
    return false;
  }
}
