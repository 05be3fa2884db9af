import { sseMessage } from '../events/streams.js';
import { apiKeyOf } from '../http/authenticate.js';
import { route } from '../http/route.js';
import type { ControlRouteFactory } from './dependencies.js';

/** The operations of control.yaml's tag Events: every event the workspace emits, as it happens. */
export const eventsRoutes: ControlRouteFactory = ({ eventStreams }) => [
  route<never, { replay?: boolean; requests?: boolean }>('streamEvents', ({ workspace, query, headers }) => {
    // Past a cap, 429 before any header of the stream goes out (decision 0045).
    eventStreams.admit(workspace.id);
    // The key it is opened with: revoking that key ends the stream.
    const key = apiKeyOf({ headers });
    return {
      status: 200,
      headers: { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' },
      stream: (stream) => {
        stream.write(`: connected to ${workspace.id}\n\n`);
        if (query.replay === true) for (const event of workspace.events.recent()) stream.write(sseMessage(event));
        eventStreams.attach(workspace.id, stream, { requests: query.requests === true, key });
      },
    };
  }),
];
