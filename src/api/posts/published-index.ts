import { compareKeys, type SortKey } from '../../http/lists.js';
import type { DestinationRecord, PostRecord } from './records.js';

/*
 * The destinations that went out (a `publishedAt`), in order of that time, per account and for the
 * whole workspace: the newest published destination (where an inbound comment lands when none is
 * named) and an account's newest posts on its network (a sync answered from what the service holds)
 * are the last few entries, found in O(k) for the k walked from the newest rather than by a walk of
 * every post. Derived and never persisted, like list-index.ts: built in one pass, O(d log d) over
 * the workspace's d destinations, on the first read of a posts map; kept by `addPost` and
 * `postChanged` (store.ts) from then on, O(log d) to find the place and a splice that moves nothing
 * when the destination is the newest, as one going out now is; dropped with the map.
 * A destination's `publishedAt` is set once, when it goes out, and never changes; its status (a
 * delete) is read live by the walkers.
 */

/** A destination that went out, with the post holding it. */
export interface PublishedDestination {
  readonly post: PostRecord;
  readonly destination: DestinationRecord;
  /** `[publishedAt, destination id]`, ascending. */
  readonly key: SortKey;
}

interface PublishedOrder {
  readonly all: PublishedDestination[];
  readonly byAccount: Map<string, PublishedDestination[]>;
  /** The destination ids placed, so a post changed twice is not placed twice. */
  readonly placed: Set<string>;
}

const orders = new WeakMap<object, PublishedOrder>();

function lowerBound(entries: readonly PublishedDestination[], key: SortKey): number {
  let low = 0;
  let high = entries.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (compareKeys((entries[mid] as PublishedDestination).key, key, 'asc') < 0) low = mid + 1;
    else high = mid;
  }
  return low;
}

function insert(entries: PublishedDestination[], entry: PublishedDestination): void {
  entries.splice(lowerBound(entries, entry.key), 0, entry);
}

function place(order: PublishedOrder, post: PostRecord): void {
  for (const destination of post.destinations) {
    if (destination.publishedAt === null || order.placed.has(destination.id)) continue;
    const entry: PublishedDestination = { post, destination, key: [destination.publishedAt, destination.id] };
    order.placed.add(destination.id);
    insert(order.all, entry);
    let mine = order.byAccount.get(destination.connectionId);
    if (mine === undefined) order.byAccount.set(destination.connectionId, (mine = []));
    insert(mine, entry);
  }
}

function built(posts: Readonly<Record<string, PostRecord>>): PublishedOrder {
  let order = orders.get(posts);
  if (order === undefined) {
    order = { all: [], byAccount: new Map(), placed: new Set() };
    for (const post of Object.values(posts)) {
      for (const destination of post.destinations) {
        if (destination.publishedAt === null || order.placed.has(destination.id)) continue;
        order.placed.add(destination.id);
        order.all.push({ post, destination, key: [destination.publishedAt, destination.id] });
      }
    }
    order.all.sort((a, b) => compareKeys(a.key, b.key, 'asc'));
    for (const entry of order.all) {
      const mine = order.byAccount.get(entry.destination.connectionId);
      if (mine === undefined) order.byAccount.set(entry.destination.connectionId, [entry]);
      else mine.push(entry);
    }
    orders.set(posts, order);
  }
  return order;
}

/**
 * The destinations that went out, newest first by `[publishedAt, id]`: the account's, or the
 * workspace's when `accountId` is undefined. O(1) per destination walked once the order is built;
 * stop early to pay only for what is read. Whatever their status now (a delete keeps `publishedAt`).
 */
export function* publishedNewestFirst(posts: Readonly<Record<string, PostRecord>>, accountId?: string): Generator<PublishedDestination> {
  const order = built(posts);
  const entries = accountId === undefined ? order.all : (order.byAccount.get(accountId) ?? []);
  for (let i = entries.length - 1; i >= 0; i--) yield entries[i] as PublishedDestination;
}

/** A post was added, or one of its destinations went out. */
export function publishedChanged(posts: Readonly<Record<string, PostRecord>>, post: PostRecord): void {
  const order = orders.get(posts);
  if (order !== undefined) place(order, post);
}
