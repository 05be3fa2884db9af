import { statSync } from 'node:fs';
import { accountsStore, type AccountRecord } from '../../src/api/accounts/store.js';
import { addPost } from '../../src/api/posts/store.js';
import { type DestinationRecord, type PostRecord, type PostStatus } from '../../src/api/posts/records.js';
import { externalPostRef } from '../../src/platforms/external-ids.js';
import { createMockServer } from '../../src/server.js';
import type { Workspace } from '../../src/workspaces/workspace.js';

/** The virtual "now" of every scale world: fixed, so two runs hold the same data. */
export const SCALE_CLOCK = '2026-03-02T09:00:00.000Z';
const MINUTE_MS = 60_000;

export interface ScaleData {
  file: string;
  posts: number;
  bytes: number;
  generateSeconds: number;
}

/**
 * Writes a `--data` file whose default workspace holds the fixture world plus
 * `count` more posts, one every five minutes back from the clock (100k posts
 * reach a year back). The file is made by the mock's own store code, so it is in
 * the format the mock reads; the posts are written straight into the posts store,
 * as fast as they can be made. All are settled (published, some failed, a few
 * deleted), so no scheduler job is left out of the file.
 */
export async function writeScaleData(file: string, count: number): Promise<ScaleData> {
  const began = performance.now();
  const server = await createMockServer({ seed: 1, clock: SCALE_CLOCK, clockFrozen: true, dataFile: file });
  const workspace = server.registry.defaultWorkspace;
  const accounts = Object.values(accountsStore.get(workspace).accounts).sort((a, b) => (a.id < b.id ? -1 : 1));
  const nowMs = workspace.now();
  for (let i = 0; i < count; i++) {
    const post = makePost(workspace, accounts, i, nowMs - (count - i) * 5 * MINUTE_MS, nowMs);
    addPost(workspace, post);
  }
  workspace.changed();
  await server.close();
  return { file, posts: count, bytes: statSync(file).size, generateSeconds: Math.round((performance.now() - began) / 100) / 10 };
}

const STATUS_CYCLE: PostStatus[] = ['published', 'published', 'published', 'published', 'published', 'published', 'published', 'published', 'failed', 'published', 'published', 'published', 'published', 'published', 'published', 'published', 'published', 'published', 'deleted', 'published'];

export function makePost(workspace: Workspace, accounts: readonly AccountRecord[], i: number, createdMs: number, nowMs: number): PostRecord {
  const status = STATUS_CYCLE[i % STATUS_CYCLE.length] as PostStatus;
  const targets = [accounts[i % accounts.length] as AccountRecord];
  // A third of the posts go to two networks.
  if (i % 3 === 0) targets.push(accounts[(i + 3) % accounts.length] as AccountRecord);
  const text = `${workspace.faker.lorem.sentence({ min: 6, max: 16 })} #${i}`.slice(0, 200);
  const destinations = targets.map((account, d): DestinationRecord => {
    const publishedMs = createdMs + (3 + 4 * d) * 1000;
    const wentOut = status !== 'failed';
    const ref = wentOut ? externalPostRef(workspace, account.platform, account, { atMs: publishedMs }) : undefined;
    return {
      id: workspace.newId(),
      connectionId: account.id,
      platform: account.platform,
      status,
      externalPostId: ref?.externalPostId ?? null,
      externalUrl: ref?.externalUrl ?? null,
      errorCode: wentOut ? null : 'PLATFORM_ERROR',
      errorMessage: wentOut ? null : 'The network rejected the post.',
      publishedAt: wentOut ? new Date(publishedMs).toISOString() : null,
      text: null,
      options: {},
      metricsSeed: workspace.faker.number.int({ min: 1, max: 0x7fffffff }),
    };
  });
  const createdAt = new Date(createdMs).toISOString();
  return {
    id: workspace.newId(),
    text,
    mediaUrls: [],
    mediaKind: 'text',
    status,
    scheduledFor: null,
    timezone: null,
    scheduledAtMs: null,
    source: 'api',
    thread: null,
    destinations,
    createdAt,
    // Deleted on the network some hours after it went out.
    updatedAt: status === 'deleted' ? new Date(Math.min(createdMs + 6 * 3_600_000, nowMs)).toISOString() : createdAt,
  };
}
