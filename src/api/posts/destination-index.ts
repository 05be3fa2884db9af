import { groupedIndex } from '../../store/grouped-index.js';
import type { PostRecord } from './records.js';

/*
 * Where each destination sits, so that a request naming a destination (comments, likes, replies,
 * story replies) or a network post id finds its post in O(1) rather than walking every post of the
 * workspace. Kept up to date by `addPost` and `postChanged` (store.ts): a destination never moves
 * to another post and a post is never removed (a delete keeps it with status `deleted`), so the only
 * changes are a post added and a network id appearing when a destination goes out.
 */

function networkKey(accountId: string, externalPostId: string): string {
  return `n\u0000${accountId}\u0000${externalPostId}`;
}

function* keysOf(post: PostRecord): Iterable<string> {
  for (const destination of post.destinations) {
    yield `d\u0000${destination.id}`;
    if (destination.externalPostId !== null) yield networkKey(destination.connectionId, destination.externalPostId);
  }
}

const byDestination = groupedIndex<PostRecord>(keysOf);

/** The post holding the destination, or undefined. */
export function postOfDestination(posts: Readonly<Record<string, PostRecord>>, destinationId: string): PostRecord | undefined {
  return byDestination.of(posts, `d\u0000${destinationId}`)[0];
}

/** The first post one of whose destinations the account published with this network id, as a walk of the posts in order finds it. */
export function postOfNetworkId(posts: Readonly<Record<string, PostRecord>>, accountId: string, externalPostId: string): PostRecord | undefined {
  return byDestination.of(posts, networkKey(accountId, externalPostId))[0];
}

/** A post was added. */
export function destinationsAdded(posts: Readonly<Record<string, PostRecord>>, post: PostRecord): void {
  byDestination.added(posts, post);
}

/** A destination of the post got its network id. */
export function destinationsChanged(posts: Readonly<Record<string, PostRecord>>, post: PostRecord): void {
  byDestination.changed(posts, post);
}
