import { postsStore } from '../../src/api/posts/store.js';
import { type PostRecord } from '../../src/api/posts/records.js';
import { createMockServer } from '../../src/server.js';

/**
 * The default workspace's fixture posts in the contract's `Post` shape, newest
 * first: what the Express baseline serves for `GET /v1/posts` while the mock's own
 * posts list is not built yet (once it is, the bench serves the mock's answer).
 */
export async function fixturePostViews(): Promise<unknown[]> {
  const server = await createMockServer({ seed: 1 });
  try {
    const posts = Object.values(postsStore.get(server.registry.defaultWorkspace).posts);
    posts.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
    return posts.map(postView);
  } finally {
    await server.close();
  }
}

function postView(post: PostRecord) {
  return {
    id: post.id,
    text: post.text,
    mediaUrls: post.mediaUrls,
    mediaKind: post.mediaKind,
    status: post.status,
    scheduledFor: post.scheduledFor,
    timezone: post.timezone,
    destinations: post.destinations.map((d) => ({
      id: d.id,
      connectionId: d.connectionId,
      platform: d.platform,
      status: d.status,
      externalPostId: d.externalPostId,
      externalUrl: d.externalUrl,
      errorCode: d.errorCode,
      errorMessage: d.errorMessage,
      publishedAt: d.publishedAt,
      metrics: null,
    })),
    source: post.source,
    createdAt: post.createdAt,
    updatedAt: post.updatedAt,
  };
}
