import type { components } from '../../generated/openapi.js';
import { ApiError, notFound, validationError } from '../../lib/errors.js';
import { compareKeys, listPage, type Page } from '../../http/lists.js';
import { fakePerson, fakeText } from '../world/fakes.js';
import { platformFacts } from '../../platforms/catalog.js';
import { networkCommentId } from '../../platforms/external-ids.js';
import { checkTextLimit } from '../../platforms/text-limit.js';
import type { Workspace } from '../../workspaces/workspace.js';
import type { AccountRecord } from '../accounts/store.js';
import { accountsStore } from '../accounts/store.js';
import { findDestination, findTarget, publisherOf, requirePublished, requireSupported, resolveActingTarget, type Target, type TargetInput, type TargetRules } from '../engagement/target.js';
import { postsStore } from '../posts/store.js';
import { publishedNewestFirst } from '../posts/published-index.js';
import { type DestinationRecord, type PostRecord } from '../posts/records.js';
import { addComment, commentsOfDestination, commentsStore, type CommentRecord } from './store.js';
import { getOwn } from '../../lib/records.js';

export type CommentView = components['schemas']['Comment'];
export type CreatedCommentView = components['schemas']['CreatedComment'];
export type CommentLikeView = components['schemas']['CommentLikeResult'];

/**
 * Networks whose API hands a comment's replies back with it, one level deep. There
 * the list holds top-level comments with their replies inside, and a reply to a
 * reply joins the thread of its top-level comment (as those networks do). Elsewhere
 * every comment is its own list item and `parentId` links the thread.
 */
const NESTED_REPLY_PLATFORMS: ReadonlySet<string> = new Set(['instagram', 'facebook', 'youtube']);

/** The reply-to-comment limit of a network; null where it has no comments. */
function commentLimit(platform: string): number | null {
  return platformFacts(platform)?.commentReplyLimit ?? null;
}

function rules(action: string): TargetRules {
  return { action, supports: (platform) => commentLimit(platform) !== null };
}

const LIKE_RULES: TargetRules = {
  action: 'like a comment on',
  // Only the page-based network lets a page like comments through the API.
  supports: (platform) => platformFacts(platform)?.kind === 'page-based',
};

/** Shape B: the list's and the reply's shape. */
export function commentView(comment: CommentRecord, replies: readonly CommentRecord[] = []): CommentView {
  return {
    id: comment.id,
    postId: comment.postId,
    accountId: comment.accountId,
    platform: comment.platform,
    platformCommentId: comment.platformCommentId,
    parentId: comment.parentId,
    text: comment.text,
    username: comment.username,
    likeCount: comment.likeCount,
    createdAt: comment.createdAt,
    replies: replies.map((reply) => commentView(reply)),
  };
}

/** Shape A: create-comment's answer, the network's own view, so `id` is the network's comment id. */
export function createdCommentView(comment: CommentRecord): CreatedCommentView {
  return {
    id: comment.platformCommentId,
    text: comment.text,
    username: comment.username,
    likeCount: comment.likeCount,
    timestamp: comment.createdAt,
    parentId: comment.parentId,
    replies: [],
  };
}

function commentsOf(workspace: Workspace, destinationId: string): CommentRecord[] {
  return [...commentsOfDestination(workspace, destinationId)];
}

function newestFirst(a: CommentRecord, b: CommentRecord): number {
  return compareKeys([a.createdAt, a.id], [b.createdAt, b.id], 'desc');
}

/** GET /v1/comments: a published destination's comments, newest first. */
export function listComments(workspace: Workspace, query: TargetInput & { limit?: number; cursor?: string }): Page<CommentView> {
  const target = findTarget(workspace, query);
  const listRules = rules('read the comments of');
  requireSupported(target, listRules);
  requirePublished(target, listRules);
  const all = commentsOf(workspace, target.destination.id);
  const nested = NESTED_REPLY_PLATFORMS.has(target.destination.platform);
  const items = (nested ? all.filter((comment) => comment.parentId === null) : all).sort(newestFirst);
  const repliesByParent = new Map<string, CommentRecord[]>();
  if (nested) {
    for (const reply of all) {
      if (reply.parentId === null) continue;
      const thread = repliesByParent.get(reply.parentId) ?? [];
      thread.push(reply);
      repliesByParent.set(reply.parentId, thread);
    }
    // Replies read as a conversation: oldest first.
    for (const thread of repliesByParent.values()) thread.sort((a, b) => -newestFirst(a, b));
  }
  const page = listPage(workspace, {
    list: 'comments',
    query,
    sorted: items,
    keyOf: (comment) => [comment.createdAt, comment.id],
    direction: 'desc',
    limit: query.limit ?? 50,
  });
  return { ...page, data: page.data.map((comment) => commentView(comment, repliesByParent.get(comment.platformCommentId) ?? [])) };
}

/** How the account appears on its own comments: the page-based network shows the page without a username. */
function accountUsername(account: AccountRecord): string | null {
  return account.platform === 'facebook' ? null : account.handle;
}

/**
 * The comment a reply hangs under: on nested networks a reply to a reply joins its
 * top-level comment's thread.
 */
function threadParent(parent: CommentRecord): string {
  if (!NESTED_REPLY_PLATFORMS.has(parent.platform) || parent.parentId === null) return parent.platformCommentId;
  return parent.parentId;
}

function findByNetworkId(workspace: Workspace, destinationId: string, platformCommentId: string): CommentRecord | undefined {
  return commentsOf(workspace, destinationId).find((comment) => comment.platformCommentId === platformCommentId);
}

/** Writes the account's own comment (or reply) and tells webhooks about a reply. */
function writeAccountComment(workspace: Workspace, target: { post: PostRecord; destination: DestinationRecord }, account: AccountRecord, text: string, parent: CommentRecord | undefined): CommentRecord {
  const { post, destination } = target;
  const nowMs = workspace.now();
  const comment: CommentRecord = {
    id: workspace.newId(),
    postId: post.id,
    destinationId: destination.id,
    accountId: account.id,
    platform: destination.platform,
    platformCommentId: networkCommentId(workspace, destination.platform, destination.externalPostId ?? '', nowMs, account.platformUserId),
    parentId: parent ? threadParent(parent) : null,
    text,
    username: accountUsername(account),
    likeCount: 0,
    createdAt: workspace.nowIso(),
    fromAccount: true,
    authorId: account.platformUserId,
    authorName: account.displayName,
  };
  addComment(workspace, comment);
  if (parent) workspace.events.emit('comment.replied', { destinationId: destination.id, comment: commentView(comment) });
  return comment;
}

export interface CreateCommentInput extends TargetInput {
  text: string;
  parentCommentId?: string | undefined;
}

/**
 * POST /v1/comments: the account that published the destination comments on it,
 * or answers the comment `parentCommentId` (a network comment id on the same post).
 */
export function createComment(workspace: Workspace, input: CreateCommentInput): CommentRecord {
  const target = resolveActingTarget(workspace, input, rules('comment on'));
  const platform = target.destination.platform;
  checkTextLimit(input.text, commentLimit(platform) ?? 0, platform);
  let parent: CommentRecord | undefined;
  if (input.parentCommentId !== undefined) {
    parent = findByNetworkId(workspace, target.destination.id, input.parentCommentId);
    if (!parent) throw new ApiError(404, 'NOT_FOUND', `No comment '${input.parentCommentId}' on destination '${target.destination.id}'.`, { param: 'parentCommentId' });
  }
  return writeAccountComment(workspace, target, target.account, input.text, parent);
}

/**
 * POST /v1/comments/{id}/replies: answers a comment by its service id, as the
 * account that published the post, within the network's own limit.
 */
export function replyToComment(workspace: Workspace, commentId: string, text: string): CommentRecord {
  const parent = getOwn(commentsStore.read(workspace).comments, commentId);
  if (!parent) throw notFound('Comment', commentId);
  const found = findDestination(postsStore.read(workspace).posts, parent.destinationId);
  if (!found) throw new ApiError(404, 'NOT_FOUND', `The post comment '${commentId}' was on is no longer in this workspace.`, { param: 'id' });
  const target: Target = { ...found, via: 'id' };
  const replyRules = rules('reply to a comment on');
  requireSupported(target, replyRules);
  requirePublished(target, replyRules);
  const account = publisherOf(workspace, found.destination);
  checkTextLimit(text, commentLimit(found.destination.platform) ?? 0, found.destination.platform);
  return writeAccountComment(workspace, found, account, text, parent);
}

export interface LikeCommentInput extends TargetInput {
  commentId: string;
}

/** POST /v1/comments/like: the page likes a comment on its post; liking again changes nothing. */
export function likeComment(workspace: Workspace, input: LikeCommentInput): CommentLikeView {
  const target = resolveActingTarget(workspace, input, LIKE_RULES);
  const comment = findByNetworkId(workspace, target.destination.id, input.commentId);
  if (!comment) throw new ApiError(404, 'NOT_FOUND', `No comment '${input.commentId}' on destination '${target.destination.id}'.`, { param: 'commentId' });
  if (!comment.likedByAccount) {
    comment.likedByAccount = true;
    comment.likeCount = (comment.likeCount ?? 0) + 1;
  }
  return { liked: { postId: target.post.id, destinationId: target.destination.id, platform: target.destination.platform, commentId: comment.platformCommentId, liked: true } };
}

// ---------------------------------------------------------------------------
// The network side: someone comments (POST /__control/inbound/comments)
// ---------------------------------------------------------------------------

export interface InboundCommentInput extends TargetInput {
  text?: string;
  /** Network id of a comment on the same destination that this one answers. */
  parentCommentId?: string;
  authorId?: string;
  username?: string | null;
  displayName?: string | null;
}

/**
 * The destination an inbound comment lands on: the one named as for the API; else
 * the newest published destination of `accountId`; else the newest published
 * destination of the workspace on a network with comments.
 */
function inboundTarget(workspace: Workspace, input: InboundCommentInput): Target {
  if (input.destinationId !== undefined || input.post !== undefined) return findTarget(workspace, input);
  if (input.accountId !== undefined && !getOwn(accountsStore.read(workspace).accounts, input.accountId)) {
    throw new ApiError(404, 'NOT_FOUND', `Account '${input.accountId}' was not found in this workspace.`, { param: 'accountId' });
  }
  // The published destinations newest first (posts/published-index.ts): O(k) for the k walked
  // past (deleted ones, networks without comments) rather than a walk of every post.
  let newest: { post: PostRecord; destination: DestinationRecord } | undefined;
  for (const entry of publishedNewestFirst(postsStore.read(workspace).posts, input.accountId)) {
    if (entry.destination.status !== 'published') continue;
    if (input.accountId === undefined && commentLimit(entry.destination.platform) === null) continue;
    newest = entry;
    break;
  }
  if (!newest) {
    const param = input.accountId !== undefined ? 'accountId' : 'destinationId';
    throw validationError(param, input.accountId !== undefined ? `Account '${input.accountId}' has no published post to comment on.` : 'This workspace has no published post on a network with comments; name a destination.');
  }
  return { ...newest, via: input.accountId !== undefined ? 'accountId' : 'destinationId' };
}

/** Where an inbound comment lands, once every check has passed. */
export interface InboundCommentPlace extends Target {
  /** The comment it answers, when `parentCommentId` named one. */
  parent: CommentRecord | undefined;
}

/**
 * Every check of an inbound comment, changing nothing: receiveComment runs it first,
 * and a scenario's `inbound.comment` step runs it when the scenario loads.
 */
export function checkInboundComment(workspace: Workspace, input: InboundCommentInput): InboundCommentPlace {
  const target = inboundTarget(workspace, input);
  const inboundRules = rules('receive comments on');
  requireSupported(target, inboundRules);
  requirePublished(target, inboundRules);
  const { destination } = target;
  if (input.text !== undefined) checkTextLimit(input.text, commentLimit(destination.platform) ?? 0, destination.platform);
  let parent: CommentRecord | undefined;
  if (input.parentCommentId !== undefined) {
    parent = findByNetworkId(workspace, destination.id, input.parentCommentId);
    if (!parent) throw new ApiError(404, 'NOT_FOUND', `No comment '${input.parentCommentId}' on destination '${destination.id}'.`, { param: 'parentCommentId' });
  }
  return { ...target, parent };
}

/**
 * Someone on the network comments on a published destination (or answers a comment
 * there); every field left out is made up from the workspace's seed. Emits
 * `comment.received`, which the automation runner hears.
 */
export function receiveComment(workspace: Workspace, input: InboundCommentInput): CommentRecord {
  const { post, destination, parent } = checkInboundComment(workspace, input);
  const limit = commentLimit(destination.platform) ?? 0;
  const person = fakePerson(workspace, destination.platform, 'comments');
  const authorId = input.authorId ?? person.id;
  const nowMs = workspace.now();
  const comment: CommentRecord = {
    id: workspace.newId(),
    postId: post.id,
    destinationId: destination.id,
    accountId: destination.connectionId,
    platform: destination.platform,
    platformCommentId: networkCommentId(workspace, destination.platform, destination.externalPostId ?? '', nowMs, authorId),
    parentId: parent ? threadParent(parent) : null,
    text: input.text ?? fakeText(workspace, 'comments', limit),
    username: input.username !== undefined ? input.username : person.username,
    likeCount: 0,
    createdAt: workspace.nowIso(),
    fromAccount: false,
    authorId,
    authorName: input.displayName !== undefined ? input.displayName : person.displayName,
  };
  addComment(workspace, comment);
  workspace.events.emit('comment.received', { destinationId: destination.id, comment: commentView(comment) });
  return comment;
}
