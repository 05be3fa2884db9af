import { defineStore, type HasWorkspaceData } from '../../store/define-store.js';
import { groupedIndex } from '../../store/grouped-index.js';
import { compareKeys, type SortKey } from '../../http/lists.js';
import { getOwn } from '../../lib/records.js';
import { KeptOrder, type Kept } from '../../lib/kept-order.js';

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

/** The conversations of an account with each person (member id; src/store/grouped-index.ts): finding where a person's message goes reads that one, not the account's inbox. */
const byMember = groupedIndex<ConversationRecord>((conversation) => conversation.members.map((member) => memberKey(conversation.accountId, member.id)));

function memberKey(accountId: string, memberId: string): string {
  return `${accountId}\u0000${memberId}`;
}

/**
 * The inbox list's order (GET /v1/inbox/conversations, newest activity first), kept per account
 * so that a page costs O(log n + page) in the account's n conversations instead of a sort of them
 * all: `[lastActivityAt, id]` ascending per account (src/lib/kept-order.ts), and each
 * conversation's entry. Never persisted: built in one pass, O(n log n), on the first page of a
 * workspace's inbox, kept by `addConversation` and `addMessage` from then on (O(log n) and a
 * splice, which moves nothing when the conversation becomes the newest, as a new message makes
 * it), and dropped with the map it came from (a reset or a restore makes a new one).
 */
interface ActivityOrder {
  readonly byAccount: Map<string, KeptOrder<ConversationRecord>>;
  readonly placed: Map<string, Kept<ConversationRecord>>;
}

const orders = new WeakMap<object, ActivityOrder>();

/** When anything last happened in a conversation: its newest message, or its creation. */
function lastActivityAt(inbox: { messages: Readonly<Record<string, MessageRecord>> }, conversation: ConversationRecord): string {
  const last = conversation.lastMessageId === null ? undefined : getOwn(inbox.messages, conversation.lastMessageId);
  return last?.sentAt ?? conversation.createdAt;
}

const ascending = (a: SortKey, b: SortKey) => compareKeys(a, b, 'asc');

function place(order: ActivityOrder, entry: Kept<ConversationRecord>): void {
  let kept = order.byAccount.get(entry.item.accountId);
  if (kept === undefined) order.byAccount.set(entry.item.accountId, (kept = new KeptOrder(ascending)));
  kept.insert(entry);
  order.placed.set(entry.item.id, entry);
}

type InboxData = ReturnType<typeof inboxStore.read>;

function placed(inbox: InboxData, conversation: ConversationRecord): Kept<ConversationRecord> {
  return { item: conversation, key: [lastActivityAt(inbox, conversation), conversation.id] };
}

function activityOrder(inbox: InboxData): ActivityOrder {
  let order = orders.get(inbox.conversations);
  if (order === undefined) {
    const byAccount = new Map<string, Array<Kept<ConversationRecord>>>();
    const all = new Map<string, Kept<ConversationRecord>>();
    for (const conversation of Object.values(inbox.conversations)) {
      const entry = placed(inbox, conversation);
      all.set(conversation.id, entry);
      const group = byAccount.get(conversation.accountId);
      if (group === undefined) byAccount.set(conversation.accountId, [entry]);
      else group.push(entry);
    }
    order = { byAccount: new Map([...byAccount].map(([accountId, group]) => [accountId, new KeptOrder(ascending, group)])), placed: all };
    orders.set(inbox.conversations, order);
  }
  return order;
}

/** Stores a new conversation (opened by the API, an inbound message, the fixtures): O(1), and O(log n) into a built order. Conversations are never removed. */
export function addConversation(workspace: HasWorkspaceData, conversation: ConversationRecord): void {
  const inbox = inboxStore.get(workspace);
  inbox.conversations[conversation.id] = conversation;
  byMember.added(inbox.conversations, conversation);
  const order = orders.get(inbox.conversations);
  if (order !== undefined) place(order, placed(inbox, conversation));
}

/** Stores a message of a conversation already stored, which becomes its newest: O(log n) in the account's conversations (the inbox order moves it). */
export function addMessage(workspace: HasWorkspaceData, conversation: ConversationRecord, message: MessageRecord): void {
  const inbox = inboxStore.get(workspace);
  inbox.messages[message.id] = message;
  conversation.lastMessageId = message.id;
  const order = orders.get(inbox.conversations);
  const entry = order?.placed.get(conversation.id);
  if (entry !== undefined) order?.byAccount.get(conversation.accountId)?.move(entry, placed(inbox, conversation).key);
}

/** The account's conversation with one person (a member id), if any: O(1) once the index is built. */
export function conversationWithMember(workspace: HasWorkspaceData, accountId: string, memberId: string): ConversationRecord | undefined {
  return byMember.of(inboxStore.read(workspace).conversations, memberKey(accountId, memberId))[0];
}

/**
 * Up to `count` of the account's conversations after `after` in the inbox list's order (newest
 * activity first, then id descending), with their keys: O(log n + count) once the order is built.
 */
export function conversationsByActivity(workspace: HasWorkspaceData, accountId: string, after: SortKey | undefined, count: number): Array<Kept<ConversationRecord>> {
  const page: Array<Kept<ConversationRecord>> = [];
  for (const entry of activityOrder(inboxStore.read(workspace)).byAccount.get(accountId)?.descending(after) ?? []) {
    if (page.length >= count) break;
    page.push(entry);
  }
  return page;
}
