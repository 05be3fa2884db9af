import { coverageMarkdown } from '../coverage/coverage.js';
import { beyondWorkspace } from '../http/authenticate.js';
import { ok, route } from '../http/route.js';
import { didYouMean } from '../lib/did-you-mean.js';
import { validationError } from '../lib/errors.js';
import type { ControlRouteFactory } from './dependencies.js';

type CoverageQuery = { scope?: 'server' | 'workspace'; format?: 'json' | 'markdown' | 'table'; operations?: string };

/** The operations of control.yaml's tag Coverage: which parts of openapi.yaml the traffic exercised. */
export const coverageRoutes: ControlRouteFactory = ({ coverage }) => [
  route<never, CoverageQuery>('getCoverage', ({ workspace, query, caller }) => {
    if (query.scope !== 'workspace' && caller !== 'owner') throw beyondWorkspace('The server-wide coverage (scope=server, the default)', 'Ask for scope=workspace to see this workspace\'s.');
    const limitedTo = query.operations?.split(',');
    const unknown = limitedTo?.filter((operationId) => !coverage.operations().some((operation) => operation.operationId === operationId)) ?? [];
    if (unknown.length > 0) {
      const names = coverage.operations().map((operation) => operation.operationId);
      const named = unknown.map((operationId) => `${operationId}${didYouMean(operationId, names)}`).join('; ');
      throw validationError('operations', `Not operationIds of openapi.yaml: ${named}${named.endsWith('?') ? '' : '.'}`);
    }
    const report = coverage.report(query.scope === 'workspace' ? workspace.id : undefined, limitedTo);
    if (query.format === 'markdown' || query.format === 'table') return { status: 200, body: coverageMarkdown(report), contentType: 'text/markdown; charset=utf-8' };
    return ok(report);
  }),
];
