import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';

/*
 * The pure parts of matching a request against a scenario rule: paths, the nth and
 * every-nth counters and the seeded probability draw. No workspace, no request: these
 * are table-tested in test/unit/scenario-matching.test.ts.
 */

function escapeRegExp(text: string): string {
  return text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * A rule's `path` as a regular expression over request paths: `{name}` and `*` are
 * one segment, `**` any number of segments (none included).
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

const compiled = new Map<string, RegExp>();

/** A rule's regular expression, compiled once per process (rules are checked at load, so it compiles). */
function regexOf(source: string): RegExp {
  let regex = compiled.get(source);
  if (!regex) {
    regex = new RegExp(source);
    compiled.set(source, regex);
  }
  return regex;
}

export function pathMatches(pattern: string, requestPath: string): boolean {
  return regexOf(pattern).test(requestPath);
}


/**
 * Whether a value passes an `equals` or `matches` test: equals compares JSON values
 * whole; matches tests a string, number or boolean, as text, against the expression.
 */
export function valueMatches(value: unknown, test: { equals?: unknown; matches?: string }): boolean {
  if (test.matches !== undefined) {
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return false;
    return regexOf(test.matches).test(String(value));
  }
  return isDeepStrictEqual(value, test.equals);
}

/**
 * Whether a rule's path can match some request of an OpenAPI path template, segment
 * by segment: a template `{id}` accepts any literal, a rule `*` or `{x}` any segment.
 * Used at load to find the operations a rule can reach.
 */
export function pathCanReach(rulePath: string, template: string): boolean {
  const rule = rulePath.split('/');
  const target = template.split('/');
  const segmentFits = (r: string, t: string): boolean => {
    if (/^\{[^}]+\}$/.test(t) || /^\{[^}]+\}$/.test(r)) return true;
    if (!r.includes('*')) return r === t;
    return new RegExp(`^${r.split('*').map(escapeRegExp).join('.*')}$`).test(t);
  };
  const fits = (i: number, j: number): boolean => {
    if (i === rule.length) return j === target.length;
    if (rule[i] === '**') {
      for (let k = j; k <= target.length; k++) if (fits(i + 1, k)) return true;
      return false;
    }
    return j < target.length && segmentFits(rule[i] as string, target[j] as string) && fits(i + 1, j + 1);
  };
  return fits(0, 0);
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
