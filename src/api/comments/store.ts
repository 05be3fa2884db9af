import { defineStore, type HasWorkspaceData } from '../../store/define-store.js';
import { groupedIndex } from '../../store/grouped-index.js';

/** A comment (or a reply to one) on a published destination. */
export interface CommentRecord {
  /** The service's id (uuid); the reply operation takes it. */
  id: string;
  postId: string;
  /** The destination of the post the comment sits under. */
  destinationId: string;
  /** The account that published the post. */
  accountId: string;
  platform: string;
  /** The network's own id of the comment; replies and comment likes name the parent by it. */
  platformCommentId: string;
  /** `platformCommentId` of the comment this one answers; null for a comment on the post itself. */
  parentId: string | null;
  text: string;
  /** Author's handle without a leading @; null when the network does not share it. */
  username: string | null;
  /** Likes on the comment; null where the network does not report them. */
  likeCount: number | null;
  createdAt: string;
  /** True when the connected account wrote it (a reply made through the API or on the network). */
  fromAccount: boolean;
  /** The writer's network id: an automation's direct message goes to it. Absent on fixture comments. */
  authorId?: string;
  /** The writer's display name, when the network shared it. */
  authorName?: string | null;
  /** True once the connected account liked it (the page-based network's comment like). */
  likedByAccount?: boolean;
}

/** Comments of one workspace, by service id; a thread is rebuilt from `parentId`. */
export const commentsStore = defineStore('comments', () => ({
  comments: {} as Record<string, CommentRecord>,
}));

/** The comments of each destination (src/store/grouped-index.ts): a destination's comments cost what it holds, not a walk of every comment. */
const byDestination = groupedIndex<CommentRecord>((comment) => [comment.destinationId]);

/** Stores a new comment (from the API, an inbound one, the fixtures): O(1). Comments are never removed. */
export function addComment(workspace: HasWorkspaceData, comment: CommentRecord): void {
  const { comments } = commentsStore.get(workspace);
  comments[comment.id] = comment;
  byDestination.added(comments, comment);
}

/** The comments of one destination, in the order they were added: O(1) once the index is built. */
export function commentsOfDestination(workspace: HasWorkspaceData, destinationId: string): readonly CommentRecord[] {
  return byDestination.of(commentsStore.read(workspace).comments, destinationId);
}
