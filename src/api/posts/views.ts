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

/** The grouped post shape of the reference, used by every posts response and event. */
export function postView(workspace: Workspace, post: PostRecord): PostView {
  return {
    id: post.id,
    text: post.text,
    mediaUrls: [...post.mediaUrls],
    mediaKind: post.mediaKind,
    status: post.status,
    scheduledFor: post.scheduledFor,
    timezone: post.timezone,
    destinations: post.destinations.map((destination) => destinationView(workspace, destination)),
    source: post.source,
    createdAt: post.createdAt,
    updatedAt: post.updatedAt,
  };
}
