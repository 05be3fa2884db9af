import { defineStore } from '../../store/define-store.js';
import type { NetworkPost } from './network-timeline.js';

/** Account syncs of one workspace. Imported posts themselves live in the posts store (`source: external`). */
export const syncStore = defineStore('sync', () => ({
  /** Virtual time (ms) of each account's last sync that reached the network, by account id: drives the 15-second skip. */
  lastSyncedAtMs: {} as Record<string, number>,
}));

/**
 * Posts accounts made on their networks on purpose (a scenario's `network.post`
 * step), on top of the seeded timeline; a store of its own so data saved before it
 * existed still loads.
 */
export const postedOnNetworkStore = defineStore('postedOnNetwork', () => ({
  /** By account id, oldest first. Kept after a sync imports them: the network still holds them. */
  byAccount: {} as Record<string, NetworkPost[]>,
}));
