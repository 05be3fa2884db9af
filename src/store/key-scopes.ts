/**
 * What a key may do. The reference: keys "may be minted to draw boundaries, for
 * example one per tenant or a read-only key for a status page". A `read` key answers
 * every GET of the API and is refused every write with 403 (docs/decisions/0013).
 */
export const KEY_SCOPES = ['full', 'read'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

/** The scope of one of a workspace's keys: the ones not listed in `keyScopes` are full keys. */
export function scopeOfKey(data: { keyScopes?: Record<string, KeyScope> }, key: string): KeyScope {
  return data.keyScopes?.[key] ?? 'full';
}
