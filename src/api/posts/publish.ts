import type { JobHandler, JobRecord } from '../../clock/scheduler.js';
import { platformFacts } from '../../platforms/catalog.js';
import { externalPostRef } from '../../platforms/external-ids.js';
import { activeOutage } from '../../platforms/outages.js';
import { reserve, settle, velocityError, velocityMessage, velocityRefusal, type VelocityAccount } from './velocity.js';
import type { Workspace } from '../../workspaces/workspace.js';
import { accountsStore, type AccountRecord } from '../accounts/store.js';
import { decidedOutcome, decidedRefusal, dropOutcomes, takeOutcome } from './outcomes.js';
import { postChanged, postsStore } from './store.js';
import { type DestinationRecord, type PostRecord } from './records.js';
import { sameJson } from '../../http/json-memo.js';
import { destinationView, postView, type DestinationView } from './views.js';

/*
 * The publishing pipeline, on the workspace scheduler (virtual time):
 *
 *   queued ──(START_DELAY_MS)──► processing ─┐      scheduled ──(fire time)──► processing ─┐
 *                                            ▼                                              ▼
 *   destinations one after another: queued → processing ──(DESTINATION_PUBLISH_MS)──► published | failed
 *                                            ▼
 *   post: published (any destination published; post.published, or post.partial when some failed)
 *         failed (every destination failed; post.failed)
 *
 * Each step is a job, so `processing` is observable with a frozen clock and
 * POST /__control/clock/advance, and a restart with --data resumes where it was.
 */

/** From creation to processing, for a post published now. */
export const START_DELAY_MS = 2_000;
/** How long one destination takes on its network. */
export const DESTINATION_PUBLISH_MS = 3_000;

/** A queued post starts processing, or a scheduled one fires. Data: `{ postId }`. */
export const START_JOB = 'post.start';
/** One destination's network answers. Data: `{ postId, destinationId }`. */
export const DESTINATION_JOB = 'post.publish-destination';

/** Why a destination did not go out. */
interface Refusal {
  errorCode: string;
  errorMessage: string;
}

/** The account was disconnected (removed) between creating the post and publishing it. */
const DISCONNECTED: Refusal = {
  errorCode: 'ACCOUNT_RECONNECT_REQUIRED',
  errorMessage: 'The account was disconnected before the post went out; connect it again to publish to it.',
};

/** Puts a post's start on the scheduler: now plus the start delay, or its scheduled instant. */
export function scheduleStart(workspace: Workspace, post: PostRecord, dueAtMs: number): void {
  workspace.scheduler.schedule(START_JOB, dueAtMs, { postId: post.id }, `${post.status === 'scheduled' ? 'fire scheduled' : 'start'} post ${post.id}`);
}

/** Removes every pending pipeline job of a post (a cancel). */
export function unschedulePost(workspace: Workspace, postId: string): number {
  return workspace.scheduler.cancel((job) => (job.kind === START_JOB || job.kind === DESTINATION_JOB) && job.data.postId === postId);
}

function findPost(workspace: Workspace, job: JobRecord): PostRecord | undefined {
  const postId = job.data.postId;
  return typeof postId === 'string' ? postsStore.get(workspace).posts[postId] : undefined;
}

/** The post begins processing: its destinations queue, the first goes to its network. */
const startPost: JobHandler<Workspace> = (workspace, job) => {
  const post = findPost(workspace, job);
  // Cancelled, deleted or reset meanwhile: nothing left to start.
  if (!post || (post.status !== 'queued' && post.status !== 'scheduled')) return;
  post.status = 'processing';
  for (const destination of post.destinations) destination.status = 'queued';
  post.updatedAt = workspace.nowIso();
  admitOnTheWayOut(workspace, post);
  startNextDestination(workspace, post);
  workspace.changed();
};

/** One destination's answer arrives; then the next destination, or the post's outcome. */
const finishDestination: JobHandler<Workspace> = (workspace, job) => {
  const post = findPost(workspace, job);
  const destination = post?.destinations.find((d) => d.id === job.data.destinationId);
  if (!post || !destination || post.status !== 'processing' || destination.status !== 'processing') return;
  publishDestination(workspace, post, destination);
  startNextDestination(workspace, post);
  workspace.changed();
};

export const postJobHandlers: ReadonlyArray<[string, JobHandler<Workspace>]> = [
  [START_JOB, startPost],
  [DESTINATION_JOB, finishDestination],
];

/** Sends the next queued destination to its network, or settles the post when none is left. */
function startNextDestination(workspace: Workspace, post: PostRecord): void {
  const next = post.destinations.find((d) => d.status === 'queued');
  if (!next) {
    settlePost(workspace, post);
    return;
  }
  next.status = 'processing';
  post.updatedAt = workspace.nowIso();
  workspace.scheduler.schedule(DESTINATION_JOB, workspace.now() + DESTINATION_PUBLISH_MS, { postId: post.id, destinationId: next.id }, `publish ${next.platform} destination of post ${post.id}`);
}

/** The network's answer for one destination, applied and announced. */
function publishDestination(workspace: Workspace, post: PostRecord, destination: DestinationRecord): void {
  const account = accountsStore.get(workspace).accounts[destination.connectionId];
  // An outcome decided through the control plane stands in for the network's answer.
  const decided = takeOutcome(workspace, post.id, destination.id);
  let refusal: Refusal | undefined;
  if (!account) refusal = DISCONNECTED;
  else if (decided) refusal = decidedRefusal(decided, destination.platform);
  else refusal = refusalFor(workspace, destination, account);
  const nowIso = workspace.nowIso();
  if (refusal || !account) {
    const why = refusal ?? DISCONNECTED;
    destination.status = 'failed';
    destination.errorCode = why.errorCode;
    destination.errorMessage = why.errorMessage;
  } else {
    const subreddit = destination.options['subreddit'];
    const ref = externalPostRef(workspace, destination.platform, account, { atMs: workspace.now(), ...(typeof subreddit === 'string' && { subreddit }) });
    destination.status = 'published';
    destination.externalPostId = ref.externalPostId;
    destination.externalUrl = ref.externalUrl;
    destination.publishedAt = nowIso;
    destination.errorCode = null;
    destination.errorMessage = null;
    postChanged(workspace, post);
  }
  post.updatedAt = nowIso;
  // Only a destination that went out counts toward velocity; a failed one frees its place.
  settle(workspace, destination.connectionId, destination.id, destination.status === 'published');
  const event = destination.status === 'published' ? 'post.platform.published' : 'post.platform.failed';
  workspace.events.emit(event, { postId: post.id, destination: announcedView(workspace, destination) });
}

/**
 * The view of each destination a `post.platform.*` event carried, until its post settles. The post's
 * own event shows every destination again, most often as it was announced (its counts still 0), and
 * then carries that very object: the bus keeps a post's three events, and they hold two views of its
 * destinations instead of four (docs/performance.md). Nothing changes an event's data once emitted.
 */
const announced = new WeakMap<DestinationRecord, DestinationView>();

function announcedView(workspace: Workspace, destination: DestinationRecord): DestinationView {
  const view = destinationView(workspace, destination);
  announced.set(destination, view);
  return view;
}

/** The destination's view as its event carried it when it still reads the same, else a new one. */
function viewAsAnnounced(workspace: Workspace, destination: DestinationRecord): DestinationView {
  const view = destinationView(workspace, destination);
  const before = announced.get(destination);
  announced.delete(destination);
  return before !== undefined && sameJson(before, view) ? before : view;
}

/**
 * Why this destination cannot go out now, checked in the order the service
 * would meet them: the account's authorization, the service's own posting caps,
 * then the network itself. Undefined: it goes out.
 */
function refusalFor(workspace: Workspace, destination: DestinationRecord, account: AccountRecord): Refusal | undefined {
  if (account.status !== 'active') {
    return { errorCode: 'ACCOUNT_RECONNECT_REQUIRED', errorMessage: `The account is ${account.status}; reconnect it to publish again.` };
  }
  const outage = activeOutage(workspace, destination.platform);
  if (outage) {
    const label = platformFacts(destination.platform)?.label ?? destination.platform;
    return { errorCode: 'PLATFORM_ERROR', errorMessage: `${label} did not answer: ${outage.message}` };
  }
  return undefined;
}

/**
 * Velocity admission for a post published now, before it is created: every
 * destination must fit its account's hourly pace and daily cap as the posts that
 * went out fill them (queued ones do not count: decision 0003), counting several
 * destinations on one account once each. A refusal is the synchronous
 * 429 VELOCITY_LIMITED, and nothing of the request is published.
 */
export function admitNow(workspace: Workspace, accounts: VelocityAccount[]): void {
  const counts = new Map<string, { account: VelocityAccount; count: number; index: number }>();
  accounts.forEach((account, index) => {
    const entry = counts.get(account.id);
    if (entry) entry.count++;
    else counts.set(account.id, { account, count: 1, index });
  });
  for (const { account, count, index } of counts.values()) {
    const refusal = velocityRefusal(workspace, account, count, { goingOut: false });
    if (refusal) throw velocityError(refusal, `destinations[${index}].connectionId`);
  }
}

/**
 * Velocity admission when a post starts to go out: a queued one after its start
 * delay, a scheduled one at its fire time. It cannot answer anyone any more, so a
 * destination past the cap (counting the destinations on their way out) fails
 * terminally with VELOCITY_LIMITED (and `post.platform.failed` carries the code);
 * the others hold their places until they publish or fail.
 */
function admitOnTheWayOut(workspace: Workspace, post: PostRecord): void {
  for (const destination of post.destinations) {
    // A destination whose outcome was decided ends as decided, past the cap or not.
    const decided = decidedOutcome(workspace, post.id, destination.id) !== undefined;
    const refusal = decided ? undefined : velocityRefusal(workspace, { id: destination.connectionId, platform: destination.platform }, 1);
    if (!refusal) {
      reserve(workspace, destination.connectionId, destination.id);
      continue;
    }
    destination.status = 'failed';
    destination.errorCode = 'VELOCITY_LIMITED';
    // The message alone: building the error for it captured a stack trace, a fifth of an advance over 10k refused posts.
    destination.errorMessage = velocityMessage(refusal);
    workspace.events.emit('post.platform.failed', { postId: post.id, destination: announcedView(workspace, destination) });
  }
}

/** Every destination has answered: the post's outcome and its event. */
function settlePost(workspace: Workspace, post: PostRecord): void {
  const published = post.destinations.filter((d) => d.status === 'published').length;
  const failed = post.destinations.length - published;
  post.status = published > 0 ? 'published' : 'failed';
  post.updatedAt = workspace.nowIso();
  dropOutcomes(workspace, post.id);
  const event = published === 0 ? 'post.failed' : failed > 0 ? 'post.partial' : 'post.published';
  workspace.events.emit(event, { post: postView(workspace, post, viewAsAnnounced) });
}

/**
 * Puts the pipeline jobs of a freshly populated world on its scheduler: the
 * fixture holds scheduled, queued and processing posts but populating schedules
 * nothing. A scheduled post fires at its instant, a queued one starts after the
 * usual delay, a processing one carries on with the destination it was busy with.
 */
export function resumePostJobs(workspace: Workspace): void {
  const now = workspace.now();
  for (const post of Object.values(postsStore.get(workspace).posts)) {
    if (post.status === 'scheduled') {
      scheduleStart(workspace, post, Math.max(now, post.scheduledAtMs ?? now));
    } else if (post.status === 'queued') {
      scheduleStart(workspace, post, Math.max(now, Date.parse(post.createdAt) + START_DELAY_MS));
    } else if (post.status === 'processing') {
      const busy = post.destinations.find((d) => d.status === 'processing');
      if (busy) {
        workspace.scheduler.schedule(DESTINATION_JOB, now + DESTINATION_PUBLISH_MS, { postId: post.id, destinationId: busy.id }, `publish ${busy.platform} destination of post ${post.id}`);
      } else {
        startNextDestination(workspace, post);
      }
    }
  }
}
