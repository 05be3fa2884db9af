import { encodeComponent } from '../lib/uri.js';
import { performance } from 'node:perf_hooks';
import { accountView } from '../api/accounts/service.js';
import { accountsStore, type AccountRecord } from '../api/accounts/store.js';
import { automationsStore, type AutomationRecord } from '../api/automations/store.js';
import { commentView } from '../api/comments/service.js';
import { commentsStore, type CommentRecord } from '../api/comments/store.js';
import { conversationView, messageView } from '../api/inbox/service.js';
import { inboxStore, type ConversationRecord, type MessageRecord } from '../api/inbox/store.js';
import { decideOutcome, decidedOutcome } from '../api/posts/outcomes.js';
import { getPost } from '../api/posts/service.js';
import { postsStore } from '../api/posts/store.js';
import { type DestinationRecord, type PostRecord } from '../api/posts/records.js';
import { destinationView, postView } from '../api/posts/views.js';
import { profilesStore } from '../api/profiles/store.js';
import { reviewView } from '../api/reviews/service.js';
import { reviewsStore, type ReviewRecord } from '../api/reviews/store.js';
import { createDelivery, startAttempt } from '../api/webhooks/dispatcher.js';
import { deliveryView, forceDeliveryFailures, getWebhook, redeliver } from '../api/webhooks/service.js';
import { webhooksStore, type WebhookRecord } from '../api/webhooks/store.js';
import { EMITTED_DATA_MAX_BYTES } from '../events/bus.js';
import type { DomainEvent, EventName } from '../events/catalog.js';
import type { components } from '../generated/control.js';
import { didYouMean } from '../lib/did-you-mean.js';
import { ApiError, validationError } from '../lib/errors.js';
import { created, ok, route, type HandlerInput, type Reply, type RouteDefinition } from '../http/route.js';
import { loadSpec } from '../http/spec.js';
import { mergeOverrides } from '../lib/merge-overrides.js';
import { getOwn } from '../lib/records.js';
import type { Workspace } from '../workspaces/workspace.js';
import type { ControlRouteFactory } from './dependencies.js';
import { withEventReport } from './event-report.js';

/*
 * Triggers on existing objects: break one thing now, in the running workspace,
 * without a scenario or a reset. Each changes state through the area's own service
 * (the publishing pipeline, the webhook faults, the event bus), so what follows is
 * what the real flow does.
 */

type Schemas = components['schemas'];
type PostOutcomeBody = Schemas['PostOutcomeBody'];
type WebhookFailuresBody = Schemas['WebhookFailuresBody'];
type EmitEventBody = Schemas['EmitEventBody'];

/**
 * Control calls are not in the journal (it records what the API was asked), but a
 * trigger changes the world behind the API's back, so a test reading the journal must
 * see it among the requests: each trigger that was carried out is recorded under its
 * operationId. A refused one changed nothing and leaves no entry.
 */
function journaled<Params extends Record<string, string>, Body>(
  operationId: string,
  handle: (input: HandlerInput<Params, never, Body>) => Reply | Promise<Reply>,
): RouteDefinition {
  return route<Params, never, Body>(operationId, async (input) => {
    const startedAt = performance.now();
    const at = input.workspace.nowIso();
    const reply = await handle(input);
    const path = input.operation.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeComponent(input.params[name] ?? ''));
    input.workspace.journal.record({
      at,
      method: input.operation.method.toUpperCase(),
      path,
      operationId,
      status: reply.status,
      errorCode: null,
      durationMs: performance.now() - startedAt,
      matchedRule: null,
      effect: null,
    });
    return reply;
  });
}

// ---------------------------------------------------------------------------
// POST /__control/posts/{id}/outcome

let errorCodes: ReadonlySet<string> | undefined;

/** The codes openapi.yaml's error envelope names (its `x-known-values`): what a decided failure may carry. */
function knownErrorCodes(): ReadonlySet<string> {
  if (!errorCodes) {
    const document = loadSpec('openapi.yaml').document as { components?: { schemas?: Record<string, unknown> } };
    const envelope = document.components?.schemas?.['ErrorResponse'] as { properties?: { error?: { properties?: { code?: Record<string, unknown> } } } } | undefined;
    const known = envelope?.properties?.error?.properties?.code?.['x-known-values'];
    errorCodes = new Set(Array.isArray(known) ? known.filter((code): code is string => typeof code === 'string') : []);
  }
  return errorCodes;
}

function outcomeView(workspace: Workspace, post: PostRecord) {
  return {
    postId: post.id,
    status: post.status as 'queued' | 'scheduled',
    destinations: post.destinations.map((destination) => {
      const outcome = decidedOutcome(workspace, post.id, destination.id);
      return { destinationId: destination.id, accountId: destination.connectionId, platform: destination.platform, outcome: outcome ? { ...outcome } : null };
    }),
  };
}

function setPostOutcome(workspace: Workspace, postId: string, body: PostOutcomeBody) {
  const post = getPost(workspace, postId);
  if (post.status !== 'queued' && post.status !== 'scheduled') {
    throw new ApiError(409, 'CONFLICT', `Post '${post.id}' is ${post.status}; only a queued or scheduled post can still be given an outcome.`);
  }
  if (body.result === 'failed') {
    if (body.errorCode === undefined) throw validationError('errorCode', 'A failed outcome needs errorCode: the code its destinations fail with, such as PLATFORM_ERROR.');
    if (!knownErrorCodes().has(body.errorCode)) {
      const near = didYouMean(body.errorCode, [...knownErrorCodes()]);
      throw validationError('errorCode', `errorCode must be one of the codes openapi.yaml's error envelope names (${[...knownErrorCodes()].join(', ')}); got '${body.errorCode}'${near === '' ? '.' : near}`);
    }
  } else {
    // A published destination has no error: a code or a message would be silently dropped.
    if (body.errorCode !== undefined) throw validationError('errorCode', 'errorCode goes with result failed only.');
    if (body.message !== undefined) throw validationError('message', 'message goes with result failed only.');
  }
  let destinations: DestinationRecord[] = post.destinations;
  if (body.accountId !== undefined) {
    const accountId = body.accountId;
    destinations = post.destinations.filter((destination) => destination.connectionId === accountId);
    if (destinations.length === 0) {
      const accounts = [...new Set(post.destinations.map((destination) => destination.connectionId))].join(', ');
      throw validationError('accountId', `Post '${post.id}' does not publish to account '${accountId}'; it publishes to ${accounts}.`);
    }
  }
  decideOutcome(workspace, post.id, destinations, {
    result: body.result,
    errorCode: body.result === 'failed' ? (body.errorCode ?? null) : null,
    message: body.result === 'failed' ? (body.message ?? null) : null,
  });
  workspace.changed();
  return outcomeView(workspace, post);
}

// ---------------------------------------------------------------------------
// POST /__control/events

/** What an event's payload is built from. */
const OBJECT_KINDS = ['post', 'destination', 'account', 'comment', 'message', 'conversation', 'review', 'automation', 'webhook'] as const;
type ObjectKind = (typeof OBJECT_KINDS)[number];

/** The kind of object each event is about (the object the service builds its payload from). */
function objectKindOf(event: EventName): ObjectKind {
  if (event.startsWith('post.platform.')) return 'destination';
  if (event === 'conversation.started') return 'conversation';
  if (event === 'review.new') return 'review';
  if (event === 'webhook.test') return 'webhook';
  return event.slice(0, event.indexOf('.')) as ObjectKind;
}

/** An object an event can be built from, found by id. */
type Found =
  | { kind: 'post'; post: PostRecord }
  | { kind: 'destination'; post: PostRecord; destination: DestinationRecord }
  | { kind: 'account'; account: AccountRecord }
  | { kind: 'comment'; comment: CommentRecord }
  | { kind: 'message'; message: MessageRecord; conversation: ConversationRecord | undefined }
  | { kind: 'conversation'; conversation: ConversationRecord }
  | { kind: 'review'; review: ReviewRecord }
  | { kind: 'automation'; automation: AutomationRecord }
  | { kind: 'webhook'; webhook: WebhookRecord };

/** The object of a kind with this id; undefined when this workspace has none. Reads only. */
function find(workspace: Workspace, kind: ObjectKind, id: string): Found | undefined {
  switch (kind) {
    case 'post': {
      const post = getOwn(postsStore.read(workspace).posts, id);
      return post && { kind, post };
    }
    case 'destination': {
      for (const post of Object.values(postsStore.read(workspace).posts)) {
        const destination = post.destinations.find((candidate) => candidate.id === id);
        if (destination) return { kind, post, destination };
      }
      return undefined;
    }
    case 'account': {
      const account = getOwn(accountsStore.read(workspace).accounts, id);
      return account && { kind, account };
    }
    case 'comment': {
      const comment = getOwn(commentsStore.read(workspace).comments, id);
      return comment && { kind, comment };
    }
    case 'message': {
      const inbox = inboxStore.read(workspace);
      const message = getOwn(inbox.messages, id);
      return message && { kind, message, conversation: getOwn(inbox.conversations, message.conversationId) };
    }
    case 'conversation': {
      const conversation = getOwn(inboxStore.read(workspace).conversations, id);
      return conversation && { kind, conversation };
    }
    case 'review': {
      const review = getOwn(reviewsStore.read(workspace).reviews, id);
      return review && { kind, review };
    }
    case 'automation': {
      const automation = getOwn(automationsStore.read(workspace).automations, id);
      return automation && { kind, automation };
    }
    case 'webhook': {
      const webhook = getOwn(webhooksStore.read(workspace).webhooks, id);
      return webhook && { kind, webhook };
    }
  }
}

/** The object `objectId` names for this event, or the 400 (another kind of object) or 404 naming `objectId`. */
function objectFor(workspace: Workspace, event: EventName, objectId: string): Found {
  const kind = objectKindOf(event);
  const found = find(workspace, kind, objectId);
  if (found) return found;
  const other = OBJECT_KINDS.find((candidate) => candidate !== kind && find(workspace, candidate, objectId));
  if (other) throw validationError('objectId', `'${objectId}' is a ${other}; ${event} is built from a ${kind}, so objectId must name one.`);
  throw new ApiError(404, 'NOT_FOUND', `No ${kind} '${objectId}' in this workspace (${event} is built from a ${kind}).`, { param: 'objectId' });
}

/** How the trigger of an automation's kind is named in its events. */
function triggerType(kind: string): 'comment' | 'story_reply' | 'message' {
  if (kind === 'comment_to_dm') return 'comment';
  if (kind === 'story_reply') return 'story_reply';
  return 'message';
}

/** The platform of an account, when it is still connected. */
function platformOf(workspace: Workspace, accountId: string): string | null {
  return getOwn(accountsStore.read(workspace).accounts, accountId)?.platform ?? null;
}

/**
 * The event's `data` as the service builds it, from the object's current state.
 * What an object does not keep (an automation's last trigger and message) comes
 * empty: the overrides fill it in.
 */
function payloadOf(workspace: Workspace, event: EventName, object: Found): Record<string, unknown> {
  switch (object.kind) {
    case 'post':
      return { post: postView(workspace, object.post) };
    case 'destination':
      return { postId: object.post.id, destination: destinationView(workspace, object.destination) };
    case 'account': {
      const account = object.account;
      if (event !== 'account.disconnected') return { account: accountView(workspace, account) };
      // What account.disconnected carries: the account as it was, gone from now.
      const profile = account.profileId ? (getOwn(profilesStore.read(workspace).profiles, account.profileId)?.name ?? null) : null;
      return { id: account.id, platform: account.platform, displayName: account.displayName, handle: account.handle, profile, disconnectedAt: workspace.nowIso() };
    }
    case 'comment':
      return { destinationId: object.comment.destinationId, comment: commentView(object.comment) };
    case 'message':
      return { accountId: object.conversation?.accountId ?? null, platform: object.conversation?.platform ?? null, message: messageView(object.message) };
    case 'conversation':
      return { accountId: object.conversation.accountId, platform: object.conversation.platform, conversation: conversationView(workspace, object.conversation) };
    case 'review':
      return { accountId: object.review.accountId, platform: platformOf(workspace, object.review.accountId), review: reviewView(object.review) };
    case 'automation': {
      const { automation } = object;
      return {
        automationId: automation.id,
        accountId: automation.accountId,
        platform: platformOf(workspace, automation.accountId),
        kind: automation.kind,
        trigger: { type: triggerType(automation.kind), id: '', senderId: '', text: null },
        matchedKeyword: automation.keywords[0] ?? null,
        messageId: null,
        error: event === 'automation.failed' ? { code: 'PLATFORM_ERROR', message: 'The direct message could not be sent.' } : null,
      };
    }
    case 'webhook':
      return { webhookId: object.webhook.id, message: 'This is a test event from the Social Publishing Gateway.' };
  }
}

/** The deliveries an event made: the newest delivery of each webhook that carries it. */
function deliveriesOf(workspace: Workspace, event: DomainEvent): Array<{ webhookId: string; deliveryId: string }> {
  const store = webhooksStore.read(workspace);
  const made: Array<{ webhookId: string; deliveryId: string }> = [];
  for (const webhook of Object.values(store.webhooks).sort((a, b) => a.seq - b.seq)) {
    const log = store.deliveries[webhook.id] ?? [];
    const delivery = log.findLast((candidate) => candidate.eventId === event.id);
    if (delivery) made.push({ webhookId: webhook.id, deliveryId: delivery.id });
  }
  return made;
}

async function emitForObject(workspace: Workspace, body: EmitEventBody) {
  const event = body.event;
  const object = objectFor(workspace, event, body.objectId);
  const data = mergeOverrides(payloadOf(workspace, event, object), body.overrides ?? {}) as Record<string, unknown>;
  const size = JSON.stringify(data).length;
  if (size > EMITTED_DATA_MAX_BYTES) {
    throw validationError('overrides', `The event's data would take ${size} bytes; an emitted event carries at most ${EMITTED_DATA_MAX_BYTES} (it is kept in every webhook's delivery log). Override fewer or smaller fields.`);
  }
  const report = withEventReport(workspace, () => workspace.events.emit(event, data));
  const emitted = report.result;
  if (event === 'webhook.test') {
    // The dispatcher leaves webhook.test to the test endpoint: it goes to the one webhook named, whatever its events.
    const webhook = getWebhook(workspace, body.objectId);
    const delivery = createDelivery(workspace, webhook, emitted, 'test');
    await startAttempt(workspace, webhook.id, delivery.id, 'manual');
  }
  workspace.changed();
  // The emitted event is itself an automation event when one was asked for: only what it set off counts.
  const automations = event.startsWith('automation.') ? report.automations.slice(1) : report.automations;
  const { id, createdAt, workspaceId } = emitted;
  return { event: { id, event, createdAt, workspaceId, data: emitted.data }, deliveries: deliveriesOf(workspace, emitted), automations };
}

// ---------------------------------------------------------------------------

/** The operations of control.yaml's tag Triggers: break one thing now, on an object that exists. */
export const triggersRoutes: ControlRouteFactory = () => [
  journaled<{ id: string }, PostOutcomeBody>('setPostOutcome', ({ workspace, params, body }) => ok(setPostOutcome(workspace, params.id, body))),

  journaled<{ id: string }, WebhookFailuresBody>('failWebhookDeliveries', ({ workspace, params, body }) => {
    const faults = forceDeliveryFailures(workspace, params.id, body);
    workspace.changed();
    return ok({ webhookId: params.id, faults });
  }),

  journaled<{ id: string; deliveryId: string }, never>('redeliverDelivery', async ({ workspace, params }) => ok(deliveryView(await redeliver(workspace, params.id, params.deliveryId)))),

  journaled<Record<string, string>, EmitEventBody>('emitEvent', async ({ workspace, body }) => created(await emitForObject(workspace, body))),
];
