import { compareKeys, type SortKey } from '../../http/lists.js';
import { KeptOrder, type Kept } from '../../lib/kept-order.js';
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
}

interface PublishedOrder {
  readonly all: KeptOrder<PublishedDestination>;
  readonly byAccount: Map<string, KeptOrder<PublishedDestination>>;
  /** The destination ids placed, so a post changed twice is not placed twice. */
  readonly placed: Set<string>;
}

const orders = new WeakMap<object, PublishedOrder>();

const ascending = (a: SortKey, b: SortKey) => compareKeys(a, b, 'asc');

/** The destinations of the post that went out and are not placed yet, each with its key `[publishedAt, id]`. */
function* unplaced(placed: Set<string>, post: PostRecord): Generator<Kept<PublishedDestination>> {
  for (const destination of post.destinations) {
    if (destination.publishedAt === null || placed.has(destination.id)) continue;
    placed.add(destination.id);
    yield { item: { post, destination }, key: [destination.publishedAt, destination.id] };
  }
}

function accountOrder(order: PublishedOrder, accountId: string): KeptOrder<PublishedDestination> {
  let mine = order.byAccount.get(accountId);
  if (mine === undefined) order.byAccount.set(accountId, (mine = new KeptOrder(ascending)));
  return mine;
}

function built(posts: Readonly<Record<string, PostRecord>>): PublishedOrder {
  let order = orders.get(posts);
  if (order === undefined) {
    const placed = new Set<string>();
    const all = new KeptOrder(ascending, Object.values(posts).flatMap((post) => [...unplaced(placed, post)]));
    order = { all, byAccount: new Map(), placed };
    // In ascending order already, so each lands at the end of its account's.
    for (const entry of [...all.descending()].reverse()) accountOrder(order, entry.item.destination.connectionId).insert(entry);
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
  const kept = accountId === undefined ? order.all : order.byAccount.get(accountId);
  for (const entry of kept?.descending() ?? []) yield entry.item;
}

/** A post was added, or one of its destinations went out. */
export function publishedChanged(posts: Readonly<Record<string, PostRecord>>, post: PostRecord): void {
  const order = orders.get(posts);
  if (order === undefined) return;
  for (const entry of unplaced(order.placed, post)) {
    order.all.insert(entry);
    accountOrder(order, entry.item.destination.connectionId).insert(entry);
  }
}
