import { describe, expect, it } from 'vitest';
import { declaredOperations } from '../../src/http/declared-responses.js';
import { HTTP_METHODS, loadSpec } from '../../src/http/spec.js';

/*
 * Descriptions that stay honest. Every error code an operation's description (or summary)
 * names is one the operation declares in its `x-error-codes`: a description that promises
 * `409 CONFLICT` is held to it, and declared-errors.test.ts proves each declared code with a
 * request that gets it.
 */

const document = loadSpec('openapi.yaml').document;
const declared = declaredOperations(document);
/** Every code some operation declares: a description naming one is held to its own operation's list. */
const KNOWN_CODES = new Set([...declared.values()].flatMap((operation) => [...operation.statuses.values()].flat()));

/** Each operation's description and summary, by operationId. */
function descriptions(): Map<string, string> {
  const found = new Map<string, string>();
  for (const item of Object.values(document.paths)) {
    for (const method of HTTP_METHODS) {
      const op = item[method] as { operationId?: string; summary?: string; description?: string } | undefined;
      if (op?.operationId) found.set(op.operationId, `${op.summary ?? ''}\n${op.description ?? ''}`);
    }
  }
  return found;
}

/** `operationId CODE` for every error code an operation's description names. */
function describedPairs(): string[] {
  const pairs: string[] = [];
  for (const [operationId, text] of descriptions()) {
    for (const code of KNOWN_CODES) if (new RegExp(`\\b${code}\\b`).test(text)) pairs.push(`${operationId} ${code}`);
  }
  return pairs.sort();
}

describe('the error codes an operation documents', () => {
  const pairs = describedPairs();

  it('are found in the descriptions (there is something to check)', () => {
    expect(pairs.length).toBeGreaterThan(40);
    expect(pairs).toContain('createPost VELOCITY_LIMITED');
  });

  it("are each declared in the operation's x-error-codes", () => {
    const undeclared = pairs.filter((pair) => {
      const [operationId, code] = pair.split(' ') as [string, string];
      return ![...(declared.get(operationId)?.statuses.values() ?? [])].some((codes) => codes.includes(code));
    });
    expect(undeclared, 'codes a description names that the operation does not declare').toEqual([]);
  });
});
