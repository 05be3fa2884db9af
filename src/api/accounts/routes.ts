import type { IncomingHttpHeaders } from 'node:http';
import { apiRoute } from '../../http/api-route.js';
import { ViewMemo } from '../../http/json-memo.js';
import { listPage, parseInclude, parseTimeRange } from '../../http/lists.js';
import { candidatesOf, candidateView, connect, pendingAccountsOf, pendingAccountView, reconnect } from './connect.js';
import { accountInsightDays, assertPlatform, connectionStats, creatorInfoOf, insightPoint, networkMediaOf, pinBoardsOf, readableAccount } from './network-reads.js';
import { accountView, allAccounts, connectionView, connectionViewInputs, disconnectAccount, getAccount, updateDefaultLangs } from './service.js';
import type { AccountRecord } from './store.js';

/** Where the sign-in page lives: the host the integrator reached the mock on, so any port works. */
function baseUrlOf(headers: IncomingHttpHeaders): string {
  const host = headers.host;
  const proto = headers['x-forwarded-proto'] === 'https' ? 'https' : 'http';
  // A Host header is the client's to send: only a plain host[:port] goes into a URL we hand back.
  return `${proto}://${host !== undefined && /^[A-Za-z0-9.\-:[\]]+$/.test(host) ? host : '127.0.0.1:4010'}`;
}

/** The connections list answers each account's view from the memo while what it is made of is unchanged, so neither the view nor its JSON is made again (src/http/json-memo.ts). */
const connectionViews = new ViewMemo();
/** And the list itself, by workspace, while it holds the very views it held: then its JSON goes out whole, spliced from nothing. */
const connectionLists = new ViewMemo();
/** The same for the accounts pages and an account read alone: serializing the page was a seventh of its CPU. */
const accountViews = new ViewMemo();
/** An account's view hands out the record's own `metadata`: the view kept (and frozen) gets a copy. */
const detachMetadata = (view: ReturnType<typeof accountView>) => ({ ...view, metadata: structuredClone(view.metadata) });

export const accountRoutes = [
  apiRoute('listConnections', ({ workspace }) => {
    const accounts = allAccounts(workspace).sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
    const build = (account: AccountRecord) => connectionView(workspace, account);
    const views = accounts.map((account) => connectionViews.from(account, connectionViewInputs(workspace, account), build));
    return { status: 200, body: connectionLists.from(workspace, views, () => ({ connections: views })) };
  }),

  apiRoute('listAccounts', ({ workspace, query }) => {
    const include = parseInclude(query.include, ['total'] as const);
    // "Connection time" is the account's creation time.
    const { sinceMs, untilMs } = parseTimeRange(query);
    const direction = query.sort === 'created_asc' ? 'asc' : 'desc';
    const matching = allAccounts(workspace).filter((account) => {
      if (query.platform !== undefined && account.platform !== query.platform) return false;
      if (query.status !== undefined && account.status !== query.status) return false;
      if (sinceMs === undefined && untilMs === undefined) return true;
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
        data: page.data.map((account) => accountViews.of(account, accountView(workspace, account), detachMetadata)),
        ...(include.has('total') && { total: matching.length }),
      },
    };
  }),

  apiRoute('getAccount', ({ workspace, params }) => {
    const account = getAccount(workspace, params.id);
    return { status: 200, body: accountViews.of(account, accountView(workspace, account), detachMetadata) };
  }),

  apiRoute(
    'connectAccount',
    ({ workspace, params, body, headers }) => {
      const result = connect(workspace, params.platform, body, baseUrlOf(headers));
      if (result.kind === 'oauth') return { status: 200, body: result.redirect };
      return { status: 200, body: { connection: connectionView(workspace, result.account) } };
    },
    'The sign-in URL opens the mock\'s own page under /__oauth/ (Approve or Deny; `&auto=approve|deny` decides at once); nothing reaches a real network. A plain OAuth connect connects the first offered account at Approve; headless and facebook_login connects are completed with `{ connectSession | tempToken, candidateId }` on this same operation. The app password `fail-fail-fail-fail` is refused as a wrong one. New accounts cost 5.00 of a 50.00 wallet on payg (settable at /__control/wallet); free workspaces have 15 account slots (402 PLAN_LIMIT_REACHED).',
  ),

  apiRoute(
    'reconnectAccount',
    ({ workspace, params, body, headers }) => {
      const result = reconnect(workspace, params.id, body ?? {}, baseUrlOf(headers));
      if (result.kind === 'oauth') return { status: 200, body: result.redirect };
      return { status: 200, body: { type: 'account' as const, ...accountView(workspace, result.account) } };
    },
    'OAuth reconnects sign in on the mock\'s own page under /__oauth/; Approve brings the account back active with a fresh token and redirects with connectSession and accountId. The decentralized network reconnects at once with a new app password (identifier defaults to the account\'s handle).',
  ),

  apiRoute(
    'disconnectAccount',
    ({ workspace, params }) => {
      disconnectAccount(workspace, params.id);
      return { status: 200 };
    },
    'Posts, comments and conversations of the account are kept; the account itself answers 404 from then on.',
  ),

  apiRoute(
    'getConnectionStats',
    ({ workspace, params, query }) => ({ status: 200, body: connectionStats(workspace, params.id, query) }),
    'Counters are drawn from the seed per account and grow slowly with the virtual clock; post counts include what the account published through the mock, and the page-based network\'s ratings come from its stored reviews. While the account is not active, stats is null and the include extras are left out.',
  ),

  apiRoute(
    'listConnectionMedia',
    ({ workspace, params, query }) => {
      const account = readableAccount(workspace, params.id, { requireActive: true });
      const page = listPage(workspace, {
        // Bound to the connection: a cursor of one account's media is refused on another's.
        list: `connection-media:${account.id}`,
        query,
        sorted: networkMediaOf(workspace, account),
        keyOf: (item) => [item.timestamp, item.id],
        direction: 'desc',
        limit: query.limit ?? 20,
      });
      return { status: 200, body: { connectionId: account.id, platform: account.platform, items: page.data, nextCursor: page.nextCursor } };
    },
    'Besides what the account published through the mock, the network holds 12 to 41 earlier posts drawn from the seed.',
  ),

  apiRoute('getCreatorInfo', ({ workspace, params }) => {
    const account = readableAccount(workspace, params.id, { platform: 'tiktok', requireActive: true });
    return { status: 200, body: { connectionId: account.id, platform: 'tiktok' as const, creatorInfo: creatorInfoOf(workspace, account), fetchedAt: workspace.nowIso() } };
  }),

  apiRoute(
    'listPinBoards',
    ({ workspace, params }) => {
      const account = readableAccount(workspace, params.id, { platform: 'pinterest', requireActive: true });
      return { status: 200, body: { ...pinBoardsOf(workspace, account), sandbox: false, connectionId: account.id, platform: account.platform, fetchedAt: workspace.nowIso() } };
    },
    'Three to six boards drawn from the seed per account; `sandbox` is always false.',
  ),

  apiRoute('updateBlueskySettings', ({ workspace, params, body }) => {
    const account = getAccount(workspace, params.id);
    assertPlatform(account, 'bluesky', 'id');
    const updated = updateDefaultLangs(workspace, account, body.defaultLangs ?? null);
    return { status: 200, body: { accountId: updated.id, platform: 'bluesky' as const, defaultLangs: updated.defaultLangs ?? null, updatedAt: updated.updatedAt } };
  }),

  apiRoute(
    'getAccountAnalytics',
    ({ workspace, params, query }) => {
      const { account, days } = accountInsightDays(workspace, params.id, query);
      const page = listPage(workspace, {
        list: `account-analytics:${account.id}`,
        query,
        sorted: days,
        keyOf: (day) => [day],
        direction: 'asc',
        limit: query.limit ?? 50,
      });
      return {
        status: 200,
        body: { accountId: account.id, platform: account.platform, data: page.data.map((day) => insightPoint(workspace, account, day)), nextCursor: page.nextCursor, hasMore: page.hasMore },
      };
    },
    'Daily points are drawn from the seed per account and day; followers follow the stats curve. Default period: 28 days on facebook and instagram, 30 elsewhere; at most 90 days per request.',
  ),

  apiRoute(
    'listConnectCandidates',
    ({ workspace, params }) => ({ status: 200, body: { data: candidatesOf(workspace, params.sessionId).map(candidateView) } }),
    'Offered at sign-in: two pages on facebook, two page-linked accounts on instagram, the person and a company page on linkedin (headless), the signed-in account elsewhere. Open for one hour after the sign-in.',
  ),

  apiRoute('listPendingInstagramAccounts', ({ workspace, query }) => ({ status: 200, body: { accounts: pendingAccountsOf(workspace, query.tempToken).map(pendingAccountView) } })),
];
