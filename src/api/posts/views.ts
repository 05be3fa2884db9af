import type { components } from '../../generated/openapi.js';
import type { Workspace } from '../../workspaces/workspace.js';
import { metricsAt } from './metrics.js';
import type { DestinationRecord, PostRecord } from './records.js';

export type PostView = components['schemas']['Post'];
export type DestinationView = components['schemas']['PostDestination'];

/**
 * One destination as the API shows it, with its metrics read at the workspace's
 * current virtual time (null until published and after a remote delete).
 */
export function destinationView(workspace: Workspace, destination: DestinationRecord): DestinationView {
  return {
    id: destination.id,
    connectionId: destination.connectionId,
    platform: destination.platform,
    status: destination.status,
    externalPostId: destination.externalPostId,
    externalUrl: destination.externalUrl,
    errorCode: destination.errorCode,
    errorMessage: destination.errorMessage,
    publishedAt: destination.publishedAt,
    metrics: metricsAt(destination, destination.platform, workspace.now()),
  };
}

/**
 * The grouped post shape of the reference, used by every posts response and event; `viewOf` makes
 * each destination's view (the publishing hands over the views its events already carry).
 */
export function postView(workspace: Workspace, post: PostRecord, viewOf: (workspace: Workspace, destination: DestinationRecord) => DestinationView = destinationView): PostView {
  return {
    id: post.id,
    text: post.text,
    mediaUrls: [...post.mediaUrls],
    mediaKind: post.mediaKind,
    status: post.status,
    scheduledFor: post.scheduledFor,
    timezone: post.timezone,
    destinations: post.destinations.map((destination) => viewOf(workspace, destination)),
    source: post.source,
    createdAt: post.createdAt,
    updatedAt: post.updatedAt,
  };
}

/**
 * Everything `postView` reads, flat and in a fixed order, with a length before each run
 * that varies: two calls that answer equal arrays (element by element) stand for equal
 * views, so a read answers the view it made last time without building one
 * (`ViewMemo.from`, src/http/json-memo.ts). The metrics go in as their numbers at the
 * current virtual time, not as that time, so a running clock still finds a view equal
 * until a count moves. A field added to the view is added here too, or reads answer a
 * stale view: test/unit/post-view-inputs.test.ts changes every field of a record and
 * fails when the view moves and these do not. O(destinations + media) per post.
 */
export function postViewInputs(workspace: Workspace, post: PostRecord): unknown[] {
  const inputs: unknown[] = [post.id, post.text, post.mediaKind, post.status, post.scheduledFor, post.timezone, post.source, post.createdAt, post.updatedAt, post.mediaUrls.length];
  for (const url of post.mediaUrls) inputs.push(url);
  inputs.push(post.destinations.length);
  const now = workspace.now();
  for (const destination of post.destinations) {
    inputs.push(
      destination.id,
      destination.connectionId,
      destination.platform,
      destination.status,
      destination.externalPostId,
      destination.externalUrl,
      destination.errorCode,
      destination.errorMessage,
      destination.publishedAt,
    );
    const metrics = metricsAt(destination, destination.platform, now);
    if (metrics === null) {
      inputs.push(0);
      continue;
    }
    // The counts in the view's order, without an array of them for each destination of each read.
    inputs.push(8, metrics.impressions, metrics.reach, metrics.likes, metrics.comments, metrics.shares, metrics.saves, metrics.plays, metrics.engagement);
  }
  return inputs;
}
