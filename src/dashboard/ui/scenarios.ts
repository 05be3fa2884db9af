import type { ActiveRule } from './contract.js';
import type { ControlAddRuleBody } from '../../generated/named-types.js';

/* The Scenarios view's pure logic: where a refused scenario's error sits in the editor, and how a rule reads. */

/** Where an INVALID_SCENARIO points in the YAML it refused (1-based, as the API answers). */
export interface ScenarioErrorAt {
  line: number;
  column: number;
}

/** The line and column of an envelope's `details`, or null when it names none (a run-time rule's error names a field). */
export function errorAtOf(details: unknown): ScenarioErrorAt | null {
  if (typeof details !== 'object' || details === null) return null;
  const { line, column } = details as { line?: unknown; column?: unknown };
  if (typeof line !== 'number' || !Number.isInteger(line) || line < 1) return null;
  return { line, column: typeof column === 'number' && Number.isInteger(column) && column >= 1 ? column : 1 };
}

/**
 * The caret offset in `text` of 1-based `line` and `column`, held inside the text: a line past
 * the end is the last one, a column past the line's end is its end.
 */
export function offsetOf(text: string, { line, column }: ScenarioErrorAt): number {
  const lines = text.split('\n');
  const index = Math.min(line, lines.length) - 1;
  let offset = 0;
  for (let i = 0; i < index; i++) offset += lines[i]!.length + 1;
  return offset + Math.min(column - 1, lines[index]!.length);
}

/** The editor's gutter: one number per line of `text`. */
export function lineNumbers(text: string): number[] {
  return Array.from({ length: text.split('\n').length }, (_, i) => i + 1);
}

/**
 * A rule typed as JSON for `addRule`, or why it is not one. Only its being an object is checked
 * here: the server checks the rest and names the field, as it does for any client.
 */
export function parseRuleSnippet(text: string): { rule: ControlAddRuleBody } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (failure) {
    return { problem: `Not JSON: ${failure instanceof Error ? failure.message : String(failure)}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { problem: 'A rule is a JSON object with match and then.' };
  return { rule: value as ControlAddRuleBody };
}

/** A rule's hits as the table shows them: fired, of its times when it has some. */
export function hitsText(rule: Pick<ActiveRule, 'fired' | 'times'>): string {
  return rule.times === null ? String(rule.fired) : `${rule.fired} of ${rule.times}`;
}

/** What a rule matches, in a line: its operation or method and path. */
export function matchText(match: Record<string, unknown>): string {
  const parts: string[] = [];
  if (typeof match['operationId'] === 'string') parts.push(match['operationId']);
  if (typeof match['method'] === 'string') parts.push(match['method']);
  if (typeof match['path'] === 'string') parts.push(match['path']);
  return parts.length > 0 ? parts.join(' ') : 'every request';
}

/** A run-time rule to start from in the Add rule editor. */
export const SAMPLE_RULE = JSON.stringify(
  { id: 'connections-down', match: { operationId: 'listConnections' }, then: { error: { status: 429, code: 'RATE_LIMITED', message: 'Too many requests.' } }, times: 3 },
  null,
  2,
);
