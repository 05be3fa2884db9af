import type { CoverageTracker } from '../coverage/coverage.js';
import type { EventStreams } from '../events/streams.js';
import type { RouteDefinition } from '../http/route.js';
import type { Containment } from '../lib/containment.js';
import type { WorkspaceRegistry } from '../workspaces/registry.js';

/** What the control plane's handlers are built with: the same for every tag's file. */
export interface ControlDependencies {
  registry: WorkspaceRegistry;
  version: string;
  /** The open `GET /__control/events` streams. */
  eventStreams: EventStreams;
  coverage: CoverageTracker;
  /** Failures caught where they happened (decision 0041): health counts them. */
  containment: Containment;
}

/** How each tag's file exports its routes (src/control/index.ts joins them). */
export type ControlRouteFactory = (dependencies: ControlDependencies) => RouteDefinition[];
