import type { AccountRecord } from '../../src/api/accounts/store.js';
import type { CommentRecord } from '../../src/api/comments/store.js';
import type { ConversationRecord } from '../../src/api/inbox/store.js';
import type { PostRecord } from '../../src/api/posts/records.js';
import type { Workspace } from '../../src/workspaces/workspace.js';
import { makePost } from './scale-data.js';

const MINUTE_MS = 60_000;

/** The stores bench:growth fills, by the names and fields every build so far gives them. */
interface GrownStores {
  accounts: { accounts: Record<string, AccountRecord> };
  posts: { posts: Record<string, PostRecord> };
  comments: { comments: Record<string, CommentRecord> };
  inbox: { conversations: Record<string, ConversationRecord> };
}

/**
 * Grows a fixture-world workspace by `posts` posts (one every five minutes back from its clock,
 * settled, as bench:scale's), a comment on every tenth and a conversation for every hundredth,
 * written straight into its stores before anything reads them.
 */
export function growWorkspace(workspace: Workspace, posts: number): void {
  const stores = workspace.data.stores as unknown as GrownStores;
  const accounts = Object.values(stores.accounts.accounts).sort((a, b) => (a.id < b.id ? -1 : 1));
  const template = Object.values(stores.inbox.conversations)[0];
  const nowMs = workspace.now();
  for (let i = 0; i < posts; i++) {
    const post = makePost(workspace, accounts, i, nowMs - (posts - i) * 5 * MINUTE_MS, nowMs);
    stores.posts.posts[post.id] = post;
    const destination = post.destinations[0];
    if (i % 10 === 0 && destination?.publishedAt) {
      const id = workspace.newId();
      stores.comments.comments[id] = {
        id,
        postId: post.id,
        destinationId: destination.id,
        accountId: destination.connectionId,
        platform: destination.platform,
        platformCommentId: `growth-${i}`,
        parentId: null,
        text: `Comment ${i}`,
        username: null,
        likeCount: 0,
        createdAt: destination.publishedAt,
        fromAccount: false,
      };
    }
    const account = accounts[(i / 100) % accounts.length];
    if (i % 100 === 0 && template && account) {
      const id = workspace.newId();
      stores.inbox.conversations[id] = { ...structuredClone(template), id, accountId: account.id, platform: account.platform, lastMessageId: null, lastInboundAt: null, unreadCount: 0 };
    }
  }
}
