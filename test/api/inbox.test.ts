import { beforeAll, describe, expect, it } from 'vitest';
import type { DomainEvent } from '../../src/events/catalog.js';
import { expectEventDataInContract } from '../helpers/events.js';
import { expectApiError, expectStatus, useMock } from '../helpers/mock.js';
import { freshWorld, worldOf, type World } from '../helpers/fixture-world.js';

const mock = useMock();
let world: World;
beforeAll(() => {
  world = worldOf(mock);
});

type Convo = { id: string; unreadCount: number; muted: boolean; lastMessage: { id: string; text: string | null; sentAt: string } | null; members: Array<{ id: string; username: string | null; displayName: string | null }> };

const CARD = { title: 'Spring blend', subtitle: 'Floral, 250 g', imageUrl: 'https://cdn.shop.example/spring.jpg', buttons: [{ type: 'web_url', title: 'Buy', url: 'https://shop.example/spring' }] };

/** A person writes to the account now; answers the conversation id. */
async function personWrites(w: World, accountId: string, text = 'Hi there'): Promise<string> {
  const res = await mock.control('post', '/__control/inbound/messages', w.apiKey).send({ accountId, text });
  expectStatus(res, 201);
  return res.body.conversation.id as string;
}

async function advance(w: World, by: string): Promise<void> {
  expectStatus(await mock.control('post', '/__control/clock/advance', w.apiKey).send({ by }), 200);
}

function sendPath(accountId: string, conversationId: string): string {
  return `/v1/accounts/${accountId}/conversations/${conversationId}/messages`;
}

describe('GET /v1/inbox/conversations', () => {
  it('lists the account’s conversations newest activity first, with unreadCount, muted and lastMessage', async () => {
    const account = world.account('instagram');
    const res = await mock.call('get', `/v1/inbox/conversations?accountId=${account.id}`);
    expectStatus(res, 200);
    expect(res.body.accountId).toBe(account.id);
    expect(res.body.cursor).toBeNull();
    const convos = res.body.convos as Convo[];
    expect(convos).toHaveLength(world.conversations(account.id).length);
    const sentAt = convos.map((c) => c.lastMessage?.sentAt ?? '');
    expect(sentAt).toEqual([...sentAt].sort().reverse());
    expect(convos[0]).toMatchObject({ unreadCount: 2, muted: false, lastMessage: { sentAt: '2026-03-02T07:00:00.000Z' } });
    expect(convos[1]).toMatchObject({ muted: true });
    expect(convos[0]?.members.map((m) => m.id)).toContain(account.platformUserId);
  });

  it('pages with limit and cursor', async () => {
    const account = world.account('bluesky');
    const first = await mock.call('get', `/v1/inbox/conversations?accountId=${account.id}&limit=1`);
    expectStatus(first, 200);
    expect(first.body.convos).toHaveLength(1);
    const second = await mock.call('get', `/v1/inbox/conversations?accountId=${account.id}&limit=1&cursor=${encodeURIComponent(first.body.cursor)}`);
    expectStatus(second, 200);
    expect(second.body.convos).toHaveLength(1);
    expect(second.body.cursor).toBeNull();
    expect(second.body.convos[0].id).not.toBe(first.body.convos[0].id);
  });

  it('moves a conversation to the top when someone writes', async () => {
    const w = await freshWorld(mock);
    const account = w.account('instagram');
    const quiet = w.conversations(account.id).find((c) => c.muted);
    await mock.control('post', '/__control/inbound/messages', w.apiKey).send({ conversationId: quiet?.id, text: 'Still there?' });
    const res = await mock.call('get', `/v1/inbox/conversations?accountId=${account.id}`, w.apiKey);
    expect(res.body.convos[0]).toMatchObject({ id: quiet?.id, unreadCount: 2, lastMessage: { text: 'Still there?' } });
  });

  it('answers 400 PLATFORM_NOT_SUPPORTED for a network without an inbox', async () => {
    const res = await mock.call('get', `/v1/inbox/conversations?accountId=${world.account('twitter').id}`);
    expectApiError(res, 400, 'PLATFORM_NOT_SUPPORTED', 'accountId');
  });

  it('answers 404 for an account of another workspace, and 400 for a limit above 100', async () => {
    const other = await freshWorld(mock);
    expectApiError(await mock.call('get', `/v1/inbox/conversations?accountId=${world.account('instagram').id}`, other.apiKey), 404, 'NOT_FOUND', 'accountId');
    expectApiError(await mock.call('get', `/v1/inbox/conversations?accountId=${world.account('instagram').id}&limit=101`), 400, 'VALIDATION_ERROR', 'limit');
    expectApiError(await mock.call('get', '/v1/inbox/conversations'), 400, 'VALIDATION_ERROR', 'accountId');
  });
});

describe('POST /v1/accounts/{id}/conversations', () => {
  it('opens a conversation with a person by id (names unknown yet) and sends the first text', async () => {
    const w = await freshWorld(mock);
    const account = w.account('bluesky');
    const mark = w.mark();
    const res = await mock.call('post', `/v1/accounts/${account.id}/conversations`, w.apiKey).send({ recipientId: 'did:plc:abcdefghijklmnopqrstuvwx', text: 'Hello from us' });
    expectStatus(res, 201);
    expect(res.body.conversation).toMatchObject({
      members: [{ id: 'did:plc:abcdefghijklmnopqrstuvwx', username: null, displayName: null }, { id: account.platformUserId }],
      unreadCount: 0,
      muted: false,
      lastMessage: { text: 'Hello from us', sentAt: '2026-03-02T09:00:00.000Z' },
    });
    expect(w.eventsSince(mark).map((e) => e.event)).toEqual(['message.sent']);
  });

  it('answers 200 with the existing conversation when there is one', async () => {
    const w = await freshWorld(mock);
    const account = w.account('instagram');
    const existing = w.conversations(account.id)[0];
    const person = existing?.members[0]?.id;
    const res = await mock.call('post', `/v1/accounts/${account.id}/conversations`, w.apiKey).send({ recipientId: person });
    expectStatus(res, 200);
    expect(res.body.conversation.id).toBe(existing?.id);
    expect(w.conversations(account.id)).toHaveLength(2);
  });

  it('answers 400 naming recipientId for an id the network would not know', async () => {
    expectApiError(await mock.call('post', `/v1/accounts/${world.account('bluesky').id}/conversations`).send({ recipientId: '12345678' }), 400, 'VALIDATION_ERROR', 'recipientId');
    expectApiError(await mock.call('post', `/v1/accounts/${world.account('facebook').id}/conversations`).send({ recipientId: 'maya.brews' }), 400, 'VALIDATION_ERROR', 'recipientId');
  });

  it('answers 400 PLATFORM_NOT_SUPPORTED on a network without an inbox', async () => {
    expectApiError(await mock.call('post', `/v1/accounts/${world.account('threads').id}/conversations`).send({ recipientId: '12345678' }), 400, 'PLATFORM_NOT_SUPPORTED', 'id');
  });

  it('answers 400 TEXT_TOO_LONG past the network limit', async () => {
    const res = await mock.call('post', `/v1/accounts/${world.account('instagram').id}/conversations`).send({ recipientId: '1784100000000001', text: 'z'.repeat(1001) });
    expectApiError(res, 400, 'TEXT_TOO_LONG', 'text');
    expect(res.body.error.details).toEqual({ limit: 1000, length: 1001, platform: 'instagram' });
  });
});

describe('POST /v1/accounts/{id}/conversations/{conversationId}/messages', () => {
  it('sends a text, marks the conversation read and emits message.sent', async () => {
    const w = await freshWorld(mock);
    const account = w.account('instagram');
    const conversation = w.conversations(account.id).find((c) => c.unreadCount > 0);
    const mark = w.mark();
    const res = await mock.call('post', sendPath(account.id, conversation?.id ?? ''), w.apiKey).send({ text: 'Yes, we ship to Lisbon.' });
    expectStatus(res, 200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^aWdfZAG/),
      conversationId: conversation?.id,
      text: 'Yes, we ship to Lisbon.',
      senderId: account.platformUserId,
      sentAt: '2026-03-02T09:00:00.000Z',
      attachments: [],
    });
    expect(conversation?.unreadCount).toBe(0);
    const events = w.eventsSince(mark);
    expect(events.map((e) => e.event)).toEqual(['message.sent']);
    expect(events[0]?.data).toEqual({ accountId: account.id, platform: 'instagram', message: res.body });
    expectEventDataInContract(events[0] as DomainEvent);
  });

  it('sends an attachment as a typed attachment', async () => {
    const w = await freshWorld(mock);
    const account = w.account('facebook');
    const conversation = await personWrites(w, account.id);
    const res = await mock.call('post', sendPath(account.id, conversation), w.apiKey).send({ text: 'Our menu', attachmentUrl: 'https://cdn.shop.example/menu.pdf', quickReplies: [{ title: 'Order', payload: 'ORDER' }] });
    expectStatus(res, 200);
    expect(res.body.attachments).toEqual([{ type: 'file', url: 'https://cdn.shop.example/menu.pdf' }]);
  });

  describe('the network limits', () => {
    it('answers 400 TEXT_TOO_LONG for 1001 characters on bluesky and takes 2000 on facebook', async () => {
      const bluesky = world.account('bluesky');
      const convo = world.conversations(bluesky.id)[0];
      const res = await mock.call('post', sendPath(bluesky.id, convo?.id ?? '')).send({ text: 'b'.repeat(1001) });
      expectApiError(res, 400, 'TEXT_TOO_LONG', 'text');
      expect(res.body.error.details).toEqual({ limit: 1000, length: 1001, platform: 'bluesky' });
      const w = await freshWorld(mock);
      const facebook = w.account('facebook');
      expectStatus(await mock.call('post', sendPath(facebook.id, w.conversations(facebook.id)[0]?.id ?? ''), w.apiKey).send({ text: 'f'.repeat(2000) }), 200);
    });

    it('answers 400 VALIDATION_ERROR past the body limit of 2000', async () => {
      const facebook = world.account('facebook');
      const res = await mock.call('post', sendPath(facebook.id, world.conversations(facebook.id)[0]?.id ?? '')).send({ text: 'f'.repeat(2001) });
      expectApiError(res, 400, 'VALIDATION_ERROR', 'text');
    });
  });

  describe('the extras', () => {
    const instagram = () => world.account('instagram');
    const openConvo = () => world.conversations(instagram().id).find((c) => !c.muted)?.id ?? '';

    it.each([
      ['quickReplies', { quickReplies: [{ title: 'Yes', payload: 'YES' }] }],
      ['buttons', { buttons: [{ type: 'postback', title: 'Yes', payload: 'YES' }] }],
      ['cards', { cards: [CARD] }],
      ['attachmentUrl', { attachmentUrl: 'https://cdn.shop.example/a.jpg' }],
    ])('answers 400 PLATFORM_NOT_SUPPORTED for %s on bluesky', async (field, extra) => {
      const bluesky = world.account('bluesky');
      const convo = world.conversations(bluesky.id).find((c) => c.lastInboundAt !== null);
      expectApiError(await mock.call('post', sendPath(bluesky.id, convo?.id ?? '')).send({ text: 'Hi', ...extra }), 400, 'PLATFORM_NOT_SUPPORTED', field);
    });

    it.each([
      ['buttons', { buttons: [{ type: 'web_url', title: 'Shop', url: 'https://shop.example' }] }],
      ['cards', { cards: [CARD] }],
    ])('answers 400 naming attachmentUrl when it comes with %s', async (_field, extra) => {
      const res = await mock.call('post', sendPath(instagram().id, openConvo())).send({ text: 'Hi', attachmentUrl: 'https://cdn.shop.example/a.jpg', ...extra });
      expectApiError(res, 400, 'VALIDATION_ERROR', 'attachmentUrl');
    });

    it.each([
      ['plain http', 'http://cdn.shop.example/a.jpg'],
      ['a private address', 'https://192.168.1.20/a.jpg'],
      ['localhost', 'https://localhost/a.jpg'],
      ['an unknown file type', 'https://cdn.shop.example/a.exe'],
    ])('answers 400 naming attachmentUrl for %s', async (_kind, url) => {
      expectApiError(await mock.call('post', sendPath(instagram().id, openConvo())).send({ text: 'Hi', attachmentUrl: url }), 400, 'VALIDATION_ERROR', 'attachmentUrl');
    });

    it.each([
      ['quickReplies', 14, { title: 'A', payload: 'A' }],
      ['buttons', 4, { type: 'postback', title: 'A', payload: 'A' }],
      ['cards', 11, CARD],
    ])('answers 400 VALIDATION_ERROR for more %s than allowed (%i)', async (field, count, item) => {
      const res = await mock.call('post', sendPath(instagram().id, openConvo())).send({ text: 'Hi', [field]: Array.from({ length: count }, () => item) });
      expectApiError(res, 400, 'VALIDATION_ERROR', field);
    });

    it('takes the maximum counts (13 quick replies, 3 buttons) within the window', async () => {
      const w = await freshWorld(mock);
      const account = w.account('instagram');
      const convo = w.conversations(account.id).find((c) => !c.muted)?.id ?? '';
      const res = await mock.call('post', sendPath(account.id, convo), w.apiKey).send({
        text: 'Pick one',
        quickReplies: Array.from({ length: 13 }, (_, i) => ({ title: `Option ${i}`, payload: `OPT_${i}` })),
        buttons: Array.from({ length: 3 }, (_, i) => ({ type: 'postback', title: `B${i}`, payload: `B${i}` })),
      });
      expectStatus(res, 200);
    });

    it('answers 400 naming the button field a button type needs', async () => {
      const res = await mock.call('post', sendPath(instagram().id, openConvo())).send({ text: 'Hi', buttons: [{ type: 'web_url', title: 'Shop' }] });
      expectApiError(res, 400, 'VALIDATION_ERROR', 'buttons[0].url');
    });
  });

  describe('the 24-hour window', () => {
    it('refuses a card 25 hours after the person’s last message and accepts one at 23 hours', async () => {
      const w = await freshWorld(mock);
      const account = w.account('instagram');
      const conversation = await personWrites(w, account.id);
      await advance(w, 'PT23H');
      const early = await mock.call('post', sendPath(account.id, conversation), w.apiKey).send({ text: 'Our pick for you', cards: [CARD] });
      expectStatus(early, 200);
      await advance(w, 'PT2H');
      const late = await mock.call('post', sendPath(account.id, conversation), w.apiKey).send({ text: 'Our pick for you', cards: [CARD] });
      expectApiError(late, 400, 'MESSAGING_WINDOW_CLOSED', 'cards');
      expect(late.body.error.details).toEqual({ lastInboundAt: '2026-03-02T09:00:00.000Z', windowClosedAt: '2026-03-03T09:00:00.000Z' });
    });

    it('still accepts plain text after the window closed', async () => {
      const w = await freshWorld(mock);
      const account = w.account('facebook');
      const closed = w.conversations(account.id).find((c) => c.lastInboundAt !== null && Date.parse(c.lastInboundAt) < Date.parse('2026-03-01T09:00:00Z'));
      expectApiError(await mock.call('post', sendPath(account.id, closed?.id ?? ''), w.apiKey).send({ text: 'Sorry for the wait', quickReplies: [{ title: 'OK', payload: 'OK' }] }), 400, 'MESSAGING_WINDOW_CLOSED', 'quickReplies');
      expectStatus(await mock.call('post', sendPath(account.id, closed?.id ?? ''), w.apiKey).send({ text: 'Sorry for the wait' }), 200);
    });

    it('counts from the person’s newest message: writing again reopens it', async () => {
      const w = await freshWorld(mock);
      const account = w.account('instagram');
      const conversation = await personWrites(w, account.id);
      await advance(w, 'PT30H');
      await mock.control('post', '/__control/inbound/messages', w.apiKey).send({ conversationId: conversation, text: 'Hello again' });
      expectStatus(await mock.call('post', sendPath(account.id, conversation), w.apiKey).send({ text: 'Welcome back', buttons: [{ type: 'web_url', title: 'Shop', url: 'https://shop.example' }] }), 200);
    });
  });

  describe('which conversation', () => {
    it('answers 404 for a conversation id of another workspace', async () => {
      const other = await freshWorld(mock);
      const account = world.account('instagram');
      const convo = world.conversations(account.id)[0]?.id ?? '';
      const theirAccount = other.account('instagram');
      expectApiError(await mock.call('post', sendPath(theirAccount.id, convo), other.apiKey).send({ text: 'Hi' }), 404, 'NOT_FOUND', 'conversationId');
      expectApiError(await mock.call('post', sendPath(account.id, convo), other.apiKey).send({ text: 'Hi' }), 404, 'NOT_FOUND', 'id');
    });

    it('answers 404 for a conversation of another account', async () => {
      const facebookConvo = world.conversations(world.account('facebook').id)[0]?.id ?? '';
      expectApiError(await mock.call('post', sendPath(world.account('instagram').id, facebookConvo)).send({ text: 'Hi' }), 404, 'NOT_FOUND', 'conversationId');
    });
  });

  it('replays the first answer for a repeated Idempotency-Key and sends once', async () => {
    const w = await freshWorld(mock);
    const account = w.account('bluesky');
    const convo = w.conversations(account.id)[0]?.id ?? '';
    const before = w.messages(convo).length;
    const first = await mock.call('post', sendPath(account.id, convo), w.apiKey).set('Idempotency-Key', 'msg-1').send({ text: 'Once' });
    const again = await mock.call('post', sendPath(account.id, convo), w.apiKey).set('Idempotency-Key', 'msg-1').send({ text: 'Once' });
    expectStatus(again, 200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(w.messages(convo)).toHaveLength(before + 1);
  });

  it('answers 400 ACCOUNT_RECONNECT_REQUIRED when the account needs a reconnect', async () => {
    const w = await freshWorld(mock);
    const account = w.account('bluesky');
    account.status = 'revoked';
    expectApiError(await mock.call('post', sendPath(account.id, w.conversations(account.id)[0]?.id ?? ''), w.apiKey).send({ text: 'Hi' }), 400, 'ACCOUNT_RECONNECT_REQUIRED');
  });
});

describe('POST /__control/inbound/messages', () => {
  it('opens a conversation with a new person: conversation.started, then message.received', async () => {
    const w = await freshWorld(mock);
    const account = w.account('bluesky');
    const mark = w.mark();
    const res = await mock.control('post', '/__control/inbound/messages', w.apiKey).send({ accountId: account.id });
    expectStatus(res, 201);
    expect(res.body).toMatchObject({ accountId: account.id, started: true, automations: [] });
    expect(res.body.message).toMatchObject({ text: expect.any(String), senderId: expect.stringMatching(/^did:plc:/), attachments: [], sentAt: '2026-03-02T09:00:00.000Z' });
    expect(res.body.conversation).toMatchObject({ unreadCount: 1, lastMessage: { id: res.body.message.id } });
    expect(res.body.conversation.members[0]).toMatchObject({ id: res.body.message.senderId, username: expect.stringMatching(/\.bsky\.social$/), displayName: expect.any(String) });
    const events = w.eventsSince(mark);
    expect(events.map((e) => e.event)).toEqual(['conversation.started', 'message.received']);
    expect(events[1]?.data).toEqual({ accountId: account.id, platform: 'bluesky', message: res.body.message });
    for (const event of events) expectEventDataInContract(event);
  });

  it('continues the conversation with senderId: only message.received, unread grows', async () => {
    const w = await freshWorld(mock);
    const account = w.account('instagram');
    const convo = w.conversations(account.id).find((c) => !c.muted);
    const mark = w.mark();
    const res = await mock.control('post', '/__control/inbound/messages', w.apiKey).send({ accountId: account.id, senderId: convo?.members[0]?.id, text: 'Any news?' });
    expectStatus(res, 201);
    expect(res.body).toMatchObject({ started: false, conversation: { id: convo?.id, unreadCount: 3 } });
    expect(w.eventsSince(mark).map((e) => e.event)).toEqual(['message.received']);
  });

  it('defaults to the oldest account with an inbox', async () => {
    const inboxes = ['bluesky', 'instagram', 'facebook'].map((platform) => world.account(platform));
    const oldest = inboxes.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id))[0];
    const res = await mock.control('post', '/__control/inbound/messages').send({ text: 'Hello?' });
    expectStatus(res, 201);
    expect(res.body.accountId).toBe(oldest?.id);
  });

  it('takes an attachment alone on instagram', async () => {
    const res = await mock.control('post', '/__control/inbound/messages').send({ accountId: world.account('instagram').id, text: null, attachmentUrl: 'https://cdn.instagram.example/v/photo.jpg' });
    expectStatus(res, 201);
    expect(res.body.message).toMatchObject({ text: null, attachments: [{ type: 'image', url: 'https://cdn.instagram.example/v/photo.jpg' }] });
  });

  it.each([
    ['a network without an inbox', () => ({ accountId: world.account('twitter').id }), 400, 'PLATFORM_NOT_SUPPORTED', 'accountId'],
    ['an attachment on bluesky', () => ({ accountId: world.account('bluesky').id, attachmentUrl: 'https://cdn.example/a.jpg' }), 400, 'PLATFORM_NOT_SUPPORTED', 'attachmentUrl'],
    ['no text and no attachment', () => ({ accountId: world.account('instagram').id, text: null }), 400, 'VALIDATION_ERROR', 'text'],
    ['a text past the inbox limit', () => ({ accountId: world.account('bluesky').id, text: 'm'.repeat(1001) }), 400, 'TEXT_TOO_LONG', 'text'],
    ['an unknown conversation', () => ({ conversationId: 'nope' }), 404, 'NOT_FOUND', 'conversationId'],
    ['a sender who is not in the conversation', () => ({ conversationId: world.conversations(world.account('instagram').id)[0]?.id, senderId: '42424242' }), 400, 'VALIDATION_ERROR', 'senderId'],
    ['an unknown field', () => ({ from: 'someone' }), 400, 'VALIDATION_ERROR', 'from'],
  ] as const)('answers %s with %i %s', async (_kind, body, status, code, param) => {
    expectApiError(await mock.control('post', '/__control/inbound/messages').send(body()), status, code, param);
  });
});

describe('POST /__control/inbound/story-replies', () => {
  it('arrives as a direct message in the person’s conversation, answering the account’s live story', async () => {
    const w = await freshWorld(mock);
    const account = w.account('instagram');
    const story = w.destination('instagram', (p, d) => p.mediaKind === 'stories' && d.status === 'published');
    const res = await mock.control('post', '/__control/inbound/story-replies', w.apiKey).send({ accountId: account.id, text: 'Love it' });
    expectStatus(res, 201);
    expect(res.body).toMatchObject({ accountId: account.id, started: true, message: { text: 'Love it' } });
    const stored = w.messages(res.body.conversation.id).find((m) => m.id === res.body.message.id);
    expect(stored?.storyReply).toEqual({ postId: story.post.id, destinationId: story.destination.id });
    expect(res.body.events.map((e: { event: string }) => e.event)).toEqual(['conversation.started', 'message.received', 'message.sent', 'automation.triggered']);
  });

  it('answers 400 naming destinationId for a post that is not a story', async () => {
    const { destination } = world.destination('instagram', (p, d) => p.mediaKind === 'image' && d.status === 'published');
    expectApiError(await mock.control('post', '/__control/inbound/story-replies').send({ destinationId: destination.id }), 400, 'VALIDATION_ERROR', 'destinationId');
  });

  it('answers 400 naming destinationId for a story older than 24 hours', async () => {
    const w = await freshWorld(mock);
    const story = w.destination('instagram', (p, d) => p.mediaKind === 'stories' && d.status === 'published');
    await advance(w, 'PT13H');
    expectApiError(await mock.control('post', '/__control/inbound/story-replies', w.apiKey).send({ destinationId: story.destination.id }), 400, 'VALIDATION_ERROR', 'destinationId');
  });

  it('answers 400 PLATFORM_NOT_SUPPORTED on bluesky, which has no stories', async () => {
    expectApiError(await mock.control('post', '/__control/inbound/story-replies').send({ accountId: world.account('bluesky').id }), 400, 'PLATFORM_NOT_SUPPORTED', 'accountId');
  });
});
