import { defineStore } from '../../store/define-store.js';

/**
 * Kinds the mock can run: `comment_to_dm` answers a comment with a direct message,
 * `story_reply` answers a story reply, `welcome_dm` answers a message. Stored data
 * may hold kinds added later (open enumeration), hence `kind: string` below.
 */
export const AUTOMATION_KINDS = ['comment_to_dm', 'story_reply', 'welcome_dm'] as const;
export type AutomationKind = (typeof AUTOMATION_KINDS)[number];

/** A rule that answers a comment, story reply or message with a direct message. */
export interface AutomationRecord {
  id: string;
  /** The account whose comments or messages it watches and which sends the message. */
  accountId: string;
  /** Label (1 to 120). */
  name: string;
  /** One of AUTOMATION_KINDS, or a kind added later. */
  kind: string;
  /** Runs when a comment or message contains any of them, ignoring case (1 to 20). */
  keywords: string[];
  /** Skipped when any of them appears (up to 20). */
  excludeKeywords: string[];
  /** The direct message sent (1 to 1000). */
  message: string;
  /** False while paused. */
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
}

/** Automations of one workspace, by id. */
export const automationsStore = defineStore('automations', () => ({
  automations: {} as Record<string, AutomationRecord>,
}));
