import type { components } from '../../generated/openapi.js';
import { ApiError, validationError } from '../../lib/errors.js';
import { compareKeys, indexedListPage } from '../../http/lists.js';
import { fakePerson, fakeText } from '../world/fakes.js';
import { platformFacts } from '../../platforms/catalog.js';
import { networkMessageId } from '../../platforms/external-ids.js';
import { checkTextLimit } from '../../platforms/text-limit.js';
import type { Workspace } from '../../workspaces/workspace.js';
import { accountsStore, type AccountRecord } from '../accounts/store.js';
import { findTarget, requireActive } from '../engagement/target.js';
import { postsStore } from '../posts/store.js';
import { publishedNewestFirst } from '../posts/published-index.js';
import { type DestinationRecord, type PostRecord } from '../posts/records.js';
import { ATTACHMENT_EXTENSIONS, MESSAGING_WINDOW_MS, attachmentTypeOf, notPublicHttpsReason, windowOpen } from './message-rules.js';
import { addConversation, addMessage, conversationsByActivity, conversationWithMember, inboxStore, type ConversationMember, type ConversationRecord, type MessageAttachment, type MessageRecord, RICH_MESSAGE_PLATFORMS } from './store.js';
import { getOwn } from '../../lib/records.js';

export type ConversationView = components['schemas']['Conversation'];
export type MessageView = components['schemas']['Message'];
type SendMessageBody = components['schemas']['SendMessageBody'];
type MessageButton = components['schemas']['MessageButton'];

/** The inbox text limit of a network; null where it has no inbox. */
export function inboxTextLimit(platform: string): number | null {
  return platformFacts(platform)?.inboxTextLimit ?? null;
}

export function supportsStoryReplies(platform: string): boolean {
  return RICH_MESSAGE_PLATFORMS.has(platform);
}

/** An account of this workspace with an inbox: 404 naming `param` when unknown, 400 PLATFORM_NOT_SUPPORTED without an inbox. */
export function inboxAccount(workspace: Workspace, accountId: string, param: string): AccountRecord {
  const account = getOwn(accountsStore.read(workspace).accounts, accountId);
  if (!account) throw new ApiError(404, 'NOT_FOUND', `Account '${accountId}' was not found in this workspace.`, { param });
  if (inboxTextLimit(account.platform) === null) {
    throw new ApiError(400, 'PLATFORM_NOT_SUPPORTED', `${account.platform} has no inbox; direct messages work on bluesky, instagram and facebook.`, {
      param,
      details: { platform: account.platform },
    });
  }
  return account;
}

export function messageView(message: MessageRecord): MessageView {
  return {
    id: message.id,
    conversationId: message.conversationId,
    text: message.text,
    senderId: message.senderId,
    sentAt: message.sentAt,
    attachments: message.attachments.map((attachment) => ({ ...attachment })),
  };
}

export function conversationView(workspace: Workspace, conversation: ConversationRecord): ConversationView {
  const last = conversation.lastMessageId === null ? undefined : inboxStore.get(workspace).messages[conversation.lastMessageId];
  return {
    id: conversation.id,
    members: conversation.members.map((member) => ({ ...member })),
    muted: conversation.muted,
    unreadCount: conversation.unreadCount,
    lastMessage: last ? { id: last.id, text: last.text, sentAt: last.sentAt } : null,
    createdAt: conversation.createdAt,
  };
}

/**
 * GET /v1/inbox/conversations: the account's conversations, newest activity first, read from the
 * order the store keeps (store.ts): O(log n + page) in the account's n conversations.
 */
export function listConversations(workspace: Workspace, query: { accountId: string; limit?: number; cursor?: string }): components['schemas']['ConversationList'] {
  const account = inboxAccount(workspace, query.accountId, 'accountId');
  const page = indexedListPage(workspace, {
    list: 'conversations',
    query,
    following: (after, count) => conversationsByActivity(workspace, account.id, after, count),
    keyOf: (item) => item.key,
    limit: query.limit ?? 50,
  });
  return { accountId: account.id, convos: page.data.map((entry) => conversationView(workspace, entry.item)), cursor: page.nextCursor };
}

/** The account's conversation with one person, if any: O(1) from the store's index of members. */
export function conversationWith(workspace: Workspace, account: AccountRecord, personId: string): ConversationRecord | undefined {
  return conversationWithMember(workspace, account.id, personId);
}

/** The account's conversation with a person, opened (empty) when there is none: where an automation's message goes. */
export function conversationFor(workspace: Workspace, account: AccountRecord, person: ConversationMember): ConversationRecord {
  return conversationWith(workspace, account, person.id) ?? openConversation(workspace, account, person);
}

/** The person on the other side (the first member; the account is the last). */
function otherMember(conversation: ConversationRecord): ConversationMember | undefined {
  return conversation.members[0];
}

/** A new, empty conversation between the account and a person. */
function openConversation(workspace: Workspace, account: AccountRecord, person: ConversationMember): ConversationRecord {
  const conversation: ConversationRecord = {
    id: workspace.newId(),
    accountId: account.id,
    platform: account.platform,
    members: [person, { id: account.platformUserId, username: account.handle, displayName: account.displayName }],
    muted: false,
    unreadCount: 0,
    createdAt: workspace.nowIso(),
    lastInboundAt: null,
    lastMessageId: null,
  };
  addConversation(workspace, conversation);
  return conversation;
}

/** A person's id as the network writes it: a DID on the decentralized network, digits on the others. */
function checkRecipientId(account: AccountRecord, recipientId: string): void {
  if (recipientId === account.platformUserId) throw validationError('recipientId', 'recipientId is the account itself; name the person to write to.');
  if (account.platform === 'bluesky' && !/^did:[a-z]+:[A-Za-z0-9._:%-]+$/.test(recipientId)) {
    throw validationError('recipientId', `On bluesky recipientId is the person's DID (did:plc:…), not '${recipientId}'.`);
  }
  if (RICH_MESSAGE_PLATFORMS.has(account.platform) && !/^\d{5,32}$/.test(recipientId)) {
    throw validationError('recipientId', `On ${account.platform} recipientId is the person's numeric id, not '${recipientId}'.`);
  }
}

/** What the account sends, checked. */
interface Outgoing {
  text: string;
  attachments: MessageAttachment[];
  quickReplies?: unknown[];
  buttons?: unknown[];
  cards?: unknown[];
  automationId?: string;
}

/** Stores the account's message, marks the conversation read and emits `message.sent`. */
export function deliverOutbound(workspace: Workspace, account: AccountRecord, conversation: ConversationRecord, outgoing: Outgoing): MessageRecord {
  const message: MessageRecord = {
    id: networkMessageId(workspace, account.platform, workspace.now()),
    conversationId: conversation.id,
    text: outgoing.text,
    senderId: account.platformUserId,
    sentAt: workspace.nowIso(),
    attachments: outgoing.attachments,
    direction: 'outbound',
    ...(outgoing.quickReplies && { quickReplies: outgoing.quickReplies }),
    ...(outgoing.buttons && { buttons: outgoing.buttons }),
    ...(outgoing.cards && { cards: outgoing.cards }),
    ...(outgoing.automationId !== undefined && { automationId: outgoing.automationId }),
  };
  addMessage(workspace, conversation, message);
  // Answering reads everything before it (the store's meaning of unreadCount).
  conversation.unreadCount = 0;
  workspace.events.emit('message.sent', { accountId: account.id, platform: account.platform, message: messageView(message) });
  return message;
}

export interface CreateConversationResult {
  conversation: ConversationRecord;
  /** False when the account already had a conversation with the person: that one is answered. */
  created: boolean;
}

/**
 * POST /v1/accounts/{id}/conversations: opens a conversation with `recipientId`
 * (or finds the one that exists) and, with `text`, sends a first message.
 */
export function createConversation(workspace: Workspace, accountId: string, body: { recipientId: string; text?: string }): CreateConversationResult {
  const account = inboxAccount(workspace, accountId, 'id');
  requireActive(account);
  checkRecipientId(account, body.recipientId);
  if (body.text !== undefined) checkTextLimit(body.text, inboxTextLimit(account.platform) ?? 0, account.platform);
  const existing = conversationWith(workspace, account, body.recipientId);
  // A conversation started by id alone: the network has not shared the person's names yet.
  const conversation = existing ?? openConversation(workspace, account, { id: body.recipientId, username: null, displayName: null });
  if (body.text !== undefined) deliverOutbound(workspace, account, conversation, { text: body.text, attachments: [] });
  return { conversation, created: !existing };
}

/** The account's conversation by id: another workspace's or another account's is 404. */
function conversationOf(workspace: Workspace, account: AccountRecord, conversationId: string): ConversationRecord {
  const conversation = getOwn(inboxStore.get(workspace).conversations, conversationId);
  if (!conversation || conversation.accountId !== account.id) {
    throw new ApiError(404, 'NOT_FOUND', `Conversation '${conversationId}' of account '${account.id}' was not found in this workspace.`, { param: 'conversationId' });
  }
  return conversation;
}

function checkButtons(buttons: readonly MessageButton[], path: string): void {
  buttons.forEach((button, i) => {
    if (button.type === 'postback' && button.payload === undefined) throw validationError(`${path}[${i}].payload`, `A postback button needs a payload (${path}[${i}]).`);
    if (button.type === 'web_url' && button.url === undefined) throw validationError(`${path}[${i}].url`, `A web_url button needs a url (${path}[${i}]).`);
    if (button.url !== undefined) {
      const reason = notPublicHttpsReason(button.url);
      if (reason) throw validationError(`${path}[${i}].url`, `${path}[${i}].url must be a public https URL: ${reason}.`);
    }
  });
}

/** The attachment an `attachmentUrl` makes: public https, and an image, video, audio file or PDF by its extension. */
function attachmentFrom(url: string, param: string, requirePublic: boolean): MessageAttachment {
  if (requirePublic) {
    const reason = notPublicHttpsReason(url);
    if (reason) throw validationError(param, `${param} must be a public https URL the network can fetch: ${reason}.`);
  }
  const type = attachmentTypeOf(url);
  if (!type) throw validationError(param, `${param} must point at an image, video, audio file or PDF (by its extension: ${ATTACHMENT_EXTENSIONS.join(', ')}).`);
  return { type, url };
}

/**
 * POST /v1/accounts/{id}/conversations/{conversationId}/messages, with every rule
 * of the reference, all checked before anything is stored:
 * the network's text limit; the extras (attachment, quick replies, buttons, cards)
 * only on the photo-sharing and page-based networks, an attachment never with
 * buttons or cards, and the extras only within 24 hours of the person's last
 * message. Plain text is not held to the window: the reference ties the window to
 * the extras.
 */
export function sendMessage(workspace: Workspace, accountId: string, conversationId: string, body: SendMessageBody): MessageRecord {
  const account = inboxAccount(workspace, accountId, 'id');
  const conversation = conversationOf(workspace, account, conversationId);
  requireActive(account);
  checkTextLimit(body.text, inboxTextLimit(account.platform) ?? 0, account.platform);

  const extras = (['attachmentUrl', 'quickReplies', 'buttons', 'cards'] as const).filter((field) => {
    const value = body[field];
    return value !== undefined && (typeof value === 'string' || value.length > 0);
  });
  const firstExtra = extras[0];
  if (firstExtra !== undefined && !RICH_MESSAGE_PLATFORMS.has(account.platform)) {
    throw new ApiError(400, 'PLATFORM_NOT_SUPPORTED', `${firstExtra} is for instagram and facebook messages only, not ${account.platform}.`, { param: firstExtra, details: { platform: account.platform } });
  }
  if (body.attachmentUrl !== undefined && (extras.includes('buttons') || extras.includes('cards'))) {
    throw validationError('attachmentUrl', 'attachmentUrl cannot be combined with buttons or cards; send the attachment in a message of its own.');
  }
  const attachments = body.attachmentUrl === undefined ? [] : [attachmentFrom(body.attachmentUrl, 'attachmentUrl', true)];
  if (body.buttons) checkButtons(body.buttons, 'buttons');
  body.cards?.forEach((card, i) => {
    if (card.imageUrl !== undefined) {
      const reason = notPublicHttpsReason(card.imageUrl);
      if (reason) throw validationError(`cards[${i}].imageUrl`, `cards[${i}].imageUrl must be a public https URL: ${reason}.`);
    }
    if (card.buttons) checkButtons(card.buttons, `cards[${i}].buttons`);
  });
  if (firstExtra !== undefined && !windowOpen(conversation.lastInboundAt, workspace.now())) {
    const closedAt = conversation.lastInboundAt === null ? null : new Date(Date.parse(conversation.lastInboundAt) + MESSAGING_WINDOW_MS).toISOString();
    throw new ApiError(
      400,
      'MESSAGING_WINDOW_CLOSED',
      conversation.lastInboundAt === null
        ? `${firstExtra} can only be sent within 24 hours of the person's last message, and this person has not written yet.`
        : `${firstExtra} can only be sent within 24 hours of the person's last message (${conversation.lastInboundAt}); the window closed at ${closedAt}.`,
      { param: firstExtra, details: { lastInboundAt: conversation.lastInboundAt, windowClosedAt: closedAt } },
    );
  }

  return deliverOutbound(workspace, account, conversation, {
    text: body.text,
    attachments,
    ...(body.quickReplies && body.quickReplies.length > 0 && { quickReplies: structuredClone(body.quickReplies) }),
    ...(body.buttons && body.buttons.length > 0 && { buttons: structuredClone(body.buttons) }),
    ...(body.cards && body.cards.length > 0 && { cards: structuredClone(body.cards) }),
  });
}

// ---------------------------------------------------------------------------
// The network side: people write (POST /__control/inbound/messages, /story-replies)
// ---------------------------------------------------------------------------

export interface InboundPersonInput {
  senderId?: string;
  username?: string | null;
  displayName?: string | null;
}

export interface InboundMessageInput extends InboundPersonInput {
  accountId?: string;
  conversationId?: string;
  /** Null for an attachment-only message; left out, a made-up sentence. */
  text?: string | null;
  attachmentUrl?: string;
}

export interface InboundStoryReplyInput extends InboundPersonInput {
  accountId?: string;
  /** The story replied to: a destination of a published `stories` post (or `post`, as for comments). */
  destinationId?: string;
  post?: string;
  text?: string;
}

export interface InboundResult {
  message: MessageRecord;
  conversation: ConversationRecord;
  /** True when this message opened the conversation. */
  started: boolean;
}

/** The oldest connected account that passes `accepts`: the default when an inbound call names none. */
function defaultAccount(workspace: Workspace, accepts: (account: AccountRecord) => boolean, what: string): AccountRecord {
  const candidates = Object.values(accountsStore.read(workspace).accounts).filter(accepts);
  candidates.sort((a, b) => compareKeys([a.createdAt, a.id], [b.createdAt, b.id], 'asc'));
  const first = candidates[0];
  if (!first) throw validationError('accountId', `This workspace has no account with ${what}; connect one or name accountId.`);
  return first;
}

/** The conversation an inbound message joins (undefined: a new one), checked against the account and sender. */
function inboundConversation(workspace: Workspace, account: AccountRecord, input: InboundPersonInput & { conversationId?: string }): ConversationRecord | undefined {
  if (input.conversationId !== undefined) {
    const conversation = conversationOf(workspace, account, input.conversationId);
    if (input.senderId !== undefined && !conversation.members.some((member) => member.id === input.senderId && member.id !== account.platformUserId)) {
      throw validationError('senderId', `'${input.senderId}' is not the person in conversation '${conversation.id}'.`);
    }
    return conversation;
  }
  if (input.senderId === account.platformUserId) throw validationError('senderId', 'senderId is the account itself; inbound messages come from people.');
  return input.senderId === undefined ? undefined : conversationWith(workspace, account, input.senderId);
}

/** Stores a person's message, opening the conversation when needed; emits `conversation.started` (when new) and `message.received`. */
function storeInbound(
  workspace: Workspace,
  account: AccountRecord,
  existing: ConversationRecord | undefined,
  person: InboundPersonInput,
  content: { text: string | null; attachments: MessageAttachment[]; storyReply?: MessageRecord['storyReply'] },
): InboundResult {
  let conversation = existing;
  if (!conversation) {
    const fake = fakePerson(workspace, account.platform, 'inbox');
    conversation = openConversation(workspace, account, {
      id: person.senderId ?? fake.id,
      username: person.username !== undefined ? person.username : fake.username,
      displayName: person.displayName !== undefined ? person.displayName : fake.displayName,
    });
  }
  const sender = otherMember(conversation);
  const message: MessageRecord = {
    id: networkMessageId(workspace, account.platform, workspace.now()),
    conversationId: conversation.id,
    text: content.text,
    senderId: sender?.id ?? person.senderId ?? '',
    sentAt: workspace.nowIso(),
    attachments: content.attachments,
    direction: 'inbound',
    ...(content.storyReply && { storyReply: content.storyReply }),
  };
  addMessage(workspace, conversation, message);
  conversation.lastInboundAt = message.sentAt;
  conversation.unreadCount++;
  if (!existing) conversation.openedByMessageId = message.id;
  if (!existing) workspace.events.emit('conversation.started', { accountId: account.id, platform: account.platform, conversation: conversationView(workspace, conversation) });
  workspace.events.emit('message.received', { accountId: account.id, platform: account.platform, message: messageView(message) });
  return { message, conversation, started: !existing };
}

/** Where an inbound message or story reply goes, once every check has passed. */
export interface InboundPlace {
  account: AccountRecord;
  /** The conversation it joins; undefined opens a new one. */
  existing: ConversationRecord | undefined;
}

/**
 * Every check of an inbound message, changing nothing: receiveMessage runs it first,
 * and a scenario's `inbound.message` step runs it when the scenario loads.
 */
export function checkInboundMessage(workspace: Workspace, input: InboundMessageInput): InboundPlace & { attachments: MessageAttachment[] } {
  let account: AccountRecord;
  if (input.conversationId !== undefined && input.accountId === undefined) {
    const conversation = getOwn(inboxStore.get(workspace).conversations, input.conversationId);
    if (!conversation) throw new ApiError(404, 'NOT_FOUND', `Conversation '${input.conversationId}' was not found in this workspace.`, { param: 'conversationId' });
    account = inboxAccount(workspace, conversation.accountId, 'conversationId');
  } else {
    account = input.accountId !== undefined ? inboxAccount(workspace, input.accountId, 'accountId') : defaultAccount(workspace, (a) => inboxTextLimit(a.platform) !== null, 'an inbox');
  }
  const existing = inboundConversation(workspace, account, input);
  if (typeof input.text === 'string') checkTextLimit(input.text, inboxTextLimit(account.platform) ?? 0, account.platform);
  if (input.attachmentUrl !== undefined && !RICH_MESSAGE_PLATFORMS.has(account.platform)) {
    throw new ApiError(400, 'PLATFORM_NOT_SUPPORTED', `Messages on ${account.platform} carry no attachments.`, { param: 'attachmentUrl', details: { platform: account.platform } });
  }
  if (input.text === null && input.attachmentUrl === undefined) throw validationError('text', 'A message without text needs an attachmentUrl.');
  const attachments = input.attachmentUrl === undefined ? [] : [attachmentFrom(input.attachmentUrl, 'attachmentUrl', false)];
  return { account, existing, attachments };
}

/**
 * A person writes to an account: into `conversationId`, into the conversation with
 * `senderId`, or opening a new one with a new person. Every field left out is made
 * up from the workspace's seed; the account defaults to the oldest account with an inbox.
 */
export function receiveMessage(workspace: Workspace, input: InboundMessageInput): InboundResult {
  const { account, existing, attachments } = checkInboundMessage(workspace, input);
  const text = input.text !== undefined ? input.text : fakeText(workspace, 'inbound', inboxTextLimit(account.platform) ?? 0);
  return storeInbound(workspace, account, existing, input, { text, attachments });
}

/** Stories stay up this long; a reply to an older one cannot be made. */
const STORY_LIFETIME_MS = 24 * 3_600_000;

function isLiveStory(workspace: Workspace, post: PostRecord, destination: DestinationRecord): boolean {
  return post.mediaKind === 'stories' && destination.status === 'published' && destination.publishedAt !== null && workspace.now() - Date.parse(destination.publishedAt) < STORY_LIFETIME_MS;
}

/**
 * Every check of an inbound story reply, changing nothing: receiveStoryReply runs it
 * first, and a scenario's `inbound.story-reply` step runs it when the scenario loads.
 */
export function checkInboundStoryReply(workspace: Workspace, input: InboundStoryReplyInput): InboundPlace & { story: { postId: string | null; destinationId: string | null } } {
  let account: AccountRecord;
  let story: { postId: string | null; destinationId: string | null } = { postId: null, destinationId: null };
  if (input.destinationId !== undefined || input.post !== undefined) {
    const target = findTarget(workspace, input);
    if (!isLiveStory(workspace, target.post, target.destination)) {
      throw validationError(target.via, `Destination '${target.destination.id}' is not a live story (a published stories post of the last 24 hours).`);
    }
    const owner = accountsStore.read(workspace).accounts[target.destination.connectionId];
    if (!owner) throw new ApiError(404, 'NOT_FOUND', `The account that published destination '${target.destination.id}' is no longer connected.`, { param: target.via });
    account = owner;
    story = { postId: target.post.id, destinationId: target.destination.id };
  } else {
    account = input.accountId !== undefined ? inboxAccount(workspace, input.accountId, 'accountId') : defaultAccount(workspace, (a) => supportsStoryReplies(a.platform), 'stories');
  }
  if (!supportsStoryReplies(account.platform)) {
    throw new ApiError(400, 'PLATFORM_NOT_SUPPORTED', `${account.platform} has no stories; story replies come on instagram and facebook.`, { param: 'accountId', details: { platform: account.platform } });
  }
  if (story.destinationId === null) {
    // The account's published destinations newest first (posts/published-index.ts), back to a
    // story's lifetime ago: O(k) for the k published in the last day, not a walk of every post.
    let newest: { post: PostRecord; destination: DestinationRecord } | undefined;
    for (const entry of publishedNewestFirst(postsStore.get(workspace).posts, account.id)) {
      if (workspace.now() - Date.parse(entry.destination.publishedAt ?? '') >= STORY_LIFETIME_MS) break;
      if (isLiveStory(workspace, entry.post, entry.destination)) {
        newest = entry;
        break;
      }
    }
    if (newest) story = { postId: newest.post.id, destinationId: newest.destination.id };
  }
  const existing = inboundConversation(workspace, account, input);
  if (input.text !== undefined) checkTextLimit(input.text, inboxTextLimit(account.platform) ?? 0, account.platform);
  return { account, existing, story };
}

/**
 * A person replies to an account's story (photo-sharing and page-based networks):
 * the reply arrives as a direct message in their conversation, marked as a story
 * reply. The story is the one named, else the account's newest live story, else
 * one published outside the service (null ids).
 */
export function receiveStoryReply(workspace: Workspace, input: InboundStoryReplyInput): InboundResult {
  const { account, existing, story } = checkInboundStoryReply(workspace, input);
  const text = input.text ?? fakeText(workspace, 'comments', inboxTextLimit(account.platform) ?? 0);
  return storeInbound(workspace, account, existing, input, { text, attachments: [], storyReply: story });
}
