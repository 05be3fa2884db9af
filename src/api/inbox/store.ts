import { defineStore, type HasWorkspaceData } from '../../store/define-store.js';
import { groupedIndex } from '../../store/grouped-index.js';

/**
 * The networks whose messages carry attachments, quick replies, buttons and cards
 * (only within 24 hours of the person's last message), and where people reply to
 * stories.
 */
export const RICH_MESSAGE_PLATFORMS: ReadonlySet<string> = new Set(['instagram', 'facebook']);

/** One side of a conversation, as the network names it. */
export interface ConversationMember {
  /** The network's id of the person or account (a DID, a page-scoped id, …). */
  id: string;
  /** Handle without a leading @; null when the network has not shared it (a conversation started by id only). */
  username: string | null;
  displayName: string | null;
}

/** A direct-message conversation of one inbox-capable account. */
export interface ConversationRecord {
  /** The service's id (uuid); the send-message operation takes it. */
  id: string;
  accountId: string;
  platform: string;
  /** Everyone in it, the connected account included (first the other people, then the account). */
  members: ConversationMember[];
  muted: boolean;
  /** Inbound messages the account has not read: those after its last outbound message. */
  unreadCount: number;
  createdAt: string;
  /** ISO time of the other person's last message; the 24-hour messaging window counts from it. Null when they never wrote. */
  lastInboundAt: string | null;
  /** The newest message either way (the list's `lastMessage`, without scanning messages); null before the first. */
  lastMessageId: string | null;
  /** The person's message that opened the conversation (welcome automations answer only it); absent when the account opened it. */
  openedByMessageId?: string;
}

/** An attachment of a message (photo-sharing and page-based networks only). */
export interface MessageAttachment {
  type: 'image' | 'video' | 'audio' | 'file';
  url: string;
}

export interface MessageRecord {
  /** The network's own message id (unique within a workspace). */
  id: string;
  conversationId: string;
  /** Null for an attachment-only message. */
  text: string | null;
  /** The member id of the writer: the person (inbound) or the account's own network id (outbound). */
  senderId: string;
  sentAt: string;
  attachments: MessageAttachment[];
  /** `inbound`: the person wrote to the account; `outbound`: the account wrote. */
  direction: 'inbound' | 'outbound';
  /** Interactive extras of an outbound message (photo-sharing and page-based networks), as sent; the Message shape does not show them. */
  quickReplies?: unknown[];
  buttons?: unknown[];
  cards?: unknown[];
  /** Set on a person's reply to a story: the story it answers (null ids for a story published outside the service). */
  storyReply?: { postId: string | null; destinationId: string | null };
  /** Set on a message an automation sent. */
  automationId?: string;
}

/** The inbox of one workspace: conversations and their messages, each by id. */
export const inboxStore = defineStore('inbox', () => ({
  /** Conversations by service id. */
  conversations: {} as Record<string, ConversationRecord>,
  /** Messages by network message id; `conversationId` links them to their conversation. */
  messages: {} as Record<string, MessageRecord>,
}));

/** The conversations of each account (src/store/grouped-index.ts): an account's inbox costs what it holds, not a walk of every conversation. */
const byAccount = groupedIndex<ConversationRecord>((conversation) => [conversation.accountId]);

/** Stores a new conversation (opened by the API, an inbound message, the fixtures): O(1). Conversations are never removed. */
export function addConversation(workspace: HasWorkspaceData, conversation: ConversationRecord): void {
  const { conversations } = inboxStore.get(workspace);
  conversations[conversation.id] = conversation;
  byAccount.added(conversations, conversation);
}

/** The conversations of one account, in the order they were opened: O(1) once the index is built. */
export function conversationsOfAccount(workspace: HasWorkspaceData, accountId: string): readonly ConversationRecord[] {
  return byAccount.of(inboxStore.read(workspace).conversations, accountId);
}
