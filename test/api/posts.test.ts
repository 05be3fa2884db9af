import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { Response } from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { accountsStore } from '../../src/api/accounts/store.js';
import { postsStore } from '../../src/api/posts/store.js';
import type { DomainEvent } from '../../src/events/catalog.js';
import { loadSpec } from '../../src/http/spec.js';
import { addOutage } from '../../src/platforms/outages.js';
import type { Workspace } from '../../src/workspaces/workspace.js';
import { expectApiError, expectStatus, TEST_CLOCK, useMock } from '../helpers/mock.js';

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const mock = useMock();

const T0 = Date.parse(TEST_CLOCK);
const at = (ms: number) => new Date(ms).toISOString();

/** A workspace of its own (fixture world, clock frozen at TEST_CLOCK), so moving its clock disturbs no other test. */
interface World {
  key: string;
  workspace: Workspace;
  /** Connection id per platform (the fixture has one per network; linkedin is expired). */
  ids: Record<string, string>;
}

async function newWorld(): Promise<World> {
  const created = await mock.control('post', '/__control/workspaces').send({});
  expectStatus(created, 201);
  const workspace = mock.server.registry.get(created.body.workspaceId as string);
  if (!workspace) throw new Error('workspace not found');
  const key = created.body.apiKey as string;
  const { body } = await mock.call('get', '/v1/connections', key);
  const ids = Object.fromEntries((body.connections as Array<{ platform: string; id: string }>).map((c) => [c.platform, c.id]));
  return { key, workspace, ids };
}

function createPost(world: World, body: object): Promise<Response> {
  return mock.call('post', '/v1/posts', world.key).send(body);
}

async function advance(world: World, by: string | number): Promise<void> {
  const res = await mock.control('post', '/__control/clock/advance', world.key).send(typeof by === 'number' ? { ms: by } : { by });
  expectStatus(res, 200);
  for (const job of res.body.ran as Array<{ ok: boolean; error?: string }>) expect(job, JSON.stringify(job)).toMatchObject({ ok: true });
}

async function setClock(world: World, to: number): Promise<void> {
  expectStatus(await mock.control('post', '/__control/clock/set', world.key).send({ to: at(to) }), 200);
}

async function readPost(world: World, id: string) {
  const res = await mock.call('get', `/v1/posts/${id}`, world.key);
  expectStatus(res, 200);
  return res.body.post;
}

function eventsOf(world: World, postId: string): DomainEvent[] {
  return world.workspace.events.recent().filter((event) => {
    const data = event.data as { postId?: string; post?: { id: string } };
    return data.postId === postId || data.post?.id === postId;
  });
}

function setAccountStatus(world: World, platform: string, status: string): void {
  const account = accountsStore.get(world.workspace).accounts[world.ids[platform] ?? ''];
  if (!account) throw new Error(`no ${platform} account`);
  account.status = status;
}

const VIDEO = 'https://cdn.example/clip.mp4';
const IMAGE = 'https://cdn.example/photo.jpg';
const images = (n: number) => Array.from({ length: n }, (_, i) => `https://cdn.example/photo-${i}.jpg`);

describe('POST /v1/posts', () => {
  let world: World;
  beforeAll(async () => {
    world = await newWorld();
  });

  describe('when the request breaks a rule', () => {
    type Ids = Record<string, string>;
    const rows: Array<[string, number, string, string, (ids: Ids) => object]> = [
      // connections
      ['an unknown connectionId', 400, 'VALIDATION_ERROR', 'destinations[0].connectionId', () => ({ text: 'hi', destinations: [{ connectionId: '0b0e0f00-0000-4000-8000-000000000000' }] })],
      ['the same connection twice', 400, 'VALIDATION_ERROR', 'destinations[2].connectionId', (ids) => ({ text: 'hi', destinations: [{ connectionId: ids.bluesky }, { connectionId: ids.threads }, { connectionId: ids.bluesky }] })],
      ['an expired account', 400, 'ACCOUNT_RECONNECT_REQUIRED', 'destinations[1].connectionId', (ids) => ({ text: 'hi', destinations: [{ connectionId: ids.bluesky }, { connectionId: ids.linkedin }] })],
      // text limits
      ['a post text over the decentralized network limit', 400, 'TEXT_TOO_LONG', 'text', (ids) => ({ text: 'x'.repeat(301), destinations: [{ connectionId: ids.facebook }, { connectionId: ids.bluesky }] })],
      ['a destination text over the text-thread network limit', 400, 'TEXT_TOO_LONG', 'destinations[0].text', (ids) => ({ text: 'short', destinations: [{ connectionId: ids.threads, text: 'x'.repeat(501) }] })],
      ['a thread item over the limit', 400, 'TEXT_TOO_LONG', 'thread[1]', (ids) => ({ thread: ['first', 'x'.repeat(301)], destinations: [{ connectionId: ids.bluesky }] })],
      ['a pin text over 500', 400, 'TEXT_TOO_LONG', 'text', (ids) => ({ text: 'x'.repeat(501), mediaUrls: [IMAGE], destinations: [{ connectionId: ids.pinterest, boardId: 'b1' }] })],
      // fields of another network
      ['subreddit on the microblogging network', 400, 'VALIDATION_ERROR', 'destinations[0].subreddit', (ids) => ({ text: 'hi', destinations: [{ connectionId: ids.twitter, subreddit: 'Coffee' }] })],
      ['title on the microblogging network', 400, 'VALIDATION_ERROR', 'destinations[0].title', (ids) => ({ text: 'hi', destinations: [{ connectionId: ids.twitter, title: 'A title' }] })],
      ['boardId on the photo network', 400, 'VALIDATION_ERROR', 'destinations[0].boardId', (ids) => ({ mediaUrls: [IMAGE], destinations: [{ connectionId: ids.instagram, boardId: 'b1' }] })],
      ['privacyLevel on the video network', 400, 'VALIDATION_ERROR', 'destinations[0].privacyLevel', (ids) => ({ mediaUrls: [VIDEO], destinations: [{ connectionId: ids.youtube, title: 'T', privacyLevel: 'SELF_ONLY' }] })],
      ['disableDuet on the page network', 400, 'VALIDATION_ERROR', 'destinations[0].disableDuet', (ids) => ({ text: 'hi', destinations: [{ connectionId: ids.facebook, disableDuet: true }] })],
      ['privacyStatus on the short-video network', 400, 'VALIDATION_ERROR', 'destinations[0].privacyStatus', (ids) => ({ mediaUrls: [VIDEO], destinations: [{ connectionId: ids.tiktok, privacyStatus: 'public' }] })],
      ['thumbnailUrl on the forum network', 400, 'VALIDATION_ERROR', 'destinations[0].thumbnailUrl', (ids) => ({ text: 'hi', destinations: [{ connectionId: ids.reddit, subreddit: 'a', title: 't', thumbnailUrl: IMAGE }] })],
      ['quoteMicroblogPostId on the decentralized network', 400, 'VALIDATION_ERROR', 'destinations[0].quoteMicroblogPostId', (ids) => ({ text: 'hi', destinations: [{ connectionId: ids.bluesky, quoteMicroblogPostId: '123' }] })],
      ['nsfw on the text-thread network', 400, 'VALIDATION_ERROR', 'destinations[0].nsfw', (ids) => ({ text: 'hi', destinations: [{ connectionId: ids.threads, nsfw: true }] })],
      ['link on the microblogging network', 400, 'VALIDATION_ERROR', 'destinations[0].link', (ids) => ({ text: 'hi', destinations: [{ connectionId: ids.twitter, link: 'https://shop.example/' }] })],
      ['description on the forum network', 400, 'VALIDATION_ERROR', 'destinations[0].description', (ids) => ({ text: 'hi', destinations: [{ connectionId: ids.reddit, subreddit: 'a', title: 't', description: 'd' }] })],
      // required fields
      ['a forum post without subreddit', 400, 'VALIDATION_ERROR', 'destinations[0].subreddit', (ids) => ({ text: 'hi', destinations: [{ connectionId: ids.reddit, title: 'T' }] })],
      ['a forum post without title', 400, 'VALIDATION_ERROR', 'destinations[0].title', (ids) => ({ text: 'hi', destinations: [{ connectionId: ids.reddit, subreddit: 'Coffee' }] })],
      ['a pin without boardId', 400, 'VALIDATION_ERROR', 'destinations[0].boardId', (ids) => ({ mediaUrls: [IMAGE], destinations: [{ connectionId: ids.pinterest }] })],
      ['a video without title', 400, 'VALIDATION_ERROR', 'destinations[0].title', (ids) => ({ mediaUrls: [VIDEO], destinations: [{ connectionId: ids.youtube }] })],
      // media the network needs or cannot carry
      ['a photo-network post without media', 400, 'VALIDATION_ERROR', 'mediaUrls', (ids) => ({ text: 'caption', destinations: [{ connectionId: ids.instagram }] })],
      ['a pin without media', 400, 'VALIDATION_ERROR', 'mediaUrls', (ids) => ({ text: 'pin', destinations: [{ connectionId: ids.pinterest, boardId: 'b1' }] })],
      ['a short-video post without media', 400, 'VALIDATION_ERROR', 'mediaUrls', (ids) => ({ text: 'hi', destinations: [{ connectionId: ids.tiktok }] })],
      ['an image on the short-video network', 400, 'PLATFORM_NOT_SUPPORTED', 'mediaKind', (ids) => ({ mediaUrls: [IMAGE], destinations: [{ connectionId: ids.tiktok }] })],
      ['an image on the video network', 400, 'PLATFORM_NOT_SUPPORTED', 'mediaKind', (ids) => ({ mediaUrls: [IMAGE], destinations: [{ connectionId: ids.youtube, title: 'T' }] })],
      ['stories on the microblogging network', 400, 'PLATFORM_NOT_SUPPORTED', 'mediaKind', (ids) => ({ mediaKind: 'stories', mediaUrls: [IMAGE], destinations: [{ connectionId: ids.twitter }] })],
      ['five images on the microblogging network', 400, 'VALIDATION_ERROR', 'mediaUrls', (ids) => ({ mediaUrls: images(5), destinations: [{ connectionId: ids.twitter }] })],
      ['six images on the pin-board network', 400, 'VALIDATION_ERROR', 'mediaUrls', (ids) => ({ mediaUrls: images(6), destinations: [{ connectionId: ids.pinterest, boardId: 'b1' }] })],
      // mediaKind against mediaUrls
      ['mediaKind text with media', 400, 'VALIDATION_ERROR', 'mediaKind', (ids) => ({ text: 'hi', mediaKind: 'text', mediaUrls: [IMAGE], destinations: [{ connectionId: ids.facebook }] })],
      ['mediaKind image with two URLs', 400, 'VALIDATION_ERROR', 'mediaKind', (ids) => ({ mediaKind: 'image', mediaUrls: images(2), destinations: [{ connectionId: ids.facebook }] })],
      ['mediaKind multi-image with one URL', 400, 'VALIDATION_ERROR', 'mediaKind', (ids) => ({ mediaKind: 'multi-image', mediaUrls: [IMAGE], destinations: [{ connectionId: ids.facebook }] })],
      ['mediaKind video without media', 400, 'VALIDATION_ERROR', 'mediaKind', (ids) => ({ text: 'hi', mediaKind: 'video', destinations: [{ connectionId: ids.facebook }] })],
      ['mediaKind stories with two URLs', 400, 'VALIDATION_ERROR', 'mediaKind', (ids) => ({ mediaKind: 'stories', mediaUrls: images(2), destinations: [{ connectionId: ids.instagram }] })],
      // threads
      ['a thread with text', 400, 'VALIDATION_ERROR', 'text', (ids) => ({ text: 'hi', thread: ['a', 'b'], destinations: [{ connectionId: ids.bluesky }] })],
      ['a thread on the page network', 400, 'PLATFORM_NOT_SUPPORTED', 'thread', (ids) => ({ thread: ['a', 'b'], destinations: [{ connectionId: ids.twitter }, { connectionId: ids.facebook }] })],
      ['a thread with an empty item', 400, 'VALIDATION_ERROR', 'thread[1]', (ids) => ({ thread: ['a', ' '], destinations: [{ connectionId: ids.threads }] })],
      ['a thread with a destination text', 400, 'VALIDATION_ERROR', 'destinations[0].text', (ids) => ({ thread: ['a', 'b'], destinations: [{ connectionId: ids.threads, text: 'c' }] })],
      ['a thread of one item', 400, 'VALIDATION_ERROR', 'thread', (ids) => ({ thread: ['a'], destinations: [{ connectionId: ids.threads }] })],
      ['a thread of 26 items', 400, 'VALIDATION_ERROR', 'thread', (ids) => ({ thread: Array.from({ length: 26 }, (_, i) => `item ${i}`), destinations: [{ connectionId: ids.threads }] })],
      // nothing to publish
      ['no text and no media', 400, 'VALIDATION_ERROR', 'text', (ids) => ({ destinations: [{ connectionId: ids.bluesky }] })],
      ['an empty destination text and no media', 400, 'VALIDATION_ERROR', 'destinations[1].text', (ids) => ({ text: 'hi', destinations: [{ connectionId: ids.facebook }, { connectionId: ids.bluesky, text: '' }] })],
      // scheduling
      ['scheduledFor without timezone', 400, 'VALIDATION_ERROR', 'timezone', (ids) => ({ text: 'hi', scheduledFor: '2026-03-10T09:00:00', destinations: [{ connectionId: ids.bluesky }] })],
      ['timezone without scheduledFor', 400, 'VALIDATION_ERROR', 'scheduledFor', (ids) => ({ text: 'hi', timezone: 'Europe/Lisbon', destinations: [{ connectionId: ids.bluesky }] })],
      ['an unknown time zone', 400, 'VALIDATION_ERROR', 'timezone', (ids) => ({ text: 'hi', scheduledFor: '2026-03-10T09:00:00', timezone: 'Mars/Olympus_Mons', destinations: [{ connectionId: ids.bluesky }] })],
      ['a UTC offset instead of a zone', 400, 'VALIDATION_ERROR', 'timezone', (ids) => ({ text: 'hi', scheduledFor: '2026-03-10T09:00:00', timezone: '+02:00', destinations: [{ connectionId: ids.bluesky }] })],
      ['a time in the past', 400, 'VALIDATION_ERROR', 'scheduledFor', (ids) => ({ text: 'hi', scheduledFor: '2026-03-02T03:59:59', timezone: 'America/New_York', destinations: [{ connectionId: ids.bluesky }] })],
      ['the current instant', 400, 'VALIDATION_ERROR', 'scheduledFor', (ids) => ({ text: 'hi', scheduledFor: '2026-03-02T04:00:00', timezone: 'America/New_York', destinations: [{ connectionId: ids.bluesky }] })],
      ['a date that does not exist', 400, 'VALIDATION_ERROR', 'scheduledFor', (ids) => ({ text: 'hi', scheduledFor: '2026-02-30T09:00:00', timezone: 'UTC', destinations: [{ connectionId: ids.bluesky }] })],
      ['a time with a zone offset', 400, 'VALIDATION_ERROR', 'scheduledFor', (ids) => ({ text: 'hi', scheduledFor: '2026-03-10T09:00:00Z', timezone: 'UTC', destinations: [{ connectionId: ids.bluesky }] })],
      // the contract's own limits
      ['no destinations', 400, 'VALIDATION_ERROR', 'destinations', () => ({ text: 'hi', destinations: [] })],
      ['51 destinations', 400, 'VALIDATION_ERROR', 'destinations', (ids) => ({ text: 'hi', destinations: Array.from({ length: 51 }, () => ({ connectionId: ids.bluesky })) })],
      ['a text over 5000', 400, 'VALIDATION_ERROR', 'text', (ids) => ({ text: 'x'.repeat(5001), destinations: [{ connectionId: ids.facebook }] })],
      ['a subreddit with a dash', 400, 'VALIDATION_ERROR', 'destinations[0].subreddit', (ids) => ({ text: 'hi', destinations: [{ connectionId: ids.reddit, subreddit: 'no-dash', title: 't' }] })],
    ];

    it.each(rows)('answers %s with %i %s naming %s', async (_label, status, code, param, body) => {
      expectApiError(await createPost(world, body(world.ids)), status, code, param);
    });

    it('answers TEXT_TOO_LONG with the limit, the length and the network', async () => {
      const res = await createPost(world, { text: 'x'.repeat(301), destinations: [{ connectionId: world.ids.bluesky }] });
      expectApiError(res, 400, 'TEXT_TOO_LONG', 'text');
      expect(res.body.error.details).toEqual({ limit: 300, length: 301, platform: 'bluesky' });
    });

    it('answers ACCOUNT_RECONNECT_REQUIRED with the account and its status', async () => {
      const res = await createPost(world, { text: 'hi', destinations: [{ connectionId: world.ids.linkedin }] });
      expectApiError(res, 400, 'ACCOUNT_RECONNECT_REQUIRED', 'destinations[0].connectionId');
      expect(res.body.error.details).toEqual({ accountId: world.ids.linkedin, platform: 'linkedin', status: 'expired' });
    });

    it('answers a connection of another workspace like an unknown one', async () => {
      const { body } = await mock.call('get', '/v1/connections');
      const foreign = (body.connections as Array<{ platform: string; id: string }>).find((c) => c.platform === 'bluesky')?.id;
      expect(foreign).not.toBe(world.ids.bluesky);
      expectApiError(await createPost(world, { text: 'hi', destinations: [{ connectionId: foreign }] }), 400, 'VALIDATION_ERROR', 'destinations[0].connectionId');
    });

    it('reports a mistake in the request before an account that needs a reconnect', async () => {
      const res = await createPost(world, { text: 'hi', destinations: [{ connectionId: world.ids.linkedin }, { connectionId: world.ids.twitter, subreddit: 'x' }] });
      expectApiError(res, 400, 'VALIDATION_ERROR', 'destinations[1].subreddit');
    });

    it('leaves the state as it was: no post, no job, no event', async () => {
      const posts = Object.keys(postsStore.get(world.workspace).posts).length;
      const jobs = world.workspace.scheduler.size;
      const events = world.workspace.events.recent().length;
      for (const [, , , , body] of rows) await createPost(world, body(world.ids));
      expect(Object.keys(postsStore.get(world.workspace).posts)).toHaveLength(posts);
      expect(world.workspace.scheduler.size).toBe(jobs);
      expect(world.workspace.events.recent()).toHaveLength(events);
    });
  });

  describe('when the microblog account has no premium subscription', () => {
    it('holds the text to 280 characters, and to 25000 with premium', async () => {
      const own = await newWorld();
      const account = accountsStore.get(own.workspace).accounts[own.ids.twitter ?? ''];
      if (!account) throw new Error('no twitter account');
      expect(account.microblogSubscriptionType).toBe('premium');
      expectStatus(await createPost(own, { text: 'x'.repeat(4000), destinations: [{ connectionId: own.ids.twitter }] }), 201);
      account.microblogSubscriptionType = null;
      expectStatus(await createPost(own, { text: 'x'.repeat(280), destinations: [{ connectionId: own.ids.twitter }] }), 201);
      const res = await createPost(own, { text: 'x'.repeat(281), destinations: [{ connectionId: own.ids.twitter }] });
      expectApiError(res, 400, 'TEXT_TOO_LONG', 'text');
      expect(res.body.error.details).toEqual({ limit: 280, length: 281, platform: 'twitter' });
    });
  });

  describe('when the request is sound', () => {
    it('answers 201 with a queued post in the grouped shape', async () => {
      const res = await createPost(world, { text: 'Spring blend is back', destinations: [{ connectionId: world.ids.bluesky }, { connectionId: world.ids.facebook, text: 'Longer text for the page' }] });
      expectStatus(res, 201);
      expect(res.body.post).toMatchObject({
        text: 'Spring blend is back',
        mediaUrls: [],
        mediaKind: 'text',
        status: 'queued',
        scheduledFor: null,
        timezone: null,
        source: 'api',
        createdAt: TEST_CLOCK,
        updatedAt: TEST_CLOCK,
      });
      expect(res.body.post.destinations).toMatchObject([
        { connectionId: world.ids.bluesky, platform: 'bluesky', status: 'queued', externalPostId: null, externalUrl: null, errorCode: null, errorMessage: null, publishedAt: null, metrics: null },
        { connectionId: world.ids.facebook, platform: 'facebook', status: 'queued' },
      ]);
      expect(await readPost(world, res.body.post.id)).toEqual(res.body.post);
    });

    it('keeps the fields each destination was sent with, and one shared empty object for those sent with none', async () => {
      const first = await createPost(world, { text: 'Fresh roast', destinations: [{ connectionId: world.ids.bluesky }, { connectionId: world.ids.reddit, subreddit: 'Coffee', title: 'Fresh roast' }] });
      const second = await createPost(world, { text: 'Fresh roast', destinations: [{ connectionId: world.ids.bluesky, text: 'Its own text' }] });
      expectStatus(first, 201);
      expectStatus(second, 201);
      const { posts } = postsStore.get(world.workspace);
      const [bluesky, reddit] = posts[first.body.post.id as string]?.destinations ?? [];
      const [again] = posts[second.body.post.id as string]?.destinations ?? [];
      expect(reddit?.options).toEqual({ subreddit: 'Coffee', title: 'Fresh roast' });
      expect(again?.text).toBe('Its own text');
      expect(bluesky?.options).toEqual({});
      expect(again?.options).toBe(bluesky?.options);
      expect(Object.isFrozen(bluesky?.options)).toBe(true);
    });

    it.each([
      ['one .mp4', [VIDEO], 'video'],
      ['one .MOV with a query', ['https://cdn.example/clip.MOV?sig=1'], 'video'],
      ['one .jpg', [IMAGE], 'image'],
      ['one URL without an extension', ['https://cdn.example/media/123'], 'image'],
      ['three URLs', images(3), 'multi-image'],
    ])('defaults mediaKind from %s to %s', async (_label, mediaUrls, kind) => {
      const res = await createPost(world, { mediaUrls, destinations: [{ connectionId: world.ids.facebook }] });
      expectStatus(res, 201);
      expect(res.body.post.mediaKind).toBe(kind);
    });

    it.each([
      ['a forum post with a title and no text', (ids: Record<string, string>) => ({ destinations: [{ connectionId: ids.reddit, subreddit: 'Coffee', title: 'Our roast', flairText: 'Recipe', nsfw: false }] })],
      ['a pin with a title, description and link', (ids: Record<string, string>) => ({ mediaUrls: images(5), destinations: [{ connectionId: ids.pinterest, boardId: '9876', title: 'Spring', description: 'd', link: 'https://shop.example/' }] })],
      ['a short video with its options', (ids: Record<string, string>) => ({ mediaUrls: [VIDEO], destinations: [{ connectionId: ids.tiktok, privacyLevel: 'SELF_ONLY', disableDuet: true, brandContentToggle: false }] })],
      ['a video with title, privacy and thumbnail', (ids: Record<string, string>) => ({ mediaUrls: [VIDEO], destinations: [{ connectionId: ids.youtube, title: 'Roasting', privacyStatus: 'unlisted', thumbnailUrl: IMAGE, description: 'd' }] })],
      ['a story on the photo and page networks', (ids: Record<string, string>) => ({ mediaKind: 'stories', mediaUrls: [IMAGE], destinations: [{ connectionId: ids.instagram }, { connectionId: ids.facebook }] })],
      ['a thread of 25 on the three thread networks', (ids: Record<string, string>) => ({ thread: Array.from({ length: 25 }, (_, i) => `part ${i + 1}`), destinations: [{ connectionId: ids.twitter }, { connectionId: ids.bluesky }, { connectionId: ids.threads }] })],
      ['a quote on the microblogging network', (ids: Record<string, string>) => ({ text: 'So true', destinations: [{ connectionId: ids.twitter, quoteMicroblogPostId: '1900512345678901234' }] })],
      ['300 emoji on the decentralized network (code points, not UTF-16 units)', (ids: Record<string, string>) => ({ text: '☕'.repeat(150) + '🎉'.repeat(150), destinations: [{ connectionId: ids.bluesky }] })],
      ['four images on the microblogging network', (ids: Record<string, string>) => ({ mediaUrls: images(4), destinations: [{ connectionId: ids.twitter }] })],
    ])('accepts %s', async (_label, body) => {
      expectStatus(await createPost(world, body(world.ids)), 201);
    });

    it('takes the post text from the first thread item', async () => {
      const res = await createPost(world, { thread: ['one', 'two', 'three'], destinations: [{ connectionId: world.ids.threads }] });
      expectStatus(res, 201);
      expect(res.body.post.text).toBe('one');
    });

    it('answers 50 destinations as one call', async () => {
      const own = await newWorld();
      // The fixture has one account per network; more accounts of the same networks make 50 destinations.
      const accounts = accountsStore.get(own.workspace).accounts;
      const template = accounts[own.ids.facebook ?? ''];
      if (!template) throw new Error('no facebook account');
      const ids = Array.from({ length: 50 }, (_, i) => {
        const id = `0c0c0c0c-0000-4000-8000-${String(i).padStart(12, '0')}`;
        accounts[id] = { ...structuredClone(template), id };
        return id;
      });
      const { body: before } = await mock.control('get', '/__control/journal?limit=1', own.key);
      const res = await createPost(own, { text: 'Everywhere at once', destinations: ids.map((connectionId) => ({ connectionId })) });
      expectStatus(res, 201);
      expect(res.body.post.destinations).toHaveLength(50);
      const { body: after } = await mock.control('get', `/__control/journal?after=${before.data[0]?.seq ?? 0}`, own.key);
      expect(after.data.filter((entry: { operationId: string }) => entry.operationId === 'createPost')).toHaveLength(1);
    });
  });
});

describe('the publishing pipeline', () => {
  describe('when a post is published now', () => {
    it('goes queued → processing → published as the virtual clock moves, one destination after another', async () => {
      const world = await newWorld();
      const created = await createPost(world, { text: 'Fresh roast', destinations: [{ connectionId: world.ids.bluesky }, { connectionId: world.ids.reddit, subreddit: 'Coffee', title: 'Fresh roast' }] });
      expectStatus(created, 201);
      const id = created.body.post.id as string;

      await advance(world, 1999);
      expect((await readPost(world, id)).status).toBe('queued');

      await advance(world, 1);
      let post = await readPost(world, id);
      expect(post.status).toBe('processing');
      expect(post.destinations.map((d: { status: string }) => d.status)).toEqual(['processing', 'queued']);
      expect(post.updatedAt).toBe(at(T0 + 2000));

      await advance(world, 'PT3S');
      post = await readPost(world, id);
      const firstOut = post;
      expect(post.status).toBe('processing');
      expect(post.destinations.map((d: { status: string }) => d.status)).toEqual(['published', 'processing']);
      expect(post.destinations[0]).toMatchObject({
        publishedAt: at(T0 + 5000),
        externalPostId: expect.stringMatching(/^at:\/\/did:plc:[a-z2-7]{24}\/app\.bsky\.feed\.post\/[2-7a-z]{13}$/),
        externalUrl: expect.stringMatching(/^https:\/\/bsky\.example\/profile\/[^/]+\/post\/[2-7a-z]{13}$/),
        errorCode: null,
        metrics: { impressions: 0, likes: 0, engagement: 0 },
      });

      await advance(world, 'PT3S');
      post = await readPost(world, id);
      expect(post.status).toBe('published');
      expect(post.updatedAt).toBe(at(T0 + 8000));
      expect(post.destinations[1]).toMatchObject({
        status: 'published',
        publishedAt: at(T0 + 8000),
        externalPostId: expect.stringMatching(/^1[0-9a-z]{6}$/),
        externalUrl: expect.stringMatching(/^https:\/\/reddit\.example\/r\/Coffee\/comments\/1[0-9a-z]{6}$/),
      });

      // Metrics grow with virtual time once published.
      await advance(world, 'PT6H');
      const later = await readPost(world, id);
      expect(later.destinations[0].metrics.impressions).toBeGreaterThan(0);

      const events = eventsOf(world, id);
      expect(events.map((e) => e.event)).toEqual(['post.platform.published', 'post.platform.published', 'post.published']);
      // Each event carries the record as it was at that moment.
      expect(events[0]?.data).toEqual({ postId: id, destination: firstOut.destinations[0] });
      expect(events[0]?.createdAt).toBe(at(T0 + 5000));
      expect(events[2]?.data).toEqual({ post });
    });

    it("shares a destination's view between its platform event and the post's event while it reads the same, and only then", async () => {
      const world = await newWorld();
      // Seven destinations, 3 s apart: the first has been out 18 s when the post settles, long enough for the fast feed to count views.
      const destinations = [
        { connectionId: world.ids.twitter },
        ...['bluesky', 'facebook', 'threads', 'instagram'].map((platform) => ({ connectionId: world.ids[platform] })),
        { connectionId: world.ids.pinterest, boardId: 'b' },
        { connectionId: world.ids.reddit, subreddit: 'Coffee', title: 'Fresh roast' },
      ];
      const created = await createPost(world, { text: 'Fresh roast', mediaUrls: [IMAGE], destinations });
      expectStatus(created, 201);
      const id = created.body.post.id as string;
      await advance(world, 'PT23S');
      const post = await readPost(world, id);
      expect(post.status).toBe('published');
      const events = eventsOf(world, id);
      expect(events.map((e) => e.event)).toEqual([...destinations.map(() => 'post.platform.published'), 'post.published']);
      const announced = events.slice(0, 7).map((e) => (e.data as { destination: { metrics: object } }).destination);
      const settled = (events[7]?.data as { post: { destinations: Array<{ metrics: object }> } }).post.destinations;
      // What the post's event says is what a view made as it settled says, whichever object it is.
      expect(JSON.stringify(events[7]?.data)).toBe(JSON.stringify({ post }));
      // Each destination the post's event shows as its own event announced it is that very object; one that moved (counts) is a view of its own.
      const shared = settled.filter((view, i) => {
        const same = JSON.stringify(view) === JSON.stringify(announced[i]);
        expect(view === announced[i], `destination ${i}`).toBe(same);
        return same;
      });
      expect(settled[0]?.metrics).not.toEqual(announced[0]?.metrics);
      expect(shared.length).toBeGreaterThan(0);
      // A destination that has counted nothing yet shows the one frozen object of zeros.
      const last = announced[6]?.metrics;
      expect(last).toEqual({ impressions: 0, reach: 0, likes: 0, comments: 0, shares: 0, saves: 0, plays: null, engagement: 0 });
      expect(announced[5]?.metrics).toBe(last);
      expect(Object.isFrozen(last)).toBe(true);
    });

    it.each([
      ['twitter', {}, /^\d{19}$/, /^https:\/\/x\.example\/[^/]+\/status\/\d{19}$/],
      ['instagram', { mediaUrls: [IMAGE] }, /^\d{17}$/, /^https:\/\/instagram\.example\/p\/\d{17}$/],
      ['facebook', {}, /^\d{16}$/, /^https:\/\/facebook\.example\/\d+\/posts\/\d{16}$/],
      ['threads', {}, /^\d{18}$/, /^https:\/\/threads\.example\/@[^/]+\/post\/\d{18}$/],
      ['pinterest', { mediaUrls: [IMAGE], boardId: 'b' }, /^\d{18}$/, /^https:\/\/pinterest\.example\/pin\/\d{18}$/],
      ['tiktok', { mediaUrls: [VIDEO] }, /^\d{19}$/, /^https:\/\/tiktok\.example\/@[^/]+\/video\/\d{19}$/],
      ['youtube', { mediaUrls: [VIDEO], title: 'T' }, /^[A-Za-z0-9_-]{11}$/, /^https:\/\/youtube\.example\/watch\?v=[A-Za-z0-9_-]{11}$/],
    ] as const)('gives a %s destination the network\'s own id and URL', async (platform, extra, idPattern, urlPattern) => {
      const world = await newWorld();
      const { mediaUrls, ...fields } = extra as { mediaUrls?: string[] };
      const res = await createPost(world, { text: 'hi', ...(mediaUrls && { mediaUrls }), destinations: [{ connectionId: world.ids[platform], ...fields }] });
      expectStatus(res, 201);
      await advance(world, 'PT5S');
      const post = await readPost(world, res.body.post.id);
      expect(post.destinations[0].externalPostId).toMatch(idPattern);
      expect(post.destinations[0].externalUrl).toMatch(urlPattern);
    });
  });

  describe('when one destination\'s account stops being active before it publishes', () => {
    it('fails that destination with ACCOUNT_RECONNECT_REQUIRED and publishes the post (post.partial)', async () => {
      const world = await newWorld();
      const created = await createPost(world, { text: 'Two networks', destinations: [{ connectionId: world.ids.twitter }, { connectionId: world.ids.bluesky }] });
      const id = created.body.post.id as string;
      setAccountStatus(world, 'bluesky', 'revoked');
      await advance(world, 'PT1M');
      const post = await readPost(world, id);
      expect(post.status).toBe('published');
      expect(post.destinations[0]).toMatchObject({ status: 'published', errorCode: null });
      expect(post.destinations[1]).toMatchObject({
        status: 'failed',
        errorCode: 'ACCOUNT_RECONNECT_REQUIRED',
        errorMessage: expect.stringContaining('revoked'),
        externalPostId: null,
        externalUrl: null,
        publishedAt: null,
        metrics: null,
      });
      const events = eventsOf(world, id);
      expect(events.map((e) => e.event)).toEqual(['post.platform.published', 'post.platform.failed', 'post.partial']);
      expect(events[1]?.data).toMatchObject({ postId: id, destination: { platform: 'bluesky', status: 'failed', errorCode: 'ACCOUNT_RECONNECT_REQUIRED' } });
    });
  });

  describe('when the account was disconnected before the destination published', () => {
    it('fails it with ACCOUNT_RECONNECT_REQUIRED', async () => {
      const world = await newWorld();
      const created = await createPost(world, { text: 'Gone', destinations: [{ connectionId: world.ids.threads }] });
      delete accountsStore.get(world.workspace).accounts[world.ids.threads ?? ''];
      await advance(world, 'PT10S');
      const post = await readPost(world, created.body.post.id);
      expect(post.status).toBe('failed');
      expect(post.destinations[0]).toMatchObject({ status: 'failed', errorCode: 'ACCOUNT_RECONNECT_REQUIRED', errorMessage: expect.stringContaining('disconnected') });
    });
  });

  describe('when the network is in an outage', () => {
    it('fails the destinations on it with PLATFORM_ERROR; all failed makes the post failed (post.failed)', async () => {
      const world = await newWorld();
      addOutage(world.workspace, { platform: 'instagram', fromMs: T0, untilMs: T0 + 3_600_000, message: 'upstream timeout' });
      const created = await createPost(world, { mediaUrls: [IMAGE], destinations: [{ connectionId: world.ids.instagram }] });
      const id = created.body.post.id as string;
      await advance(world, 'PT10S');
      const post = await readPost(world, id);
      expect(post.status).toBe('failed');
      expect(post.destinations[0]).toMatchObject({ status: 'failed', errorCode: 'PLATFORM_ERROR', errorMessage: expect.stringContaining('upstream timeout') });
      expect(eventsOf(world, id).map((e) => e.event)).toEqual(['post.platform.failed', 'post.failed']);

      // After the outage the network publishes again.
      await setClock(world, T0 + 3_600_000);
      const again = await createPost(world, { mediaUrls: [IMAGE], destinations: [{ connectionId: world.ids.instagram }] });
      await advance(world, 'PT10S');
      expect((await readPost(world, again.body.post.id)).status).toBe('published');
    });
  });
});

describe('scheduling in a time zone', () => {
  const newYork = (scheduledFor: string, world: World) =>
    createPost(world, { text: 'Scheduled', scheduledFor, timezone: 'America/New_York', destinations: [{ connectionId: world.ids.bluesky }] });

  /** Fires exactly at `utc`: scheduled a millisecond before, processing at the instant, published 3 s later. */
  async function expectFiresAt(world: World, id: string, utc: string): Promise<void> {
    const fireMs = Date.parse(utc);
    await setClock(world, fireMs - 1);
    expect((await readPost(world, id)).status).toBe('scheduled');
    await setClock(world, fireMs);
    expect((await readPost(world, id)).status).toBe('processing');
    await advance(world, 'PT3S');
    const post = await readPost(world, id);
    expect(post.status).toBe('published');
    expect(post.destinations[0].publishedAt).toBe(at(fireMs + 3000));
  }

  it.each([
    ['in standard time (EST, UTC-5)', '2026-03-05T09:30:00', '2026-03-05T14:30:00.000Z'],
    ['across the spring change: made in EST, fires in EDT (UTC-4)', '2026-03-10T09:00:00', '2026-03-10T13:00:00.000Z'],
    ['in the spring gap: 02:30 does not exist and moves forward to 03:30 EDT', '2026-03-08T02:30:00', '2026-03-08T07:30:00.000Z'],
    ['just before the gap', '2026-03-08T01:59:59', '2026-03-08T06:59:59.000Z'],
    ['at the end of the gap', '2026-03-08T03:00:00', '2026-03-08T07:00:00.000Z'],
    ['in the fall overlap: 01:30 happens twice and the first (EDT) is meant', '2026-11-01T01:30:00', '2026-11-01T05:30:00.000Z'],
    ['just after the overlap (EST)', '2026-11-01T02:00:00', '2026-11-01T07:00:00.000Z'],
  ])('fires %s at the right UTC instant', async (_label, scheduledFor, utc) => {
    const world = await newWorld();
    const res = await newYork(scheduledFor, world);
    expectStatus(res, 201);
    expect(res.body.post).toMatchObject({ status: 'scheduled', scheduledFor, timezone: 'America/New_York' });
    expect(res.body.post.destinations[0].status).toBe('scheduled');
    await expectFiresAt(world, res.body.post.id, utc);
  });

  it('sends post.scheduled on creation, then the publishing events at fire time', async () => {
    const world = await newWorld();
    const res = await newYork('2026-03-05T09:30:00', world);
    const id = res.body.post.id as string;
    expect(eventsOf(world, id).map((e) => e.event)).toEqual(['post.scheduled']);
    expect(eventsOf(world, id)[0]?.data).toEqual({ post: res.body.post });
    await setClock(world, Date.parse('2026-03-05T15:00:00Z'));
    expect(eventsOf(world, id).map((e) => e.event)).toEqual(['post.scheduled', 'post.platform.published', 'post.published']);
  });

  // The runtime's ICU has its own names for these (Asia/Calcutta, Europe/Kiev, …): the post keeps the client's, whatever the Node build.
  it.each(['Asia/Kolkata', 'Europe/Kyiv', 'Asia/Kathmandu', 'Asia/Ho_Chi_Minh', 'Asia/Yangon', 'America/Nuuk', 'Pacific/Kanton', 'Atlantic/Faroe', 'America/Argentina/Buenos_Aires', 'Pacific/Chuuk'])(
    'answers %s exactly as sent, on creation and when read back',
    async (timezone) => {
      const world = await newWorld();
      const res = await createPost(world, { text: 'hi', scheduledFor: '2026-03-05T09:30:00', timezone, destinations: [{ connectionId: world.ids.bluesky }] });
      expectStatus(res, 201);
      expect(res.body.post.timezone).toBe(timezone);
      expect((await readPost(world, res.body.post.id)).timezone).toBe(timezone);
    },
  );

  it('keeps a link name and the case it was sent in (US/Eastern, america/new_york)', async () => {
    for (const timezone of ['US/Eastern', 'america/new_york']) {
      const world = await newWorld();
      const res = await createPost(world, { text: `hi ${timezone}`, scheduledFor: '2026-03-05T09:30:00', timezone, destinations: [{ connectionId: world.ids.bluesky }] });
      expectStatus(res, 201);
      expect(res.body.post.timezone).toBe(timezone);
      await expectFiresAt(world, res.body.post.id, '2026-03-05T14:30:00.000Z');
    }
  });

  it('fails a scheduled post whose account expired before it fired', async () => {
    const world = await newWorld();
    const res = await newYork('2026-03-05T09:30:00', world);
    setAccountStatus(world, 'bluesky', 'expired');
    await setClock(world, Date.parse('2026-03-05T15:00:00Z'));
    const post = await readPost(world, res.body.post.id);
    expect(post.status).toBe('failed');
    expect(post.destinations[0]).toMatchObject({ status: 'failed', errorCode: 'ACCOUNT_RECONNECT_REQUIRED' });
  });
});

describe('the fixture world\'s posts in flight', () => {
  it('carry on: queued and processing posts publish, the scheduled post on the expired account fails at fire time', async () => {
    const world = await newWorld();
    const posts = () => Object.values(postsStore.get(world.workspace).posts);
    const inFlight = posts().filter((post) => post.status === 'queued' || post.status === 'processing').map((post) => post.id);
    const scheduled = posts().filter((post) => post.status === 'scheduled');
    expect(inFlight).toHaveLength(2);
    expect(scheduled).toHaveLength(5);
    // The accounts' token expiries are on the clock too; count the posts' own jobs.
    expect(world.workspace.scheduler.pending().filter((job) => job.kind.startsWith('post.'))).toHaveLength(7);

    await advance(world, 'PT1M');
    for (const id of inFlight) expect((await readPost(world, id)).status).toBe('published');

    const linkedin = scheduled.find((post) => post.destinations[0]?.platform === 'linkedin');
    if (!linkedin?.scheduledAtMs) throw new Error('the fixture has no scheduled linkedin post');
    await setClock(world, linkedin.scheduledAtMs + 10_000);
    const post = await readPost(world, linkedin.id);
    expect(post.status).toBe('failed');
    expect(post.destinations[0]).toMatchObject({ status: 'failed', errorCode: 'ACCOUNT_RECONNECT_REQUIRED' });
    expect(eventsOf(world, linkedin.id).map((e) => e.event)).toEqual(['post.platform.failed', 'post.failed']);
  });
});

describe('POST /v1/posts/{id}/cancel', () => {
  it('cancels a scheduled post: it never fires, post.cancelled is sent', async () => {
    const world = await newWorld();
    const res = await createPost(world, { text: 'Maybe', scheduledFor: '2026-03-04T12:00:00', timezone: 'Europe/Lisbon', destinations: [{ connectionId: world.ids.bluesky }, { connectionId: world.ids.threads }] });
    const id = res.body.post.id as string;
    const jobs = world.workspace.scheduler.size;
    await advance(world, 'PT1H');

    const cancelled = await mock.call('post', `/v1/posts/${id}/cancel`, world.key);
    expectStatus(cancelled, 200);
    expect(cancelled.body.post).toMatchObject({ id, status: 'cancelled', updatedAt: at(T0 + 3_600_000), scheduledFor: '2026-03-04T12:00:00' });
    expect(cancelled.body.post.destinations.map((d: { status: string }) => d.status)).toEqual(['cancelled', 'cancelled']);
    expect(world.workspace.scheduler.pending().some((job) => job.data.postId === id)).toBe(false);
    expect(world.workspace.scheduler.size).toBeLessThan(jobs);

    await setClock(world, Date.parse('2026-03-05T00:00:00Z'));
    expect((await readPost(world, id)).status).toBe('cancelled');
    expect(eventsOf(world, id).map((e) => e.event)).toEqual(['post.scheduled', 'post.cancelled']);
    expect(eventsOf(world, id)[1]?.data).toEqual({ post: cancelled.body.post });
  });

  describe('when the post is not scheduled', () => {
    it('answers 409 CONFLICT for a queued, a processing, a published and a cancelled post', async () => {
      const world = await newWorld();
      const res = await createPost(world, { text: 'Now', destinations: [{ connectionId: world.ids.bluesky }] });
      const id = res.body.post.id as string;
      expectApiError(await mock.call('post', `/v1/posts/${id}/cancel`, world.key), 409, 'CONFLICT');
      await advance(world, 'PT2S');
      expectApiError(await mock.call('post', `/v1/posts/${id}/cancel`, world.key), 409, 'CONFLICT');
      await advance(world, 'PT3S');
      expectApiError(await mock.call('post', `/v1/posts/${id}/cancel`, world.key), 409, 'CONFLICT');
      expect((await readPost(world, id)).status).toBe('published');

      const scheduled = await createPost(world, { text: 'Later', scheduledFor: '2026-03-09T10:00:00', timezone: 'UTC', destinations: [{ connectionId: world.ids.bluesky }] });
      expectStatus(await mock.call('post', `/v1/posts/${scheduled.body.post.id}/cancel`, world.key), 200);
      expectApiError(await mock.call('post', `/v1/posts/${scheduled.body.post.id}/cancel`, world.key), 409, 'CONFLICT');
    });
  });

  describe('when the post is unknown or another workspace\'s', () => {
    it('answers 404 NOT_FOUND', async () => {
      const world = await newWorld();
      expectApiError(await mock.call('post', '/v1/posts/0f8e7d6c-5b4a-4392-8a1b-2c3d4e5f6a7b/cancel', world.key), 404, 'NOT_FOUND');
      const theirs = Object.values(postsStore.get(mock.server.registry.defaultWorkspace).posts).find((post) => post.status === 'scheduled');
      expectApiError(await mock.call('post', `/v1/posts/${theirs?.id}/cancel`, world.key), 404, 'NOT_FOUND');
    });
  });
});

describe('DELETE /v1/posts/{id}', () => {
  it('deletes a published post from its networks: deleted, metrics gone, post.deleted sent', async () => {
    const world = await newWorld();
    const res = await createPost(world, { text: 'Oops', destinations: [{ connectionId: world.ids.twitter }, { connectionId: world.ids.bluesky }] });
    const id = res.body.post.id as string;
    setAccountStatus(world, 'bluesky', 'error');
    await advance(world, 'PT1H');
    const published = await readPost(world, id);
    expect(published.status).toBe('published');

    const deleted = await mock.call('delete', `/v1/posts/${id}`, world.key);
    expectStatus(deleted, 200);
    expect(deleted.body.post).toMatchObject({ id, status: 'deleted', updatedAt: at(T0 + 3_600_000) });
    // The failed destination stays failed; the published one is deleted but keeps its record of having been out.
    expect(deleted.body.post.destinations[0]).toMatchObject({ status: 'deleted', metrics: null, externalPostId: published.destinations[0].externalPostId, publishedAt: published.destinations[0].publishedAt });
    expect(deleted.body.post.destinations[1]).toMatchObject({ status: 'failed', errorCode: 'ACCOUNT_RECONNECT_REQUIRED' });
    expect(await readPost(world, id)).toEqual(deleted.body.post);
    const events = eventsOf(world, id);
    expect(events.map((e) => e.event)).toEqual(['post.platform.published', 'post.platform.failed', 'post.partial', 'post.deleted']);
    expect(events[3]?.data).toEqual({ post: deleted.body.post });
  });

  describe('when the post is not published', () => {
    it('answers 409 CONFLICT for a deleted, a scheduled, a queued and a failed post', async () => {
      const world = await newWorld();
      const statuses = ['deleted', 'scheduled', 'queued', 'failed', 'processing', 'cancelled'];
      for (const status of statuses) {
        const post = Object.values(postsStore.get(world.workspace).posts).find((p) => p.status === status);
        if (!post) throw new Error(`the fixture has no ${status} post`);
        const res = await mock.call('delete', `/v1/posts/${post.id}`, world.key);
        expectApiError(res, 409, 'CONFLICT');
        expect(res.body.error.details).toEqual({ status });
      }
    });
  });

  describe('when the post is unknown', () => {
    it('answers 404 NOT_FOUND', async () => {
      expectApiError(await mock.call('delete', '/v1/posts/0f8e7d6c-5b4a-4392-8a1b-2c3d4e5f6a7b'), 404, 'NOT_FOUND');
    });
  });
});

describe('POST /v1/posts with an Idempotency-Key', () => {
  // The reference lists the header for reconnect, sync, replies and messages, not for creating a post (decision 0049).
  it('acts again on a repeat, as the real service does: two posts, no Idempotent-Replayed', async () => {
    const world = await newWorld();
    const payload = { text: 'Twice', destinations: [{ connectionId: world.ids.bluesky }] };
    const send = () => mock.call('post', '/v1/posts', world.key).set('Idempotency-Key', 'not-for-posts').send(payload);
    const first = await send();
    const again = await send();
    expectStatus(first, 201);
    expectStatus(again, 201);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(again.body.post.id).not.toBe(first.body.post.id);
    // A different body under the same key is no conflict either.
    expectStatus(await mock.call('post', '/v1/posts', world.key).set('Idempotency-Key', 'not-for-posts').send({ ...payload, text: 'Thrice' }), 201);
  });
});

describe('the post events', () => {
  it('are all eight post lifecycle events, each carrying the data shape of the contract', async () => {
    const world = await newWorld();
    const ids = world.ids;
    const published = await createPost(world, { text: 'All good', destinations: [{ connectionId: ids.bluesky }] });
    await createPost(world, { text: 'Half good', destinations: [{ connectionId: ids.facebook }, { connectionId: ids.threads }] });
    const scheduled = await createPost(world, { text: 'Later', scheduledFor: '2026-03-09T10:00:00', timezone: 'UTC', destinations: [{ connectionId: ids.bluesky }] });
    addOutage(world.workspace, { platform: 'threads', fromMs: T0, untilMs: null, message: 'down' });
    await createPost(world, { text: 'No luck', destinations: [{ connectionId: ids.threads }] });
    await advance(world, 'PT1M');
    expectStatus(await mock.call('post', `/v1/posts/${scheduled.body.post.id}/cancel`, world.key), 200);
    expectStatus(await mock.call('delete', `/v1/posts/${published.body.post.id}`, world.key), 200);

    const events = world.workspace.events.recent().filter((event) => event.event.startsWith('post.') && event.createdAt >= TEST_CLOCK);
    expect(new Set(events.map((event) => event.event))).toEqual(
      new Set(['post.scheduled', 'post.published', 'post.failed', 'post.partial', 'post.cancelled', 'post.deleted', 'post.platform.published', 'post.platform.failed']),
    );
    const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
    addFormats(ajv);
    ajv.addSchema(loadSpec('openapi.yaml').document as object, 'openapi');
    const problems = events.flatMap((event) => {
      const schema = event.event.startsWith('post.platform.') ? 'PostPlatformEventData' : 'PostEventData';
      const validate = ajv.getSchema(`openapi#/components/schemas/${schema}`);
      if (!validate) throw new Error(`openapi.yaml has no schema ${schema}`);
      return validate(event.data) ? [] : (validate.errors ?? []).map((error) => `${event.event}${error.instancePath} ${error.message ?? ''}`);
    });
    expect(problems).toEqual([]);
    const failed = events.find((event) => event.event === 'post.platform.failed');
    expect(failed?.data).toMatchObject({ destination: { errorCode: 'PLATFORM_ERROR' } });
  });
});
