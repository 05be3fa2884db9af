import { Fragment } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ControlError, TokenRequired, type ControlClient } from './control-client.js';
import type { JournalEntry, LiveDetail } from './contract.js';
import { curlCommand, requestTarget } from './curl.js';
import { followStream, RECONNECT_MS } from './follow-stream.js';
import { VirtualList } from './virtual-list.js';

/** The most entries the view holds: the journal's largest page (`limit` at most 10,000). */
export const MAX_ENTRIES = 10_000;
/** The most recent entries whose live detail the page keeps (each body up to 16 KB): older ones drop it. */
export const DETAIL_KEPT = 500;

/** An entry, with its headers and bodies when the page saw the request live. */
type ShownEntry = JournalEntry & { detail?: LiveDetail };
const ROW_HEIGHT = 28;

export const STATUS_CLASSES = ['all', '2xx', '3xx', '4xx', '5xx', 'none'] as const;
type StatusClass = (typeof STATUS_CLASSES)[number];
const STATUS_CLASS_LABELS: Record<StatusClass, string> = { all: 'All', '2xx': '2xx', '3xx': '3xx', '4xx': '4xx', '5xx': '5xx', none: 'No answer' };

function inClass(status: number, statusClass: StatusClass): boolean {
  if (statusClass === 'all') return true;
  if (statusClass === 'none') return status === 0;
  return Math.floor(status / 100) === Number(statusClass[0]);
}

function matchesText(entry: JournalEntry, text: string): boolean {
  if (text === '') return true;
  const haystack = [entry.method, requestTarget(entry), entry.status, entry.operationId, entry.matchedRule, entry.errorCode, entry.effect, ...(entry.violations ?? []).map((finding) => `${finding.kind} ${finding.field}`)].join(' ').toLowerCase();
  return haystack.includes(text.toLowerCase());
}

/** Time of day of a virtual instant, to the millisecond (the date is in the detail). */
function timeOf(at: string): string {
  return at.slice(11, 23);
}

type Connection = 'connecting' | 'live' | 'disconnected';

export interface RequestsViewProps {
  client: ControlClient;
  /** Changes whenever the workspace changes or is reset: the view reads its journal afresh. */
  generation: string;
  onTokenRequired: () => void;
}

/**
 * The journal as a live list: read once with `GET /__control/journal`, then kept up to date
 * from the workspace's event stream (`request.recorded`), newest last.
 */
export function RequestsView({ client, generation, onTokenRequired }: RequestsViewProps) {
  const [entries, setEntries] = useState<ShownEntry[]>([]);
  const [capacity, setCapacity] = useState<number | null>(null);
  const [connection, setConnection] = useState<Connection>('connecting');
  const [error, setError] = useState<string | null>(null);
  const [statusClass, setStatusClass] = useState<StatusClass>('all');
  const [operation, setOperation] = useState('');
  const [text, setText] = useState('');
  const [selectedSeq, setSelectedSeq] = useState<number | null>(null);
  const [retry, setRetry] = useState(0);
  const pending = useRef<ShownEntry[]>([]);

  useEffect(() => {
    const abort = new AbortController();
    let loaded = false;
    let frame = 0;
    setEntries([]);
    setSelectedSeq(null);
    setConnection('connecting');
    // Entries arriving in one frame are added together: a burst of requests is one render.
    const flush = () => {
      frame = 0;
      const batch = pending.current;
      pending.current = [];
      setEntries((current) => {
        const lastSeq = current.at(-1)?.seq ?? 0;
        const fresh = batch.filter((entry) => entry.seq > lastSeq);
        if (fresh.length === 0) return current;
        const next = [...current, ...fresh].slice(-MAX_ENTRIES);
        // Only the most recent keep their bodies: the page's memory stays bounded however long it is open.
        for (let index = Math.max(0, next.length - DETAIL_KEPT - fresh.length); index < next.length - DETAIL_KEPT; index++) {
          const { detail, ...entry } = next[index] as ShownEntry;
          if (detail) next[index] = entry;
        }
        return next;
      });
    };
    const onEvent = (name: string, data: string) => {
      if (name !== 'request.recorded') return;
      const recorded = (JSON.parse(data) as { data: { entry: JournalEntry; detail?: LiveDetail } }).data;
      pending.current.push(recorded.detail ? { ...recorded.entry, detail: recorded.detail } : recorded.entry);
      if (loaded && frame === 0) frame = requestAnimationFrame(flush);
    };
    const onOpen = () => {
      // The journal is read once the stream is open, so no entry falls between the two; the
      // entries the stream brings that the read already has are dropped by seq.
      client
        .call('getJournal', { query: { limit: MAX_ENTRIES }, signal: abort.signal })
        .then((page) => {
          setEntries(page.data);
          setCapacity(page.capacity);
          setConnection('live');
          setError(null);
          loaded = true;
          flush();
        })
        .catch(fail);
    };
    const fail = (failure: unknown) => {
      if (abort.signal.aborted) return;
      if (failure instanceof TokenRequired) return onTokenRequired();
      setConnection('disconnected');
      setError(failure instanceof ControlError ? failure.message : String(failure));
    };
    const onClosed = () => {
      setConnection('disconnected');
      setTimeout(() => setRetry((count) => count + 1), RECONNECT_MS);
    };
    followStream(client, { onOpen, onEvent, onClosed, onFailure: fail, signal: abort.signal });
    return () => {
      abort.abort();
      if (frame !== 0) cancelAnimationFrame(frame);
      pending.current = [];
    };
  }, [client, generation, retry, onTokenRequired]);

  const operations = useMemo(() => [...new Set(entries.map((entry) => entry.operationId).filter((id): id is string => id !== null))].sort(), [entries]);
  const shown = useMemo(
    () => entries.filter((entry) => inClass(entry.status, statusClass) && (operation === '' || entry.operationId === operation) && matchesText(entry, text)),
    [entries, statusClass, operation, text],
  );
  const selectedIndex = selectedSeq === null ? -1 : shown.findIndex((entry) => entry.seq === selectedSeq);
  const selected = selectedIndex >= 0 ? shown[selectedIndex] : undefined;

  return (
    <section class="requests" aria-labelledby="view-heading" style={{ display: 'flex', flexDirection: 'column', flex: 1, minHeight: 0 }}>
      <h2 id="view-heading">Requests</h2>
      <div class="filters">
        <label>
          Status
          <select value={statusClass} onChange={(event) => setStatusClass(event.currentTarget.value as StatusClass)}>
            {STATUS_CLASSES.map((value) => (
              <option key={value} value={value}>
                {STATUS_CLASS_LABELS[value]}
              </option>
            ))}
          </select>
        </label>
        <label>
          Operation
          <select value={operation} onChange={(event) => setOperation(event.currentTarget.value)}>
            <option value="">All operations</option>
            {operations.map((id) => (
              <option key={id} value={id}>
                {id}
              </option>
            ))}
          </select>
        </label>
        <label>
          Search
          <input type="search" value={text} onInput={(event) => setText(event.currentTarget.value)} placeholder="path, rule, error code, finding…" style={{ width: '16rem' }} />
        </label>
        <p role="status" class="notice" data-connection={connection}>
          {connection === 'live' ? 'Live' : connection === 'connecting' ? 'Connecting…' : 'Disconnected'} · {shown.length} of {entries.length} shown
          {capacity !== null && ` · the journal keeps ${capacity}`}
        </p>
      </div>
      {error && <p role="alert">{error}</p>}
      <div class="row" aria-hidden="true" style={{ fontWeight: 600 }}>
        <span>Time</span>
        <span>Method</span>
        <span>Path</span>
        <span>Status</span>
        <span>Operation</span>
        <span>Rule</span>
        <span>Duration</span>
      </div>
      <VirtualList
        items={shown}
        rowHeight={ROW_HEIGHT}
        label="Journal"
        selectedIndex={selectedIndex >= 0 ? selectedIndex : null}
        onSelect={(index) => setSelectedSeq(shown[index]?.seq ?? null)}
        followTail={true}
        keyOf={(entry) => entry.seq}
        renderRow={(entry) => (
          <>
            <span>{timeOf(entry.at)}</span>
            <span>{entry.method}</span>
            <span title={requestTarget(entry)}>{requestTarget(entry)}</span>
            <span class={`status-${Math.floor(entry.status / 100)}`}>
              {entry.status === 0 ? '—' : entry.status}
              <ViolationMark entry={entry} />
            </span>
            <span>{entry.operationId ?? '—'}</span>
            <span>{entry.matchedRule ?? '—'}</span>
            <span>{entry.durationMs.toFixed(1)} ms</span>
          </>
        )}
      />
      {selected && <RequestDetail entry={selected} />}
    </section>
  );
}

/** The error envelope's message and place, when the answer was a validation error. */
function validationErrorOf(detail: LiveDetail | undefined): { message: string; param?: string } | null {
  if (!detail?.responseBody) return null;
  try {
    const { error } = JSON.parse(detail.responseBody) as { error?: { code?: string; message?: string; param?: string } };
    return error?.code === 'VALIDATION_ERROR' && error.message ? { message: error.message, ...(error.param && { param: error.param }) } : null;
  } catch {
    return null;
  }
}

function HeaderList({ title, headers }: { title: string; headers: Record<string, string> }) {
  return (
    <>
      <h4>{title}</h4>
      <dl>
        {Object.entries(headers).map(([name, value]) => (
          <Fragment key={name}>
            <dt>{name}</dt>
            <dd>{value}</dd>
          </Fragment>
        ))}
      </dl>
    </>
  );
}

function Body({ title, body, truncated }: { title: string; body: string | null; truncated: boolean }) {
  return (
    <>
      <h4>{title}</h4>
      {/* A long body scrolls inside its box: focusable, so the keyboard can scroll it too. */}
      {body === null ? (
        <p>None.</p>
      ) : (
        <pre class="body" tabIndex={0} role="region" aria-label={title}>
          {prettyJson(body)}
        </pre>
      )}
      {truncated && <p>Cut at 16 KB.</p>}
    </>
  );
}

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** Behind `proxy`: a row whose exchange broke the contract says so, and how often, without opening it. */
function ViolationMark({ entry }: { entry: JournalEntry }) {
  const violations = (entry.violations ?? []).filter((finding) => !finding.tolerated).length;
  if (violations === 0) return null;
  return (
    <>
      <span aria-hidden="true" title={`${violations} contract violation${violations === 1 ? '' : 's'}`}>
        {' '}⚠{violations}
      </span>
      <span class="visually-hidden">, {violations} contract violation{violations === 1 ? '' : 's'}</span>
    </>
  );
}

function RequestDetail({ entry }: { entry: ShownEntry }) {
  const [copied, setCopied] = useState('');
  const { detail } = entry;
  const command = curlCommand(entry, location.origin, detail);
  const validation = validationErrorOf(detail);
  useEffect(() => setCopied(''), [entry.seq]);
  const fields: Array<[string, string]> = [
    ['Time', entry.at],
    ['Method', entry.method],
    ['Path', entry.path],
    ['Query', entry.query === '' ? '—' : entry.query],
    ['Status', entry.status === 0 ? 'no answer (dropped or reset)' : String(entry.status)],
    ['Error code', entry.errorCode ?? '—'],
    ['Operation', entry.operationId ?? '— (no operation of the contract)'],
    ['Matched rule', entry.matchedRule ?? '—'],
    ['Scenario effect', entry.effect ?? '—'],
    ['Injected fault', entry.injected ? 'yes' : 'no'],
    ['Duration', `${entry.durationMs.toFixed(1)} ms (wall clock)`],
  ];
  async function copy() {
    try {
      await navigator.clipboard.writeText(command);
      setCopied('Copied.');
    } catch {
      setCopied('The browser refused the clipboard: select the command above.');
    }
  }
  return (
    <section class="detail" aria-labelledby="detail-heading">
      <h3 id="detail-heading">
        Request #{entry.seq}: {entry.method} {requestTarget(entry)}
      </h3>
      <dl>
        {fields.map(([name, value]) => (
          <Fragment key={name}>
            <dt>{name}</dt>
            <dd>{value}</dd>
          </Fragment>
        ))}
      </dl>
      <pre aria-label="curl command">{command}</pre>
      <button type="button" onClick={() => void copy()}>
        Copy as curl
      </button>{' '}
      <span role="status">{copied}</span>
      {validation && (
        <>
          <h4>Validation error</h4>
          <p>
            {validation.param && <code>{validation.param}</code>} {validation.message}
          </p>
        </>
      )}
      {entry.violations && entry.violations.length > 0 && (
        <>
          {/* Proxy mode: what the upstream's exchange broke of openapi.yaml (X-Contract-Violations). */}
          <h4>Contract findings ({entry.violations.length})</h4>
          <ul>
            {entry.violations.map((finding, i) => (
              <li key={i}>
                {finding.side} <code>{finding.kind}</code> at <code>{finding.field}</code>
                {finding.tolerated ? ' (tolerated by the contract)' : ''}: {finding.message}
              </li>
            ))}
          </ul>
        </>
      )}
      {detail ? (
        <>
          <HeaderList title="Request headers" headers={detail.requestHeaders} />
          {/* Only a proxy's entries carry violations: a proxy forwards the body as sent, the mock reads it with the contract's defaults. */}
          <Body title={entry.violations === undefined ? 'Request body (as the mock read it, defaults filled in)' : 'Request body (as sent upstream)'} body={detail.requestBody} truncated={detail.requestBodyTruncated} />
          <HeaderList title="Response headers" headers={detail.responseHeaders} />
          <Body title="Response body" body={detail.responseBody} truncated={detail.responseBodyTruncated} />
        </>
      ) : (
        <p>Headers and bodies are shown for requests answered while this page was open (the journal keeps none: docs/dashboard.md).</p>
      )}
    </section>
  );
}
