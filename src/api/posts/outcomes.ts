import { getOwn, setOwn } from '../../lib/records.js';
import { platformFacts } from '../../platforms/catalog.js';
import { defineStore, type HasWorkspaceData } from '../../store/define-store.js';
import type { DestinationRecord } from './records.js';

export const OUTCOME_RESULTS = ['published', 'failed'] as const;
export type OutcomeResult = (typeof OUTCOME_RESULTS)[number];

/** How one destination ends when its post fires, decided through the control plane instead of by the network. */
export interface DecidedOutcome {
  result: OutcomeResult;
  /** The destination's `errorCode` when it fails; null when it publishes. */
  errorCode: string | null;
  /** The destination's `errorMessage` when it fails; null when it publishes. */
  message: string | null;
}

/**
 * Outcomes decided for destinations still to publish (POST /__control/posts/{id}/outcome),
 * by post id then destination id. The pipeline takes a destination's when it answers,
 * and drops a post's leftovers when the post settles.
 */
export const postOutcomesStore = defineStore('postOutcomes', () => ({
  outcomes: {} as Record<string, Record<string, DecidedOutcome>>,
}));

/** Decides the outcome of these destinations of a post, replacing what was decided for them before. */
export function decideOutcome(workspace: HasWorkspaceData, postId: string, destinations: readonly DestinationRecord[], outcome: DecidedOutcome): void {
  const outcomes = postOutcomesStore.get(workspace).outcomes;
  let byDestination = getOwn(outcomes, postId);
  if (!byDestination) {
    byDestination = {};
    setOwn(outcomes, postId, byDestination);
  }
  for (const destination of destinations) byDestination[destination.id] = { ...outcome };
}

/** What was decided for a destination, if anything (read without taking it). */
export function decidedOutcome(workspace: HasWorkspaceData, postId: string, destinationId: string): DecidedOutcome | undefined {
  const outcomes = postOutcomesStore.peek(workspace)?.outcomes;
  const byDestination = outcomes ? getOwn(outcomes, postId) : undefined;
  return byDestination ? getOwn(byDestination, destinationId) : undefined;
}

/** Takes what was decided for a destination: it applies once, when the destination answers. */
export function takeOutcome(workspace: HasWorkspaceData, postId: string, destinationId: string): DecidedOutcome | undefined {
  const outcome = decidedOutcome(workspace, postId, destinationId);
  if (!outcome) return undefined;
  const outcomes = postOutcomesStore.get(workspace).outcomes;
  const byDestination = getOwn(outcomes, postId);
  if (byDestination) delete byDestination[destinationId];
  if (byDestination && Object.keys(byDestination).length === 0) delete outcomes[postId];
  return outcome;
}

/** Forgets what is left decided for a post (it settled). Reads first, so a post with nothing decided changes no data. */
export function dropOutcomes(workspace: HasWorkspaceData, postId: string): void {
  const outcomes = postOutcomesStore.peek(workspace)?.outcomes;
  if (outcomes && Object.hasOwn(outcomes, postId)) delete outcomes[postId];
}

/** The destination's error a decided failure sets; undefined when it publishes. */
export function decidedRefusal(outcome: DecidedOutcome, platform: string): { errorCode: string; errorMessage: string } | undefined {
  if (outcome.result === 'published') return undefined;
  const errorCode = outcome.errorCode ?? 'PLATFORM_ERROR';
  const label = platformFacts(platform)?.label ?? platform;
  return { errorCode, errorMessage: outcome.message ?? `${label} did not publish the post: ${errorCode}.` };
}
