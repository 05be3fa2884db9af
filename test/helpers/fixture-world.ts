import { accountsStore, type AccountRecord } from '../../src/api/accounts/store.js';
import { commentsStore, type CommentRecord } from '../../src/api/comments/store.js';
import { inboxStore, type ConversationRecord, type MessageRecord } from '../../src/api/inbox/store.js';
import { postsStore } from '../../src/api/posts/store.js';
import { type DestinationRecord, type PostRecord } from '../../src/api/posts/records.js';
import type { DomainEvent } from '../../src/events/catalog.js';
import { DEFAULT_API_KEY } from '../../src/server.js';
import type { Workspace } from '../../src/workspaces/workspace.js';
import type { TestMock } from './mock.js';

/**
 * Read access to a workspace's fixture world for tests of areas whose own list
 * endpoints are not theirs to call (the posts list belongs to another area): finds
 * accounts, published destinations and records, and the events emitted since a mark.
 */
export interface World {
  workspace: Workspace;
  apiKey: string;
  account(platform: string): AccountRecord;
  /** The first destination on `platform` that passes `accept` (default: published, alone in its post). */
  destination(platform: string, accept?: (post: PostRecord, destination: DestinationRecord) => boolean): { post: PostRecord; destination: DestinationRecord };
  comments(destinationId: string): CommentRecord[];
  conversations(accountId: string): ConversationRecord[];
  messages(conversationId: string): MessageRecord[];
  /** Events emitted after `mark()` was called (oldest first). */
  eventsSince(mark: number): DomainEvent[];
  mark(): number;
}

const publishedAlone = (post: PostRecord, destination: DestinationRecord): boolean => destination.status === 'published' && post.destinations.length === 1;

export function worldOf(mock: TestMock, apiKey: string = DEFAULT_API_KEY): World {
  const workspace = mock.server.registry.byApiKey(apiKey);
  if (!workspace) throw new Error(`no workspace has the key ${apiKey}`);
  return {
    workspace,
    apiKey,
    account(platform) {
      const found = Object.values(accountsStore.get(workspace).accounts).find((account) => account.platform === platform);
      if (!found) throw new Error(`no ${platform} account`);
      return found;
    },
    destination(platform, accept = publishedAlone) {
      for (const post of Object.values(postsStore.get(workspace).posts)) {
        for (const destination of post.destinations) {
          if (destination.platform === platform && accept(post, destination)) return { post, destination };
        }
      }
      throw new Error(`no matching ${platform} destination`);
    },
    comments(destinationId) {
      return Object.values(commentsStore.get(workspace).comments).filter((comment) => comment.destinationId === destinationId);
    },
    conversations(accountId) {
      return Object.values(inboxStore.get(workspace).conversations).filter((conversation) => conversation.accountId === accountId);
    },
    messages(conversationId) {
      return Object.values(inboxStore.get(workspace).messages).filter((message) => message.conversationId === conversationId);
    },
    mark() {
      return workspace.events.recent().length;
    },
    eventsSince(mark) {
      return workspace.events.recent().slice(mark);
    },
  };
}

/** A fresh workspace with the fixture world, for tests that change state. */
export async function freshWorld(mock: TestMock): Promise<World> {
  const res = await mock.control('post', '/__control/workspaces').send({});
  if (res.status !== 201) throw new Error(`workspace not created: ${res.status} ${JSON.stringify(res.body)}`);
  return worldOf(mock, res.body.apiKey as string);
}
