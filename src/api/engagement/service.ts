import type { components } from '../../generated/openapi.js';
import { recordPublishes, velocityError, velocityRefusal } from '../posts/velocity.js';
import { platformFacts } from '../../platforms/catalog.js';
import { externalPostRef } from '../../platforms/external-ids.js';
import { checkTextLimit } from '../../platforms/text-limit.js';
import type { Workspace } from '../../workspaces/workspace.js';
import type { AccountRecord } from '../accounts/store.js';
import { addPost } from '../posts/store.js';
import { type DestinationRecord, type PostRecord } from '../posts/records.js';
import { destinationView, postView } from '../posts/views.js';
import { engagementStore, type EngagementKind } from './store.js';
import { resolveActingTarget, type TargetInput, type TargetRules } from './target.js';

export type EngagementResult = components['schemas']['EngagementResult'];
export type QuoteResult = components['schemas']['QuoteResult'];

/** Like, repost, bookmark and quote exist on the microblogging network alone. */
function engagementRules(action: string): TargetRules {
  return { action, supports: (platform) => platformFacts(platform)?.kind === 'microblogging' };
}

const ACTIONS: Record<EngagementKind, string> = { like: 'like', repost: 'repost', bookmark: 'bookmark' };

/**
 * Sets (`active` true) or clears a like, repost or bookmark of a published
 * microblogging destination, as the account that published it. Idempotent in
 * effect: liking a liked post leaves it liked and answers the same.
 */
export function setEngagement(workspace: Workspace, kind: EngagementKind, input: TargetInput, active: boolean): EngagementResult {
  const action = active ? ACTIONS[kind] : `undo the ${ACTIONS[kind]} of`;
  const { post, destination } = resolveActingTarget(workspace, input, engagementRules(action));
  const { byDestination } = engagementStore.get(workspace);
  const state = byDestination[destination.id] ?? {};
  if (active) {
    state[kind] ??= workspace.nowIso();
  } else {
    delete state[kind];
  }
  if (Object.keys(state).length > 0) byDestination[destination.id] = state;
  else delete byDestination[destination.id];
  return { postId: post.id, destinationId: destination.id, platform: destination.platform, kind, active };
}

/** The microblogging network's post limit: the premium limit for a premium subscription. */
export function microblogTextLimit(account: AccountRecord): number {
  const facts = platformFacts(account.platform);
  const premium = typeof account.microblogSubscriptionType === 'string' && account.microblogSubscriptionType.startsWith('premium');
  return (premium ? facts?.premiumTextLimit : undefined) ?? facts?.textLimit ?? 280;
}

/**
 * Publishes a quote of a published microblogging destination as the account that
 * published it. The quote is a post of its own in the posts store (published at
 * once, one destination, `options.quoteMicroblogPostId` naming the quoted post), so
 * GET /v1/posts/{id} finds it and it can be commented on, liked and quoted in turn.
 * Being a post that went out, it counts toward the account's velocity (refused with
 * 429 VELOCITY_LIMITED past a cap) and is announced as any published post is.
 */
export function quotePost(workspace: Workspace, input: { destinationId: string; text: string }): QuoteResult {
  const { post, destination, account } = resolveActingTarget(workspace, input, engagementRules('quote'));
  checkTextLimit(input.text, microblogTextLimit(account), account.platform);
  const refusal = velocityRefusal(workspace, account, 1);
  if (refusal) throw velocityError(refusal);
  const now = workspace.nowIso();
  const ref = externalPostRef(workspace, account.platform, account, { atMs: workspace.now() });
  const quoteId = workspace.newId();
  const published: DestinationRecord = {
    id: workspace.newId(),
    connectionId: account.id,
    platform: account.platform,
    status: 'published',
    externalPostId: ref.externalPostId,
    externalUrl: ref.externalUrl,
    errorCode: null,
    errorMessage: null,
    publishedAt: now,
    text: null,
    options: { quoteMicroblogPostId: destination.externalPostId },
    metricsSeed: workspace.faker.number.int({ min: 1, max: 0x7fffffff }),
  };
  const quote: PostRecord = {
    id: quoteId,
    text: input.text,
    mediaUrls: [],
    mediaKind: 'text',
    status: 'published',
    scheduledFor: null,
    timezone: null,
    scheduledAtMs: null,
    source: 'api',
    thread: null,
    destinations: [published],
    createdAt: now,
    updatedAt: now,
  };
  addPost(workspace, quote);
  recordPublishes(workspace, account.id, 1);
  workspace.events.emit('post.platform.published', { postId: quote.id, destination: destinationView(workspace, published) });
  workspace.events.emit('post.published', { post: postView(workspace, quote) });
  return {
    postId: post.id,
    destinationId: destination.id,
    platform: destination.platform,
    kind: 'quote',
    active: true,
    quotePostId: quote.id,
    externalPostId: ref.externalPostId,
    externalUrl: ref.externalUrl,
  };
}
