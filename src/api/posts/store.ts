import { defineStore, type HasWorkspaceData } from '../../store/define-store.js';
import { destinationsAdded, destinationsChanged } from './destination-index.js';
import { indexAdded, indexChanged } from './list-index.js';
import { publishedChanged } from './published-index.js';
import type { PostRecord } from './records.js';

/**
 * Posts of one workspace, by id. A remote delete keeps the post with status
 * `deleted`. Read-only here so that every new post goes through `addPost`, which
 * keeps the list's indexes (list-index.ts) in step.
 */
export const postsStore = defineStore('posts', () => ({
  posts: {} as Readonly<Record<string, PostRecord>>,
}));

/** How many posts `addPost` added to a posts record and `postChanged` changed in it, by the record. */
const changeCounts = new WeakMap<object, { count: number }>();

/**
 * A number that moves whenever a post of the record is added or changes what `postChanged` is
 * told of (a publish time, a network id): what is worked out from every post and kept outside the
 * store (velocity.ts's read of an unfilled ledger) is still current while it stays the same.
 */
export function postsChangeCount(posts: Readonly<Record<string, PostRecord>>): number {
  return changeCounts.get(posts)?.count ?? 0;
}

/** One lookup a post added or changed (a create and its publishing make three): the counter is an object kept in the map. */
function countChange(posts: Readonly<Record<string, PostRecord>>): void {
  const counter = changeCounts.get(posts);
  if (counter) counter.count++;
  else changeCounts.set(posts, { count: 1 });
}

/** Stores a new post (from the API, a sync, a quote, a scenario or the fixtures). */
export function addPost(workspace: HasWorkspaceData, post: PostRecord): void {
  const store = postsStore.get(workspace);
  (store.posts as Record<string, PostRecord>)[post.id] = post;
  indexAdded(store.posts, post);
  destinationsAdded(store.posts, post);
  publishedChanged(store.posts, post);
  countChange(store.posts);
}

/**
 * Call after changing what the posts list sorts on or a destination is found by: a destination's
 * `publishedAt` and `externalPostId`. Status and the other fields are read live by the list.
 */
export function postChanged(workspace: HasWorkspaceData, post: PostRecord): void {
  const { posts } = postsStore.get(workspace);
  indexChanged(posts, post);
  destinationsChanged(posts, post);
  publishedChanged(posts, post);
  countChange(posts);
}
