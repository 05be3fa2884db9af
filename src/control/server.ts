import { ok, route } from '../http/route.js';
import type { ControlRouteFactory } from './dependencies.js';

/** The operations of control.yaml's tag Server: whether the server is up, and what it contained on the way. */
export const serverRoutes: ControlRouteFactory = ({ registry, version, containment }) => [
  route('getHealth', () => ok({ status: 'ok', version, workspaces: registry.size, failures: containment.report() })),
];
