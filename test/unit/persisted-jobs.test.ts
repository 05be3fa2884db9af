import { afterAll, describe, expect, it } from 'vitest';
import { createPost } from '../../src/api/posts/service.js';
import { accountsStore } from '../../src/api/accounts/store.js';
import { createMockServer } from '../../src/server.js';

describe("a workspace's persisted job table", () => {
  const started = createMockServer({ seed: 1, clock: '2026-03-02T09:00:00.000Z', clockFrozen: true, fixtures: true });
  afterAll(async () => (await started).close());

  it('holds the pending jobs wherever the data is written or copied, and none once they ran', async () => {
    const server = await started;
    const workspace = server.registry.defaultWorkspace;
    await workspace.scheduler.advanceTo(workspace.now() + 366 * 86_400_000);
    const account = Object.values(accountsStore.get(workspace).accounts).find((a) => a.status === 'active' && a.platform === 'bluesky');
    const post = createPost(workspace, { text: 'Fresh beans', destinations: [{ connectionId: account?.id ?? '' }] });
    const pending = workspace.scheduler.pending().map((job) => job.id);
    expect(pending.length).toBeGreaterThan(0);
    const written = JSON.parse(JSON.stringify(workspace.data)) as { jobs: Record<string, { id: string; data: { postId?: string } }> };
    expect(Object.keys(written.jobs).sort()).toEqual([...pending].sort());
    expect(Object.values(written.jobs).some((job) => job.data.postId === post.id)).toBe(true);
    expect(Object.keys(structuredClone(workspace.data).jobs).sort()).toEqual([...pending].sort());
    expect(Object.keys({ ...workspace.data }.jobs).sort()).toEqual([...pending].sort());
    await workspace.scheduler.advanceTo(workspace.now() + 60_000);
    const left = workspace.scheduler.pending().map((job) => job.id);
    const after = JSON.parse(JSON.stringify(workspace.data)) as typeof written;
    expect(Object.keys(after.jobs).sort()).toEqual([...left].sort());
    // The post went out: none of its jobs is left to persist.
    expect(Object.values(after.jobs).some((job) => job.data.postId === post.id)).toBe(false);
  });
});
