import type { Response } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postsStore } from '../../src/api/posts/store.js';
import { declaredOperations } from '../../src/http/declared-responses.js';
import { HTTP_METHODS, loadSpec } from '../../src/http/spec.js';
import { addOutage } from '../../src/platforms/outages.js';
import { freshWorld, type World } from '../helpers/fixture-world.js';
import { expectApiError, startMock, type TestMock } from '../helpers/mock.js';

/*
 * Descriptions that stay honest. Every error code an operation's description (or
 * summary) names must be declared by the operation's responses and produced by a
 * request in the table below: a description that promises `409 CONFLICT` is proved
 * by a request that gets it. The contract's shared responses declare every code of a
 * status on every operation (BadRequest lists all eight 400 codes), so the table
 * follows what each description says rather than the whole declared set; the codes
 * no description names are left to the area tests.
 */

let mock: TestMock;
beforeAll(async () => {
  // Each case asks once or twice; no budget should be what answers.
  mock = await startMock({ rateLimit: false });
});
afterAll(() => mock.close());

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
};

describe('the error codes operation descriptions name', () => {
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

  it('leave no entry in the table that no description names', () => {
    expect(Object.keys(TABLE).filter((pair) => !pairs.includes(pair)), 'entries for codes no description names any more').toEqual([]);
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
