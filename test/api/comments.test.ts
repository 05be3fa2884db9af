import { beforeAll, describe, expect, it } from 'vitest';
import { commentsStore } from '../../src/api/comments/store.js';
import { postsStore } from '../../src/api/posts/store.js';
import type { DomainEvent } from '../../src/events/catalog.js';
import { expectEventDataInContract } from '../helpers/events.js';
import { expectApiError, expectStatus, useMock } from '../helpers/mock.js';
import { freshWorld, worldOf, type World } from '../helpers/fixture-world.js';

const mock = useMock();
let world: World;
beforeAll(() => {
  world = worldOf(mock);
});

type Comment = { id: string; platformCommentId: string; parentId: string | null; createdAt: string; replies: Comment[]; username: string | null; likeCount: number | null; text: string };

const blueskyPost = () => world.destination('bluesky', (post, d) => d.status === 'published' && post.destinations.length === 1 && world.comments(d.id).length > 0);
const instagramPost = () => world.destination('instagram', (post, d) => d.status === 'published' && post.destinations.length === 1 && world.comments(d.id).length > 0);
/** The published post that goes to twitter, bluesky, threads and (failed) linkedin. */
const multiPost = () => world.destination('twitter', (post) => post.destinations.length === 4);

describe('GET /v1/comments', () => {
  it('lists every comment of a flat network as its own item, newest first, replies linked by parentId', async () => {
    const { destination } = blueskyPost();
    const res = await mock.call('get', `/v1/comments?destinationId=${destination.id}`);
    expectStatus(res, 200);
    const data = res.body.data as Comment[];
    expect(data).toHaveLength(world.comments(destination.id).length);
    const times = data.map((c) => c.createdAt);
    expect(times).toEqual([...times].sort().reverse());
    const reply = data.find((c) => c.parentId !== null);
    expect(data.map((c) => c.platformCommentId)).toContain(reply?.parentId);
    expect(data.every((c) => c.replies.length === 0)).toBe(true);
    expect(res.body).toMatchObject({ hasMore: false, nextCursor: null });
  });

  it('nests replies inside their comment on instagram, oldest first', async () => {
    const { destination } = instagramPost();
    const res = await mock.call('get', `/v1/comments?destinationId=${destination.id}`);
    expectStatus(res, 200);
    const data = res.body.data as Comment[];
    expect(data.every((c) => c.parentId === null)).toBe(true);
    const threaded = data.filter((c) => c.replies.length > 0);
    expect(threaded).toHaveLength(2);
    for (const comment of threaded) expect(comment.replies.every((r) => r.parentId === comment.platformCommentId)).toBe(true);
  });

  it('pages with limit and cursor, and refuses the cursor once the parameters change', async () => {
    const { destination } = blueskyPost();
    const first = await mock.call('get', `/v1/comments?destinationId=${destination.id}&limit=2`);
    expectStatus(first, 200);
    expect(first.body.hasMore).toBe(true);
    const second = await mock.call('get', `/v1/comments?destinationId=${destination.id}&limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`);
    expectStatus(second, 200);
    const all = await mock.call('get', `/v1/comments?destinationId=${destination.id}`);
    expect([...first.body.data, ...second.body.data].map((c: Comment) => c.id)).toEqual(all.body.data.map((c: Comment) => c.id));
    const changed = await mock.call('get', `/v1/comments?destinationId=${destination.id}&limit=3&cursor=${encodeURIComponent(first.body.nextCursor)}`);
    expectApiError(changed, 400, 'INVALID_CURSOR', 'cursor');
  });

  it('answers 400 VALIDATION_ERROR for a limit above 50', async () => {
    const { destination } = blueskyPost();
    expectApiError(await mock.call('get', `/v1/comments?destinationId=${destination.id}&limit=51`), 400, 'VALIDATION_ERROR', 'limit');
  });

  describe('naming the destination', () => {
    it('takes a service post id with a single destination', async () => {
      const { post, destination } = blueskyPost();
      const res = await mock.call('get', `/v1/comments?post=${post.id}`);
      expectStatus(res, 200);
      expect(res.body.data).toHaveLength(world.comments(destination.id).length);
    });

    it('takes a network-native post id with accountId', async () => {
      const { destination } = blueskyPost();
      const res = await mock.call('get', `/v1/comments?post=${encodeURIComponent(destination.externalPostId ?? '')}&accountId=${destination.connectionId}`);
      expectStatus(res, 200);
      expect(res.body.data).toHaveLength(world.comments(destination.id).length);
    });

    it('answers 400 naming accountId for a network-native post id without it', async () => {
      const { destination } = blueskyPost();
      expectApiError(await mock.call('get', `/v1/comments?post=${encodeURIComponent(destination.externalPostId ?? '')}`), 400, 'VALIDATION_ERROR', 'accountId');
    });

    it('answers 400 naming destinationId for a post with several destinations and no accountId', async () => {
      const { post } = multiPost();
      const res = await mock.call('get', `/v1/comments?post=${post.id}`);
      expectApiError(res, 400, 'VALIDATION_ERROR', 'destinationId');
      expect(res.body.error.details.destinations).toHaveLength(4);
    });

    it('picks the destination of a several-destination post by accountId', async () => {
      const { post, destination } = multiPost();
      const res = await mock.call('get', `/v1/comments?post=${post.id}&accountId=${destination.connectionId}`);
      expectStatus(res, 200);
      expect(res.body.data).toHaveLength(world.comments(destination.id).length);
    });

    it('answers 400 naming destinationId when nothing names it', async () => {
      expectApiError(await mock.call('get', '/v1/comments'), 400, 'VALIDATION_ERROR', 'destinationId');
    });

    it('answers 400 naming accountId when it disagrees with destinationId', async () => {
      const { destination } = blueskyPost();
      const other = world.account('twitter');
      expectApiError(await mock.call('get', `/v1/comments?destinationId=${destination.id}&accountId=${other.id}`), 400, 'VALIDATION_ERROR', 'accountId');
    });

    it('answers 404 for a destination of another workspace', async () => {
      const other = await freshWorld(mock);
      const { destination } = blueskyPost();
      expectApiError(await mock.call('get', `/v1/comments?destinationId=${destination.id}`, other.apiKey), 404, 'NOT_FOUND', 'destinationId');
    });

    it('answers 400 naming destinationId for a destination that is not published', async () => {
      const { destination } = world.destination('bluesky', (_post, d) => d.status === 'scheduled');
      const res = await mock.call('get', `/v1/comments?destinationId=${destination.id}`);
      expectApiError(res, 400, 'VALIDATION_ERROR', 'destinationId');
      expect(res.body.error.details).toEqual({ destinationId: destination.id, status: 'scheduled' });
    });

    it('answers 400 PLATFORM_NOT_SUPPORTED on pinterest, which has no comments', async () => {
      const { destination } = world.destination('pinterest');
      expectApiError(await mock.call('get', `/v1/comments?destinationId=${destination.id}`), 400, 'PLATFORM_NOT_SUPPORTED', 'destinationId');
    });
  });
});

describe('POST /v1/comments', () => {
  it('comments on the post as the publishing account and answers shape A', async () => {
    const w = await freshWorld(mock);
    const { destination } = w.destination('bluesky', (post, d) => d.status === 'published' && post.destinations.length === 1 && w.comments(d.id).length > 0);
    const before = w.comments(destination.id).length;
    const res = await mock.call('post', '/v1/comments', w.apiKey).send({ destinationId: destination.id, text: 'Thanks, everyone!' });
    expectStatus(res, 201);
    expect(res.body.comment).toEqual({
      id: expect.stringMatching(/^at:\/\//),
      text: 'Thanks, everyone!',
      username: w.account('bluesky').handle,
      likeCount: 0,
      timestamp: '2026-03-02T09:00:00.000Z',
      parentId: null,
      replies: [],
    });
    expect(w.comments(destination.id)).toHaveLength(before + 1);
  });

  it('answers a comment with parentCommentId and emits comment.replied', async () => {
    const w = await freshWorld(mock);
    const { destination } = w.destination('bluesky', (post, d) => d.status === 'published' && post.destinations.length === 1 && w.comments(d.id).length > 0);
    const parent = w.comments(destination.id).find((c) => !c.fromAccount);
    const mark = w.mark();
    const res = await mock.call('post', '/v1/comments', w.apiKey).send({ destinationId: destination.id, text: 'Glad you like it', parentCommentId: parent?.platformCommentId });
    expectStatus(res, 201);
    expect(res.body.comment.parentId).toBe(parent?.platformCommentId);
    const events = w.eventsSince(mark);
    expect(events.map((e) => e.event)).toEqual(['comment.replied']);
    expect(events[0]?.data).toMatchObject({ destinationId: destination.id, comment: { parentId: parent?.platformCommentId, text: 'Glad you like it' } });
    expectEventDataInContract(events[0] as DomainEvent);
  });

  it('answers 404 naming parentCommentId for a comment not on that post', async () => {
    const { destination } = blueskyPost();
    expectApiError(await mock.call('post', '/v1/comments').send({ destinationId: destination.id, text: 'Hi', parentCommentId: 'at://did:plc:nobody/app.bsky.feed.post/3aaaaaaaaaaaa' }), 404, 'NOT_FOUND', 'parentCommentId');
  });

  it('answers 400 TEXT_TOO_LONG past the network limit (301 characters on bluesky), leaving nothing behind', async () => {
    const { destination } = blueskyPost();
    const before = world.comments(destination.id).length;
    const res = await mock.call('post', '/v1/comments').send({ destinationId: destination.id, text: 'x'.repeat(301) });
    expectApiError(res, 400, 'TEXT_TOO_LONG', 'text');
    expect(res.body.error.details).toEqual({ limit: 300, length: 301, platform: 'bluesky' });
    expect(world.comments(destination.id)).toHaveLength(before);
  });

  it('answers 400 VALIDATION_ERROR past the body limit of 25000', async () => {
    const { destination } = world.destination('reddit');
    expectApiError(await mock.call('post', '/v1/comments').send({ destinationId: destination.id, text: 'x'.repeat(25001) }), 400, 'VALIDATION_ERROR', 'text');
  });

  it('answers 400 ACCOUNT_RECONNECT_REQUIRED when the publishing account expired', async () => {
    const { destination } = world.destination('linkedin');
    expectApiError(await mock.call('post', '/v1/comments').send({ destinationId: destination.id, text: 'Hello' }), 400, 'ACCOUNT_RECONNECT_REQUIRED');
  });
});

describe('POST /v1/comments/{id}/replies', () => {
  it('replies as the account that published the post and answers shape B', async () => {
    const w = await freshWorld(mock);
    const { post, destination } = w.destination('bluesky', (p, d) => d.status === 'published' && p.destinations.length === 1 && w.comments(d.id).length > 0);
    const parent = w.comments(destination.id).find((c) => !c.fromAccount);
    const mark = w.mark();
    const res = await mock.call('post', `/v1/comments/${parent?.id}/replies`, w.apiKey).send({ text: 'x'.repeat(300) });
    expectStatus(res, 201);
    expect(res.body).toMatchObject({
      postId: post.id,
      accountId: destination.connectionId,
      platform: 'bluesky',
      parentId: parent?.platformCommentId,
      username: w.account('bluesky').handle,
      createdAt: '2026-03-02T09:00:00.000Z',
      replies: [],
    });
    expect(res.body.platformCommentId).toContain(w.account('bluesky').platformUserId);
    expect(w.eventsSince(mark).map((e) => e.event)).toEqual(['comment.replied']);
  });

  describe('when the text is longer than the network allows', () => {
    it('answers 400 TEXT_TOO_LONG for 301 characters on bluesky', async () => {
      const { destination } = blueskyPost();
      const parent = world.comments(destination.id)[0];
      const res = await mock.call('post', `/v1/comments/${parent?.id}/replies`).send({ text: 'é'.repeat(301) });
      expectApiError(res, 400, 'TEXT_TOO_LONG', 'text');
      expect(res.body.error.details).toEqual({ limit: 300, length: 301, platform: 'bluesky' });
    });

    it('applies each network its own limit: 2201 characters on instagram', async () => {
      const { destination } = instagramPost();
      const parent = world.comments(destination.id)[0];
      const res = await mock.call('post', `/v1/comments/${parent?.id}/replies`).send({ text: 'y'.repeat(2201) });
      expectApiError(res, 400, 'TEXT_TOO_LONG', 'text');
      expect(res.body.error.details.limit).toBe(2200);
    });
  });

  it('joins a reply to a reply to its top-level thread on instagram', async () => {
    const w = await freshWorld(mock);
    const { destination } = w.destination('instagram', (p, d) => d.status === 'published' && p.destinations.length === 1 && w.comments(d.id).length > 0);
    const reply = w.comments(destination.id).find((c) => c.parentId !== null);
    const res = await mock.call('post', `/v1/comments/${reply?.id}/replies`, w.apiKey).send({ text: 'And thanks again!' });
    expectStatus(res, 201);
    expect(res.body.parentId).toBe(reply?.parentId);
  });

  it('replays the first answer for a repeated Idempotency-Key and replies once', async () => {
    const w = await freshWorld(mock);
    const { destination } = w.destination('bluesky', (p, d) => d.status === 'published' && p.destinations.length === 1 && w.comments(d.id).length > 0);
    const parent = w.comments(destination.id)[0];
    const before = w.comments(destination.id).length;
    const first = await mock.call('post', `/v1/comments/${parent?.id}/replies`, w.apiKey).set('Idempotency-Key', 'reply-1').send({ text: 'Once only' });
    const again = await mock.call('post', `/v1/comments/${parent?.id}/replies`, w.apiKey).set('Idempotency-Key', 'reply-1').send({ text: 'Once only' });
    expectStatus(again, 201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(w.comments(destination.id)).toHaveLength(before + 1);
    const reused = await mock.call('post', `/v1/comments/${parent?.id}/replies`, w.apiKey).set('Idempotency-Key', 'reply-1').send({ text: 'Something else' });
    expectApiError(reused, 422, 'IDEMPOTENCY_KEY_REUSED', 'Idempotency-Key');
  });

  describe('with an Idempotency-Key (the shared rule 8)', () => {
    const replyTo = async (w: World) => {
      const { destination } = w.destination('bluesky', (p, d) => d.status === 'published' && p.destinations.length === 1 && w.comments(d.id).length > 0);
      const parent = w.comments(destination.id)[0];
      return (key: string, text: string) => mock.call('post', `/v1/comments/${parent?.id}/replies`, w.apiKey).set('Idempotency-Key', key).send({ text });
    };
    const advance = (w: World, by: string) => mock.control('post', '/__control/clock/advance', w.apiKey).send({ by });

    it('forgets the key after 24 hours of virtual time, so the same request acts again', async () => {
      const w = await freshWorld(mock);
      const reply = await replyTo(w);
      const first = await reply('key-expiry', 'Once a day');
      expectStatus(first, 201);
      await advance(w, 'PT23H59M59S');
      const within = await reply('key-expiry', 'Once a day');
      expect(within.headers['idempotent-replayed']).toBe('true');
      expect(within.body.id).toBe(first.body.id);
      await advance(w, 'PT1S');
      const after = await reply('key-expiry', 'Once a day');
      expectStatus(after, 201);
      expect(after.headers['idempotent-replayed']).toBeUndefined();
      expect(after.body.id).not.toBe(first.body.id);
    });

    it('keeps a 4xx answer: the repeat replays it', async () => {
      const w = await freshWorld(mock);
      const reply = await replyTo(w);
      const long = 'x'.repeat(301);
      expectApiError(await reply('key-4xx', long), 400, 'TEXT_TOO_LONG');
      const again = await reply('key-4xx', long);
      expectApiError(again, 400, 'TEXT_TOO_LONG');
      expect(again.headers['idempotent-replayed']).toBe('true');
    });

    it('keeps keys per workspace', async () => {
      const one = await freshWorld(mock);
      const two = await freshWorld(mock);
      const a = await (await replyTo(one))('shared-key', 'Hello');
      const b = await (await replyTo(two))('shared-key', 'Hello');
      expectStatus(b, 201);
      expect(b.headers['idempotent-replayed']).toBeUndefined();
      expect(b.body.id).not.toBe(a.body.id);
    });
  });

  it('answers 404 for a comment id of another workspace', async () => {
    const other = await freshWorld(mock);
    const { destination } = blueskyPost();
    const parent = world.comments(destination.id)[0];
    expectApiError(await mock.call('post', `/v1/comments/${parent?.id}/replies`, other.apiKey).send({ text: 'Hi' }), 404, 'NOT_FOUND');
    expectStatus(await mock.call('post', `/v1/comments/${parent?.id}/replies`).send({ text: 'Hi' }), 201);
  });

  it('answers 400 PLATFORM_NOT_SUPPORTED on a network without comments (pinterest)', async () => {
    const w = await freshWorld(mock);
    const { post, destination } = w.destination('pinterest');
    // pinterest has no comments, so the world holds none: plant one as if a later network change had made it.
    commentsStore.get(w.workspace).comments['planted'] = {
      id: 'planted', postId: post.id, destinationId: destination.id, accountId: destination.connectionId, platform: 'pinterest',
      platformCommentId: '123', parentId: null, text: 'Nice pin', username: 'someone', likeCount: 0, createdAt: '2026-03-01T00:00:00.000Z', fromAccount: false,
    };
    expectApiError(await mock.call('post', '/v1/comments/planted/replies', w.apiKey).send({ text: 'Thanks' }), 400, 'PLATFORM_NOT_SUPPORTED', 'id');
  });
});

describe('POST /v1/comments/like', () => {
  const facebookPost = () => world.destination('facebook', (p, d) => d.status === 'published' && p.destinations.length === 1 && world.comments(d.id).length > 0);

  it('likes a comment on facebook once, however often it is asked', async () => {
    const w = await freshWorld(mock);
    const { post, destination } = w.destination('facebook', (p, d) => d.status === 'published' && p.destinations.length === 1 && w.comments(d.id).length > 0);
    const comment = w.comments(destination.id).find((c) => !c.fromAccount);
    const likes = comment?.likeCount ?? 0;
    for (let i = 0; i < 2; i++) {
      const res = await mock.call('post', '/v1/comments/like', w.apiKey).send({ post: post.id, commentId: comment?.platformCommentId });
      expectStatus(res, 200);
      expect(res.body).toEqual({ liked: { postId: post.id, destinationId: destination.id, platform: 'facebook', commentId: comment?.platformCommentId, liked: true } });
    }
    expect(comment?.likeCount).toBe(likes + 1);
  });

  it('answers 400 PLATFORM_NOT_SUPPORTED for a comment on twitter', async () => {
    const { destination } = multiPost();
    const comment = world.comments(destination.id)[0];
    const res = await mock.call('post', '/v1/comments/like').send({ destinationId: destination.id, commentId: comment?.platformCommentId });
    expectApiError(res, 400, 'PLATFORM_NOT_SUPPORTED', 'destinationId');
    expect(res.body.error.details).toEqual({ platform: 'twitter' });
  });

  it('answers 404 naming commentId for a comment not on that post', async () => {
    const { destination } = facebookPost();
    expectApiError(await mock.call('post', '/v1/comments/like').send({ destinationId: destination.id, commentId: '1_2' }), 404, 'NOT_FOUND', 'commentId');
  });

  it('answers 400 VALIDATION_ERROR naming commentId when it is missing', async () => {
    const { destination } = facebookPost();
    expectApiError(await mock.call('post', '/v1/comments/like').send({ destinationId: destination.id }), 400, 'VALIDATION_ERROR', 'commentId');
  });
});

describe('POST /__control/inbound/comments', () => {
  it('adds a seeded comment to the newest published post with comments and emits comment.received', async () => {
    const w = await freshWorld(mock);
    const mark = w.mark();
    const res = await mock.control('post', '/__control/inbound/comments', w.apiKey);
    expectStatus(res, 201);
    const { comment, destinationId } = res.body;
    const published = Object.values(postsStore.get(w.workspace).posts)
      .flatMap((post) => post.destinations)
      .filter((d) => d.status === 'published' && d.platform !== 'pinterest')
      .sort((a, b) => (b.publishedAt ?? '').localeCompare(a.publishedAt ?? ''));
    expect(destinationId).toBe(published[0]?.id);
    expect(comment).toMatchObject({ platform: published[0]?.platform, parentId: null, likeCount: 0, createdAt: '2026-03-02T09:00:00.000Z', username: expect.any(String), text: expect.any(String) });
    const events = w.eventsSince(mark);
    expect(events.map((e) => e.event)).toEqual(['comment.received']);
    expect(events[0]?.data).toEqual({ destinationId, comment });
    expectEventDataInContract(events[0] as DomainEvent);
    expect(res.body.automations).toEqual([]);
  });

  it('takes every field, and the comment it makes can be answered with the reply operation', async () => {
    const w = await freshWorld(mock);
    const { destination } = w.destination('bluesky', (p, d) => d.status === 'published' && p.destinations.length === 1 && w.comments(d.id).length > 0);
    const res = await mock.control('post', '/__control/inbound/comments', w.apiKey).send({
      destinationId: destination.id, text: 'Is this vegan?', authorId: 'did:plc:maya', username: 'maya.bsky.social', displayName: 'Maya',
    });
    expectStatus(res, 201);
    expect(res.body.comment).toMatchObject({ text: 'Is this vegan?', username: 'maya.bsky.social', platformCommentId: expect.stringMatching(/^at:\/\/did:plc:maya\//) });
    const reply = await mock.call('post', `/v1/comments/${res.body.comment.id}/replies`, w.apiKey).send({ text: 'It is!' });
    expectStatus(reply, 201);
    expect(reply.body.parentId).toBe(res.body.comment.platformCommentId);
  });

  it('picks the account’s newest published post for accountId alone', async () => {
    const w = await freshWorld(mock);
    const res = await mock.control('post', '/__control/inbound/comments', w.apiKey).send({ accountId: w.account('youtube').id });
    expectStatus(res, 201);
    expect(res.body.comment.platform).toBe('youtube');
  });

  it('answers a comment with parentCommentId', async () => {
    const w = await freshWorld(mock);
    const { destination } = w.destination('reddit', (p, d) => d.status === 'published' && p.destinations.length === 1 && w.comments(d.id).length > 0);
    const parent = w.comments(destination.id)[0];
    const res = await mock.control('post', '/__control/inbound/comments', w.apiKey).send({ destinationId: destination.id, parentCommentId: parent?.platformCommentId });
    expectStatus(res, 201);
    expect(res.body.comment.parentId).toBe(parent?.platformCommentId);
  });

  describe('when the body is not what people can do', () => {
    it('answers 400 TEXT_TOO_LONG past the network’s comment limit', async () => {
      const { destination } = blueskyPost();
      const res = await mock.control('post', '/__control/inbound/comments').send({ destinationId: destination.id, text: 'c'.repeat(301) });
      expectApiError(res, 400, 'TEXT_TOO_LONG', 'text');
      expect(res.body.error.details).toEqual({ limit: 300, length: 301, platform: 'bluesky' });
    });

    it('answers 400 PLATFORM_NOT_SUPPORTED on pinterest', async () => {
      expectApiError(await mock.control('post', '/__control/inbound/comments').send({ accountId: world.account('pinterest').id }), 400, 'PLATFORM_NOT_SUPPORTED', 'accountId');
    });

    it('answers 400 for a post that is not published, 404 for an unknown destination or parent', async () => {
      const { destination } = world.destination('youtube', (_p, d) => d.status === 'scheduled');
      expectApiError(await mock.control('post', '/__control/inbound/comments').send({ destinationId: destination.id }), 400, 'VALIDATION_ERROR', 'destinationId');
      expectApiError(await mock.control('post', '/__control/inbound/comments').send({ destinationId: 'nope' }), 404, 'NOT_FOUND', 'destinationId');
      const published = blueskyPost().destination;
      expectApiError(await mock.control('post', '/__control/inbound/comments').send({ destinationId: published.id, parentCommentId: 'nope' }), 404, 'NOT_FOUND', 'parentCommentId');
    });

    it.each([
      ['an unknown field', { destinationId: 'x', colour: 'red' }, 'colour'],
      ['an empty text', { text: '' }, 'text'],
      ['a wrong type', { username: 42 }, 'username'],
    ])('answers 400 VALIDATION_ERROR for %s', async (_kind, body, param) => {
      expectApiError(await mock.control('post', '/__control/inbound/comments').send(body), 400, 'VALIDATION_ERROR', param);
    });
  });
});
