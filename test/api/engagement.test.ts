import { beforeAll, describe, expect, it } from 'vitest';
import { postsStore } from '../../src/api/posts/store.js';
import { expectApiError, expectStatus, useMock } from '../helpers/mock.js';
import { freshWorld, worldOf, type World } from '../helpers/fixture-world.js';

const mock = useMock();
let world: World;
beforeAll(() => {
  world = worldOf(mock);
});

const TOGGLES = [
  ['like', '/v1/likes'],
  ['repost', '/v1/reposts'],
  ['bookmark', '/v1/bookmarks'],
] as const;

describe.each(TOGGLES)('POST and DELETE for %s (%s)', (kind, path) => {
  it('sets and clears it on a published twitter post, active reflecting the state, twice changing nothing', async () => {
    const w = await freshWorld(mock);
    const { post, destination } = w.destination('twitter');
    const expected = { postId: post.id, destinationId: destination.id, platform: 'twitter', kind };
    for (let i = 0; i < 2; i++) {
      const res = await mock.call('post', path, w.apiKey).send({ destinationId: destination.id });
      expectStatus(res, 200);
      expect(res.body).toEqual({ ...expected, active: true });
    }
    for (let i = 0; i < 2; i++) {
      const res = await mock.call('delete', path, w.apiKey).send({ destinationId: destination.id });
      expectStatus(res, 200);
      expect(res.body).toEqual({ ...expected, active: false });
    }
  });

  it('answers 400 PLATFORM_NOT_SUPPORTED on another network', async () => {
    const { destination } = world.destination('bluesky');
    const res = await mock.call('post', path).send({ destinationId: destination.id });
    expectApiError(res, 400, 'PLATFORM_NOT_SUPPORTED', 'destinationId');
    expect(res.body.error.details).toEqual({ platform: 'bluesky' });
    expectApiError(await mock.call('delete', path).send({ destinationId: destination.id }), 400, 'PLATFORM_NOT_SUPPORTED', 'destinationId');
  });

  it('answers 400 naming destinationId for a twitter post that was deleted', async () => {
    const { destination } = world.destination('twitter', (_post, d) => d.status === 'deleted');
    expectApiError(await mock.call('post', path).send({ destinationId: destination.id }), 400, 'VALIDATION_ERROR', 'destinationId');
  });

  it('answers 404 for a destination of another workspace', async () => {
    const other = await freshWorld(mock);
    const { destination } = world.destination('twitter');
    expectApiError(await mock.call('post', path, other.apiKey).send({ destinationId: destination.id }), 404, 'NOT_FOUND', 'destinationId');
  });
});

describe('POST /v1/likes', () => {
  it('keeps the kinds apart: a like does not repost', async () => {
    const w = await freshWorld(mock);
    const { destination } = w.destination('twitter');
    expectStatus(await mock.call('post', '/v1/likes', w.apiKey).send({ destinationId: destination.id }), 200);
    const undo = await mock.call('delete', '/v1/reposts', w.apiKey).send({ destinationId: destination.id });
    expect(undo.body.active).toBe(false);
    const again = await mock.call('post', '/v1/likes', w.apiKey).send({ destinationId: destination.id });
    expect(again.body.active).toBe(true);
  });

  it('takes a network-native post id with accountId, as comments do', async () => {
    const { post, destination } = world.destination('twitter');
    const res = await mock.call('post', '/v1/likes').send({ post: destination.externalPostId, accountId: destination.connectionId });
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ postId: post.id, destinationId: destination.id, active: true });
  });

  it('answers 400 naming destinationId for a post with several destinations and no accountId', async () => {
    const { post } = world.destination('twitter', (p) => p.destinations.length === 4);
    expectApiError(await mock.call('post', '/v1/likes').send({ post: post.id }), 400, 'VALIDATION_ERROR', 'destinationId');
  });

  it('answers 400 VALIDATION_ERROR for an unknown body field', async () => {
    const { destination } = world.destination('twitter');
    expectApiError(await mock.call('post', '/v1/likes').send({ destinationId: destination.id, tweetId: '1' }), 400, 'VALIDATION_ERROR', 'tweetId');
  });
});

describe('POST /v1/reposts', () => {
  it('answers 400 VALIDATION_ERROR naming destinationId when it is missing', async () => {
    expectApiError(await mock.call('post', '/v1/reposts').send({}), 400, 'VALIDATION_ERROR', 'destinationId');
  });
});

describe('POST /v1/quotes', () => {
  it('publishes a quote post as the publishing account, which is a post of its own', async () => {
    const w = await freshWorld(mock);
    const { post, destination } = w.destination('twitter');
    const res = await mock.call('post', '/v1/quotes', w.apiKey).send({ destinationId: destination.id, text: 'Worth a read.' });
    expectStatus(res, 201);
    expect(res.body).toEqual({
      postId: post.id,
      destinationId: destination.id,
      platform: 'twitter',
      kind: 'quote',
      active: true,
      quotePostId: expect.any(String),
      externalPostId: expect.stringMatching(/^\d{19}$/),
      externalUrl: expect.stringContaining(`/status/${res.body.externalPostId}`),
    });
    const quote = postsStore.get(w.workspace).posts[res.body.quotePostId as string];
    expect(quote).toMatchObject({ text: 'Worth a read.', status: 'published', source: 'api' });
    expect(quote?.destinations[0]).toMatchObject({ connectionId: destination.connectionId, status: 'published', externalPostId: res.body.externalPostId, options: { quoteMicroblogPostId: destination.externalPostId } });
  });

  it('announces the quote as a published post: post.platform.published, then post.published', async () => {
    const w = await freshWorld(mock);
    const { destination } = w.destination('twitter');
    const mark = w.mark();
    const res = await mock.call('post', '/v1/quotes', w.apiKey).send({ destinationId: destination.id, text: 'Quoted.' });
    expectStatus(res, 201);
    const events = w.eventsSince(mark);
    expect(events.map((event) => event.event)).toEqual(['post.platform.published', 'post.published']);
    expect(events[0]?.data).toMatchObject({ postId: res.body.quotePostId, destination: { status: 'published', externalPostId: res.body.externalPostId } });
    expect(events[1]?.data).toMatchObject({ post: { id: res.body.quotePostId, status: 'published', text: 'Quoted.' } });
  });

  it('counts toward the account velocity: the 25th publish of the hour is a quote, the 26th is refused', async () => {
    const w = await freshWorld(mock);
    const { destination } = w.destination('twitter');
    const twitter = w.account('twitter');
    const limits = await mock.control('get', '/__control/limits', w.apiKey);
    const usage = (limits.body.velocity as { accountId: string; hour: { count: number }; inFlight: number }[]).find((entry) => entry.accountId === twitter.id);
    const used = (usage?.hour.count ?? 0) + (usage?.inFlight ?? 0);
    expectStatus(await mock.control('post', '/__control/limits', w.apiKey).send({ velocity: [{ accountId: twitter.id, published: 24 - used }] }), 200);
    expectStatus(await mock.call('post', '/v1/quotes', w.apiKey).send({ destinationId: destination.id, text: 'The 25th.' }), 201);

    const posts = Object.keys(postsStore.get(w.workspace).posts).length;
    const mark = w.mark();
    const refused = await mock.call('post', '/v1/quotes', w.apiKey).send({ destinationId: destination.id, text: 'The 26th.' });
    expectApiError(refused, 429, 'VELOCITY_LIMITED');
    expect(refused.body.error.details).toMatchObject({ accountId: twitter.id, platform: 'twitter', window: 'hour', limit: 25 });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(Object.keys(postsStore.get(w.workspace).posts)).toHaveLength(posts);
    expect(w.eventsSince(mark)).toEqual([]);
    // Only what went out counts (the reference): the refused quote left the hour at 25.
    const after = await mock.control('get', '/__control/limits', w.apiKey);
    const twitterAfter = (after.body.velocity as { accountId: string; hour: { count: number }; inFlight: number }[]).find((entry) => entry.accountId === twitter.id);
    expect((twitterAfter?.hour.count ?? 0) + (twitterAfter?.inFlight ?? 0)).toBe(25);
    // The quote took the place a post would have had.
    const post = await mock.call('post', '/v1/posts', w.apiKey).send({ text: 'Too many.', destinations: [{ connectionId: twitter.id }] });
    expectApiError(post, 429, 'VELOCITY_LIMITED', 'destinations[0].connectionId');
  });

  it('applies the twitter limit: 281 characters without a premium subscription', async () => {
    const w = await freshWorld(mock);
    const { destination } = w.destination('twitter');
    w.account('twitter').microblogSubscriptionType = null;
    const res = await mock.call('post', '/v1/quotes', w.apiKey).send({ destinationId: destination.id, text: 'q'.repeat(281) });
    expectApiError(res, 400, 'TEXT_TOO_LONG', 'text');
    expect(res.body.error.details).toEqual({ limit: 280, length: 281, platform: 'twitter' });
  });

  it('allows a premium account long quotes', async () => {
    const { destination } = world.destination('twitter');
    expect(world.account('twitter').microblogSubscriptionType).toBe('premium');
    expectStatus(await mock.call('post', '/v1/quotes').send({ destinationId: destination.id, text: 'q'.repeat(5000) }), 201);
  });

  it('answers 400 PLATFORM_NOT_SUPPORTED on another network', async () => {
    const { destination } = world.destination('threads');
    expectApiError(await mock.call('post', '/v1/quotes').send({ destinationId: destination.id, text: 'Nice' }), 400, 'PLATFORM_NOT_SUPPORTED', 'destinationId');
  });
});
