import leven from 'leven';

/**
 * The name a typo most likely meant: several names when the word is the start of each
 * (`--coverage` → the four `--coverage-…`), else the nearest by edit distance, when it is near
 * enough to be a slip (two edits, or a third of the name) rather than another word. Case does
 * not count: `createpost` meant `createPost`.
 */
function nearestNames(given: string, names: readonly string[]): string[] {
  const word = given.toLowerCase();
  const started = names.filter((name) => word.length >= 3 && name.toLowerCase().startsWith(word));
  if (started.length > 0) return started;
  let nearest: string | undefined;
  let best = Number.POSITIVE_INFINITY;
  for (const name of names) {
    const distance = leven(word, name.toLowerCase());
    if (distance < best) [nearest, best] = [name, distance];
  }
  return nearest !== undefined && best <= Math.max(2, Math.ceil(nearest.length / 3)) ? [nearest] : [];
}

/** `a`, `a or b`, `a, b or c`. */
function orList(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}

/**
 * `; did you mean --port?`, or nothing when no name is near: for a flag, a command, an
 * operationId (a scenario rule's, a control tool's, a coverage scope's), wherever a name is taken.
 */
export function didYouMean(given: string, names: readonly string[], prefix = ''): string {
  const near = nearestNames(given, names);
  return near.length === 0 ? '' : `; did you mean ${orList(near.map((name) => prefix + name))}?`;
}
