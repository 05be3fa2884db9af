import { describe, expect, it } from 'vitest';
import { accountsOf, actionApplies, capped, composerAccounts, inboundBody, matchesFilter, postsOf, postWords, statusChange, type AccountRecord, type PostRecord } from '../../src/dashboard/ui/state.js';
import type { WorkspaceSnapshot } from '../../src/dashboard/ui/webhooks.js';
import { expectStatus, useMock } from '../helpers/mock.js';

/* The State view's pure logic (src/dashboard/ui/state.ts), against a real workspace's snapshot and the API's own answers. */

describe('accountsOf and postsOf', () => {
  const mock = useMock();

  it('read the snapshot into the accounts the API lists, and its posts newest first', async () => {
    const snapshot = (await mock.control('get', '/__control/state')).body as WorkspaceSnapshot;
    const listed = await mock.call('get', '/v1/connections');
    expectStatus(listed, 200);
    const connections = (listed.body as { connections: Array<{ id: string; status: string }> }).connections;
    expect(new Set(accountsOf(snapshot).map(({ id, status }) => ({ id, status })).map((row) => JSON.stringify(row)))).toEqual(new Set(connections.map(({ id, status }) => JSON.stringify({ id, status }))));
    const posts = postsOf(snapshot);
    expect(posts.length).toBeGreaterThan(0);
    expect(posts.map((post) => post.createdAt)).toEqual(posts.map((post) => post.createdAt).sort().reverse());
  });

  it('have none for a snapshot without those stores', () => {
    const empty = { workspace: { stores: {} } } as unknown as WorkspaceSnapshot;
    expect([accountsOf(empty), postsOf(empty)]).toEqual([[], []]);
  });
});

describe('matchesFilter', () => {
  const post: PostRecord = { id: 'p-1', text: 'Doors open at ten', status: 'scheduled', scheduledFor: null, createdAt: '', destinations: [{ id: 'd-1', connectionId: 'a-1', platform: 'bluesky', status: 'failed', errorCode: null, publishedAt: null }] };
  it.each([
    ['', true],
    ['  ', true],
    ['DOORS', true],
    ['p-1', true],
    ['bluesky', true],
    ['failed', true],
    ['published', false],
  ])('%j keeps the post: %s', (filter, kept) => {
    expect(matchesFilter(postWords(post), filter)).toBe(kept);
  });
});

describe('capped', () => {
  it('shows at most the limit and counts every row', () => {
    expect(capped([1, 2, 3], 2)).toEqual({ shown: [1, 2], total: 3 });
    expect(capped([1], 2)).toEqual({ shown: [1], total: 1 });
  });
});

describe('account actions', () => {
  it.each([
    ['Expire', 'expired'],
    ['Revoke', 'revoked'],
    ['Reconnect', 'active'],
  ] as const)('%s sets the status %s, and is not offered on an account already there', (action, status) => {
    expect(statusChange(action)).toEqual({ status });
    expect(actionApplies(action, status)).toBe(false);
    expect(actionApplies(action, status === 'active' ? 'expired' : 'active')).toBe(true);
  });
});

describe('inboundBody', () => {
  it.each([
    ['comment', { accountId: '', text: '  ', recommendation: 'positive' }, {}],
    ['comment', { accountId: 'a-1', text: ' Hi ', recommendation: 'negative' }, { accountId: 'a-1', text: 'Hi' }],
    ['message', { accountId: 'a-1', text: 'Hello', recommendation: 'positive' }, { accountId: 'a-1', text: 'Hello' }],
    ['review', { accountId: '', text: '', recommendation: 'negative' }, { recommendation: 'negative' }],
  ] as const)('a %s from %j sends %j', (kind, fields, body) => {
    expect(inboundBody(kind, fields)).toEqual(body);
  });
});

describe('composerAccounts', () => {
  const accounts = ['twitter', 'bluesky', 'instagram', 'facebook'].map((platform) => ({ id: platform, platform }) as AccountRecord);
  it.each([
    ['comment', ['twitter', 'bluesky', 'instagram', 'facebook']],
    ['message', ['bluesky', 'instagram', 'facebook']],
    ['review', ['facebook']],
  ] as const)('a %s is offered to %j', (kind, platforms) => {
    expect(composerAccounts(kind, accounts).map((account) => account.platform)).toEqual(platforms);
  });
});
