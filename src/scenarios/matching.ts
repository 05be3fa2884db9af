import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { RE2JS } from 're2js';

/*
 * The pure parts of matching a request against a scenario rule: paths, the nth and
 * every-nth counters and the seeded probability draw. No workspace, no request: these
 * are table-tested in test/unit/scenario-matching.test.ts.
 *
 * Patterns come from users (a scenario, POST /__control/rules) and run on a server
 * other workspaces share, so they never reach the backtracking RegExp engine: they
 * run on RE2 (re2js), whose time is linear in the text, each is compiled once when its
 * rule is loaded (keepPatterns), and each request may spend only a bounded amount of
 * matching work, compiling included (see MatchBudget).
 */

/**
 * The longest `matches` expression or rule `path`, in characters, and the most one
 * scenario (or one run-time rule) may hold in all. Compiling is the one cost of a
 * pattern paid before its size is known (up to 35 µs a character measured, for a
 * pattern RE2 expands and then refuses as too costly), so loading is bounded by length.
 */
export const MAX_PATTERN_LENGTH = 256;
export const MAX_PATTERNS_LENGTH = 1_024;

/**
 * The largest RE2 program a pattern may compile to (RE2's own measure of its cost,
 * about one instruction per character and per repeated copy: `[a-z]{600}` is 602).
 */
export const MAX_PROGRAM_SIZE = 500;

/**
 * How much matching one request may cost, in RE2 program instructions times
 * characters of text: the most RE2 can do per character of text is step every
 * instruction once, so this bounds the time a request's matching holds the event
 * loop: under 20 ms at the worst rate measured, 75 ns a unit (bench/pathological.ts,
 * docs/security/matching.md).
 */
export const MATCH_BUDGET_UNITS = 250_000;

/**
 * The matching work left to one request. Each pattern is charged its program size
 * times the length of the text before it runs; a pattern the rest of the budget
 * cannot pay for does not run and counts as not matching.
 */
export class MatchBudget {
  constructor(private remaining: number = MATCH_BUDGET_UNITS) {}

  /** Whether `units` more work fits, spending them when they do. */
  spend(units: number): boolean {
    if (units > this.remaining) return false;
    this.remaining -= units;
    return true;
  }
}

/** A compiled pattern, or why RE2 cannot run it. */
type Compiled = { program: RE2JS } | { problem: string };

/**
 * The most characters of paths and regular expressions the active rules of one workspace hold
 * together (its scenario's and those added at run time): each is compiled once, when its rule
 * is loaded, and kept with it (about 8 KB a small pattern, more for a large program), so the
 * patterns a workspace keeps are bounded as well as each rule's.
 */
export const MAX_WORKSPACE_PATTERNS_LENGTH = 32_768;

/**
 * What compiling one pattern costs a request's budget, in its units: the slowest accepted
 * pattern measured took 0.9 ms to compile on a loaded machine (a Unicode class repeated, 240
 * characters), about 12,000 units at 75 ns a unit. A pattern is compiled during a request only
 * when its rule reached the workspace without passing through a load (never, as rules are
 * compiled when loaded, added, restored or forked); the budget bounds that case too.
 */
export const COMPILE_UNITS = 12_000;

/**
 * Compiled patterns, kept with what holds them: a rule's header or body matcher (the object
 * with `matches`), or its match (for the path). Not in the workspace's data, which is JSON
 * (snapshots, --data): a rule read back from there is compiled again when its workspace is
 * restored, forked or loaded. Nothing is shared between workspaces, so one tenant's patterns
 * can neither evict another's nor be paid for by another's requests.
 */
const kept = new WeakMap<object, Compiled>();

/** What RE2 says of a pattern, said for a reader who wrote JavaScript. */
function syntaxProblem(error: unknown): string {
  const message = error instanceof Error ? error.message.replace(/^error parsing regexp: /, '') : String(error);
  return `${message} (RE2 syntax: no backreferences or lookaround)`;
}

interface CompileLimits {
  /** Take JavaScript spellings RE2 lacks (\u0041, (?<name>…), [^]) to RE2's first. */
  translate: boolean;
  maxLength: number;
  /** What to do when the program is too big. */
  simpler: string;
}

function compileSource(source: string, limits: CompileLimits): Compiled {
  if (source.length > limits.maxLength) return { problem: `${source.length} characters, over the limit of ${limits.maxLength}` };
  let program: RE2JS;
  try {
    program = RE2JS.compile(limits.translate ? RE2JS.translateRegExp(source) : source);
  } catch (error) {
    return { problem: syntaxProblem(error) };
  }
  const size = program.programSize();
  if (size > MAX_PROGRAM_SIZE) return { problem: `too costly to match: RE2 compiles it to ${size} instructions, over the limit of ${MAX_PROGRAM_SIZE} (${limits.simpler})` };
  return { program };
}

/** A rule's `matches` expression (JavaScript syntax, run by RE2), compiled. */
function expression(source: string): Compiled {
  return compileSource(source, { translate: true, maxLength: MAX_PATTERN_LENGTH, simpler: 'lower its repeat counts such as {1000}' });
}

/** A rule's path pattern (from pathPattern: already RE2 syntax, at most 5 characters for each of the path's), compiled. */
function pathProgram(pattern: string): Compiled {
  return compileSource(pattern, { translate: false, maxLength: 5 * MAX_PATTERN_LENGTH + 8, simpler: 'use fewer * and **' });
}

/** A rule's matchers whose patterns are compiled: its path, and its header and body tests. */
export interface PatternHolders {
  pathPattern?: string;
  headers?: ReadonlyArray<{ matches?: string }>;
  body?: ReadonlyArray<{ matches?: string }>;
}

/** Compiles a rule's patterns once, when it is loaded, and keeps each with its matcher. */
export function keepPatterns(match: PatternHolders): void {
  if (match.pathPattern !== undefined && !kept.has(match)) kept.set(match, pathProgram(match.pathPattern));
  for (const test of [...(match.headers ?? []), ...(match.body ?? [])]) {
    if (test.matches !== undefined && !kept.has(test)) kept.set(test, expression(test.matches));
  }
}

/** The characters of paths and regular expressions a rule's matchers hold, as MAX_WORKSPACE_PATTERNS_LENGTH counts them. */
export function patternsLength(match: { path?: string; headers?: ReadonlyArray<{ matches?: string }>; body?: ReadonlyArray<{ matches?: string }> }): number {
  let length = match.path?.length ?? 0;
  for (const test of [...(match.headers ?? []), ...(match.body ?? [])]) length += test.matches?.length ?? 0;
  return length;
}

/**
 * The compiled pattern kept with `holder`; compiled now, and COMPILE_UNITS charged to the
 * request's budget, when none is (undefined when the budget cannot pay).
 */
function compiledFor(holder: object, compile: () => Compiled, budget: MatchBudget): Compiled | undefined {
  const found = kept.get(holder);
  if (found) return found;
  if (!budget.spend(COMPILE_UNITS)) return undefined;
  const made = compile();
  kept.set(holder, made);
  return made;
}

/**
 * Why a `matches` expression cannot be a matcher, or undefined when it can: RE2
 * cannot compile it (backreferences, lookaround), or it is too long or too costly.
 * Checked at load, so a rule is refused at its line rather than never matching.
 */
export function expressionProblem(source: string): string | undefined {
  const entry = expression(source);
  return 'problem' in entry ? entry.problem : undefined;
}

/** Why a rule's `path` cannot be matched, or undefined when it can. */
export function pathProblem(path: string): string | undefined {
  if (path.length > MAX_PATTERN_LENGTH) return `${path.length} characters, over the limit of ${MAX_PATTERN_LENGTH}`;
  const entry = pathProgram(pathPattern(path));
  return 'problem' in entry ? entry.problem : undefined;
}

/**
 * Runs a compiled pattern over a text if the budget pays for it. A pattern that does
 * not compile (one a restored state kept from before RE2) matches nothing.
 */
function runs(entry: Compiled | undefined, text: string, budget: MatchBudget): boolean {
  if (entry === undefined || 'problem' in entry) return false;
  if (!budget.spend(entry.program.programSize() * (text.length + 1))) return false;
  return entry.program.test(text);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * A rule's `path` as a regular expression (RE2 syntax) over request paths: `{name}`
 * and `*` are one segment, `**` any number of segments (none included).
 */
export function pathPattern(path: string): string {
  let pattern = '';
  path.split('/').forEach((segment, i) => {
    // "/a/**/b" also matches "/a/b": the ** and its slash may both vanish.
    if (segment === '**') pattern += i === 0 ? '.*' : '(?:/.*)?';
    else if (/^\{[^}]+\}$/.test(segment)) pattern += `${i === 0 ? '' : '/'}[^/]+`;
    else pattern += `${i === 0 ? '' : '/'}${segment.split('*').map(escapeRegExp).join('[^/]*')}`;
  });
  return `^${pattern}/?$`;
}

/** Whether a request path matches a rule's path pattern (compiled once, kept with `match`), within the request's matching budget. */
export function pathMatches(match: { pathPattern?: string }, requestPath: string, budget = new MatchBudget()): boolean {
  const pattern = match.pathPattern;
  if (pattern === undefined) return true;
  return runs(compiledFor(match, () => pathProgram(pattern), budget), requestPath, budget);
}

/**
 * Whether a value passes an `equals` or `matches` test: equals compares JSON values
 * whole; matches tests a string, number or boolean, as text, against the expression.
 */
export function valueMatches(value: unknown, test: { equals?: unknown; matches?: string }, budget = new MatchBudget()): boolean {
  if (test.matches !== undefined) {
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return false;
    const source = test.matches;
    return runs(compiledFor(test, () => expression(source), budget), String(value), budget);
  }
  return isDeepStrictEqual(value, test.equals);
}

/**
 * Whether a request's query is exactly the one a `query` matcher names: the same parameter
 * names, no more and no fewer; each sent once with the given string, as many times as a list
 * gives with its values in order, or (null) with any value.
 */
export function queryMatches(expected: Readonly<Record<string, string | readonly string[] | null>>, query: URLSearchParams): boolean {
  const names = new Set(query.keys());
  if (names.size !== Object.keys(expected).length) return false;
  for (const name of names) {
    if (!Object.hasOwn(expected, name)) return false;
    const want = expected[name];
    if (want === null || want === undefined) continue;
    if (!isDeepStrictEqual(query.getAll(name), typeof want === 'string' ? [want] : [...want])) return false;
  }
  return true;
}

/**
 * Whether a glob segment (`*` any run of characters) fits a text, in at most
 * glob × text steps: on a mismatch only the last `*` seen takes one more character,
 * never an earlier one, since whatever an earlier `*` could take the last one can too.
 */
function segmentFits(glob: string, text: string): boolean {
  let g = 0;
  let t = 0;
  let star = -1;
  let resume = 0;
  while (t < text.length) {
    if (g < glob.length && glob[g] !== '*' && glob[g] === text[t]) {
      g++;
      t++;
    } else if (g < glob.length && glob[g] === '*') {
      star = g++;
      resume = t;
    } else if (star !== -1) {
      g = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (glob[g] === '*') g++;
  return g === glob.length;
}

/**
 * Whether a rule's path can match some request of an OpenAPI path template, segment
 * by segment: a template `{id}` accepts any literal, a rule `*` or `{x}` any segment.
 * Used at load to find the operations a rule can reach; each pair of positions is
 * judged once, so many `**` cost no more than a table of rule by template segments.
 */
export function pathCanReach(rulePath: string, template: string): boolean {
  const rule = rulePath.split('/');
  const target = template.split('/');
  const fits = (r: string, t: string): boolean => /^\{[^}]+\}$/.test(t) || /^\{[^}]+\}$/.test(r) || segmentFits(r, t);
  // reach[j]: the template's first j segments can be matched by the rule segments seen so far.
  let reach = target.map((_, j) => j === 0).concat(false);
  for (const segment of rule) {
    const next = reach.map(() => false);
    for (let j = 0; j <= target.length; j++) {
      if (!reach[j]) continue;
      if (segment === '**') {
        for (let k = j; k <= target.length; k++) next[k] = true;
        break;
      }
      if (j < target.length && fits(segment, target[j] as string)) next[j + 1] = true;
    }
    reach = next;
  }
  return reach[target.length] === true;
}

/** Whether the `seen`-th matching request is one the counters select. */
export function countSelects(seen: number, nth: number | undefined, every: number | undefined): boolean {
  if (nth !== undefined && seen !== nth) return false;
  if (every !== undefined && seen % every !== 0) return false;
  return true;
}

/**
 * A number in [0, 1) for the `n`-th matching request of a rule: a hash of the
 * workspace seed, the rule and its counter, never Math.random. The same seed and the
 * same requests give the same outcomes, and adding a rule does not shift another's draws.
 */
export function drawUnit(seed: number, ruleId: string, n: number): number {
  const hex = createHash('sha256').update(`${seed}:scenario-rule:${ruleId}:${n}`).digest('hex');
  return parseInt(hex.slice(0, 8), 16) / 0x1_0000_0000;
}
