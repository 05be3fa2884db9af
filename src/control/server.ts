import { ok, route } from '../http/route.js';
import type { ControlRouteFactory } from './dependencies.js';

/** The operations of control.yaml's tag Server: whether the server is up. */
export const serverRoutes: ControlRouteFactory = ({ registry, version }) => [
  route('getHealth', () => ok({ status: 'ok', version, workspaces: registry.size })),
];
