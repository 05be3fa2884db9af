import { apiRoute } from '../../http/api-route.js';
import { listPage, parseInclude, parseTimeRange } from '../../http/lists.js';
import { accountView, allAccounts, connectionView, getAccount } from './service.js';

export const accountRoutes = [
  apiRoute('listConnections', ({ workspace }) => {
    const accounts = allAccounts(workspace).sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
    return { status: 200, body: { connections: accounts.map((account) => connectionView(workspace, account)) } };
  }),

  apiRoute('listAccounts', ({ workspace, query }) => {
    const include = parseInclude(query.include, ['total'] as const);
    // "Connection time" is the account's creation time.
    const { sinceMs, untilMs } = parseTimeRange(query);
    const direction = query.sort === 'created_asc' ? 'asc' : 'desc';
    const matching = allAccounts(workspace).filter((account) => {
      if (query.platform !== undefined && account.platform !== query.platform) return false;
      if (query.status !== undefined && account.status !== query.status) return false;
      const connectedAt = Date.parse(account.createdAt);
      if (sinceMs !== undefined && connectedAt < sinceMs) return false;
      if (untilMs !== undefined && connectedAt >= untilMs) return false;
      return true;
    });
    const sign = direction === 'asc' ? 1 : -1;
    matching.sort((a, b) => sign * (a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id)));
    const page = listPage(workspace, {
      list: 'accounts',
      query,
      sorted: matching,
      keyOf: (account) => [account.createdAt, account.id],
      direction,
      limit: query.limit ?? 50,
    });
    return {
      status: 200,
      body: {
        ...page,
        data: page.data.map((account) => accountView(workspace, account)),
        ...(include.has('total') && { total: matching.length }),
      },
    };
  }),

  apiRoute('getAccount', ({ workspace, params }) => ({ status: 200, body: accountView(workspace, getAccount(workspace, params.id)) })),
];
