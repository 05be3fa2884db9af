import { useState } from 'preact/hooks';
import type { ControlClient } from './control-client.js';
import { BUDGET_LABELS, BUDGETS, budgetAction, gaugeOf, velocityText, type BudgetName } from './limits.js';
import { useLiveRead } from './live-read.js';

export interface LimitsViewProps {
  client: ControlClient;
  /** Changes whenever the workspace changes or is reset: the view reads its limits afresh. */
  generation: string;
  onTokenRequired: () => void;
}

const STYLE = `
.limits-gauge { margin: .5rem 0 1rem; }
.limits-gauge meter { width: 20rem; height: 1.2rem; display: block; margin: .25rem 0; }
.limits-velocity { border-collapse: collapse; margin: .5rem 0 1rem; }
.limits-velocity caption { text-align: left; font-weight: 600; padding: .25rem 0; }
.limits-velocity th, .limits-velocity td { border: 1px solid var(--line); padding: .2rem .45rem; text-align: left; }
`;

/**
 * The workspace's request budgets (`GET /__control/limits`) as gauges of the calls left, with
 * Drain and Refill (`POST /__control/limits`), and each connected account's posting velocity.
 * Read again, coalesced (useLiveRead), as the workspace's stream brings `request.recorded`.
 */
export function LimitsView({ client, generation, onTokenRequired }: LimitsViewProps) {
  // Every API request takes a place in a window: read again on each one the stream reports.
  const { data: limits, show, error, fail, clearError, connection, refresh } = useLiveRead(client, 'getLimits', {
    generation,
    onTokenRequired,
    readsAgainOn: (name) => name === 'request.recorded',
  });
  const [busy, setBusy] = useState(false);

  async function act(action: 'drain' | 'refill', budget: BudgetName) {
    setBusy(true);
    clearError();
    try {
      show(await client.call('updateLimits', { body: budgetAction(action, budget) }));
    } catch (failure) {
      fail(failure);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section aria-labelledby="view-heading" style={{ flex: 1, minHeight: 0, overflow: 'auto' }}>
      <style>{STYLE}</style>
      <h2 id="view-heading">Limits</h2>
      <p>
        The workspace's request budgets as the X-RateLimit headers would tell them now, in virtual time. Every authenticated API call takes a place in one window until it ages out; a call refused with 429 takes none. Drain fills a window so the next call is refused;
        Refill empties it.
      </p>
      <p role="status" class="notice" data-connection={connection}>
        {connection === 'live' ? 'Live' : connection === 'connecting' ? 'Connecting…' : 'Disconnected'} · read again as this workspace's requests arrive{limits && ` · plan ${limits.plan}`}{' '}
        <button type="button" onClick={refresh}>
          Refresh
        </button>
      </p>
      {error && <p role="alert">{error}</p>}
      {limits === null ? (
        <p>Reading…</p>
      ) : (
        <>
          {BUDGETS.map((budget) => {
            const gauge = gaugeOf(limits.budgets[budget]);
            const id = `limits-${budget}`;
            return (
              <div key={budget} class="limits-gauge" data-budget={budget}>
                <h3 id={`${id}-label`}>{BUDGET_LABELS[budget]}</h3>
                <meter id={id} aria-labelledby={`${id}-label`} aria-describedby={`${id}-text`} min={0} max={gauge.max} low={gauge.low} optimum={gauge.max} value={gauge.value} />
                <p id={`${id}-text`}>
                  <span class="limits-text">{gauge.text}</span> · <span class="limits-reset">{gauge.reset}</span>
                </p>
                <button type="button" disabled={busy} onClick={() => void act('drain', budget)}>
                  Drain {budget}
                </button>{' '}
                <button type="button" disabled={busy} onClick={() => void act('refill', budget)}>
                  Refill {budget}
                </button>
              </div>
            );
          })}
          <table class="limits-velocity">
            <caption>Posting velocity per connected account (publishes: used / cap)</caption>
            <thead>
              <tr>
                <th scope="col">Account</th>
                <th scope="col">Platform</th>
                <th scope="col">Last hour</th>
                <th scope="col">Today (UTC)</th>
                <th scope="col">In flight</th>
              </tr>
            </thead>
            <tbody>
              {limits.velocity.map((account) => (
                <tr key={account.accountId} data-account={account.accountId}>
                  <th scope="row">
                    <code>{account.accountId}</code>
                  </th>
                  <td>{account.platform}</td>
                  <td>{velocityText(account.hour)}</td>
                  <td>{velocityText(account.day)}</td>
                  <td>{account.inFlight}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {limits.velocity.length === 0 && <p>No connected account.</p>}
        </>
      )}
    </section>
  );
}
