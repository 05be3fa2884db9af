import { beforeAll, describe, expect, it } from 'vitest';
import { automationsStore } from '../../src/api/automations/store.js';
import { expectEventDataInContract } from '../helpers/events.js';
import { expectApiError, expectStatus, useMock } from '../helpers/mock.js';
import { freshWorld, worldOf, type World } from '../helpers/fixture-world.js';

const mock = useMock();
let world: World;
beforeAll(() => {
  world = worldOf(mock);
});

type Automation = { id: string; accountId: string; name: string; kind: string; keywords: string[]; excludeKeywords: string[]; message: string; enabled: boolean; createdAt: string; updatedAt: string };

function rule(accountId: string, overrides: Record<string, unknown> = {}) {
  return { accountId, name: 'Menu on request', kind: 'comment_to_dm', keywords: ['menu'], excludeKeywords: ['spam'], message: 'Here is our menu: https://shop.example/menu', ...overrides };
}

async function create(w: World, body: Record<string, unknown>): Promise<Automation> {
  const res = await mock.call('post', '/v1/automations', w.apiKey).send(body);
  expectStatus(res, 201);
  return res.body as Automation;
}

/** A published, single-destination post of the account's network, to comment on. */
function postOf(w: World, platform: string): string {
  return w.destination(platform).destination.id;
}

describe('GET /v1/automations', () => {
  it('lists the workspace’s automations newest first', async () => {
    const res = await mock.call('get', '/v1/automations');
    expectStatus(res, 200);
    const data = res.body.data as Automation[];
    expect(data).toHaveLength(3);
    expect(data.map((a) => a.createdAt)).toEqual(data.map((a) => a.createdAt).sort().reverse());
    expect(res.body).toMatchObject({ hasMore: false, nextCursor: null });
  });

  it('filters by accountId (an unknown one matches nothing) and pages', async () => {
    const instagram = world.account('instagram');
    const mine = await mock.call('get', `/v1/automations?accountId=${instagram.id}`);
    expect((mine.body.data as Automation[]).map((a) => a.accountId)).toEqual([instagram.id, instagram.id]);
    const none = await mock.call('get', '/v1/automations?accountId=nobody');
    expectStatus(none, 200);
    expect(none.body.data).toEqual([]);
    const first = await mock.call('get', '/v1/automations?limit=2');
    const second = await mock.call('get', `/v1/automations?limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`);
    expect(second.body.data).toHaveLength(1);
    expect(second.body.hasMore).toBe(false);
  });
});

describe('POST /v1/automations', () => {
  it('creates an enabled rule without exclude keywords by default', async () => {
    const w = await freshWorld(mock);
    const account = w.account('bluesky');
    const res = await mock.call('post', '/v1/automations', w.apiKey).send({ accountId: account.id, name: 'Hi', kind: 'welcome_dm', keywords: ['hi'], message: 'Hello!' });
    expectStatus(res, 201);
    expect(res.body).toEqual({
      id: expect.any(String), accountId: account.id, name: 'Hi', kind: 'welcome_dm', keywords: ['hi'], excludeKeywords: [], message: 'Hello!', enabled: true,
      createdAt: '2026-03-02T09:00:00.000Z', updatedAt: '2026-03-02T09:00:00.000Z',
    });
    expectStatus(await mock.call('get', `/v1/automations/${res.body.id}`, w.apiKey), 200);
  });

  it.each([
    ['a network without direct messages', () => rule(world.account('twitter').id), 400, 'PLATFORM_NOT_SUPPORTED', 'accountId'],
    ['story_reply on bluesky, which has no stories', () => rule(world.account('bluesky').id, { kind: 'story_reply' }), 400, 'PLATFORM_NOT_SUPPORTED', 'kind'],
    ['an unknown account', () => rule('nobody'), 404, 'NOT_FOUND', 'accountId'],
    ['an unknown kind', () => rule(world.account('bluesky').id, { kind: 'auto_like' }), 400, 'VALIDATION_ERROR', 'kind'],
    ['no keywords', () => rule(world.account('bluesky').id, { keywords: [] }), 400, 'VALIDATION_ERROR', 'keywords'],
    ['21 keywords', () => rule(world.account('bluesky').id, { keywords: Array.from({ length: 21 }, (_, i) => `k${i}`) }), 400, 'VALIDATION_ERROR', 'keywords'],
    ['21 exclude keywords', () => rule(world.account('bluesky').id, { excludeKeywords: Array.from({ length: 21 }, (_, i) => `x${i}`) }), 400, 'VALIDATION_ERROR', 'excludeKeywords'],
    ['a name of 121 characters', () => rule(world.account('bluesky').id, { name: 'n'.repeat(121) }), 400, 'VALIDATION_ERROR', 'name'],
    ['a message of 1001 characters', () => rule(world.account('bluesky').id, { message: 'm'.repeat(1001) }), 400, 'VALIDATION_ERROR', 'message'],
    ['a blank keyword', () => rule(world.account('bluesky').id, { keywords: ['menu', '  '] }), 400, 'VALIDATION_ERROR', 'keywords[1]'],
    ['a keyword that is also excluded', () => rule(world.account('bluesky').id, { keywords: ['Menu'], excludeKeywords: ['spam', 'menu'] }), 400, 'VALIDATION_ERROR', 'excludeKeywords[1]'],
    ['a missing message', () => ({ ...rule(world.account('bluesky').id), message: undefined }), 400, 'VALIDATION_ERROR', 'message'],
  ] as const)('answers %s with %i %s', async (_kind, body, status, code, param) => {
    const before = Object.keys(automationsStore.get(world.workspace).automations).length;
    expectApiError(await mock.call('post', '/v1/automations').send(body()), status, code, param);
    expect(Object.keys(automationsStore.get(world.workspace).automations)).toHaveLength(before);
  });
});

describe('GET /v1/automations/{id}', () => {
  it('answers 404 for an automation of another workspace', async () => {
    const other = await freshWorld(mock);
    const id = Object.keys(automationsStore.get(world.workspace).automations)[0];
    expectStatus(await mock.call('get', `/v1/automations/${id}`), 200);
    expectApiError(await mock.call('get', `/v1/automations/${id}`, other.apiKey), 404, 'NOT_FOUND');
  });
});

describe('PATCH /v1/automations/{id}', () => {
  it('changes only the fields that were sent', async () => {
    const w = await freshWorld(mock);
    const before = await create(w, rule(w.account('instagram').id));
    await mock.control('post', '/__control/clock/advance', w.apiKey).send({ by: 'PT1H' });
    const res = await mock.call('patch', `/v1/automations/${before.id}`, w.apiKey).send({ name: 'Menu (renamed)' });
    expectStatus(res, 200);
    expect(res.body).toEqual({ ...before, name: 'Menu (renamed)', updatedAt: '2026-03-02T10:00:00.000Z' });
    expect((await mock.call('get', `/v1/automations/${before.id}`, w.apiKey)).body).toEqual(res.body);
  });

  it('replaces the keywords, and an empty excludeKeywords removes them', async () => {
    const w = await freshWorld(mock);
    const before = await create(w, rule(w.account('instagram').id, { keywords: ['menu', 'prices'], excludeKeywords: ['spam', 'refund'] }));
    const replaced = await mock.call('patch', `/v1/automations/${before.id}`, w.apiKey).send({ keywords: ['catalog'] });
    expect(replaced.body).toMatchObject({ keywords: ['catalog'], excludeKeywords: ['spam', 'refund'] });
    const cleared = await mock.call('patch', `/v1/automations/${before.id}`, w.apiKey).send({ excludeKeywords: [] });
    expect(cleared.body).toMatchObject({ keywords: ['catalog'], excludeKeywords: [], message: before.message, enabled: true });
  });

  it('pauses with enabled false and resumes with enabled true', async () => {
    const w = await freshWorld(mock);
    const before = await create(w, rule(w.account('instagram').id));
    expect((await mock.call('patch', `/v1/automations/${before.id}`, w.apiKey).send({ enabled: false })).body.enabled).toBe(false);
    expect((await mock.call('patch', `/v1/automations/${before.id}`, w.apiKey).send({ enabled: true })).body.enabled).toBe(true);
  });

  it('refuses a keyword the result would also exclude, changing nothing', async () => {
    const w = await freshWorld(mock);
    const before = await create(w, rule(w.account('instagram').id));
    const res = await mock.call('patch', `/v1/automations/${before.id}`, w.apiKey).send({ name: 'Other', keywords: ['SPAM'] });
    expectApiError(res, 400, 'VALIDATION_ERROR', 'keywords');
    expect((await mock.call('get', `/v1/automations/${before.id}`, w.apiKey)).body).toEqual(before);
  });

  it.each([
    ['empty keywords', { keywords: [] }, 'keywords'],
    ['a field that cannot change', { kind: 'welcome_dm' }, 'kind'],
  ])('answers 400 VALIDATION_ERROR for %s', async (_kind, body, param) => {
    const id = Object.keys(automationsStore.get(world.workspace).automations)[0];
    expectApiError(await mock.call('patch', `/v1/automations/${id}`).send(body), 400, 'VALIDATION_ERROR', param);
  });

  describe('with an empty body', () => {
    it('answers 200 with the automation unchanged, updatedAt included, as the webhook PATCH does', async () => {
      const w = await freshWorld(mock);
      const before = await create(w, rule(w.account('instagram').id));
      await mock.control('post', '/__control/clock/advance', w.apiKey).send({ by: 'PT1H' });
      const res = await mock.call('patch', `/v1/automations/${before.id}`, w.apiKey).send({});
      expectStatus(res, 200);
      expect(res.body).toEqual(before);
      expect((await mock.call('get', `/v1/automations/${before.id}`, w.apiKey)).body).toEqual(before);
    });
  });

  it('answers 404 for an unknown automation', async () => {
    expectApiError(await mock.call('patch', '/v1/automations/nope').send({ enabled: false }), 404, 'NOT_FOUND');
  });
});

describe('DELETE /v1/automations/{id}', () => {
  it('deletes it: 200 with an empty body, then 404', async () => {
    const w = await freshWorld(mock);
    const automation = await create(w, rule(w.account('facebook').id));
    const res = await mock.call('delete', `/v1/automations/${automation.id}`, w.apiKey);
    expectStatus(res, 200);
    expect(res.text).toBe('');
    expectApiError(await mock.call('get', `/v1/automations/${automation.id}`, w.apiKey), 404, 'NOT_FOUND');
    expectApiError(await mock.call('delete', `/v1/automations/${automation.id}`, w.apiKey), 404, 'NOT_FOUND');
  });
});

describe('the automation runner', () => {
  describe('on an inbound comment (comment_to_dm)', () => {
    it('sends exactly one direct message to the commenter and emits one automation.triggered', async () => {
      const w = await freshWorld(mock);
      const account = w.account('bluesky');
      const automation = await create(w, rule(account.id));
      const mark = w.mark();
      const res = await mock.control('post', '/__control/inbound/comments', w.apiKey).send({ destinationId: postOf(w, 'bluesky'), text: 'Can I see the MENU?', authorId: 'did:plc:commenter', username: 'maya.bsky.social', displayName: 'Maya' });
      expectStatus(res, 201);
      const events = w.eventsSince(mark);
      expect(events.map((e) => e.event)).toEqual(['comment.received', 'message.sent', 'automation.triggered']);
      const sent = events[1]?.data.message as { id: string; conversationId: string; text: string };
      expect(sent.text).toBe(automation.message);
      expect(events[2]?.data).toEqual({
        automationId: automation.id,
        accountId: account.id,
        platform: 'bluesky',
        kind: 'comment_to_dm',
        trigger: { type: 'comment', id: res.body.comment.id, senderId: 'did:plc:commenter', text: 'Can I see the MENU?' },
        matchedKeyword: 'menu',
        messageId: sent.id,
        error: null,
      });
      expect(res.body.automations).toEqual([{ automationId: automation.id, kind: 'comment_to_dm', outcome: 'triggered', messageId: sent.id, error: null }]);
      // The message sits in a conversation with the commenter, opened for it.
      const conversation = w.conversations(account.id).find((c) => c.id === sent.conversationId);
      expect(conversation?.members[0]).toEqual({ id: 'did:plc:commenter', username: 'maya.bsky.social', displayName: 'Maya' });
      expect(w.messages(sent.conversationId).map((m) => m.text)).toEqual([automation.message]);
      for (const event of events) expectEventDataInContract(event);
    });

    it('sends nothing while the rule is paused', async () => {
      const w = await freshWorld(mock);
      const automation = await create(w, rule(w.account('bluesky').id));
      expectStatus(await mock.call('patch', `/v1/automations/${automation.id}`, w.apiKey).send({ enabled: false }), 200);
      const mark = w.mark();
      const res = await mock.control('post', '/__control/inbound/comments', w.apiKey).send({ destinationId: postOf(w, 'bluesky'), text: 'menu please' });
      expect(res.body.automations).toEqual([]);
      expect(w.eventsSince(mark).map((e) => e.event)).toEqual(['comment.received']);
    });

    it('sends nothing when an exclude keyword appears too', async () => {
      const w = await freshWorld(mock);
      await create(w, rule(w.account('bluesky').id));
      const mark = w.mark();
      const res = await mock.control('post', '/__control/inbound/comments', w.apiKey).send({ destinationId: postOf(w, 'bluesky'), text: 'Menu? This is Spam.' });
      expect(res.body.automations).toEqual([]);
      expect(w.eventsSince(mark).map((e) => e.event)).toEqual(['comment.received']);
    });

    it('sends nothing without a keyword, and nothing for another account’s comments', async () => {
      const w = await freshWorld(mock);
      await create(w, rule(w.account('bluesky').id));
      const plain = await mock.control('post', '/__control/inbound/comments', w.apiKey).send({ destinationId: postOf(w, 'bluesky'), text: 'Lovely photo' });
      expect(plain.body.automations).toEqual([]);
      const elsewhere = await mock.control('post', '/__control/inbound/comments', w.apiKey).send({ destinationId: postOf(w, 'instagram'), text: 'menu?' });
      expect(elsewhere.body.automations).toEqual([]);
    });

    it('runs every matching rule of the account, oldest first', async () => {
      const w = await freshWorld(mock);
      const account = w.account('bluesky');
      const first = await create(w, rule(account.id, { name: 'First' }));
      const second = await create(w, rule(account.id, { name: 'Second', keywords: ['see'], excludeKeywords: [], message: 'Second answer' }));
      const res = await mock.control('post', '/__control/inbound/comments', w.apiKey).send({ destinationId: postOf(w, 'bluesky'), text: 'Can I see the menu?' });
      expect(res.body.automations.map((r: { automationId: string }) => r.automationId)).toEqual([first.id, second.id]);
      const conversationId = res.body.events[1].data.message.conversationId as string;
      expect(w.messages(conversationId)).toHaveLength(2);
    });
  });

  describe('when the rule cannot send', () => {
    it('emits automation.failed ACCOUNT_RECONNECT_REQUIRED and sends nothing for an account that needs a reconnect', async () => {
      const w = await freshWorld(mock);
      const account = w.account('instagram');
      account.status = 'expired';
      const mark = w.mark();
      const res = await mock.control('post', '/__control/inbound/comments', w.apiKey).send({ destinationId: postOf(w, 'instagram'), text: 'What does it cost?' });
      expectStatus(res, 201);
      const events = w.eventsSince(mark);
      expect(events.map((e) => e.event)).toEqual(['comment.received', 'automation.failed']);
      expect(events[1]?.data).toMatchObject({ kind: 'comment_to_dm', matchedKeyword: 'cost', messageId: null, error: { code: 'ACCOUNT_RECONNECT_REQUIRED' } });
      expect(res.body.automations[0]).toMatchObject({ outcome: 'failed', messageId: null, error: { code: 'ACCOUNT_RECONNECT_REQUIRED' } });
      for (const event of events) expectEventDataInContract(event);
    });

    it('emits automation.failed TEXT_TOO_LONG for a message longer than the network’s inbox limit', async () => {
      const w = await freshWorld(mock);
      const automation = await create(w, rule(w.account('bluesky').id));
      // The API caps messages at 1000, which every inbox takes; a stored rule can still outgrow a network.
      const stored = automationsStore.get(w.workspace).automations[automation.id];
      if (stored) stored.message = 'm'.repeat(1001);
      const res = await mock.control('post', '/__control/inbound/comments', w.apiKey).send({ destinationId: postOf(w, 'bluesky'), text: 'menu' });
      expect(res.body.automations[0]).toMatchObject({ outcome: 'failed', error: { code: 'TEXT_TOO_LONG' } });
    });

    it('emits automation.failed PLATFORM_NOT_SUPPORTED for a network without an inbox', async () => {
      const w = await freshWorld(mock);
      const twitter = w.account('twitter');
      automationsStore.get(w.workspace).automations['planted'] = {
        id: 'planted', accountId: twitter.id, name: 'Old rule', kind: 'comment_to_dm', keywords: ['menu'], excludeKeywords: [], message: 'Menu!', enabled: true,
        createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z',
      };
      const res = await mock.control('post', '/__control/inbound/comments', w.apiKey).send({ destinationId: postOf(w, 'twitter'), text: 'menu' });
      expect(res.body.automations).toEqual([{ automationId: 'planted', kind: 'comment_to_dm', outcome: 'failed', messageId: null, error: { code: 'PLATFORM_NOT_SUPPORTED', message: expect.any(String) } }]);
    });
  });

  describe('on a message (welcome_dm)', () => {
    it('answers the message that opens a conversation, and not the next ones', async () => {
      const w = await freshWorld(mock);
      const account = w.account('facebook');
      const fixtureRule = Object.values(automationsStore.get(w.workspace).automations).find((a) => a.kind === 'welcome_dm');
      expectStatus(await mock.call('patch', `/v1/automations/${fixtureRule?.id}`, w.apiKey).send({ enabled: true }), 200);
      const first = await mock.control('post', '/__control/inbound/messages', w.apiKey).send({ accountId: account.id, senderId: '5550001112223', text: 'Hello! Are you open?' });
      expectStatus(first, 201);
      expect(first.body.events.map((e: { event: string }) => e.event)).toEqual(['conversation.started', 'message.received', 'message.sent', 'automation.triggered']);
      expect(first.body.automations).toEqual([expect.objectContaining({ automationId: fixtureRule?.id, outcome: 'triggered' })]);
      // The answer went into the same conversation and marked it read.
      expect(first.body.conversation).toMatchObject({ unreadCount: 0, lastMessage: { text: fixtureRule?.message } });
      const next = await mock.control('post', '/__control/inbound/messages', w.apiKey).send({ accountId: account.id, senderId: '5550001112223', text: 'Hello again' });
      expect(next.body.automations).toEqual([]);
      expect(next.body.started).toBe(false);
    });

    it('does not answer an existing conversation’s message', async () => {
      const w = await freshWorld(mock);
      const account = w.account('bluesky');
      await create(w, rule(account.id, { kind: 'welcome_dm', keywords: ['hello'], excludeKeywords: [] }));
      const convo = w.conversations(account.id)[0];
      const res = await mock.control('post', '/__control/inbound/messages', w.apiKey).send({ conversationId: convo?.id, text: 'hello' });
      expect(res.body.automations).toEqual([]);
    });
  });

  describe('on a story reply (story_reply)', () => {
    it('answers a story reply, and only with the story rules', async () => {
      const w = await freshWorld(mock);
      const account = w.account('instagram');
      const storyRule = Object.values(automationsStore.get(w.workspace).automations).find((a) => a.kind === 'story_reply');
      await create(w, rule(account.id, { kind: 'welcome_dm', keywords: ['wow'], excludeKeywords: [] }));
      const res = await mock.control('post', '/__control/inbound/story-replies', w.apiKey).send({ accountId: account.id, text: 'WOW, love this' });
      expectStatus(res, 201);
      expect(res.body.automations).toEqual([expect.objectContaining({ automationId: storyRule?.id, kind: 'story_reply', outcome: 'triggered' })]);
      const triggered = res.body.events.find((e: { event: string }) => e.event === 'automation.triggered');
      expect(triggered.data.trigger).toEqual({ type: 'story_reply', id: res.body.message.id, senderId: res.body.message.senderId, text: 'WOW, love this' });
      expect(triggered.data.matchedKeyword).toBe('love');
    });

    it('does not answer an ordinary message with a story rule', async () => {
      const w = await freshWorld(mock);
      const res = await mock.control('post', '/__control/inbound/messages', w.apiKey).send({ accountId: w.account('instagram').id, text: 'I love your shop' });
      expect(res.body.automations).toEqual([]);
    });
  });
});
