import type { ControlClient, StreamHandlers } from './control-client.js';

/** How long a view waits before opening again a stream the server ended. */
export const RECONNECT_MS = 2000;

export interface FollowHandlers extends StreamHandlers {
  /** The server ended the stream (a restart, the workspace deleted): the view says so and opens it again. */
  onClosed: () => void;
  onFailure: (failure: unknown) => void;
}

/**
 * Follows the workspace's event stream (`ControlClient.stream`) until `signal` aborts. Once
 * aborted, nothing more is reported: the view that opened it has moved on (another workspace,
 * another view), and an abort is not a failure to show.
 */
export function followStream(client: ControlClient, { onClosed, onFailure, ...handlers }: FollowHandlers): void {
  const { signal } = handlers;
  client.stream(handlers).then(
    () => {
      if (!signal.aborted) onClosed();
    },
    (failure: unknown) => {
      if (!signal.aborted) onFailure(failure);
    },
  );
}
