import { CONTROL_OPERATIONS } from '../generated/control-operations.js';
import { ok, route } from '../http/route.js';
import { didYouMean } from '../lib/did-you-mean.js';
import { validationError } from '../lib/errors.js';
import type { ControlRouteFactory } from './dependencies.js';

type JournalQuery = { limit?: number; after?: number; operationId?: string; method?: string; status?: number; matchedRule?: string };

/** The operations of control.yaml's tag Journal: what the workspace was asked and answered. Reads only. */
export const journalRoutes: ControlRouteFactory = ({ coverage }) => {
  // What an entry can be recorded under: the API's operations and the control plane's triggers.
  // Read on the first filtered request: building the routes only closes over the dependencies.
  let recordable: string[] | undefined;
  let known: Set<string> | undefined;
  return [
    route<never, JournalQuery>('getJournal', ({ workspace, query }) => {
      recordable ??= [...coverage.operations().map((operation) => operation.operationId), ...Object.keys(CONTROL_OPERATIONS)];
      known ??= new Set(recordable);
      // A mistyped filter would match nothing and look like "no such request": say so instead.
      if (query.operationId !== undefined && !known.has(query.operationId)) {
        throw validationError('operationId', `'${query.operationId}' is not an operationId of openapi.yaml or control.yaml${didYouMean(query.operationId, recordable) || '.'}`);
      }
      const data = workspace.journal.query({ ...query, limit: query.limit ?? 100 });
      return ok({ data, size: workspace.journal.size, capacity: workspace.journal.capacity });
    }),
  ];
};
