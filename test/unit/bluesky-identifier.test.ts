import { describe, expect, it } from 'vitest';
import { handleOfIdentifier, identifierNames, parseBlueskyIdentifier } from '../../src/api/accounts/identities.js';

describe('parseBlueskyIdentifier', () => {
  it.each([
    ['studio-north.bsky.social', { kind: 'handle', handle: 'studio-north.bsky.social' }],
    ['@Studio-North.bsky.social', { kind: 'handle', handle: 'studio-north.bsky.social' }],
    ['maya.example.com', { kind: 'handle', handle: 'maya.example.com' }],
    ['Maya@Example.org', { kind: 'email', email: 'maya@example.org' }],
    ['did:plc:4kq2xv7bm3l5n6p8r9s0t1u2', { kind: 'did', did: 'did:plc:4kq2xv7bm3l5n6p8r9s0t1u2' }],
    ['did:web:studio.example', { kind: 'did', did: 'did:web:studio.example' }],
  ])('reads %s', (raw, expected) => {
    expect(parseBlueskyIdentifier(raw)).toEqual(expected);
  });

  it.each(['maya', 'not a handle', 'studio..north.social', '-studio.bsky.social', 'studio.bsky.123', 'did:key:abc', '@'])('refuses %s', (raw) => {
    expect(parseBlueskyIdentifier(raw)).toBeUndefined();
  });
});

describe('handleOfIdentifier', () => {
  it.each([
    [{ kind: 'handle', handle: 'a.bsky.social' } as const, 'a.bsky.social'],
    [{ kind: 'email', email: 'maya.okafor@example.org' } as const, 'maya-okafor.bsky.social'],
    [{ kind: 'did', did: 'did:plc:abc' } as const, undefined],
  ])('leads %j to %s', (identifier, handle) => {
    expect(handleOfIdentifier(identifier)).toBe(handle);
  });
});

describe('identifierNames', () => {
  const account = { handle: 'Studio-North.bsky.social', platformUserId: 'did:plc:abc' };
  it.each([
    [{ kind: 'handle', handle: 'studio-north.bsky.social' } as const, true],
    [{ kind: 'handle', handle: 'other.bsky.social' } as const, false],
    [{ kind: 'did', did: 'did:plc:abc' } as const, true],
    [{ kind: 'did', did: 'did:plc:xyz' } as const, false],
    // The network keeps the email private: it cannot be held against the account.
    [{ kind: 'email', email: 'anyone@example.org' } as const, true],
  ])('%j names the account: %s', (identifier, names) => {
    expect(identifierNames(identifier, account)).toBe(names);
  });
});
