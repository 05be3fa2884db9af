import { defineStore } from '../../store/define-store.js';

/** Account syncs of one workspace. Imported posts themselves live in the posts store (`source: external`). */
export const syncStore = defineStore('sync', () => ({
  /** Virtual time (ms) of each account's last sync that reached the network, by account id: drives the 15-second skip. */
  lastSyncedAtMs: {} as Record<string, number>,
}));
