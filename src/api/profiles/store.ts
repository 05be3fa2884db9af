import { defineStore } from '../../store/define-store.js';

/** A profile groups connections; one per workspace is the default for new connections. */
export interface ProfileRecord {
  id: string;
  name: string;
  isDefault: boolean;
  createdAt: string;
}

/** Profiles of one workspace, by id. */
export const profilesStore = defineStore('profiles', () => ({
  profiles: {} as Record<string, ProfileRecord>,
}));
