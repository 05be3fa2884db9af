import { Fragment } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { ControlClient } from './control-client.js';
import { useLiveRead } from './live-read.js';
import { deliveryHeaders, hasPending, prettyBody, signatureHeader, timelineOf, webhooksOf, type DeliveryRecord, type WebhookRecord, type WebhookWithDeliveries } from './webhooks.js';

/**
 * How often the view reads again while a retry is due: an attempt emits no event on the
 * stream, so a retry run by a clock advance would otherwise show only on the next event.
 */
const PENDING_POLL_MS = 1000;

export interface WebhooksViewProps {
  client: ControlClient;
  /** Changes whenever the workspace changes or is reset: the view reads its webhooks afresh. */
  generation: string;
  onTokenRequired: () => void;
}

const STYLE = `
.webhook { border: 1px solid var(--line); border-radius: 4px; padding: .25rem .75rem .75rem; margin: 0 0 1rem; }
.webhook dl { display: grid; grid-template-columns: 8rem 1fr; gap: .2rem .75rem; margin: .25rem 0 .5rem; }
.webhook dd { margin: 0; overflow-wrap: anywhere; }
.webhook table { border-collapse: collapse; margin: .25rem 0 .75rem; }
.webhook caption { text-align: left; font-weight: 600; padding: .25rem 0; }
.webhook th, .webhook td { border: 1px solid var(--line); padding: .2rem .45rem; text-align: left; vertical-align: top; }
.webhook pre { background: #f6f8fa; padding: .5rem; overflow: auto; max-height: 20rem; }
.attempt-failed { color: #8a1c1c; }
.attempt-ok { color: #1a5e20; }
`;

/** The `X-Gateway-Signature` of a body, computed here as the dispatcher does (HMAC-SHA256 with the webhook's secret). */
async function sign(body: string, secret: string): Promise<string | null> {
  // crypto.subtle exists only in a secure context (a loopback address is one).
  if (!globalThis.crypto?.subtle) return null;
  const encoder = new TextEncoder();
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return signatureHeader(await crypto.subtle.sign('HMAC', key, encoder.encode(body)));
}

function DeliveryDetail({ webhook, delivery, busy, onRedeliver }: { webhook: WebhookRecord; delivery: DeliveryRecord; busy: boolean; onRedeliver: () => void }) {
  const [signature, setSignature] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    setSignature(null);
    if (webhook.secret !== null) void sign(delivery.body, webhook.secret).then((value) => current && setSignature(value ?? 'not computable here (no Web Crypto)'));
    return () => {
      current = false;
    };
  }, [webhook.secret, delivery.body]);
  const lastAttempt = delivery.attempts.at(-1)?.attempt ?? 1;
  const headingId = `delivery-${delivery.id}`;
  return (
    <section aria-labelledby={headingId}>
      <h4 id={headingId}>
        Delivery {delivery.event} <code>{delivery.id}</code>
      </h4>
      <table>
        <caption>Timeline ({delivery.status})</caption>
        <thead>
          <tr>
            <th scope="col">Attempt</th>
            <th scope="col">At</th>
            <th scope="col">Status</th>
            <th scope="col">Duration</th>
          </tr>
        </thead>
        <tbody>
          {timelineOf(delivery).map((row) => (
            <tr key={row.attempt} class={row.ok === null ? undefined : row.ok ? 'attempt-ok' : 'attempt-failed'}>
              <th scope="row">{row.attempt}</th>
              <td>{row.at}</td>
              <td>{row.outcome}</td>
              <td>{row.duration}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <button type="button" disabled={busy} onClick={onRedeliver}>
        Redeliver
      </button>
      <h5>Headers of attempt {lastAttempt}</h5>
      <dl>
        {deliveryHeaders(delivery, lastAttempt, webhook.secret === null ? null : (signature ?? 'computing…')).map(([name, value]) => (
          <Fragment key={name}>
            <dt>{name}</dt>
            <dd>
              <code>{value}</code>
            </dd>
          </Fragment>
        ))}
      </dl>
      {webhook.secret === null && <p>The webhook has no secret: its requests are not signed.</p>}
      <h5>Payload</h5>
      <pre tabIndex={0} aria-label={`Payload of delivery ${delivery.id}`}>
        {prettyBody(delivery.body)}
      </pre>
    </section>
  );
}

function WebhookCard({ entry, selected, busy, onSelect, onTest, onRedeliver }: { entry: WebhookWithDeliveries; selected: string | null; busy: boolean; onSelect: (deliveryId: string) => void; onTest: () => void; onRedeliver: (deliveryId: string) => void }) {
  const { webhook, state, deliveries } = entry;
  const headingId = `webhook-${webhook.id}`;
  const shown = deliveries.find((delivery) => delivery.id === selected);
  return (
    <article class="webhook" aria-labelledby={headingId} data-webhook={webhook.id}>
      <h3 id={headingId}>{webhook.name}</h3>
      <dl>
        <dt>URL</dt>
        <dd>
          <code>{webhook.url}</code>
        </dd>
        <dt>State</dt>
        <dd>{state}</dd>
        <dt>Events</dt>
        <dd>{webhook.events.join(', ') || '—'}</dd>
        <dt>Signed</dt>
        <dd>{webhook.secret === null ? 'no' : 'yes'}</dd>
      </dl>
      <button type="button" disabled={busy} aria-describedby={headingId} onClick={onTest}>
        Send test event
      </button>
      <table>
        <caption>
          Deliveries of {webhook.name}, newest first ({deliveries.length})
        </caption>
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">Delivery status</th>
            <th scope="col">Attempts</th>
            <th scope="col">Created</th>
            <th scope="col">Next retry at</th>
          </tr>
        </thead>
        <tbody>
          {deliveries.map((delivery) => (
            <tr key={delivery.id} data-delivery={delivery.id}>
              <th scope="row">
                <button type="button" aria-pressed={delivery.id === selected} onClick={() => onSelect(delivery.id)}>
                  {delivery.event}
                  {delivery.origin === 'test' ? ' (test)' : ''}
                </button>
              </th>
              <td>{delivery.status}</td>
              <td>{delivery.attempts.length}</td>
              <td>{delivery.createdAt}</td>
              <td>{delivery.nextAttemptAt ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {deliveries.length === 0 && <p>No delivery yet.</p>}
      {shown && <DeliveryDetail webhook={webhook} delivery={shown} busy={busy} onRedeliver={() => onRedeliver(shown.id)} />}
    </article>
  );
}

/**
 * The workspace's webhooks and their delivery logs, read from its snapshot (`GET
 * /__control/state`: the control plane's one read of them), each delivery's attempts as a
 * timeline with the next retry, its headers and payload; Send test event (`POST
 * /__control/events`, `webhook.test`) and Redeliver (`POST
 * /__control/webhooks/{id}/deliveries/{deliveryId}/redeliver`). Read again, coalesced, on each event of the stream, and every
 * PENDING_POLL_MS while a retry is due.
 */
export function WebhooksView({ client, generation, onTokenRequired }: WebhooksViewProps) {
  const { data: snapshot, error, fail, clearError, connection, refresh } = useLiveRead(client, 'getState', { generation, onTokenRequired });
  const [selected, setSelected] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => setSelected(null), [generation]);

  const webhooks = useMemo(() => (snapshot ? webhooksOf(snapshot) : []), [snapshot]);
  const pending = hasPending(webhooks);
  // refresh changes with each render (and each reopened stream): the interval calls the latest one.
  const latestRefresh = useRef(refresh);
  latestRefresh.current = refresh;
  useEffect(() => {
    if (!pending) return;
    const interval = setInterval(() => latestRefresh.current(), PENDING_POLL_MS);
    return () => clearInterval(interval);
  }, [pending]);

  async function act(action: () => Promise<void>) {
    setBusy(true);
    clearError();
    try {
      await action();
    } catch (failure) {
      fail(failure);
    } finally {
      setBusy(false);
      refresh();
    }
  }

  const sendTest = (webhookId: string) =>
    act(async () => {
      const sent = await client.call('emitEvent', { body: { event: 'webhook.test', objectId: webhookId } });
      setSelected(sent.deliveries[0]?.deliveryId ?? null);
    });

  const redeliver = (webhookId: string, deliveryId: string) =>
    act(async () => {
      await client.call('redeliverDelivery', { params: { id: webhookId, deliveryId } });
    });

  return (
    <section aria-labelledby="view-heading" style={{ flex: 1, minHeight: 0, overflow: 'auto' }}>
      <style>{STYLE}</style>
      <h2 id="view-heading">Webhooks</h2>
      <p>The workspace's webhook endpoints and their delivery logs: pick a delivery to see its attempts, the next retry, the headers its requests carried and its payload.</p>
      <div class="filters">
        <button type="button" onClick={refresh}>
          Refresh
        </button>
        <p role="status" class="notice">
          {connection === 'live' ? 'Live' : connection === 'connecting' ? 'Connecting…' : 'Not live'} · {snapshot ? `${webhooks.length} webhook${webhooks.length === 1 ? '' : 's'}` : 'Reading…'}
          {pending && ' · a retry is due'}
        </p>
      </div>
      {error && <p role="alert">{error}</p>}
      {snapshot && webhooks.length === 0 && <p>This workspace has no webhook. Register one with POST /v1/webhooks.</p>}
      {webhooks.map((entry) => (
        <WebhookCard
          key={entry.webhook.id}
          entry={entry}
          selected={selected}
          busy={busy}
          onSelect={setSelected}
          onTest={() => void sendTest(entry.webhook.id)}
          onRedeliver={(deliveryId) => void redeliver(entry.webhook.id, deliveryId)}
        />
      ))}
    </section>
  );
}
