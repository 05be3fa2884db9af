import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Runs a full garbage collection now; false where the runtime does not allow it.
 * Node exposes `gc` only with --expose-gc, which the mock cannot ask its users to
 * pass, so the flag is set for one new context and unset again at once.
 */
export function collectGarbage(): boolean {
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    setFlagsFromString('--no-expose-gc');
    if (typeof gc !== 'function') return false;
    (gc as () => void)();
    return true;
  } catch {
    return false;
  }
}
