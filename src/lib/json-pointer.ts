/*
 * JSON Pointer (RFC 6901), one implementation for every place that names a spot in a document:
 * a contract's `$ref`s, a scenario rule's `body` matcher, the proxy's findings.
 */

/** A key as one step of a pointer: `~` is `~0`, `/` is `~1`. */
export function escapePointerToken(token: string): string {
  if (!token.includes('~') && !token.includes('/')) return token;
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * The value a pointer (`/a/0/b`; `''` for the whole; a `#` before it, as in a `$ref`, is read
 * past) names in a document, or `found: false`. Only own members count (`/constructor` of a
 * plain object finds nothing), and a list index is a decimal without leading zeros.
 */
export function resolvePointer(document: unknown, pointer: string): { found: boolean; value?: unknown } {
  const path = pointer.startsWith('#') ? pointer.slice(1) : pointer;
  if (path === '') return { found: true, value: document };
  let node = document;
  for (const raw of path.split('/').slice(1)) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) {
      if (!/^(0|[1-9][0-9]*)$/.test(token) || Number(token) >= node.length) return { found: false };
      node = node[Number(token)];
    } else if (typeof node === 'object' && node !== null && Object.hasOwn(node, token)) {
      node = (node as Record<string, unknown>)[token];
    } else {
      return { found: false };
    }
  }
  return { found: true, value: node };
}

/** The value at a pointer, or undefined where there is none. */
export function valueAtPointer(document: unknown, pointer: string): unknown {
  return resolvePointer(document, pointer).value;
}
