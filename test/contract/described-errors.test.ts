import type { Response } from 'supertest';
import { describe, expect, it } from 'vitest';
import { postsStore } from '../../src/api/posts/store.js';
import { declaredOperations } from '../../src/http/declared-responses.js';
import { HTTP_METHODS, loadSpec } from '../../src/http/spec.js';
import { addOutage } from '../../src/platforms/outages.js';
import { freshWorld, type World } from '../helpers/fixture-world.js';
import { expectApiError, type TestMock, useMock } from '../helpers/mock.js';

/*
 * Descriptions that stay honest. Every error code an operation's description (or
 * summary) names must be declared by the operation's responses and produced by a
 * request in the table below: a description that promises `409 CONFLICT` is proved
 * by a request that gets it. Besides, every code of a status an operation declares
 * on its own (402, 404, 422, 502: the operation lists that response because it can
 * answer it) needs an entry too. The statuses every operation shares (400 with its
 * eight codes, 401, 403, 409's two codes, 413, 415, 429's two codes) are declared in
 * one component for all, so only what a description names of them is required here;
 * the rest is left to the area tests (pipeline, limits, races, keys).
 */

// Each case asks once or twice; no budget should be what answers.
const mock = useMock({ rateLimit: false });

const document = loadSpec('openapi.yaml').document;
const declared = declaredOperations(document);
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

/** Statuses an operation declares only when it can answer them; each of their codes needs an entry. */
const OWN_STATUSES = new Set([402, 404, 422, 502]);

/** `operationId CODE` for every code of a status in OWN_STATUSES that an operation declares. */
function ownPairs(): string[] {
  const pairs: string[] = [];
  for (const operation of declared.values()) {
    for (const [status, codes] of operation.statuses) if (OWN_STATUSES.has(status)) for (const code of codes) pairs.push(`${operation.operationId} ${code}`);
  }
  return pairs.sort();
}

/** The status the operation declares for a code (the first, should a code sit under two). */
function declaredStatus(operationId: string, code: string): number | undefined {
  for (const [status, codes] of declared.get(operationId)?.statuses ?? []) if (codes.includes(code)) return status;
  return undefined;
}

interface Ctx {
  w: World;
  call(method: 'get' | 'post' | 'put' | 'patch' | 'delete', path: string): ReturnType<TestMock['call']>;
  /** The fixture connection of a network. */
  id(platform: string): string;
  expire(platform: string): Promise<void>;
  outage(platform: string): void;
}

async function context(): Promise<Ctx> {
  const w = await freshWorld(mock);
  return {
    w,
    call: (method, path) => mock.call(method, path, w.apiKey),
    id: (platform) => w.account(platform).id,
    async expire(platform) {
      const res = await mock.control('post', `/__control/accounts/${w.account(platform).id}/status`, w.apiKey).send({ status: 'expired' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    },
    outage(platform) {
      addOutage(w.workspace, { platform, fromMs: w.workspace.now(), untilMs: null, message: 'down for the test' });
    },
  };
}

const UNKNOWN = '0f8e7d6c-5b4a-4392-8a1b-2c3d4e5f6a7b';
const CARD = { title: 'Pick', imageUrl: 'https://cdn.shop.example/pick.jpg' };
const rule = (accountId: string, extra: Record<string, unknown> = {}) => ({ accountId, name: 'Menu', kind: 'comment_to_dm', keywords: ['menu'], message: 'Here is our menu.', ...extra });
const messages = (c: Ctx, platform: string, pick: (lastInboundAt: string | null) => boolean = () => true) => {
  const account = c.w.account(platform);
  const conversation = c.w.conversations(account.id).find((found) => pick(found.lastInboundAt));
  return `/v1/accounts/${account.id}/conversations/${conversation?.id ?? 'none'}/messages`;
};

/** A request that produces each described code, by `operationId CODE`. */
const TABLE: Record<string, (c: Ctx) => Promise<Response>> = {
  // Connections
  'connectAccount VALIDATION_ERROR': (c) => c.call('post', '/v1/connections/youtube/connect').send({ redirectUrl: 'javascript:alert(1)' }),
  'connectAccount INSUFFICIENT_WALLET': async (c) => {
    await mock.control('post', '/__control/wallet', c.w.apiKey).send({ balanceCents: 0 });
    return c.call('post', '/v1/connections/threads/connect').send({ redirectUrl: 'https://app.example/cb' });
  },
  'connectAccount CONFLICT': (c) => c.call('post', '/v1/connections/bluesky/connect').send({ identifier: c.w.account('bluesky').handle, appPassword: 'abcd-efgh-ijkl-mnop' }),
  'connectAccount PLATFORM_ERROR': (c) => {
    c.outage('bluesky');
    return c.call('post', '/v1/connections/bluesky/connect').send({ identifier: 'someone-new.bsky.social', appPassword: 'abcd-efgh-ijkl-mnop' });
  },
  'getConnectionStats PLATFORM_NOT_SUPPORTED': (c) => c.call('get', `/v1/connections/${c.id('instagram')}/stats?include=reviews`),
  'getConnectionStats PLATFORM_ERROR': (c) => {
    c.outage('instagram');
    return c.call('get', `/v1/connections/${c.id('instagram')}/stats`);
  },
  'listConnectionMedia ACCOUNT_RECONNECT_REQUIRED': async (c) => {
    await c.expire('instagram');
    return c.call('get', `/v1/connections/${c.id('instagram')}/media`);
  },
  'listConnectionMedia PLATFORM_ERROR': (c) => {
    c.outage('instagram');
    return c.call('get', `/v1/connections/${c.id('instagram')}/media`);
  },
  'getCreatorInfo ACCOUNT_RECONNECT_REQUIRED': async (c) => {
    await c.expire('tiktok');
    return c.call('get', `/v1/connections/${c.id('tiktok')}/tiktok/creator-info`);
  },
  'getCreatorInfo PLATFORM_NOT_SUPPORTED': (c) => c.call('get', `/v1/connections/${c.id('instagram')}/tiktok/creator-info`),
  'getCreatorInfo PLATFORM_ERROR': (c) => {
    c.outage('tiktok');
    return c.call('get', `/v1/connections/${c.id('tiktok')}/tiktok/creator-info`);
  },
  'listPinBoards ACCOUNT_RECONNECT_REQUIRED': async (c) => {
    await c.expire('pinterest');
    return c.call('get', `/v1/connections/${c.id('pinterest')}/pinterest/boards`);
  },
  'listPinBoards PLATFORM_NOT_SUPPORTED': (c) => c.call('get', `/v1/connections/${c.id('instagram')}/pinterest/boards`),
  'listPinBoards PLATFORM_ERROR': (c) => {
    c.outage('pinterest');
    return c.call('get', `/v1/connections/${c.id('pinterest')}/pinterest/boards`);
  },
  'updateBlueskySettings PLATFORM_NOT_SUPPORTED': (c) => c.call('patch', `/v1/connections/${c.id('twitter')}/bluesky/settings`).send({ defaultLangs: ['en'] }),
  'listConnectCandidates NOT_FOUND': (c) => c.call('get', '/v1/connect-sessions/os_unknown/candidates'),
  'listPendingInstagramAccounts NOT_FOUND': (c) => c.call('get', '/v1/connections/oauth/instagram/accounts?tempToken=tmp_unknown'),
  // Accounts
  'getAccountAnalytics ACCOUNT_RECONNECT_REQUIRED': async (c) => {
    await c.expire('linkedin');
    return c.call('get', `/v1/accounts/${c.id('linkedin')}/analytics`);
  },
  'getAccountAnalytics INVALID_RANGE': (c) => c.call('get', `/v1/accounts/${c.id('linkedin')}/analytics?since=2026-03-01T00:00:00Z&until=2026-02-01T00:00:00Z`),
  'getAccountAnalytics PLATFORM_ERROR': (c) => {
    c.outage('linkedin');
    return c.call('get', `/v1/accounts/${c.id('linkedin')}/analytics`);
  },
  'syncAccount ACCOUNT_RECONNECT_REQUIRED': async (c) => {
    await c.expire('bluesky');
    return c.call('post', `/v1/accounts/${c.id('bluesky')}/sync`).send({});
  },
  'syncAccount PLATFORM_ERROR': (c) => {
    c.outage('bluesky');
    return c.call('post', `/v1/accounts/${c.id('bluesky')}/sync`).send({});
  },
  'listReviews PLATFORM_NOT_SUPPORTED': (c) => c.call('get', `/v1/accounts/${c.id('instagram')}/reviews`),
  // Profiles
  'createProfile CONFLICT': async (c) => {
    await c.call('post', '/v1/profiles').send({ name: 'Agency' });
    return c.call('post', '/v1/profiles').send({ name: 'AGENCY' });
  },
  'deleteProfile CONFLICT': async (c) => {
    const profiles = (await c.call('get', '/v1/profiles')).body.data as Array<{ id: string; isDefault: boolean }>;
    return c.call('delete', `/v1/profiles/${profiles.find((profile) => profile.isDefault)?.id ?? 'none'}`);
  },
  // Posts
  'createPost ACCOUNT_RECONNECT_REQUIRED': async (c) => {
    await c.expire('bluesky');
    return c.call('post', '/v1/posts').send({ text: 'Hello', destinations: [{ connectionId: c.id('bluesky') }] });
  },
  'createPost PLATFORM_NOT_SUPPORTED': (c) => c.call('post', '/v1/posts').send({ thread: ['One', 'Two'], destinations: [{ connectionId: c.id('linkedin') }] }),
  'createPost TEXT_TOO_LONG': (c) => c.call('post', '/v1/posts').send({ text: 'x'.repeat(301), destinations: [{ connectionId: c.id('bluesky') }] }),
  'createPost VALIDATION_ERROR': (c) => c.call('post', '/v1/posts').send({ text: 'Hello', destinations: [{ connectionId: 'no-such-connection' }] }),
  'createPost VELOCITY_LIMITED': async (c) => {
    await mock.control('post', '/__control/limits', c.w.apiKey).send({ velocity: [{ accountId: c.id('twitter'), published: 25 }] });
    return c.call('post', '/v1/posts').send({ text: 'Hello', destinations: [{ connectionId: c.id('twitter') }] });
  },
  'getPost NOT_FOUND': (c) => c.call('get', '/v1/posts/0f8e7d6c-5b4a-4392-8a1b-2c3d4e5f6a7b'),
  'deletePost CONFLICT': (c) => {
    const scheduled = Object.values(postsStore.get(c.w.workspace).posts).find((post) => post.status === 'scheduled');
    return c.call('delete', `/v1/posts/${scheduled?.id ?? 'none'}`);
  },
  'cancelPost CONFLICT': (c) => c.call('post', `/v1/posts/${c.w.destination('bluesky').post.id}/cancel`),
  'getPostAnalyticsTimeline INVALID_RANGE': (c) => c.call('get', `/v1/posts/${c.w.destination('instagram').post.id}/analytics/timeline?since=2026-03-01T00:00:00Z&until=2026-03-01T00:00:00Z`),
  'getPostAnalyticsTimeline PLATFORM_NOT_SUPPORTED': (c) => c.call('get', `/v1/posts/${c.w.destination('twitter').post.id}/analytics/timeline`),
  // Comments and engagement
  'createComment TEXT_TOO_LONG': (c) => c.call('post', '/v1/comments').send({ destinationId: c.w.destination('bluesky').destination.id, text: 'x'.repeat(301) }),
  'replyToComment TEXT_TOO_LONG': (c) => {
    const parent = c.w.comments(c.w.destination('bluesky').destination.id)[0];
    return c.call('post', `/v1/comments/${parent?.id ?? 'none'}/replies`).send({ text: 'x'.repeat(301) });
  },
  'likeComment PLATFORM_NOT_SUPPORTED': (c) => {
    const { destination } = c.w.destination('twitter');
    return c.call('post', '/v1/comments/like').send({ destinationId: destination.id, commentId: c.w.comments(destination.id)[0]?.platformCommentId ?? '1' });
  },
  'likePost PLATFORM_NOT_SUPPORTED': (c) => c.call('post', '/v1/likes').send({ destinationId: c.w.destination('bluesky').destination.id }),
  'repost PLATFORM_NOT_SUPPORTED': (c) => c.call('post', '/v1/reposts').send({ destinationId: c.w.destination('bluesky').destination.id }),
  'bookmarkPost PLATFORM_NOT_SUPPORTED': (c) => c.call('post', '/v1/bookmarks').send({ destinationId: c.w.destination('bluesky').destination.id }),
  'quotePost PLATFORM_NOT_SUPPORTED': (c) => c.call('post', '/v1/quotes').send({ destinationId: c.w.destination('threads').destination.id, text: 'Nice' }),
  'quotePost TEXT_TOO_LONG': (c) => {
    c.w.account('twitter').microblogSubscriptionType = null;
    return c.call('post', '/v1/quotes').send({ destinationId: c.w.destination('twitter').destination.id, text: 'q'.repeat(281) });
  },
  'quotePost VELOCITY_LIMITED': async (c) => {
    await mock.control('post', '/__control/limits', c.w.apiKey).send({ velocity: [{ accountId: c.id('twitter'), published: 25 }] });
    return c.call('post', '/v1/quotes').send({ destinationId: c.w.destination('twitter').destination.id, text: 'Nice' });
  },
  // Inbox
  'listConversations PLATFORM_NOT_SUPPORTED': (c) => c.call('get', `/v1/inbox/conversations?accountId=${c.id('twitter')}`),
  'createConversation PLATFORM_NOT_SUPPORTED': (c) => c.call('post', `/v1/accounts/${c.id('threads')}/conversations`).send({ recipientId: '12345678' }),
  'sendMessage MESSAGING_WINDOW_CLOSED': (c) =>
    c.call('post', messages(c, 'facebook', (at) => at !== null && Date.parse(at) < Date.parse('2026-03-01T09:00:00Z'))).send({ text: 'Sorry', quickReplies: [{ title: 'OK', payload: 'OK' }] }),
  'sendMessage PLATFORM_NOT_SUPPORTED': (c) => c.call('post', messages(c, 'bluesky', (at) => at !== null)).send({ text: 'Hi', cards: [CARD] }),
  'sendMessage TEXT_TOO_LONG': (c) => c.call('post', messages(c, 'instagram')).send({ text: 'z'.repeat(1001) }),
  'sendMessage VALIDATION_ERROR': (c) => c.call('post', messages(c, 'instagram')).send({}),
  // Automations
  'createAutomation PLATFORM_NOT_SUPPORTED': (c) => c.call('post', '/v1/automations').send(rule(c.id('twitter'))),
  'createAutomation NOT_FOUND': (c) => c.call('post', '/v1/automations').send(rule('no-such-account')),
  'deleteAutomation NOT_FOUND': (c) => c.call('delete', '/v1/automations/no-such-automation'),

  // Unknown ids: every operation that declares 404.
  'connectAccount NOT_FOUND': (c) => c.call('post', '/v1/connections/bluesky/connect').send({ identifier: 'a.bsky.social', appPassword: 'abcd-efgh-ijkl-mnop', reconnectId: UNKNOWN }),
  'getConnectionStats NOT_FOUND': (c) => c.call('get', `/v1/connections/${UNKNOWN}/stats`),
  'listConnectionMedia NOT_FOUND': (c) => c.call('get', `/v1/connections/${UNKNOWN}/media`),
  'getCreatorInfo NOT_FOUND': (c) => c.call('get', `/v1/connections/${UNKNOWN}/tiktok/creator-info`),
  'listPinBoards NOT_FOUND': (c) => c.call('get', `/v1/connections/${UNKNOWN}/pinterest/boards`),
  'updateBlueskySettings NOT_FOUND': (c) => c.call('patch', `/v1/connections/${UNKNOWN}/bluesky/settings`).send({ defaultLangs: ['en'] }),
  'getAccount NOT_FOUND': (c) => c.call('get', `/v1/accounts/${UNKNOWN}`),
  'disconnectAccount NOT_FOUND': (c) => c.call('delete', `/v1/accounts/${UNKNOWN}`),
  'reconnectAccount NOT_FOUND': (c) => c.call('post', `/v1/accounts/${UNKNOWN}/reconnect`).send({ redirectUrl: 'https://app.example/cb' }),
  'getAccountAnalytics NOT_FOUND': (c) => c.call('get', `/v1/accounts/${UNKNOWN}/analytics`),
  'syncAccount NOT_FOUND': (c) => c.call('post', `/v1/accounts/${UNKNOWN}/sync`).send({}),
  'listReviews NOT_FOUND': (c) => c.call('get', `/v1/accounts/${UNKNOWN}/reviews`),
  'deleteProfile NOT_FOUND': (c) => c.call('delete', `/v1/profiles/${UNKNOWN}`),
  'deletePost NOT_FOUND': (c) => c.call('delete', `/v1/posts/${UNKNOWN}`),
  'cancelPost NOT_FOUND': (c) => c.call('post', `/v1/posts/${UNKNOWN}/cancel`),
  'getPostAnalyticsTimeline NOT_FOUND': (c) => c.call('get', `/v1/posts/${UNKNOWN}/analytics/timeline`),
  'listComments NOT_FOUND': (c) => c.call('get', `/v1/comments?post=${UNKNOWN}&accountId=${c.id('bluesky')}`),
  'createComment NOT_FOUND': (c) => c.call('post', '/v1/comments').send({ destinationId: UNKNOWN, text: 'Hi' }),
  'replyToComment NOT_FOUND': (c) => c.call('post', `/v1/comments/${UNKNOWN}/replies`).send({ text: 'Hi' }),
  'likeComment NOT_FOUND': (c) => c.call('post', '/v1/comments/like').send({ destinationId: c.w.destination('facebook').destination.id, commentId: '1_2' }),
  'likePost NOT_FOUND': (c) => c.call('post', '/v1/likes').send({ destinationId: UNKNOWN }),
  'unlikePost NOT_FOUND': (c) => c.call('delete', '/v1/likes').send({ destinationId: UNKNOWN }),
  'repost NOT_FOUND': (c) => c.call('post', '/v1/reposts').send({ destinationId: UNKNOWN }),
  'undoRepost NOT_FOUND': (c) => c.call('delete', '/v1/reposts').send({ destinationId: UNKNOWN }),
  'bookmarkPost NOT_FOUND': (c) => c.call('post', '/v1/bookmarks').send({ destinationId: UNKNOWN }),
  'removeBookmark NOT_FOUND': (c) => c.call('delete', '/v1/bookmarks').send({ destinationId: UNKNOWN }),
  'quotePost NOT_FOUND': (c) => c.call('post', '/v1/quotes').send({ destinationId: UNKNOWN, text: 'Nice' }),
  'listConversations NOT_FOUND': (c) => c.call('get', `/v1/inbox/conversations?accountId=${UNKNOWN}`),
  'createConversation NOT_FOUND': (c) => c.call('post', `/v1/accounts/${UNKNOWN}/conversations`).send({ recipientId: '12345678' }),
  'sendMessage NOT_FOUND': (c) => c.call('post', `/v1/accounts/${c.id('instagram')}/conversations/${UNKNOWN}/messages`).send({ text: 'Hi' }),
  'getWebhook NOT_FOUND': (c) => c.call('get', `/v1/webhooks/${UNKNOWN}`),
  'deleteWebhook NOT_FOUND': (c) => c.call('delete', `/v1/webhooks/${UNKNOWN}`),
  'updateWebhook NOT_FOUND': (c) => c.call('patch', `/v1/webhooks/${UNKNOWN}`).send({ name: 'Renamed' }),
  'testWebhook NOT_FOUND': (c) => c.call('post', `/v1/webhooks/${UNKNOWN}/test`),
  'listWebhookDeliveries NOT_FOUND': (c) => c.call('get', `/v1/webhooks/${UNKNOWN}/deliveries`),
  'redeliverWebhookDelivery NOT_FOUND': (c) => c.call('post', `/v1/webhooks/${UNKNOWN}/deliveries/${UNKNOWN}/redeliver`),
  'getAutomation NOT_FOUND': (c) => c.call('get', `/v1/automations/${UNKNOWN}`),
  'updateAutomation NOT_FOUND': (c) => c.call('patch', `/v1/automations/${UNKNOWN}`).send({ enabled: false }),
  // The network down: every operation that declares 502.
  'reconnectAccount PLATFORM_ERROR': (c) => {
    c.outage('bluesky');
    return c.call('post', `/v1/accounts/${c.id('bluesky')}/reconnect`).send({ appPassword: 'abcd-efgh-ijkl-mnop' });
  },
  // An Idempotency-Key sent again with another body: every operation that declares 422.
  'reconnectAccount IDEMPOTENCY_KEY_REUSED': (c) => reuse(c, `/v1/accounts/${c.id('bluesky')}/reconnect`, { appPassword: 'abcd-efgh-ijkl-mnop' }, { appPassword: 'abcd-efgh-ijkl-mnoq' }),
  'syncAccount IDEMPOTENCY_KEY_REUSED': (c) => reuse(c, `/v1/accounts/${c.id('bluesky')}/sync`, {}, { platformPostId: '3kabc' }),
  'createPost IDEMPOTENCY_KEY_REUSED': (c) => reuse(c, '/v1/posts', { text: 'One', destinations: [{ connectionId: c.id('bluesky') }] }, { text: 'Two', destinations: [{ connectionId: c.id('bluesky') }] }),
  'replyToComment IDEMPOTENCY_KEY_REUSED': (c) => reuse(c, `/v1/comments/${c.w.comments(c.w.destination('bluesky').destination.id)[0]?.id ?? 'none'}/replies`, { text: 'One' }, { text: 'Two' }),
  'sendMessage IDEMPOTENCY_KEY_REUSED': (c) => reuse(c, messages(c, 'instagram'), { text: 'One' }, { text: 'Two' }),
};

/** Sends `first` and then `second` with the same Idempotency-Key, answering the second. */
async function reuse(c: Ctx, path: string, first: Record<string, unknown>, second: Record<string, unknown>): Promise<Response> {
  const res = await c.call('post', path).set('Idempotency-Key', 'described-errors-1').send(first);
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return c.call('post', path).set('Idempotency-Key', 'described-errors-1').send(second);
}

describe('the error codes an operation documents', () => {
  const pairs = describedPairs();

  it('are found in the descriptions (the table below has something to prove)', () => {
    expect(pairs.length).toBeGreaterThan(40);
    expect(pairs).toContain('createPost VELOCITY_LIMITED');
  });

  it('are each declared by the operation\'s responses', () => {
    const undeclared = pairs.filter((pair) => {
      const [operationId, code] = pair.split(' ') as [string, string];
      return declaredStatus(operationId, code) === undefined;
    });
    expect(undeclared, 'codes a description names that no response of the operation declares').toEqual([]);
  });

  it('each have a request in the table that produces them', () => {
    expect(pairs.filter((pair) => !(pair in TABLE)), 'described codes with no entry in TABLE').toEqual([]);
  });

  it('and so does every code of a status an operation declares on its own (402, 404, 422, 502)', () => {
    expect(ownPairs().filter((pair) => !(pair in TABLE)), 'declared codes with no entry in TABLE').toEqual([]);
  });

  it('leave no entry in the table that neither a description nor an own status asks for', () => {
    const required = new Set([...pairs, ...ownPairs()]);
    expect(Object.keys(TABLE).filter((pair) => !required.has(pair)), 'entries nothing asks for any more').toEqual([]);
  });

  describe.each(Object.keys(TABLE).sort())('%s', (pair) => {
    it('is answered with the declared status and that code', async () => {
      const [operationId, code] = pair.split(' ') as [string, string];
      const status = declaredStatus(operationId, code);
      expect(status, `${pair} is declared`).toBeDefined();
      const c = await context();
      const res = await (TABLE[pair] as (c: Ctx) => Promise<Response>)(c);
      expectApiError(res, status as number, code);
      // The answer came from the operation the entry is named after.
      expect(c.w.workspace.journal.entries().at(-1)?.operationId).toBe(operationId);
    });
  });
});
