import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsOf, pathOf, paramsOf } from '../helpers/accounts.js';
import { expectApiError, expectStatus, useMock } from '../helpers/mock.js';
import { accountOn, advance, asText, replayTwice, scenarioSteps } from '../helpers/scenarios.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { accountsStore } from '../../src/api/accounts/store.js';
import { recentNetworkPosts } from '../../src/api/sync/network-timeline.js';

/*
 * Every ready-made scenario of scenarios/, played as its description says and
 * replayed from the same seed: the outcome is asserted exactly, and the second run's
 * journal must equal the first's, line for line.
 */

const mock = useMock();
let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await WebhookReceiver.start();
});
afterAll(() => receiver.close());

/** An event as [name, createdAt]. */
function eventLine(event: { event: string; createdAt: string }): [string, string] {
  return [event.event, event.createdAt];
}

describe('ready-made scenarios, replayed', () => {
  it('rate-limit-exhaustion: 429 RATE_LIMITED counting down, then recovery after Retry-After', async () => {
    const play = async (key: string) => {
      const seen = [];
      for (let i = 0; i < 3; i++) {
        const res = await mock.call('get', '/v1/connections', key);
        seen.push([res.status, res.body.code, res.headers['retry-after']]);
        await advance(mock, key, 'PT5S');
      }
      const waitFor = Number((await mock.call('get', '/v1/profiles', key)).headers['retry-after']);
      await advance(mock, key, `PT${waitFor}S`);
      const after = await mock.call('get', '/v1/profiles', key);
      seen.push([after.status, after.body.code, after.headers['retry-after']]);
      return seen;
    };
    const [first, second] = await replayTwice(mock, 'rate-limit-exhaustion', play);
    expect(first.observed).toEqual([
      [429, 'RATE_LIMITED', '30'],
      [429, 'RATE_LIMITED', '25'],
      [429, 'RATE_LIMITED', '20'],
      [200, undefined, undefined],
    ]);
    expect(first.journal.map((line) => [line.status, line.matchedRule])).toEqual([
      [429, 'budget-exhausted'],
      [429, 'budget-exhausted'],
      [429, 'budget-exhausted'],
      [429, 'budget-exhausted'],
      [200, null],
    ]);
    expect(second.journal).toEqual(first.journal);
  });

  it('network-outage: reads of the tiktok account answer 502 during the window only', async () => {
    const play = async (key: string) => {
      const tiktok = await accountOn(mock, key, 'tiktok');
      const instagram = await accountOn(mock, key, 'instagram');
      const stats = async (id: string) => {
        const res = await mock.call('get', `/v1/connections/${id}/stats`, key);
        return res.status === 502 ? res.body.error : res.status;
      };
      const seen = [await stats(tiktok)];
      await advance(mock, key, 'PT1H');
      seen.push(await stats(tiktok), await stats(instagram));
      await advance(mock, key, 'PT29M59S');
      seen.push(await stats(tiktok));
      await advance(mock, key, 'PT1S');
      seen.push(await stats(tiktok));
      return seen;
    };
    const [first, second] = await replayTwice(mock, 'network-outage', play);
    const down = { code: 'PLATFORM_ERROR', message: 'Short-video network did not answer: the upstream API timed out', details: { platform: 'tiktok' } };
    // Outside the window (and for other networks) the read answers whatever the stats area answers: never 502.
    expect(first.observed).toEqual([expect.any(Number), down, expect.any(Number), down, expect.any(Number)]);
    expect([first.observed[0], first.observed[2], first.observed[4]]).not.toContain(502);
    expect(first.journal.filter((line) => line.effect === 'outage').map((line) => line.at)).toEqual(['2026-03-02T10:00:00.000Z', '2026-03-02T10:29:59.000Z']);
    expect(second.journal).toEqual(first.journal);
  });

  it('open-enumerations: connections and accounts arrive with a platform and a status never seen, inside the contract', async () => {
    const play = async (key: string) => {
      const connections = (await mock.call('get', '/v1/connections', key)).body.connections as Array<{ id: string; platform: string; status: string }>;
      const account = (await mock.call('get', `/v1/accounts/${connections[3]?.id}`, key)).body;
      return { platforms: [...new Set(connections.map((c) => c.platform))], statuses: [...new Set(connections.map((c) => c.status))], account: [account.platform, account.status] };
    };
    const [first, second] = await replayTwice(mock, 'open-enumerations', play);
    expect(first.observed).toEqual({ platforms: ['mastodon'], statuses: ['suspended'], account: ['mastodon', 'suspended'] });
    expect(first.journal.map((line) => [line.status, line.effect])).toEqual([
      [200, 'unknownValues'],
      [200, 'unknownValues'],
    ]);
    expect(second.journal).toEqual(first.journal);
  });

  it('flaky-network: the same drops, resets, broken bodies and rejections on every run of the seed', async () => {
    const play = async (key: string) => {
      const id = await accountOn(mock, key, 'twitter');
      const outcome = async (path: string) => {
        try {
          const res = await asText(mock.call('get', path, key));
          return res.status;
        } catch {
          return 'no answer';
        }
      };
      const accountReads = [];
      for (let i = 0; i < 8; i++) accountReads.push(await outcome(`/v1/accounts/${id}`));
      const listings = [];
      for (let i = 0; i < 10; i++) listings.push(await outcome('/v1/accounts?limit=2'));
      const connections = [];
      for (let i = 0; i < 12; i++) connections.push(await outcome('/v1/connections'));
      return { accountReads, listings, connections };
    };
    const [first, second] = await replayTwice(mock, 'flaky-network', play);
    expect(first.observed.accountReads).toEqual([200, 200, 200, 'no answer', 200, 200, 200, 'no answer']);
    expect(first.observed.listings).toEqual([200, 200, 200, 200, 200, 'no answer', 200, 200, 200, 200]);
    expect(first.journal.filter((line) => line.effect === 'malformed').length).toBe(1);
    const rejected = first.observed.connections.filter((status) => status === 429).length;
    expect(rejected).toBeGreaterThan(0);
    expect(rejected).toBeLessThan(12);
    expect(second.observed).toEqual(first.observed);
    expect(second.journal).toEqual(first.journal);
  });

  it('velocity-cap-scheduled-post: the scheduled post fails at fire time with VELOCITY_LIMITED, on the post and the event', async () => {
    const play = async (key: string, workspaceId: string) => {
      const twitter = await accountOn(mock, key, 'twitter');
      const created = await mock.call('post', '/v1/posts', key).send({ text: 'Our spring menu is live.', destinations: [{ connectionId: twitter }], scheduledFor: '2026-03-02T09:10:00', timezone: 'UTC' });
      expectStatus(created, 201);
      const postId = created.body.post.id as string;
      const moved = await advance(mock, key, 'PT11M');
      const post = (await mock.call('get', `/v1/posts/${postId}`, key)).body.post;
      const events = eventsOf(mock, workspaceId).filter((event) => event.data['postId'] === postId || (event.data['post'] as { id?: string } | undefined)?.id === postId);
      return {
        created: created.body.post.status,
        fired: moved.ran.filter((job) => job.label === `fire scheduled post ${postId}`).map((job) => [job.dueAt, job.ok]),
        post: { status: post.status, destinations: post.destinations.map((d: Record<string, unknown>) => [d['status'], d['errorCode'], d['publishedAt']]) },
        events: events.map((event) => [...eventLine(event), (event.data['destination'] as { errorCode?: string } | undefined)?.errorCode ?? (event.data['post'] as { status?: string }).status]),
      };
    };
    const [first, second] = await replayTwice(mock, 'velocity-cap-scheduled-post', play);
    expect(first.observed).toEqual({
      created: 'scheduled',
      fired: [['2026-03-02T09:10:00.000Z', true]],
      post: { status: 'failed', destinations: [['failed', 'VELOCITY_LIMITED', null]] },
      events: [
        ['post.scheduled', '2026-03-02T09:00:00.000Z', 'scheduled'],
        ['post.platform.failed', '2026-03-02T09:10:00.000Z', 'VELOCITY_LIMITED'],
        ['post.failed', '2026-03-02T09:10:00.000Z', 'failed'],
      ],
    });
    expect(second.observed).toEqual(first.observed);
    expect(second.journal).toEqual(first.journal);
  });

  it('reconnect-session-expires: a sign-in finished after expiresAt returns error=SESSION_EXPIRED; a fresh one reconnects', async () => {
    const redirectUrl = 'https://app.example/integrations/callback?state=xyz';
    const play = async (key: string, workspaceId: string) => {
      const instagram = await accountOn(mock, key, 'instagram');
      const before = (await mock.call('get', `/v1/accounts/${instagram}`, key)).body;
      const started = await mock.call('post', `/v1/accounts/${instagram}/reconnect`, key).send({ redirectUrl });
      expectStatus(started, 200);
      await advance(mock, key, 'PT20M');
      const late = await mock.call('get', `${pathOf(started.body.url)}&auto=approve`, null);
      const afterLate = (await mock.call('get', `/v1/accounts/${instagram}`, key)).body;
      const again = await mock.call('post', `/v1/accounts/${instagram}/reconnect`, key).send({ redirectUrl });
      const onTime = await mock.call('get', `${pathOf(again.body.url)}&auto=approve`, null);
      const after = (await mock.call('get', `/v1/accounts/${instagram}`, key)).body;
      return {
        before: [before.status, before.canAutoRenew, before.tokenExpiresAt],
        started: started.body.expiresAt,
        late: [late.status, paramsOf(late.headers['location'])],
        afterLate: [afterLate.status, afterLate.authHealth],
        onTime: [onTime.status, Object.keys(paramsOf(onTime.headers['location'])).sort()],
        after: [after.status, after.authHealth],
        reconnected: eventsOf(mock, workspaceId, 'account.reconnected').map(eventLine),
      };
    };
    const [first, second] = await replayTwice(mock, 'reconnect-session-expires', play);
    expect(first.observed).toEqual({
      before: ['expired', false, '2026-03-02T07:00:00.000Z'],
      started: '2026-03-02T09:15:00.000Z',
      late: [303, { state: 'xyz', platform: 'instagram', accountId: expect.any(String), error: 'SESSION_EXPIRED' }],
      afterLate: ['expired', 'action_required'],
      onTime: [303, ['accountId', 'connectSession', 'platform', 'state']],
      after: ['active', 'healthy'],
      reconnected: [['account.reconnected', '2026-03-02T09:20:00.000Z']],
    });
    expect(second.observed).toEqual(first.observed);
    expect(second.journal).toEqual(first.journal);
  });

  it('token-expiry-disconnect: the token runs out at 01:00 into account.expired; disconnecting sends account.disconnected', async () => {
    const play = async (key: string, workspaceId: string) => {
      const threads = await accountOn(mock, key, 'threads');
      const at = async () => {
        const account = (await mock.call('get', `/v1/accounts/${threads}`, key)).body;
        return [account.status, account.authHealth, account.tokenExpiresAt];
      };
      const start = await at();
      await advance(mock, key, 'PT59M59S');
      const justBefore = await at();
      const moved = await advance(mock, key, 'PT1S');
      const expired = await at();
      const publish = await mock.call('post', '/v1/posts', key).send({ text: 'Still there?', destinations: [{ connectionId: threads }] });
      expectApiError(publish, 400, 'ACCOUNT_RECONNECT_REQUIRED');
      expectStatus(await mock.call('delete', `/v1/accounts/${threads}`, key), 200);
      const connections = (await mock.call('get', '/v1/connections', key)).body.connections as Array<{ id: string }>;
      const events = eventsOf(mock, workspaceId).filter((event) => event.event.startsWith('account.'));
      return {
        account: threads,
        start,
        justBefore,
        expiry: moved.ran.filter((job) => job.kind === 'account.token-expiry').map((job) => [job.dueAt, job.ok]),
        expired,
        stillListed: connections.some((connection) => connection.id === threads),
        events: events.map((event) => [...eventLine(event), (event.data['account'] as { id?: string } | undefined)?.id ?? event.data['id']]),
        disconnected: events.find((event) => event.event === 'account.disconnected')?.data,
      };
    };
    const [first, second] = await replayTwice(mock, 'token-expiry-disconnect', play);
    const threadsId = first.observed.account;
    expect(first.observed).toEqual({
      account: threadsId,
      start: ['active', 'healthy', '2026-03-02T10:00:00.000Z'],
      justBefore: ['active', 'healthy', '2026-03-02T10:00:00.000Z'],
      expiry: [['2026-03-02T10:00:00.000Z', true]],
      expired: ['expired', 'action_required', '2026-03-02T10:00:00.000Z'],
      stillListed: false,
      events: [
        ['account.expired', '2026-03-02T10:00:00.000Z', threadsId],
        ['account.disconnected', '2026-03-02T10:00:00.000Z', threadsId],
      ],
      disconnected: { id: threadsId, platform: 'threads', displayName: expect.any(String), handle: expect.any(String), profile: expect.any(String), disconnectedAt: '2026-03-02T10:00:00.000Z' },
    });
    expect(second.observed).toEqual(first.observed);
    expect(second.journal).toEqual(first.journal);
  });

  it('webhook-receiver-recovers: three attempts fail with 503 while the receiver is down, the fourth reaches it', async () => {
    const play = async (key: string) => {
      const requestsBefore = receiver.requests.length;
      const created = await mock.call('post', '/v1/webhooks', key).send({ name: 'receiver', url: receiver.url, events: ['account.expired'] });
      expectStatus(created, 201);
      const webhookId = created.body.id as string;
      const steps = [];
      for (const by of ['PT5M', 'PT5M', 'PT10M', 'PT30M']) {
        const moved = await advance(mock, key, by);
        steps.push(...scenarioSteps(moved.ran).map((job) => [job.dueAt, job.label, job.ok]));
      }
      const log = (await mock.call('get', `/v1/webhooks/${webhookId}/deliveries`, key)).body.data as Array<{ eventId: string; event: string; status: string; attempts: Array<{ attempt: number; at: string; responseStatus: number | null }> }>;
      const reached = receiver.requests.slice(requestsBefore);
      return {
        steps,
        deliveries: log.map((delivery) => ({ event: delivery.event, status: delivery.status, attempts: delivery.attempts.map(({ attempt, at, responseStatus }) => [attempt, at, responseStatus]) })),
        reached: reached.map((request) => [request.json.event, request.headers['x-gateway-delivery-attempt'], request.json.id === log[0]?.eventId]),
      };
    };
    const [first, second] = await replayTwice(mock, 'webhook-receiver-recovers', play);
    expect(first.observed).toEqual({
      steps: [
        ['2026-03-02T09:05:00.000Z', 'webhook-receiver-recovers: webhook "receiver" fails every attempt with 503', true],
        ['2026-03-02T09:10:00.000Z', 'webhook-receiver-recovers: threads account expires', true],
        ['2026-03-02T09:20:00.000Z', 'webhook-receiver-recovers: webhook "receiver" delivers normally again', true],
      ],
      deliveries: [
        {
          event: 'account.expired',
          status: 'succeeded',
          attempts: [
            [1, '2026-03-02T09:10:00.000Z', 503],
            [2, '2026-03-02T09:11:00.000Z', 503],
            [3, '2026-03-02T09:16:00.000Z', 503],
            [4, '2026-03-02T09:46:00.000Z', 200],
          ],
        },
      ],
      reached: [['account.expired', '4', true]],
    });
    expect(second.observed).toEqual(first.observed);
    expect(second.journal).toEqual(first.journal);
  });

  it('inbox-automation: the price comment and the story reply are answered by direct message; the refund comment is not', async () => {
    const play = async (key: string, workspaceId: string) => {
      const moved = await advance(mock, key, 'PT30M');
      const events = eventsOf(mock, workspaceId).filter((event) => !event.event.startsWith('post.') && !event.event.startsWith('account.'));
      const conversationOf = (name: string, at: string) => (events.find((event) => event.event === name && event.createdAt === at)?.data['message'] as { conversationId?: string } | undefined)?.conversationId;
      return {
        steps: scenarioSteps(moved.ran).map((job) => [job.dueAt, job.label, job.ok]),
        events: events.map((event) => {
          const data = event.data as { comment?: { text: string }; message?: { text: string }; kind?: string };
          return [...eventLine(event), data.comment?.text ?? data.message?.text ?? data.kind ?? null];
        }),
        // The story reply's answer goes into the conversation the reply opened.
        answeredInPlace: conversationOf('message.sent', '2026-03-02T09:20:00.000Z') === conversationOf('message.received', '2026-03-02T09:20:00.000Z'),
      };
    };
    const [first, second] = await replayTwice(mock, 'inbox-automation', play);
    expect(first.observed).toEqual({
      steps: [
        ['2026-03-02T09:10:00.000Z', 'inbox-automation: curious_customer comments on a post on instagram', true],
        ['2026-03-02T09:20:00.000Z', 'inbox-automation: story_fan replies to a story on instagram', true],
        ['2026-03-02T09:30:00.000Z', 'inbox-automation: unhappy_buyer comments on a post on instagram', true],
      ],
      events: [
        ['comment.received', '2026-03-02T09:10:00.000Z', 'What is the price of the new mug?'],
        ['message.sent', '2026-03-02T09:10:00.000Z', 'Thanks for asking! Our full price list is here: https://shop.example/prices'],
        ['automation.triggered', '2026-03-02T09:10:00.000Z', 'comment_to_dm'],
        ['conversation.started', '2026-03-02T09:20:00.000Z', null],
        ['message.received', '2026-03-02T09:20:00.000Z', 'love it!'],
        ['message.sent', '2026-03-02T09:20:00.000Z', 'Thank you for the reply! Tap the link in our bio to see the collection.'],
        ['automation.triggered', '2026-03-02T09:20:00.000Z', 'story_reply'],
        // "refund" is an excluded keyword of the price-list automation: nothing answers.
        ['comment.received', '2026-03-02T09:30:00.000Z', 'How much is the refund on the mug?'],
      ],
      answeredInPlace: true,
    });
    expect(second.observed).toEqual(first.observed);
    expect(second.journal).toEqual(first.journal);
  });

  it('external-posts-import: a sync imports the three posts made on the network, with post.external.created each, then skips within 15 s', async () => {
    const play = async (key: string, workspaceId: string) => {
      const bluesky = await accountOn(mock, key, 'bluesky');
      const sync = () => mock.call('post', `/v1/accounts/${bluesky}/sync`, key).send({});
      const importedIds = () => eventsOf(mock, workspaceId, 'post.external.created').map((event) => (event.data['post'] as { id: string }).id);
      const first = await sync();
      expectStatus(first, 200);
      const afterFirst = importedIds();
      const moved = await advance(mock, key, 'PT1H');
      const second = await sync();
      expectStatus(second, 200);
      const afterSecond = importedIds();
      await advance(mock, key, 'PT10S');
      const third = await sync();
      type Item = { groupId: string; source: string; publishedAt: string; createdAt: string };
      const items = second.body.data as Item[];
      // Besides the scenario's posts, the account's seeded network timeline may have gained a post in that hour: it is imported too.
      const workspace = mock.server.registry.byApiKey(key);
      const account = workspace && accountsStore.get(workspace).accounts[bluesky];
      if (!workspace || !account) throw new Error('no bluesky account');
      const seededMeanwhile = recentNetworkPosts(workspace.data.seed, account, workspace.now(), 20).filter((post) => post.publishedAtMs > Date.parse('2026-03-02T09:00:00Z') && post.publishedAtMs <= Date.parse('2026-03-02T10:00:00Z'));
      return {
        first: [first.body.skipped, afterFirst.length > 0],
        steps: scenarioSteps(moved.ran).map((job) => [job.dueAt, job.label, job.ok]),
        second: second.body.skipped,
        newest: items.slice(0, 3).map((item) => [item.source, item.publishedAt, item.createdAt]),
        importedBySecond: afterSecond.slice(afterFirst.length).length - seededMeanwhile.length,
        eventsNameTheNewest: items.slice(0, 3).every((item) => afterSecond.slice(afterFirst.length).includes(item.groupId)),
        third: [third.body.skipped, importedIds().length - afterSecond.length, third.body.data.length === items.length],
      };
    };
    const [first, second] = await replayTwice(mock, 'external-posts-import', play);
    expect(first.observed).toEqual({
      first: [false, true],
      steps: [['2026-03-02T10:00:00.000Z', 'external-posts-import: bluesky account posts on the network itself (3 posts)', true]],
      second: false,
      // Published a second apart, the last at the step's instant; imported at 10:00.
      newest: [
        ['external', '2026-03-02T10:00:00.000Z', '2026-03-02T10:00:00.000Z'],
        ['external', '2026-03-02T09:59:59.000Z', '2026-03-02T10:00:00.000Z'],
        ['external', '2026-03-02T09:59:58.000Z', '2026-03-02T10:00:00.000Z'],
      ],
      importedBySecond: 3,
      eventsNameTheNewest: true,
      third: [true, 0, true],
    });
    expect(second.observed).toEqual(first.observed);
    expect(second.journal).toEqual(first.journal);
  });
});
