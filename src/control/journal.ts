import { ok, route } from '../http/route.js';
import type { ControlRouteFactory } from './dependencies.js';

type JournalQuery = { limit?: number; after?: number; operationId?: string; method?: string; status?: number; matchedRule?: string };

/** The operations of control.yaml's tag Journal: what the workspace was asked and answered. Reads only. */
export const journalRoutes: ControlRouteFactory = () => [
  route<never, JournalQuery>('getJournal', ({ workspace, query }) => {
    const data = workspace.journal.query({ ...query, limit: query.limit ?? 100 });
    return ok({ data, size: workspace.journal.size, capacity: workspace.journal.capacity });
  }),
];
