import { afterAll, beforeAll, describe, expect } from 'vitest';
import { createMockTest, test, type MockWorkspace } from '../../src/kit/vitest.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

// A kit workspace stays out of the way (decision 0035): its fixture world has no work of its
// own, so a test's webhook receives the events of what the test did and nothing else.

let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await WebhookReceiver.start();
});
afterAll(async () => {
  await receiver.close();
});

async function api(mock: MockWorkspace, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${mock.baseUrl}${path}`, {
    method,
    headers: { 'x-api-key': mock.apiKey, 'content-type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  expect(res.status, `${method} ${path}`).toBeLessThan(300);
  return (await res.json()) as Record<string, unknown>;
}

/** Registers a webhook for every post event, posts once to bluesky, moves the clock a week: the posts the receiver heard of. */
async function oneHookOnePostOneWeek(mock: MockWorkspace): Promise<{ ownPostId: string; published: string[] }> {
  const before = receiver.requests.length;
  await api(mock, 'POST', '/webhooks', { name: 'CRM', url: receiver.url, events: ['post.published', 'post.partial', 'post.failed'] });
  const { connections } = (await api(mock, 'GET', '/connections')) as { connections: Array<{ id: string; platform: string }> };
  const bluesky = connections.find((connection) => connection.platform === 'bluesky');
  const { post } = (await api(mock, 'POST', '/posts', { text: 'Hello', destinations: [{ connectionId: bluesky?.id }] })) as { post: { id: string } };
  await mock.control.advanceClock({ by: 'P8D' });
  const mine = receiver.requests.slice(before).filter((request) => request.json.workspaceId === mock.workspaceId);
  const published = mine.map((request) => `${request.json.event} ${(request.json.data['post'] as { id: string }).id}`);
  return { ownPostId: post.id, published };
}

describe('a kit workspace', () => {
  test('starts with the fixture world and no pending job of its own', async ({ mock, mockServer }) => {
    const listed = (await mockServer.control.listWorkspaces()).data.find((row) => row.workspaceId === mock.workspaceId);
    expect(listed?.pendingJobs).toBe(0);
    const { connections } = (await api(mock, 'GET', '/connections')) as { connections: Array<{ platform: string; status: string; tokenExpiresAt: string | null }> };
    expect(connections).toHaveLength(10);
    // Its active accounts' tokens do not run out; the expired one stays as it was.
    expect(connections.filter((connection) => connection.status === 'active').map((connection) => connection.tokenExpiresAt)).toEqual(Array(9).fill(null));
    const { data: posts } = (await api(mock, 'GET', '/posts?limit=100')) as { data: Array<{ status: string }> };
    expect(posts.length).toBeGreaterThan(20);
    expect(posts.filter((post) => ['queued', 'processing', 'scheduled'].includes(post.status))).toEqual([]);
  });

  test('with a webhook, one post and a week of clock, delivers exactly one post.published: its own', async ({ mock }) => {
    const { ownPostId, published } = await oneHookOnePostOneWeek(mock);
    expect(published).toEqual([`post.published ${ownPostId}`]);
  });
});

// Worker-scoped fixtures are defined at the top level of a file.
const withPending = createMockTest({ pending: true });

describe('a kit workspace asked for the pending work (pending: true)', () => {
  withPending('also delivers the fixture world\'s queued, processing and scheduled posts as the clock passes them', async ({ mock }) => {
    const { ownPostId, published } = await oneHookOnePostOneWeek(mock);
    expect(published).toContain(`post.published ${ownPostId}`);
    // The queued post, the processing one and the five scheduled ones.
    expect(published).toHaveLength(8);
  });
});

describe('a suite that overrides mockOptions', () => {
  test.override({ mockOptions: { plan: 'free' } });

  test('keeps the defaults it does not give: seed 1, a frozen clock, no pending work', async ({ mock, mockServer }) => {
    expect(mock.created).toMatchObject({ plan: 'free', seed: 1, clock: { frozen: true } });
    const listed = (await mockServer.control.listWorkspaces()).data.find((row) => row.workspaceId === mock.workspaceId);
    expect(listed?.pendingJobs).toBe(0);
  });
});
