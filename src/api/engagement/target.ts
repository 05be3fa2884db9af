import { ApiError, validationError } from '../../lib/errors.js';
import { platformFacts } from '../../platforms/catalog.js';
import type { Workspace } from '../../workspaces/workspace.js';
import { accountsStore, type AccountRecord } from '../accounts/store.js';
import { postOfDestination, postOfNetworkId } from '../posts/destination-index.js';
import { postsStore } from '../posts/store.js';
import { type DestinationRecord, type PostRecord } from '../posts/records.js';
import { getOwn } from '../../lib/records.js';

/**
 * How comments, comment likes and engagement name the published destination they
 * act on (the reference's `post` / `accountId` / `destinationId`). The rules live
 * here once:
 *
 * - `destinationId` alone names one destination. When `post` or `accountId` come
 *   with it they must agree with it (400 naming the one that does not).
 * - `post` as a service post id of this workspace: its only destination, or the one
 *   on `accountId`. A post with several destinations and no `accountId` is ambiguous:
 *   400 VALIDATION_ERROR naming `destinationId`, listing the destinations in details.
 * - `post` as anything else is a network-native post id (the destination's
 *   `externalPostId`) and needs `accountId`, the account that published it.
 * - Nothing named: 400 naming `destinationId`.
 *
 * Everything is looked up in the request's workspace only, so another workspace's
 * destination or post is 404.
 */
export interface TargetInput {
  post?: string | undefined;
  accountId?: string | undefined;
  destinationId?: string | undefined;
}

export interface Target {
  post: PostRecord;
  destination: DestinationRecord;
  /** The request field that named the destination (`destinationId`, `post`, a path `id`): errors about it point there. */
  via: string;
}

/** A resolved target whose account may act on it. */
export interface ActingTarget extends Target {
  /** The account that published the destination; actions are taken as it. */
  account: AccountRecord;
}

export interface TargetRules {
  /** What the caller does, for messages: "comment on", "like". */
  action: string;
  /** Networks where the action exists; others answer 400 PLATFORM_NOT_SUPPORTED. */
  supports: (platform: string) => boolean;
}

/** Finds the destination a request names, without judging its state. */
export function findTarget(workspace: Workspace, input: TargetInput): Target {
  const { posts } = postsStore.read(workspace);
  if (input.destinationId !== undefined) {
    const found = findDestination(posts, input.destinationId);
    if (!found) throw new ApiError(404, 'NOT_FOUND', `Destination '${input.destinationId}' was not found in this workspace.`, { param: 'destinationId' });
    const { post, destination } = found;
    if (input.post !== undefined && input.post !== post.id && input.post !== destination.externalPostId) {
      throw validationError('post', `Destination '${destination.id}' belongs to post '${post.id}', not '${input.post}'; send destinationId alone.`);
    }
    if (input.accountId !== undefined && input.accountId !== destination.connectionId) {
      throw validationError('accountId', `Destination '${destination.id}' was published by account '${destination.connectionId}', not '${input.accountId}'.`);
    }
    return { post, destination, via: 'destinationId' };
  }

  if (input.post === undefined) {
    throw validationError('destinationId', 'Name the destination: destinationId alone, or post (a service post id, or a network-native post id with accountId).');
  }

  const post = getOwn(posts, input.post);
  if (post) {
    const candidates = input.accountId === undefined ? post.destinations : post.destinations.filter((d) => d.connectionId === input.accountId);
    if (candidates.length === 0) {
      throw validationError('accountId', `Post '${post.id}' has no destination on account '${input.accountId ?? ''}'.`);
    }
    // Picking one of several silently would act on a network the caller may not mean.
    if (candidates.length > 1) {
      throw new ApiError(400, 'VALIDATION_ERROR', `Post '${post.id}' goes to ${candidates.length} destinations (${candidates.map((d) => d.platform).join(', ')}); send destinationId, or accountId, to pick one.`, {
        param: 'destinationId',
        details: { destinations: candidates.map((d) => ({ destinationId: d.id, accountId: d.connectionId, platform: d.platform, status: d.status })) },
      });
    }
    return { post, destination: candidates[0] as DestinationRecord, via: 'post' };
  }

  if (input.accountId === undefined) {
    throw validationError('accountId', `'${input.post}' is not a post id of this workspace; a network-native post id needs accountId (the account that published it).`);
  }
  if (!getOwn(accountsStore.read(workspace).accounts, input.accountId)) {
    throw new ApiError(404, 'NOT_FOUND', `Account '${input.accountId}' was not found in this workspace.`, { param: 'accountId' });
  }
  const candidate = postOfNetworkId(posts, input.accountId, input.post);
  const destination = candidate?.destinations.find((d) => d.connectionId === input.accountId && d.externalPostId === input.post);
  if (candidate && destination) return { post: candidate, destination, via: 'post' };
  throw new ApiError(404, 'NOT_FOUND', `No post with the network id '${input.post}' of account '${input.accountId}' is known to this workspace.`, { param: 'post' });
}

/** The network must offer the action: 400 PLATFORM_NOT_SUPPORTED otherwise. */
export function requireSupported(target: Target, rules: TargetRules): void {
  const { platform } = target.destination;
  if (rules.supports(platform)) return;
  const label = platformFacts(platform)?.label ?? platform;
  throw new ApiError(400, 'PLATFORM_NOT_SUPPORTED', `You cannot ${rules.action} a post on ${platform} (${label}).`, { param: target.via, details: { platform } });
}

/** Only what the network holds can be acted on: a destination that is not `published` is refused. */
export function requirePublished(target: Target, rules: TargetRules): void {
  const { destination } = target;
  if (destination.status === 'published' && destination.externalPostId !== null) return;
  throw new ApiError(400, 'VALIDATION_ERROR', `Destination '${destination.id}' (${destination.platform}) is ${destination.status}, not published; only a published post can be acted on (${rules.action}).`, {
    param: target.via,
    details: { destinationId: destination.id, status: destination.status },
  });
}

/**
 * The account that published the destination, able to act: a disconnected one is
 * gone (404), one that is not `active` needs a reconnect first, as for publishing.
 */
export function publisherOf(workspace: Workspace, destination: DestinationRecord): AccountRecord {
  const account = accountsStore.read(workspace).accounts[destination.connectionId];
  if (!account) {
    throw new ApiError(404, 'NOT_FOUND', `Account '${destination.connectionId}', which published destination '${destination.id}', is no longer connected.`);
  }
  requireActive(account);
  return account;
}

/** Acting as an account needs a working authorization. */
export function requireActive(account: AccountRecord): void {
  if (account.status !== 'active') throw reconnectToAct(account);
}

/** Acting as an account that is not active (also what a scenario rule's ACCOUNT_RECONNECT_REQUIRED answers on an action). */
export function reconnectToAct(account: { id: string; platform: string; status: string }): ApiError {
  return new ApiError(400, 'ACCOUNT_RECONNECT_REQUIRED', `Account '${account.id}' (${account.platform}) is ${account.status}; reconnect it before acting as it.`, {
    details: { accountId: account.id, platform: account.platform, status: account.status },
  });
}

/** Resolution, then the network, then the state, then the acting account: the order of the checks. */
export function resolveActingTarget(workspace: Workspace, input: TargetInput, rules: TargetRules): ActingTarget {
  const target = findTarget(workspace, input);
  requireSupported(target, rules);
  requirePublished(target, rules);
  return { ...target, account: publisherOf(workspace, target.destination) };
}

/** A destination by id, from the posts' destination index (O(1), destination-index.ts). */
export function findDestination(posts: Readonly<Record<string, PostRecord>>, destinationId: string): { post: PostRecord; destination: DestinationRecord } | undefined {
  const post = postOfDestination(posts, destinationId);
  const destination = post?.destinations.find((d) => d.id === destinationId);
  return post && destination ? { post, destination } : undefined;
}
