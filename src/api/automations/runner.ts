import type { DomainEvent } from '../../events/catalog.js';
import { textLength } from '../../platforms/text-limit.js';
import type { Workspace } from '../../workspaces/workspace.js';
import { accountsStore } from '../accounts/store.js';
import { commentsStore } from '../comments/store.js';
import { conversationFor, deliverOutbound, inboxTextLimit } from '../inbox/service.js';
import { inboxStore, type ConversationMember, type ConversationRecord } from '../inbox/store.js';
import { matchKeywords } from './matching.js';
import { automationsStore, type AutomationKind, type AutomationRecord } from './store.js';

/** What set a rule off, as AutomationEventData's `trigger` shows it. */
interface Trigger {
  type: 'comment' | 'story_reply' | 'message';
  /** Comment id (service) or message id (network). */
  id: string;
  senderId: string;
  text: string | null;
}

interface Run {
  kind: AutomationKind;
  accountId: string;
  /** The network the trigger came from (the account's). */
  platform: string;
  trigger: Trigger;
  /** The person the direct message goes to. */
  person: ConversationMember;
  /** The conversation the trigger came in, when it was a message. */
  conversation?: ConversationRecord;
}

/**
 * The automation runner, an event subscriber: an inbound comment (`comment_to_dm`),
 * story reply (`story_reply`) or the message that opens a conversation
 * (`welcome_dm`) runs every enabled rule of that kind on that account whose keywords
 * it matches. Each run sends the rule's message into the person's conversation
 * (opened when needed) and emits `message.sent` and `automation.triggered`, or
 * `automation.failed` saying why. It runs synchronously inside the emit, so the
 * inbound call that caused it already sees its effects.
 */
export function automationRunner(workspace: Workspace, event: DomainEvent): void {
  const run = event.event === 'comment.received' ? fromComment(workspace, event) : event.event === 'message.received' ? fromMessage(workspace, event) : undefined;
  if (!run) return;
  const rules = Object.values(automationsStore.get(workspace).automations)
    .filter((automation) => automation.enabled && automation.accountId === run.accountId && automation.kind === run.kind)
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  for (const automation of rules) {
    const matchedKeyword = matchKeywords(run.trigger.text, automation.keywords, automation.excludeKeywords);
    if (matchedKeyword !== undefined) answer(workspace, automation, run, matchedKeyword);
  }
}

function fromComment(workspace: Workspace, event: DomainEvent): Run | undefined {
  const commentId = (event.data.comment as { id?: unknown } | undefined)?.id;
  const comment = typeof commentId === 'string' ? commentsStore.get(workspace).comments[commentId] : undefined;
  // The account's own comments never set off its rules.
  if (!comment || comment.fromAccount) return undefined;
  const senderId = comment.authorId ?? '';
  return {
    kind: 'comment_to_dm',
    accountId: comment.accountId,
    platform: comment.platform,
    trigger: { type: 'comment', id: comment.id, senderId, text: comment.text },
    person: { id: senderId, username: comment.username, displayName: comment.authorName ?? null },
  };
}

function fromMessage(workspace: Workspace, event: DomainEvent): Run | undefined {
  const messageId = (event.data.message as { id?: unknown } | undefined)?.id;
  const inbox = inboxStore.get(workspace);
  const message = typeof messageId === 'string' ? inbox.messages[messageId] : undefined;
  const conversation = message ? inbox.conversations[message.conversationId] : undefined;
  if (!message || !conversation || message.direction !== 'inbound') return undefined;
  const person = conversation.members.find((member) => member.id === message.senderId) ?? { id: message.senderId, username: null, displayName: null };
  const base = { accountId: conversation.accountId, platform: conversation.platform, person, conversation };
  // A story reply runs the story rules only, even when it opens the conversation: one answer per trigger.
  if (message.storyReply) return { ...base, kind: 'story_reply', trigger: { type: 'story_reply', id: message.id, senderId: message.senderId, text: message.text } };
  if (conversation.openedByMessageId === message.id) return { ...base, kind: 'welcome_dm', trigger: { type: 'message', id: message.id, senderId: message.senderId, text: message.text } };
  return undefined;
}

/** Why a rule cannot send now, or undefined when it can. */
function failure(workspace: Workspace, automation: AutomationRecord, run: Run): { code: string; message: string } | undefined {
  const account = accountsStore.get(workspace).accounts[automation.accountId];
  if (!account) return { code: 'NOT_FOUND', message: `Account '${automation.accountId}' is no longer connected.` };
  const limit = inboxTextLimit(account.platform);
  if (limit === null) return { code: 'PLATFORM_NOT_SUPPORTED', message: `${account.platform} has no direct messages.` };
  if (account.status !== 'active') return { code: 'ACCOUNT_RECONNECT_REQUIRED', message: `Account '${account.id}' is ${account.status}; reconnect it so its automations can send again.` };
  const length = textLength(automation.message);
  if (length > limit) return { code: 'TEXT_TOO_LONG', message: `The automation's message is ${length} characters; ${account.platform} messages allow at most ${limit}.` };
  if (run.person.id === '') return { code: 'VALIDATION_ERROR', message: 'The network did not say who wrote the comment, so there is no one to write to.' };
  return undefined;
}

function answer(workspace: Workspace, automation: AutomationRecord, run: Run, matchedKeyword: string): void {
  const data = { automationId: automation.id, accountId: automation.accountId, platform: run.platform, kind: automation.kind, trigger: run.trigger, matchedKeyword };
  const account = accountsStore.get(workspace).accounts[automation.accountId];
  const problem = failure(workspace, automation, run);
  if (problem || !account) {
    workspace.events.emit('automation.failed', { ...data, messageId: null, error: problem ?? { code: 'NOT_FOUND', message: 'The account is gone.' } });
    return;
  }
  // The trigger is a fresh inbound, so the 24-hour window is open; the message is plain text anyway.
  const conversation = run.conversation ?? conversationFor(workspace, account, run.person);
  const message = deliverOutbound(workspace, account, conversation, { text: automation.message, attachments: [], automationId: automation.id });
  workspace.events.emit('automation.triggered', { ...data, messageId: message.id, error: null });
}
