import { useMemo, useState } from 'preact/hooks';
import type { ControlClient } from './control-client.js';
import { useLiveRead } from './live-read.js';
import {
  ACCOUNT_ACTIONS,
  accountsOf,
  accountWords,
  actionApplies,
  capped,
  composerAccounts,
  inboundBody,
  INBOUND_KINDS,
  INBOUND_OPERATIONS,
  matchesFilter,
  postsOf,
  POSTS_SHOWN,
  postWords,
  statusChange,
  type AccountAction,
  type AccountRecord,
  type ComposerFields,
  type InboundKind,
} from './state.js';

export interface StateViewProps {
  client: ControlClient;
  /** Changes whenever the workspace changes or is reset: the view reads its world afresh. */
  generation: string;
  onTokenRequired: () => void;
}

const STYLE = `
.state-table { border-collapse: collapse; margin: .25rem 0 1rem; }
.state-table caption { text-align: left; font-weight: 600; padding: .25rem 0; }
.state-table th, .state-table td { border: 1px solid var(--line); padding: .2rem .45rem; text-align: left; vertical-align: top; }
.state-table ul { margin: 0; padding-left: 1rem; }
.composer { border: 1px solid var(--line); border-radius: 4px; padding: .25rem .75rem .75rem; margin: 0 0 1rem; }
.composer label { display: block; margin: .25rem 0; }
`;

function Composer({ kind, accounts, busy, onSend }: { kind: InboundKind; accounts: AccountRecord[]; busy: boolean; onSend: (kind: InboundKind, fields: ComposerFields) => void }) {
  const [fields, setFields] = useState<ComposerFields>({ accountId: '', text: '', recommendation: 'positive' });
  const headingId = `composer-${kind}`;
  return (
    <form
      class="composer"
      aria-labelledby={headingId}
      onSubmit={(event) => {
        event.preventDefault();
        onSend(kind, fields);
      }}
    >
      <h4 id={headingId}>Inbound {kind}</h4>
      <label>
        Account for the {kind}{' '}
        <select value={fields.accountId} onChange={(event) => setFields({ ...fields, accountId: event.currentTarget.value })}>
          <option value="">The server's choice</option>
          {composerAccounts(kind, accounts).map((account) => (
            <option key={account.id} value={account.id}>
              {account.platform} · {account.handle}
            </option>
          ))}
        </select>
      </label>
      {kind === 'review' && (
        <label>
          Recommendation{' '}
          <select value={fields.recommendation} onChange={(event) => setFields({ ...fields, recommendation: event.currentTarget.value === 'negative' ? 'negative' : 'positive' })}>
            <option value="positive">positive</option>
            <option value="negative">negative</option>
          </select>
        </label>
      )}
      <label>
        Text of the {kind}{' '}
        <input type="text" value={fields.text} onInput={(event) => setFields({ ...fields, text: event.currentTarget.value })} />
      </label>
      <button type="submit" disabled={busy}>
        Send {kind}
      </button>
    </form>
  );
}

/**
 * The workspace's accounts with their status and Expire, Revoke and Reconnect (`POST
 * /__control/accounts/{id}/status`), its posts with their destinations' statuses, read from its
 * snapshot (`GET /__control/state`, as the Webhooks view reads it), and composers for an inbound
 * comment, message or review (`POST /__control/inbound/*`). Read again, coalesced, on each event
 * of the stream; a filter and a cap of POSTS_SHOWN keep a large world usable.
 */
export function StateView({ client, generation, onTokenRequired }: StateViewProps) {
  const { data: snapshot, error, fail, clearError, connection, refresh } = useLiveRead(client, 'getState', { generation, onTokenRequired });
  const [filter, setFilter] = useState('');
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);

  const accounts = useMemo(() => (snapshot ? accountsOf(snapshot) : []), [snapshot]);
  const posts = useMemo(() => (snapshot ? postsOf(snapshot) : []), [snapshot]);
  const shownAccounts = accounts.filter((account) => matchesFilter(accountWords(account), filter));
  const { shown: shownPosts, total: matchingPosts } = capped(
    posts.filter((post) => matchesFilter(postWords(post), filter)),
    POSTS_SHOWN,
  );
  const handleOf = new Map(accounts.map((account) => [account.id, account.handle]));

  async function act(action: () => Promise<string>) {
    setBusy(true);
    clearError();
    setNotice(null);
    try {
      setNotice(await action());
    } catch (failure) {
      fail(failure);
    } finally {
      setBusy(false);
      refresh();
    }
  }

  const changeStatus = (account: AccountRecord, action: AccountAction) =>
    act(async () => {
      const changed = await client.call('setAccountStatus', { params: { id: account.id }, body: statusChange(action) });
      return `${account.handle} is now ${changed.status}.`;
    });

  const compose = (kind: InboundKind, fields: ComposerFields) =>
    act(async () => {
      await client.call(INBOUND_OPERATIONS[kind], { body: inboundBody(kind, fields) });
      return `Inbound ${kind} added.`;
    });

  return (
    <section aria-labelledby="view-heading" style={{ flex: 1, minHeight: 0, overflow: 'auto' }}>
      <style>{STYLE}</style>
      <h2 id="view-heading">State</h2>
      <p>The workspace's accounts and posts as its snapshot holds them: change an account's status as the network would, and compose what people send in.</p>
      <div class="filters">
        <label>
          Filter accounts and posts <input type="search" value={filter} onInput={(event) => setFilter(event.currentTarget.value)} />
        </label>
        <button type="button" onClick={refresh}>
          Refresh
        </button>
        <p role="status" class="notice">
          {connection === 'live' ? 'Live' : connection === 'connecting' ? 'Connecting…' : 'Not live'} · {snapshot ? `${accounts.length} accounts, ${posts.length} posts` : 'Reading…'}
          {notice && ` · ${notice}`}
        </p>
      </div>
      {error && <p role="alert">{error}</p>}
      <table class="state-table">
        <caption>
          Accounts ({shownAccounts.length} of {accounts.length})
        </caption>
        <thead>
          <tr>
            <th scope="col">Account</th>
            <th scope="col">Network</th>
            <th scope="col">Status</th>
            <th scope="col">Auth health</th>
            <th scope="col">Token expires</th>
            <th scope="col">Change</th>
          </tr>
        </thead>
        <tbody>
          {shownAccounts.map((account) => (
            <tr key={account.id} data-account={account.id}>
              <th scope="row">
                {account.displayName} <code>{account.handle}</code>
              </th>
              <td>{account.platform}</td>
              <td class="account-status">{account.status}</td>
              <td>{account.authHealth}</td>
              <td>{account.tokenExpiresAt ?? '—'}</td>
              <td>
                {ACCOUNT_ACTIONS.map((action) => (
                  <button key={action} type="button" disabled={busy || !actionApplies(action, account.status)} aria-label={`${action} ${account.platform} ${account.handle}`} onClick={() => void changeStatus(account, action)}>
                    {action}
                  </button>
                ))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <table class="state-table">
        <caption>
          Posts, newest first (showing {shownPosts.length} of {matchingPosts}
          {matchingPosts === posts.length ? '' : ` matching, ${posts.length} in all`})
        </caption>
        <thead>
          <tr>
            <th scope="col">Post</th>
            <th scope="col">Status</th>
            <th scope="col">Scheduled for</th>
            <th scope="col">Destinations</th>
          </tr>
        </thead>
        <tbody>
          {shownPosts.map((post) => (
            <tr key={post.id} data-post={post.id}>
              <th scope="row">
                <code>{post.id}</code> {post.text.length > 80 ? `${post.text.slice(0, 80)}…` : post.text}
              </th>
              <td class="post-status">{post.status}</td>
              <td>{post.scheduledFor ?? '—'}</td>
              <td>
                <ul>
                  {post.destinations.map((destination) => (
                    <li key={destination.id}>
                      {destination.platform} {handleOf.get(destination.connectionId) ?? destination.connectionId}: {destination.status}
                      {destination.errorCode ? ` (${destination.errorCode})` : ''}
                    </li>
                  ))}
                </ul>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h3>Compose inbound</h3>
      {INBOUND_KINDS.map((kind) => (
        <Composer key={kind} kind={kind} accounts={accounts} busy={busy} onSend={(sent, fields) => void compose(sent, fields)} />
      ))}
    </section>
  );
}
