import type { Response } from 'supertest';
import { expect } from 'vitest';
import { commentsStore } from '../../src/api/comments/store.js';
import { postsStore } from '../../src/api/posts/store.js';
import { addOutage } from '../../src/platforms/outages.js';
import type { OperationModel } from '../fuzz/operations.js';
import { OPERATIONS } from './every-operation.js';
import { freshWorld, type World } from '../helpers/fixture-world.js';
import type { TestMock } from '../helpers/mock.js';

/*
 * A request for each error code an operation of openapi.yaml declares in its
 * `x-error-codes` (decision 0036): what test/contract/declared-errors.test.ts sends to
 * prove that every declared code is answered, and that a suite which drives every
 * declared outcome reaches 100% coverage.
 */

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** A fresh workspace of the fixture world, and what the requests do to it. */
export interface ErrorContext {
  w: World;
  call(method: Method, path: string): ReturnType<TestMock['call']>;
  /** A control-plane request with the workspace's key. */
  control(method: Method, path: string): ReturnType<TestMock['control']>;
  /** The fixture connection of a network. */
  id(platform: string): string;
  expire(platform: string): Promise<void>;
  outage(platform: string): void;
}

export async function errorContext(mock: TestMock): Promise<ErrorContext> {
  const w = await freshWorld(mock);
  return {
    w,
    call: (method, path) => mock.call(method, path, w.apiKey),
    control: (method, path) => mock.control(method, path, w.apiKey),
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
/** The microblogging network's actions: operationId, method, path. */
const ENGAGEMENT: Array<[string, Method, string]> = [
  ['likePost', 'post', '/v1/likes'],
  ['unlikePost', 'delete', '/v1/likes'],
  ['repost', 'post', '/v1/reposts'],
  ['undoRepost', 'delete', '/v1/reposts'],
  ['bookmarkPost', 'post', '/v1/bookmarks'],
  ['removeBookmark', 'delete', '/v1/bookmarks'],
  ['quotePost', 'post', '/v1/quotes'],
];
const messages = (c: ErrorContext, platform: string, pick: (lastInboundAt: string | null) => boolean = () => true) => {
  const account = c.w.account(platform);
  const conversation = c.w.conversations(account.id).find((found) => pick(found.lastInboundAt));
  return `/v1/accounts/${account.id}/conversations/${conversation?.id ?? 'none'}/messages`;
};

/**
 * A request that answers the code, by `operationId CODE`, for the codes of what the
 * operation itself decides (a missing record, a network rule, a state): each is written
 * for its operation. The pipeline's codes, which any operation answers alike, are in
 * PIPELINE_REQUESTS below.
 */
export const ERROR_REQUESTS: Record<string, (c: ErrorContext) => Promise<Response>> = {
  // Connections
  'connectAccount VALIDATION_ERROR': (c) => c.call('post', '/v1/connections/youtube/connect').send({ redirectUrl: 'javascript:alert(1)' }),
  'connectAccount INSUFFICIENT_WALLET': async (c) => {
    await c.control('post', '/__control/wallet').send({ balanceCents: 0 });
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
    await c.control('post', '/__control/limits').send({ velocity: [{ accountId: c.id('twitter'), published: 25 }] });
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
    await c.control('post', '/__control/limits').send({ velocity: [{ accountId: c.id('twitter'), published: 25 }] });
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
  'replyToComment IDEMPOTENCY_KEY_REUSED': (c) => reuse(c, `/v1/comments/${c.w.comments(c.w.destination('bluesky').destination.id)[0]?.id ?? 'none'}/replies`, { text: 'One' }, { text: 'Two' }),
  'sendMessage IDEMPOTENCY_KEY_REUSED': (c) => reuse(c, messages(c, 'instagram'), { text: 'One' }, { text: 'Two' }),

  // Acting as an account that must reconnect first.
  'createComment ACCOUNT_RECONNECT_REQUIRED': async (c) => {
    await c.expire('bluesky');
    return c.call('post', '/v1/comments').send({ destinationId: c.w.destination('bluesky').destination.id, text: 'Hi' });
  },
  'replyToComment ACCOUNT_RECONNECT_REQUIRED': async (c) => {
    const parent = c.w.comments(c.w.destination('bluesky').destination.id)[0];
    await c.expire('bluesky');
    return c.call('post', `/v1/comments/${parent?.id ?? 'none'}/replies`).send({ text: 'Hi' });
  },
  'likeComment ACCOUNT_RECONNECT_REQUIRED': async (c) => {
    const { destination } = c.w.destination('facebook', (_post, d) => d.status === 'published' && c.w.comments(d.id).length > 0);
    await c.expire('facebook');
    return c.call('post', '/v1/comments/like').send({ destinationId: destination.id, commentId: c.w.comments(destination.id)[0]?.platformCommentId ?? '1' });
  },
  ...Object.fromEntries(
    ENGAGEMENT.map(([operationId, method, path]) => [
      `${operationId} ACCOUNT_RECONNECT_REQUIRED`,
      async (c: ErrorContext) => {
        const { destination } = c.w.destination('twitter');
        await c.expire('twitter');
        return c.call(method, path).send({ destinationId: destination.id, ...(operationId === 'quotePost' && { text: 'Nice' }) });
      },
    ]),
  ),
  ...Object.fromEntries(
    ENGAGEMENT.filter(([, method]) => method === 'delete').map(([operationId, method, path]) => [
      `${operationId} PLATFORM_NOT_SUPPORTED`,
      (c: ErrorContext) => c.call(method, path).send({ destinationId: c.w.destination('bluesky').destination.id }),
    ]),
  ),
  'createConversation ACCOUNT_RECONNECT_REQUIRED': async (c) => {
    await c.expire('instagram');
    return c.call('post', `/v1/accounts/${c.id('instagram')}/conversations`).send({ recipientId: '12345678' });
  },
  'sendMessage ACCOUNT_RECONNECT_REQUIRED': async (c) => {
    const path = messages(c, 'instagram');
    await c.expire('instagram');
    return c.call('post', path).send({ text: 'Hi' });
  },
  'createConversation TEXT_TOO_LONG': (c) => c.call('post', `/v1/accounts/${c.id('instagram')}/conversations`).send({ recipientId: '12345678', text: 'z'.repeat(1001) }),
  // Networks and actions that do not go together.
  'connectAccount PLATFORM_NOT_SUPPORTED': (c) => c.call('post', '/v1/connections/myspace/connect').send({ redirectUrl: 'https://app.example/cb' }),
  'getAnalyticsTimeline PLATFORM_NOT_SUPPORTED': (c) => c.call('get', '/v1/analytics/timeline?platform=twitter'),
  'createComment PLATFORM_NOT_SUPPORTED': (c) => c.call('post', '/v1/comments').send({ destinationId: c.w.destination('pinterest').destination.id, text: 'Nice pin' }),
  'listComments PLATFORM_NOT_SUPPORTED': (c) => c.call('get', `/v1/comments?destinationId=${c.w.destination('pinterest').destination.id}`),
  'replyToComment PLATFORM_NOT_SUPPORTED': (c) => {
    // pinterest has no comments, so no request can make one: plant one, as if the network had changed since.
    const { post, destination } = c.w.destination('pinterest');
    commentsStore.get(c.w.workspace).comments.planted = {
      ...{ id: 'planted', postId: post.id, destinationId: destination.id, accountId: destination.connectionId, platform: 'pinterest', platformCommentId: '123', parentId: null },
      ...{ text: 'Nice pin', username: 'someone', likeCount: 0, createdAt: '2026-03-01T00:00:00.000Z', fromAccount: false },
    };
    return c.call('post', '/v1/comments/planted/replies').send({ text: 'Thanks' });
  },
  'connectAccount PLAN_LIMIT_REACHED': async (c) => {
    expect((await c.control('post', '/__control/limits').send({ plan: 'free' })).status).toBe(200);
    // New accounts until the 15 slots of the free plan are taken.
    for (let i = 0; ; i++) {
      const res = await c.call('post', '/v1/connections/bluesky/connect').send({ identifier: `slot-${i}.bsky.social`, appPassword: 'abcd-efgh-ijkl-mnop' });
      if (res.status !== 200 || i >= 15) return res;
    }
  },
  // Cursors and ranges of lists under a record.
  'listConnectionMedia INVALID_CURSOR': (c) => c.call('get', `/v1/connections/${c.id('instagram')}/media?cursor=not-a-cursor`),
  'getAccountAnalytics INVALID_CURSOR': (c) => c.call('get', `/v1/accounts/${c.id('instagram')}/analytics?cursor=not-a-cursor`),
  'listComments INVALID_CURSOR': (c) => c.call('get', `/v1/comments?destinationId=${c.w.destination('bluesky').destination.id}&cursor=not-a-cursor`),
  'listReviews INVALID_CURSOR': (c) => c.call('get', `/v1/accounts/${c.id('facebook')}/reviews?cursor=not-a-cursor`),
  'listConversations INVALID_CURSOR': (c) => c.call('get', `/v1/inbox/conversations?accountId=${c.id('instagram')}&cursor=not-a-cursor`),
  'listWebhookDeliveries INVALID_CURSOR': async (c) => c.call('get', `/v1/webhooks/${await webhook(c)}/deliveries?cursor=not-a-cursor`),
  'listWebhookDeliveries INVALID_RANGE': async (c) => c.call('get', `/v1/webhooks/${await webhook(c)}/deliveries?since=2026-03-01T00:00:00Z&until=2026-02-01T00:00:00Z`),
  // A request with the key still running: one process answers each request to its end before the next
  // (no handler waits), so only a rule can answer it, as a suite provokes it too (decision 0036).
  'reconnectAccount IDEMPOTENCY_KEY_IN_USE': (c) => inUse(c, 'reconnectAccount', `/v1/accounts/${c.id('bluesky')}/reconnect`, { appPassword: 'abcd-efgh-ijkl-mnop' }),
  'syncAccount IDEMPOTENCY_KEY_IN_USE': (c) => inUse(c, 'syncAccount', `/v1/accounts/${c.id('bluesky')}/sync`, {}),
  'replyToComment IDEMPOTENCY_KEY_IN_USE': (c) => inUse(c, 'replyToComment', `/v1/comments/${c.w.comments(c.w.destination('bluesky').destination.id)[0]?.id ?? 'none'}/replies`, { text: 'One' }),
  'sendMessage IDEMPOTENCY_KEY_IN_USE': (c) => inUse(c, 'sendMessage', messages(c, 'instagram'), { text: 'One' }),
};

/** A webhook of the workspace, for its delivery log. */
async function webhook(c: ErrorContext): Promise<string> {
  const res = await c.call('post', '/v1/webhooks').send({ name: 'Log', url: 'https://hooks.example/in', events: ['post.published'] });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

/** A keyed request a rule answers as if the first with its key were still running. */
async function inUse(c: ErrorContext, operationId: string, path: string, body: Record<string, unknown>): Promise<Response> {
  const rule = { match: { operationId }, then: { error: { status: 409, code: 'IDEMPOTENCY_KEY_IN_USE', message: 'A request with this Idempotency-Key is still being processed.', param: 'Idempotency-Key' } }, times: 1 };
  const added = await c.control('post', '/__control/rules').send(rule);
  expect(added.status, JSON.stringify(added.body)).toBe(201);
  return c.call('post', path).set('Idempotency-Key', 'declared-errors-2').send(body);
}

/** Sends `first` and then `second` with the same Idempotency-Key, answering the second. */
async function reuse(c: ErrorContext, path: string, first: Record<string, unknown>, second: Record<string, unknown>): Promise<Response> {
  const res = await c.call('post', path).set('Idempotency-Key', 'declared-errors-1').send(first);
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return c.call('post', path).set('Idempotency-Key', 'declared-errors-1').send(second);
}


/** What the pipeline's requests share, made once: a workspace, a read-only key of it, and a workspace whose budgets are spent. */
export interface PipelineContext {
  mock: TestMock;
  apiKey: string;
  readKey: string;
  drainedKey: string;
  /** The server's --body-limit, in bytes. */
  bodyLimitBytes: number;
}

export async function pipelineContext(mock: TestMock, bodyLimitBytes: number): Promise<PipelineContext> {
  const { w } = await errorContext(mock);
  const read = await mock.control('post', '/__control/keys', w.apiKey).send({ scope: 'read' });
  expect(read.status, JSON.stringify(read.body)).toBe(201);
  const drained = await errorContext(mock);
  const drain = await drained.control('post', '/__control/limits').send({ drain: ['requests', 'analytics'] });
  expect(drain.status, JSON.stringify(drain.body)).toBe(200);
  return { mock, apiKey: w.apiKey, readKey: read.body.apiKey as string, drainedKey: drained.w.apiKey, bodyLimitBytes };
}

/**
 * The operation's path with its parameters filled: a network that exists, ids that do
 * not. The pipeline answers before any record is looked up, so any id serves.
 */
function anyTarget(op: OperationModel): string {
  return op.path.replace('{platform}', 'bluesky').replace(/\{\w+\}/g, UNKNOWN);
}

/**
 * Takes no path parameter and no required query parameter: a list the query alone can page or
 * bound. listComments is not one, though its contract requires none of its parameters: it needs
 * a destination (or a post) all the same.
 */
function bare(op: OperationModel): boolean {
  return !op.path.includes('{') && !op.parameters.some((parameter) => parameter.in === 'query' && parameter.required) && op.operationId !== 'listComments';
}

function request(p: PipelineContext, op: OperationModel, query: string, apiKey: string | null): ReturnType<TestMock['call']> {
  const test = p.mock.call(op.method.toLowerCase() as Method, `${anyTarget(op)}${query}`, apiKey);
  // A body the operation takes, so that no 415 for a missing one comes first.
  return op.body ? test.send({}) : test;
}

/** A request of the pipeline: which operations it applies to, and how it is sent. */
export interface PipelineRequest {
  applies(op: OperationModel): boolean;
  send(op: OperationModel, p: PipelineContext): ReturnType<TestMock['call']>;
}

const every = () => true;

/**
 * The codes the pipeline answers for any operation before its handler runs (the key, the
 * budget, the key's scope, the body, the query), each with one request built from the
 * operation's contract. A list with path parameters needs a record first: its cursor and
 * range codes have requests of their own in ERROR_REQUESTS.
 */
export const PIPELINE_REQUESTS: Record<string, PipelineRequest> = {
  UNAUTHORIZED: { applies: every, send: (op, p) => request(p, op, '', null) },
  VALIDATION_ERROR: { applies: every, send: (op, p) => request(p, op, '?notAParameter=1', p.apiKey) },
  FORBIDDEN: { applies: every, send: (op, p) => request(p, op, '', p.readKey) },
  RATE_LIMITED: { applies: every, send: (op, p) => request(p, op, '', p.drainedKey) },
  PAYLOAD_TOO_LARGE: {
    applies: every,
    send: (op, p) =>
      p.mock
        .call(op.method.toLowerCase() as Method, anyTarget(op), p.apiKey)
        .set('content-type', 'application/json')
        .send(JSON.stringify({ text: 'x'.repeat(p.bodyLimitBytes) })),
  },
  UNSUPPORTED_MEDIA_TYPE: { applies: every, send: (op, p) => p.mock.call(op.method.toLowerCase() as Method, anyTarget(op), p.apiKey).set('content-type', 'text/plain').send('hello') },
  INVALID_CURSOR: { applies: bare, send: (op, p) => request(p, op, '?cursor=not-a-cursor', p.apiKey) },
  INVALID_RANGE: { applies: bare, send: (op, p) => request(p, op, '?since=2026-03-01T00:00:00Z&until=2026-02-01T00:00:00Z', p.apiKey) },
};

/** How a declared pair is driven: its own request, the pipeline's, or none (a gap the test names). */
export function requestKind(operationId: string, code: string): 'own' | 'pipeline' | undefined {
  if (`${operationId} ${code}` in ERROR_REQUESTS) return 'own';
  const op = OPERATIONS.find((candidate) => candidate.operationId === operationId);
  return op && PIPELINE_REQUESTS[code]?.applies(op) ? 'pipeline' : undefined;
}
