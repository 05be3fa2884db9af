import { defineStore } from '../../store/define-store.js';

/** The toggles the microblogging network offers on a post; a quote is a post of its own (in the posts store). */
export const ENGAGEMENT_KINDS = ['like', 'repost', 'bookmark'] as const;
export type EngagementKind = (typeof ENGAGEMENT_KINDS)[number];

/** What the publishing account has done to one destination: each kind, since when (ISO); absent when undone or never done. */
export type EngagementState = Partial<Record<EngagementKind, string>>;

/** Likes, reposts and bookmarks of one workspace, by destination id. */
export const engagementStore = defineStore('engagement', () => ({
  byDestination: {} as Record<string, EngagementState>,
}));
