import { describe, expect, it } from 'vitest';
import { addComment, commentsStore } from '../../src/api/comments/store.js';
import { presignMedia, storeUpload } from '../../src/api/media/service.js';
import { mediaStore, type MediaRecord } from '../../src/api/media/store.js';
import { addConversation, addMessage, inboxStore, type ConversationRecord } from '../../src/api/inbox/store.js';
import { addPost, postsStore } from '../../src/api/posts/store.js';
import type { DestinationRecord, PostRecord } from '../../src/api/posts/records.js';
import type { Workspace } from '../../src/workspaces/workspace.js';
import { expectStatus, useMock } from '../helpers/mock.js';

/*
 * The work a request does, counted rather than timed (issue 37): how many posts of
 * the workspace it visits. A count does not depend on the machine's speed, so these
 * guard the hot paths where a benchmark cannot: a request that scans every post
 * visits thousands here, one kept incrementally or served from an index visits a few.
 */

const mock = useMock();

/** How many posts each workspace is grown to before counting. */
const GROWN_TO = 3_000;
/** What a request may visit: a handful, however many posts the workspace holds. */
const FLAT = 5;
const DAY_MS = 86_400_000;

/**
 * Counts reads of the workspace's posts: one per post read by id, every post when they are all
 * listed. Set `visits` to 0 to start counting: the list's index is keyed by the posts object, so
 * it is built anew (over every post) on the first list after this.
 */
function countVisits(workspace: Workspace): { visits: number } {
  return countReads(postsStore.get(workspace) as { posts: Record<string, PostRecord> }, 'posts');
}

/** Counts reads of the records of one of a store's maps, as `countVisits` does for posts. */
function countReads<K extends string>(store: Record<K, Record<string, unknown>>, field: K): { visits: number } {
  const target = store[field];
  const counter = { visits: 0 };
  store[field] = new Proxy(target, {
    get(object, key, receiver) {
      if (typeof key === 'string' && Object.hasOwn(object, key)) counter.visits++;
      return Reflect.get(object, key, receiver) as unknown;
    },
  });
  return counter;
}

/** A post published at `publishedAt` to one bluesky account, as it is stored (through addPost, no write to the velocity ledger). */
function publishedPost(workspace: Workspace, connectionId: string, publishedAt: string, fields: { text: string; externalPostId?: string | null; metricsSeed?: number; source?: PostRecord['source'] }): PostRecord {
  return {
    id: workspace.newId(),
    text: fields.text,
    mediaUrls: [],
    mediaKind: 'text',
    status: 'published',
    scheduledFor: null,
    timezone: null,
    scheduledAtMs: null,
    source: fields.source ?? 'api',
    thread: null,
    destinations: [{ id: workspace.newId(), connectionId, platform: 'bluesky', status: 'published', externalPostId: fields.externalPostId ?? null, externalUrl: null, errorCode: null, errorMessage: null, publishedAt, text: null, options: {}, metricsSeed: fields.metricsSeed ?? 1 }],
    createdAt: publishedAt,
    updatedAt: publishedAt,
  };
}

/** A fresh frozen workspace of the fixture world, grown by `count` published posts old enough to count toward no cap. */
async function grownWorkspace(count: number, options: { networkIds?: boolean } = {}): Promise<{ key: string; workspace: Workspace; connectionId: string; ids: string[] }> {
  const created = await mock.control('post', '/__control/workspaces').send({ clock: { frozen: true } });
  const key = created.body.apiKey as string;
  const workspace = mock.server.registry.byApiKey(key) as Workspace;
  const connections = (await mock.call('get', '/v1/connections', key)).body.connections as Array<{ id: string; platform: string; status: string }>;
  const connectionId = connections.find((c) => c.platform === 'bluesky' && c.status === 'active')?.id as string;
  const longAgo = new Date(workspace.now() - 30 * DAY_MS).toISOString();
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const post = publishedPost(workspace, connectionId, longAgo, { text: `Grown ${i}`, externalPostId: options.networkIds ? `grown-${i}` : null, metricsSeed: i + 1 });
    addPost(workspace, post);
    ids.push(post.id);
  }
  return { key, workspace, connectionId, ids };
}

function create(key: string, connectionId: string) {
  return mock.call('post', '/v1/posts', key).send({ text: 'Fresh beans today.', destinations: [{ connectionId }] });
}

describe('the posts a request visits in a workspace of 3,000 posts', () => {
  describe('POST /v1/posts on a frozen clock (the posts stay queued)', () => {
    it('visits a handful, not every post, on every create after the first', async () => {
      const { key, workspace, connectionId } = await grownWorkspace(GROWN_TO);
      const counter = countVisits(workspace);
      expectStatus(await create(key, connectionId), 201);
      counter.visits = 0;
      for (let i = 0; i < 10; i++) expectStatus(await create(key, connectionId), 201);
      expect(counter.visits / 10).toBeLessThanOrEqual(FLAT);
    });
  });

  describe('POST /v1/posts once posts went out', () => {
    it('visits a handful per create, publishing included', async () => {
      const { key, workspace, connectionId } = await grownWorkspace(GROWN_TO);
      const counter = countVisits(workspace);
      expectStatus(await create(key, connectionId), 201);
      await mock.control('post', '/__control/clock/advance', key).send({ ms: 60_000 });
      counter.visits = 0;
      for (let i = 0; i < 10; i++) {
        expectStatus(await create(key, connectionId), 201);
        await mock.control('post', '/__control/clock/advance', key).send({ ms: 60_000 });
      }
      // Each create, its start and its publish read the post a few times; none reads the others.
      expect(counter.visits / 10).toBeLessThanOrEqual(4 * FLAT);
      const published = await mock.call('get', `/v1/posts?connectionId=${connectionId}&status=published&include=total&limit=1`, key);
      expect(published.body.total).toBeGreaterThanOrEqual(GROWN_TO + 10);
    });
  });

  describe('GET /v1/posts/{postId}, GET /v1/posts?limit=20 and DELETE /v1/posts/{postId}', () => {
    it('visits a handful each', async () => {
      const { key, workspace, ids } = await grownWorkspace(GROWN_TO);
      const counter = countVisits(workspace);
      // The first page builds the list's index once; from then on a page reads the index.
      expectStatus(await mock.call('get', '/v1/posts?limit=20', key), 200);
      counter.visits = 0;
      expectStatus(await mock.call('get', '/v1/posts?limit=20', key), 200);
      expectStatus(await mock.call('get', `/v1/posts/${ids[17]}`, key), 200);
      expectStatus(await mock.call('delete', `/v1/posts/${ids[18]}`, key), 200);
      expect(counter.visits).toBeLessThanOrEqual(3 * FLAT);
    });
  });
});

describe('the records a request visits among 3,000 comments and 3,000 conversations of other destinations and accounts', () => {
  it('GET /v1/comments reads the destination\'s comments, and finds the destination without a walk of the posts', async () => {
    const { key, workspace, ids } = await grownWorkspace(GROWN_TO);
    const posts = postsStore.get(workspace).posts;
    const named = Object.values(posts).find((post) => post.status === 'published' && post.destinations.length === 1 && post.destinations[0]?.platform === 'bluesky' && post.destinations[0].externalPostId !== null) as PostRecord;
    const destination = named.destinations[0] as DestinationRecord;
    const before = (await mock.call('get', `/v1/comments?destinationId=${destination.id}&limit=50`, key)).body.data as unknown[];
    for (let i = 0; i < GROWN_TO; i++) {
      const other = (posts[ids[i % ids.length] as string] as PostRecord).destinations[0] as DestinationRecord;
      addComment(workspace, { id: workspace.newId(), postId: ids[i % ids.length] as string, destinationId: other.id, accountId: other.connectionId, platform: 'bluesky', platformCommentId: `c${i}`, parentId: null, text: 'Nice.', username: null, likeCount: 0, createdAt: other.publishedAt as string, fromAccount: false });
    }
    const comments = countReads(commentsStore.get(workspace) as { comments: Record<string, unknown> }, 'comments');
    const postReads = countVisits(workspace);
    expectStatus(await mock.call('get', `/v1/comments?destinationId=${destination.id}&limit=50`, key), 200);
    comments.visits = 0;
    postReads.visits = 0;
    const res = await mock.call('get', `/v1/comments?destinationId=${destination.id}&limit=50`, key);
    expectStatus(res, 200);
    expect(res.body.data).toHaveLength(before.length);
    expect(comments.visits).toBeLessThanOrEqual(before.length + FLAT);
    expect(postReads.visits).toBeLessThanOrEqual(FLAT);
  });

  it('GET /v1/inbox/conversations reads the account\'s conversations only', async () => {
    const { key, workspace } = await grownWorkspace(0);
    const inbox = inboxStore.get(workspace);
    const mine = Object.values(inbox.conversations)[0] as ConversationRecord;
    const before = (await mock.call('get', `/v1/inbox/conversations?accountId=${mine.accountId}&limit=50`, key)).body.convos as unknown[];
    for (let i = 0; i < GROWN_TO; i++) {
      addConversation(workspace, { ...mine, id: workspace.newId(), accountId: `someone-else-${i % 50}`, lastMessageId: null, lastInboundAt: null });
    }
    const conversations = countReads(inbox as unknown as { conversations: Record<string, unknown> }, 'conversations');
    expectStatus(await mock.call('get', `/v1/inbox/conversations?accountId=${mine.accountId}&limit=50`, key), 200);
    conversations.visits = 0;
    const res = await mock.call('get', `/v1/inbox/conversations?accountId=${mine.accountId}&limit=50`, key);
    expectStatus(res, 200);
    expect(res.body.convos).toHaveLength(before.length);
    expect(conversations.visits).toBeLessThanOrEqual(before.length + FLAT);
  });

  it('GET /v1/inbox/conversations pages an account of 3,000 conversations from its kept order, reading the page\'s messages only', async () => {
    const { key, workspace } = await grownWorkspace(0);
    const inbox = inboxStore.get(workspace);
    const mine = Object.values(inbox.conversations)[0] as ConversationRecord;
    const startMs = workspace.now() - 30 * DAY_MS;
    for (let i = 0; i < GROWN_TO; i++) {
      const conversation: ConversationRecord = { ...mine, id: workspace.newId(), lastMessageId: null, lastInboundAt: null, members: [{ id: `person-${i}`, username: null, displayName: null }, ...mine.members.slice(-1)] };
      addConversation(workspace, conversation);
      // Activity out of the order they were opened in, so the order is not the map's.
      const sentAt = new Date(startMs + ((i * 7_919) % GROWN_TO) * 60_000).toISOString();
      addMessage(workspace, conversation, { id: `m-${i}`, conversationId: conversation.id, text: `Hello ${i}`, senderId: `person-${i}`, sentAt, attachments: [], direction: 'inbound' });
    }
    const messages = countReads(inbox as unknown as { messages: Record<string, unknown> }, 'messages');
    const page = (cursor?: string) => mock.call('get', `/v1/inbox/conversations?accountId=${mine.accountId}&limit=20${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, key);
    expectStatus(await page(), 200);
    messages.visits = 0;
    const first = await page();
    expectStatus(first, 200);
    const second = await page(first.body.cursor as string);
    expectStatus(second, 200);
    // Each conversation shown reads its last message once; a sort of the account read all 3,000.
    expect(messages.visits).toBeLessThanOrEqual(2 * (20 + FLAT));
    // The pages are the account's newest activity first, as a sort of them all would have them.
    const expected = Object.values(inbox.conversations)
      .filter((conversation) => conversation.accountId === mine.accountId)
      .map((conversation) => [inbox.messages[conversation.lastMessageId as string]?.sentAt ?? conversation.createdAt, conversation.id] as const)
      .sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? 1 : -1) : a[0] < b[0] ? 1 : -1))
      .map(([, id]) => id);
    const shown = [...(first.body.convos as Array<{ id: string }>), ...(second.body.convos as Array<{ id: string }>)].map((c) => c.id);
    expect(shown).toEqual(expected.slice(0, 40));
    // A message moves its conversation to the top, and the order stays kept.
    const oldest = expected[expected.length - 1] as string;
    expectStatus(await mock.control('post', '/__control/inbound/messages', key).send({ conversationId: oldest, text: 'Still there?' }), 201);
    messages.visits = 0;
    const after = await page();
    expect((after.body.convos as Array<{ id: string }>).map((c) => c.id)).toEqual([oldest, ...expected.slice(0, 19)]);
    expect(messages.visits).toBeLessThanOrEqual(20 + FLAT);
  });
});

describe('the posts a request visits to find where something lands, in a workspace of 3,000 published posts', () => {
  it('an inbound comment naming only an account, or nothing, reads no post of the walk (the newest published destination is kept in order)', async () => {
    const { key, workspace, connectionId } = await grownWorkspace(GROWN_TO, { networkIds: true });
    const counter = countVisits(workspace);
    const comment = (body: Record<string, unknown>) => mock.control('post', '/__control/inbound/comments', key).send({ text: 'Lovely.', ...body });
    expectStatus(await comment({ accountId: connectionId }), 201);
    counter.visits = 0;
    const onAccount = await comment({ accountId: connectionId });
    const anywhere = await comment({});
    expectStatus(onAccount, 201);
    expectStatus(anywhere, 201);
    expect(counter.visits).toBeLessThanOrEqual(2 * FLAT);
    // Still the newest published destination, as a walk of every post finds it.
    const newest = (accountId?: string) =>
      Object.values(postsStore.get(workspace).posts)
        .flatMap((post) => post.destinations)
        .filter((d) => d.status === 'published' && d.publishedAt !== null && (accountId === undefined || d.connectionId === accountId))
        .sort((a, b) => ((a.publishedAt as string) === b.publishedAt ? (a.id < b.id ? 1 : -1) : (a.publishedAt as string) < (b.publishedAt as string) ? 1 : -1))[0]?.id;
    expect(onAccount.body.destinationId).toBe(newest(connectionId));
    expect(anywhere.body.destinationId).toBe(newest());
  });

  it('a sync within 15 s of the last one answers from the account\'s newest posts without a walk of them all', async () => {
    const { key, workspace, connectionId } = await grownWorkspace(GROWN_TO, { networkIds: true });
    const counter = countVisits(workspace);
    const sync = () => mock.call('post', `/v1/accounts/${connectionId}/sync`, key).send({});
    const first = await sync();
    expectStatus(first, 200);
    counter.visits = 0;
    const skipped = await sync();
    expectStatus(skipped, 200);
    expect(counter.visits).toBeLessThanOrEqual(FLAT);
    // The same 20 posts, the newest the account published, as the sync that asked the network found them.
    expect(skipped.body).toEqual({ ...first.body, skipped: true });
  });

  it('a story reply naming an account finds its live story without a walk of every post', async () => {
    const { key, workspace } = await grownWorkspace(GROWN_TO, { networkIds: true });
    const instagram = Object.values((await mock.call('get', '/v1/connections', key)).body.connections as Array<{ id: string; platform: string; status: string }>).find((c) => c.platform === 'instagram' && c.status === 'active')?.id as string;
    const counter = countVisits(workspace);
    const reply = () => mock.control('post', '/__control/inbound/story-replies', key).send({ accountId: instagram, text: 'Love this' });
    expectStatus(await reply(), 201);
    counter.visits = 0;
    expectStatus(await reply(), 201);
    expect(counter.visits).toBeLessThanOrEqual(FLAT);
  });
});

describe('GET /__control/limits in a workspace of 3,000 published posts that no write has touched', () => {
  it('reads the posts once, not once per account and per read, and counts a post added without a write since', async () => {
    const { key, workspace, connectionId } = await grownWorkspace(GROWN_TO);
    const counter = countVisits(workspace);
    const limits = async () => {
      const answer = await mock.control('get', '/__control/limits', key);
      expectStatus(answer, 200);
      return answer.body.velocity as Array<{ accountId: string; hour: { count: number }; day: { count: number } }>;
    };
    const before = await limits();
    expect(before.length).toBeGreaterThan(5);
    // One fill of the ledger's copy: every post once (the fixture world's besides the 3,000), not once per account.
    expect(counter.visits).toBeLessThan(2 * GROWN_TO);
    counter.visits = 0;
    for (let i = 0; i < 5; i++) await limits();
    expect(counter.visits).toBeLessThanOrEqual(FLAT);

    // A post published now, stored as a sync or a scenario stores one (no write to the ledger): the next read counts it.
    addPost(workspace, publishedPost(workspace, connectionId, workspace.nowIso(), { text: 'Just out', source: 'external' }));
    const hourOf = (rows: typeof before) => rows.find((row) => row.accountId === connectionId)?.hour.count ?? -1;
    expect(hourOf(await limits())).toBe(hourOf(before) + 1);
  });
});

describe('the media records a request visits among 3,000 uploads', () => {
  it('GET /v1/media pages and counts from the kept upload order, and a presign drops expired presigns without a walk of every record', async () => {
    const { key, workspace } = await grownWorkspace(0);
    for (let i = 0; i < GROWN_TO; i++) {
      const { key: mediaKey } = presignMedia(workspace, 'http://127.0.0.1:4010', { filename: `f${i}.jpg`, contentType: 'image/jpeg' });
      storeUpload(workspace, mediaStore.get(workspace).media[mediaKey] as MediaRecord, Buffer.from('x'));
      // Six instants of upload, so a range and a cursor cross several.
      if (i % 500 === 499) expectStatus(await mock.control('post', '/__control/clock/advance', key).send({ ms: 60_000 }), 200);
    }
    const records = countReads(mediaStore.get(workspace) as { media: Record<string, unknown> }, 'media');
    const list = (query: string) => mock.call('get', `/v1/media?limit=20&include=total${query}`, key);
    const presign = () => mock.call('post', '/v1/media/presign', key).send({ filename: 'late.jpg', contentType: 'image/jpeg' });
    expectStatus(await list(''), 200);
    expectStatus(await presign(), 200);
    records.visits = 0;
    const since = new Date(workspace.now() - 150_000).toISOString();
    const until = new Date(workspace.now() - 30_000).toISOString();
    const first = await list(`&since=${since}&until=${until}`);
    expectStatus(first, 200);
    const second = await list(`&since=${since}&until=${until}&cursor=${encodeURIComponent(first.body.nextCursor as string)}`);
    expectStatus(second, 200);
    expectStatus(await presign(), 200);
    expect(records.visits).toBeLessThanOrEqual(2 * FLAT);
    // The same pages a filter and sort of every upload gives.
    const expected = Object.values(mediaStore.get(workspace).media)
      .filter((record) => record.uploadedAt !== null && record.uploadedAt >= since && record.uploadedAt < until)
      .sort((a, b) => ((a.uploadedAt as string) === b.uploadedAt ? (a.id < b.id ? 1 : -1) : (a.uploadedAt as string) < (b.uploadedAt as string) ? 1 : -1))
      .map((record) => record.id);
    expect(first.body.total).toBe(expected.length);
    expect(expected.length).toBe(1_000);
    expect([...first.body.data, ...second.body.data].map((asset: { id: string }) => asset.id)).toEqual(expected.slice(0, 40));
  });
});
