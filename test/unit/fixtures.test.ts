import { Containment } from '../../src/lib/containment.js';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountsStore } from '../../src/api/accounts/store.js';
import { automationsStore, AUTOMATION_KINDS } from '../../src/api/automations/store.js';
import { commentsStore } from '../../src/api/comments/store.js';
import { inboxStore } from '../../src/api/inbox/store.js';
import { metricsAt } from '../../src/api/posts/metrics.js';
import { postsStore } from '../../src/api/posts/store.js';
import { POST_STATUSES } from '../../src/api/posts/records.js';
import { profilesStore } from '../../src/api/profiles/store.js';
import { reviewsStore } from '../../src/api/reviews/store.js';
import { FixtureError, parseFixture } from '../../src/api/world/fixture-file.js';
import { populateWorkspace } from '../../src/api/world/populate.js';
import { loadSpec } from '../../src/http/spec.js';
import { PLATFORM_IDS, platformFacts } from '../../src/platforms/catalog.js';
import { Database } from '../../src/store/database.js';
import { WorkspaceRegistry } from '../../src/workspaces/registry.js';
import type { Workspace } from '../../src/workspaces/workspace.js';

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const CLOCK_START = Date.parse('2025-06-01T12:00:00.000Z');
const HOUR = 3_600_000;

/** A registry built the way the server builds one, with a frozen clock and the real populate step. */
async function registryWith(seed: number): Promise<WorkspaceRegistry> {
  const database = await Database.open();
  return new WorkspaceRegistry({
    database,
    runtime: { realTime: () => 0, journalSize: 10, jobHandlers: new Map(), eventSubscribers: [], containment: new Containment(), onChange() {}, onJobError() {} },
    seed,
    defaultApiKey: 'sgw_test_default',
    defaults: { plan: 'payg', clockStartMs: CLOCK_START, clockFrozen: true, fixtures: true },
    populate: populateWorkspace,
  });
}

function world(workspace: Workspace) {
  return {
    profiles: Object.values(profilesStore.get(workspace).profiles),
    accounts: Object.values(accountsStore.get(workspace).accounts),
    posts: Object.values(postsStore.get(workspace).posts),
    comments: Object.values(commentsStore.get(workspace).comments),
    conversations: Object.values(inboxStore.get(workspace).conversations),
    messages: Object.values(inboxStore.get(workspace).messages),
    reviews: Object.values(reviewsStore.get(workspace).reviews),
    automations: Object.values(automationsStore.get(workspace).automations),
  };
}

describe('the default fixture world', () => {
  const registries: WorkspaceRegistry[] = [];
  let workspace: Workspace;
  let data: ReturnType<typeof world>;

  beforeAll(async () => {
    const registry = await registryWith(1);
    registries.push(registry);
    workspace = registry.defaultWorkspace;
    data = world(workspace);
  });

  afterAll(() => {
    for (const registry of registries) registry.stopAll();
  });

  describe('accounts', () => {
    it('has one account per platform of the catalog', () => {
      expect(data.accounts.map((account) => account.platform).sort()).toEqual([...PLATFORM_IDS].sort());
    });

    it('has exactly one expired account', () => {
      expect(data.accounts.filter((account) => account.status === 'expired')).toHaveLength(1);
    });

    it('has an active account whose authorization needs action', () => {
      expect(data.accounts.some((account) => account.status === 'active' && account.authHealth === 'action_required')).toBe(true);
    });

    it('has a premium microblogging account', () => {
      const twitter = data.accounts.find((account) => account.platform === 'twitter');
      expect(twitter?.microblogSubscriptionType).toBe('premium');
    });

    it('has accounts that renew by themselves and accounts that do not', () => {
      expect(new Set(data.accounts.map((account) => account.canAutoRenew))).toEqual(new Set([true, false]));
    });

    it('uses the name as the professional-network handle', () => {
      const linkedin = data.accounts.find((account) => account.platform === 'linkedin');
      expect(linkedin?.handle).toBe(linkedin?.displayName);
    });

    it('files accounts under the two profiles, one of them the default', () => {
      expect(data.profiles).toHaveLength(2);
      expect(data.profiles.filter((profile) => profile.isDefault)).toHaveLength(1);
      const profileIds = new Set(data.profiles.map((profile) => profile.id));
      for (const account of data.accounts) if (account.profileId !== null) expect(profileIds).toContain(account.profileId);
    });
  });

  describe('posts', () => {
    it('holds about 30 posts', () => {
      expect(data.posts.length).toBeGreaterThanOrEqual(25);
      expect(data.posts.length).toBeLessThanOrEqual(40);
    });

    it('covers every post status', () => {
      expect(new Set(data.posts.map((post) => post.status))).toEqual(new Set(POST_STATUSES));
    });

    it('covers every platform', () => {
      const platforms = new Set(data.posts.flatMap((post) => post.destinations.map((destination) => destination.platform)));
      expect(platforms).toEqual(new Set(PLATFORM_IDS));
    });

    it('calls a post with some failed and some published destinations published', () => {
      const partial = data.posts.find(
        (post) =>
          post.destinations.length > 1 &&
          post.destinations.filter((destination) => destination.status === 'failed').length === 1 &&
          post.destinations.some((destination) => destination.status === 'published'),
      );
      expect(partial?.status).toBe('published');
      const failed = partial?.destinations.find((destination) => destination.status === 'failed');
      expect(failed?.errorCode).toEqual(expect.any(String));
      expect(failed?.errorMessage).toEqual(expect.any(String));
    });

    it('gives every published destination a network id, a URL and a publish time no later than now', () => {
      for (const post of data.posts) {
        for (const destination of post.destinations) {
          if (destination.status !== 'published') continue;
          expect(destination.externalPostId).toEqual(expect.any(String));
          expect(destination.externalUrl).toMatch(/^https:\/\//);
          expect(Date.parse(destination.publishedAt ?? '')).toBeLessThanOrEqual(CLOCK_START);
        }
      }
    });

    it('keeps every text within its network limit', () => {
      for (const post of data.posts) {
        for (const destination of post.destinations) {
          const limit = platformFacts(destination.platform)?.textLimit ?? Infinity;
          expect((destination.text ?? post.text).length).toBeLessThanOrEqual(limit);
          for (const item of post.thread ?? []) expect(item.length).toBeLessThanOrEqual(limit);
        }
      }
    });

    it('schedules scheduled posts in the future, with a local time and zone', () => {
      const scheduled = data.posts.filter((post) => post.status === 'scheduled');
      expect(scheduled.length).toBeGreaterThan(0);
      for (const post of scheduled) {
        expect(post.scheduledFor).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
        expect(post.timezone).toEqual(expect.any(String));
        expect(post.scheduledAtMs).toBeGreaterThan(CLOCK_START);
      }
    });
  });

  describe('comments, inbox, reviews and automations', () => {
    it('has comments, some of them replies by the account', () => {
      expect(data.comments.length).toBeGreaterThan(0);
      const replies = data.comments.filter((comment) => comment.parentId !== null);
      expect(replies.length).toBeGreaterThan(0);
      const networkIds = new Set(data.comments.map((comment) => comment.platformCommentId));
      for (const reply of replies) {
        expect(networkIds).toContain(reply.parentId);
        expect(reply.fromAccount).toBe(true);
      }
    });

    it('has conversations with messages on the three inbox networks', () => {
      expect(new Set(data.conversations.map((conversation) => conversation.platform))).toEqual(new Set(['bluesky', 'instagram', 'facebook']));
      for (const conversation of data.conversations) {
        expect(data.messages.some((message) => message.conversationId === conversation.id)).toBe(true);
      }
    });

    it('has one conversation inside the 24-hour window and one outside it', () => {
      const ages = data.conversations.map((conversation) => (conversation.lastInboundAt ? (CLOCK_START - Date.parse(conversation.lastInboundAt)) / HOUR : null));
      expect(ages).toContain(2);
      expect(ages).toContain(30);
    });

    it('has page reviews on the page-based account', () => {
      const facebook = data.accounts.find((account) => account.platform === 'facebook');
      expect(data.reviews.length).toBeGreaterThanOrEqual(3);
      for (const review of data.reviews) expect(review.accountId).toBe(facebook?.id);
    });

    it('has three automations, one of each kind, one paused', () => {
      expect(data.automations).toHaveLength(3);
      expect(new Set(data.automations.map((automation) => automation.kind))).toEqual(new Set(AUTOMATION_KINDS));
      expect(data.automations.filter((automation) => !automation.enabled)).toHaveLength(1);
    });
  });

  describe('references', () => {
    it('never points at a missing account, post, destination or conversation', () => {
      const accountIds = new Set(data.accounts.map((account) => account.id));
      const postsById = new Map(data.posts.map((post) => [post.id, post]));
      const conversationIds = new Set(data.conversations.map((conversation) => conversation.id));
      for (const post of data.posts) {
        for (const destination of post.destinations) expect(accountIds).toContain(destination.connectionId);
      }
      for (const comment of data.comments) {
        expect(accountIds).toContain(comment.accountId);
        const post = postsById.get(comment.postId);
        expect(post).toBeDefined();
        const destination = post?.destinations.find((candidate) => candidate.id === comment.destinationId);
        expect(destination?.connectionId).toBe(comment.accountId);
        expect(destination?.status).toBe('published');
      }
      for (const conversation of data.conversations) expect(accountIds).toContain(conversation.accountId);
      for (const message of data.messages) expect(conversationIds).toContain(message.conversationId);
      const messagesById = new Map(data.messages.map((message) => [message.id, message]));
      for (const conversation of data.conversations) {
        expect(messagesById.get(conversation.lastMessageId ?? '')?.conversationId).toBe(conversation.id);
      }
      for (const review of data.reviews) expect(accountIds).toContain(review.accountId);
      for (const automation of data.automations) expect(accountIds).toContain(automation.accountId);
    });

    it('uses distinct ids', () => {
      const ids = [
        ...data.accounts.map((record) => record.id),
        ...data.posts.flatMap((post) => [post.id, ...post.destinations.map((destination) => destination.id)]),
        ...data.comments.map((record) => record.id),
        ...data.conversations.map((record) => record.id),
        ...data.automations.map((record) => record.id),
      ];
      expect(new Set(ids).size).toBe(ids.length);
    });
  });

  describe('the contract', () => {
    /** Fails with every schema error of every record, so one run shows all drift. */
    function expectShape(schema: string, values: unknown[]): void {
      const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
      addFormats(ajv);
      ajv.addSchema(loadSpec('openapi.yaml').document as object, 'openapi');
      const validate = ajv.getSchema(`openapi#/components/schemas/${schema}`);
      if (!validate) throw new Error(`openapi.yaml has no schema ${schema}`);
      const problems = values.flatMap((value, i) => (validate(value) ? [] : (validate.errors ?? []).map((error) => `${schema}[${i}]${error.instancePath} ${error.message ?? ''}`)));
      expect(problems).toEqual([]);
    }

    it('turns posts into the Post schema (with metrics)', () => {
      expectShape(
        'Post',
        data.posts.map((post) => ({
          id: post.id,
          text: post.text,
          mediaUrls: post.mediaUrls,
          mediaKind: post.mediaKind,
          status: post.status,
          scheduledFor: post.scheduledFor,
          timezone: post.timezone,
          source: post.source,
          destinations: post.destinations.map((destination) => ({
            id: destination.id,
            connectionId: destination.connectionId,
            platform: destination.platform,
            status: destination.status,
            externalPostId: destination.externalPostId,
            externalUrl: destination.externalUrl,
            errorCode: destination.errorCode,
            errorMessage: destination.errorMessage,
            publishedAt: destination.publishedAt,
            metrics: metricsAt(destination, destination.platform, CLOCK_START),
          })),
          createdAt: post.createdAt,
          updatedAt: post.updatedAt,
        })),
      );
    });

    it('turns comments, conversations, messages, reviews and automations into their schemas', () => {
      expectShape(
        'Comment',
        data.comments.map(({ id, postId, accountId, platform, platformCommentId, parentId, text, username, likeCount, createdAt }) => ({
          id, postId, accountId, platform, platformCommentId, parentId, text, username, likeCount, createdAt, replies: [],
        })),
      );
      const messagesById = new Map(data.messages.map((message) => [message.id, message]));
      expectShape(
        'Conversation',
        data.conversations.map(({ id, members, muted, unreadCount, createdAt, lastMessageId }) => {
          const last = messagesById.get(lastMessageId ?? '');
          return { id, members, muted, unreadCount, createdAt, lastMessage: last ? { id: last.id, text: last.text, sentAt: last.sentAt } : null };
        }),
      );
      expectShape('Message', data.messages.map(({ id, conversationId, text, senderId, sentAt, attachments }) => ({ id, conversationId, text, senderId, sentAt, attachments })));
      expectShape('Review', data.reviews.map(({ id, recommendation, rating, text, reviewerName, createdAt }) => ({ id, recommendation, rating, text, reviewerName, createdAt })));
      expectShape('Automation', data.automations);
    });
  });

  describe('determinism', () => {
    it('builds byte-identical data for the same seed and clock', async () => {
      const again = await registryWith(1);
      registries.push(again);
      expect(JSON.stringify(again.defaultWorkspace.data.stores)).toBe(JSON.stringify(workspace.data.stores));
    });

    it('builds different ids for a different seed', async () => {
      const other = await registryWith(2);
      registries.push(other);
      const otherIds = new Set(world(other.defaultWorkspace).accounts.map((account) => account.id));
      for (const account of data.accounts) expect(otherIds).not.toContain(account.id);
    });

    it('gives a workspace made from the control plane its own world', async () => {
      const registry = await registryWith(1);
      registries.push(registry);
      const created = registry.get(registry.create({}).data.id) as Workspace;
      expect(world(created).accounts).toHaveLength(PLATFORM_IDS.length);
      expect(world(created).accounts[0]?.id).not.toBe(world(registry.defaultWorkspace).accounts[0]?.id);
    });
  });
});

describe('parseFixture', () => {
  const minimal = `
version: 1
personas: { brand: { name: Brand } }
text: { posts: [a], titles: [a], comments: [a], replies: [a], inbound: [a], outbound: [a], reviewsPositive: [a], reviewsNegative: [a] }
profiles: [ { key: main, name: Default, default: true, ageHours: 1 } ]
accounts:
  - { platform: twitter, persona: brand, profile: main, status: active, authHealth: healthy, canAutoRenew: true, tokenExpiresInHours: null, connectedDaysAgo: 1 }
`;

  it('accepts a minimal world', () => {
    expect(parseFixture(minimal, 'mini.yaml').accounts).toHaveLength(1);
  });

  it.each([
    ['an unknown field', minimal.replace('connectedDaysAgo: 1 }', 'connectedDaysAgo: 1, colour: blue }'), /accounts\[0\]\.colour: unknown field "colour"/],
    ['an unknown platform', minimal.replace('platform: twitter', 'platform: myspace'), /accounts\[0\]\.platform: expected one of/],
    ['a post to an unknown account', `${minimal}posts: [ { status: published, ageHours: 1, to: [bluesky] } ]\n`, /posts\[0\]\.to\[0\]: no account has the key "bluesky"/],
    ['a scheduled post without a schedule', `${minimal}posts: [ { status: scheduled, ageHours: 1, to: [twitter] } ]\n`, /posts\[0\]: a scheduled post needs a "schedule"/],
    ['a text post to a network that needs media', minimal.replace('platform: twitter', 'platform: youtube').concat('posts: [ { status: published, ageHours: 1, to: [youtube] } ]\n'), /posts\[0\]\.to\[0\]: youtube needs media of kind video \(the post has text\)/],
    ['stories on a network without them', `${minimal}posts: [ { status: published, ageHours: 1, to: [twitter], media: { kind: stories } } ]\n`, /posts\[0\]\.to\[0\]: twitter has no stories/],
    ['more images than the network takes', `${minimal}posts: [ { status: published, ageHours: 1, to: [twitter], media: { kind: multi-image, count: 5 } } ]\n`, /posts\[0\]\.to\[0\]: twitter takes at most 4 images in a post \(the post has 5\)/],
    ['broken YAML', 'version: [1', /mini\.yaml:\d+:\d+: not valid YAML/],
  ])('refuses %s, naming the place', (_label, source, message) => {
    expect(() => parseFixture(source, 'mini.yaml')).toThrow(FixtureError);
    expect(() => parseFixture(source, 'mini.yaml')).toThrow(message);
  });

  it('points at the line of the mistake', () => {
    const source = minimal.replace('platform: twitter', 'platform: myspace');
    expect(() => parseFixture(source, 'mini.yaml')).toThrow(/^mini\.yaml:7:17: /);
  });
});
