import { defineStore, type HasWorkspaceData } from '../../store/define-store.js';
import { groupedIndex } from '../../store/grouped-index.js';
import { compareKeys, type SortKey } from '../../http/lists.js';
import { getOwn } from '../../lib/records.js';

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

/** One conversation as the inbox orders it: by `[lastActivityAt, id]`, as it was when last placed. */
interface Placed {
  readonly conversation: ConversationRecord;
  key: readonly [string, string];
}

/**
 * The inbox list's order (GET /v1/inbox/conversations, newest activity first), kept per account
 * so that a page costs O(log n + page) in the account's n conversations instead of a sort of them
 * all: an ascending array of `[lastActivityAt, id]` per account, and each conversation's entry.
 * Never persisted: built in one pass, O(n log n), on the first page of a workspace's inbox, kept by
 * `addConversation` and `addMessage` from then on (O(log n) to find the place and a splice, which
 * moves nothing when the conversation becomes the newest, as a new message makes it), and dropped
 * with the map it came from (a reset or a restore makes a new one), as src/store/grouped-index.ts.
 */
interface ActivityOrder {
  readonly byAccount: Map<string, Placed[]>;
  readonly placed: Map<string, Placed>;
}

const orders = new WeakMap<object, ActivityOrder>();

/** When anything last happened in a conversation: its newest message, or its creation. */
export function lastActivityAt(inbox: { messages: Readonly<Record<string, MessageRecord>> }, conversation: ConversationRecord): string {
  const last = conversation.lastMessageId === null ? undefined : getOwn(inbox.messages, conversation.lastMessageId);
  return last?.sentAt ?? conversation.createdAt;
}

function ascending(a: SortKey, b: SortKey): number {
  return compareKeys(a, b, 'asc');
}

/** The first position of `entries` whose key is not below `key`: O(log n). */
function lowerBound(entries: readonly Placed[], key: SortKey): number {
  let low = 0;
  let high = entries.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (ascending((entries[mid] as Placed).key, key) < 0) low = mid + 1;
    else high = mid;
  }
  return low;
}

function place(order: ActivityOrder, entry: Placed): void {
  let entries = order.byAccount.get(entry.conversation.accountId);
  if (entries === undefined) order.byAccount.set(entry.conversation.accountId, (entries = []));
  entries.splice(lowerBound(entries, entry.key), 0, entry);
  order.placed.set(entry.conversation.id, entry);
}

function activityOrder(inbox: InboxData): ActivityOrder {
  let order = orders.get(inbox.conversations);
  if (order === undefined) {
    order = { byAccount: new Map(), placed: new Map() };
    const all = Object.values(inbox.conversations).map((conversation): Placed => ({ conversation, key: [lastActivityAt(inbox, conversation), conversation.id] }));
    all.sort((a, b) => ascending(a.key, b.key));
    for (const entry of all) {
      const entries = order.byAccount.get(entry.conversation.accountId);
      if (entries === undefined) order.byAccount.set(entry.conversation.accountId, [entry]);
      else entries.push(entry);
      order.placed.set(entry.conversation.id, entry);
    }
    orders.set(inbox.conversations, order);
  }
  return order;
}

type InboxData = ReturnType<typeof inboxStore.read>;

/** Stores a new conversation (opened by the API, an inbound message, the fixtures): O(1), and O(log n) into a built order. Conversations are never removed. */
export function addConversation(workspace: HasWorkspaceData, conversation: ConversationRecord): void {
  const inbox = inboxStore.get(workspace);
  inbox.conversations[conversation.id] = conversation;
  byMember.added(inbox.conversations, conversation);
  const order = orders.get(inbox.conversations);
  if (order !== undefined) place(order, { conversation, key: [lastActivityAt(inbox, conversation), conversation.id] });
}

/** Stores a message of a conversation already stored, which becomes its newest: O(log n) in the account's conversations (the inbox order moves it). */
export function addMessage(workspace: HasWorkspaceData, conversation: ConversationRecord, message: MessageRecord): void {
  const inbox = inboxStore.get(workspace);
  inbox.messages[message.id] = message;
  conversation.lastMessageId = message.id;
  const order = orders.get(inbox.conversations);
  const entry = order?.placed.get(conversation.id);
  if (order === undefined || entry === undefined) return;
  const entries = order.byAccount.get(conversation.accountId) ?? [];
  const at = lowerBound(entries, entry.key);
  const index = entries[at] === entry ? at : entries.indexOf(entry);
  if (index >= 0) entries.splice(index, 1);
  entry.key = [lastActivityAt(inbox, conversation), conversation.id];
  place(order, entry);
}

/** The account's conversation with one person (a member id), if any: O(1) once the index is built. */
export function conversationWithMember(workspace: HasWorkspaceData, accountId: string, memberId: string): ConversationRecord | undefined {
  return byMember.of(inboxStore.read(workspace).conversations, memberKey(accountId, memberId))[0];
}

/**
 * Up to `count` of the account's conversations after `after` in the inbox list's order (newest
 * activity first, then id descending), with their keys: O(log n + count) once the order is built.
 */
export function conversationsByActivity(workspace: HasWorkspaceData, accountId: string, after: SortKey | undefined, count: number): Array<{ conversation: ConversationRecord; key: readonly [string, string] }> {
  const entries = activityOrder(inboxStore.read(workspace)).byAccount.get(accountId) ?? [];
  const page: Array<{ conversation: ConversationRecord; key: readonly [string, string] }> = [];
  for (let i = (after === undefined ? entries.length : lowerBound(entries, after)) - 1; i >= 0 && page.length < count; i--) {
    const entry = entries[i] as Placed;
    page.push({ conversation: entry.conversation, key: entry.key });
  }
  return page;
}
