import { useEffect, useMemo, useState } from 'preact/hooks';
import { ControlError, TokenRequired } from './control-client.js';
import { COVERAGE_SHOW_LABELS, COVERAGE_SHOWS, coalescedRefresh, coverageRow, operationsParam, ratioText, scopeText, shownRows, type CoverageReport, type CoverageShow } from './coverage-grid.js';
import type { ViewProps } from './view-props.js';

/** At most one fetch of the report per this many milliseconds while requests arrive. */
const REFRESH_EVERY_MS = 300;

type Scope = 'server' | 'workspace';

/** The grid's look; a gap is marked by ✗ and its words as well as by its colour. */
const STYLE = `
.coverage-totals, .coverage-grid { border-collapse: collapse; margin: .5rem 0 1rem; }
.coverage-totals caption, .coverage-grid caption { text-align: left; font-weight: 600; padding: .25rem 0; }
.coverage-totals th, .coverage-totals td, .coverage-grid th, .coverage-grid td { border: 1px solid var(--line); padding: .2rem .45rem; text-align: left; vertical-align: top; }
.coverage-totals td { text-align: right; }
.coverage-grid { width: 100%; min-width: 64rem; table-layout: fixed; }
.coverage-grid td, .coverage-grid th { overflow-wrap: anywhere; }
.coverage-grid thead th:nth-child(1) { width: 13rem; }
.coverage-grid thead th:nth-child(2) { width: 14rem; }
.coverage-grid thead th:nth-child(3) { width: 3.5rem; }
.coverage-grid thead th:nth-child(4), .coverage-grid thead th:nth-child(5) { width: 8rem; }
.coverage-gap { background: #fdecea; color: #8a1c1c; border-radius: 3px; padding: 0 .2rem; }
.coverage-unexercised > th { background: #fdecea; color: #8a1c1c; }
.coverage-unexercised > th code { color: inherit; }
`;

/** The grid's columns: the Markdown report's, in its order. */
const GRID_COLUMNS = ['Operation', 'Method and path', 'Calls', 'Statuses seen', 'Declared, not seen', 'Error codes seen', 'Error codes not seen'];

function ColumnHeads({ names }: { names: string[] }) {
  return (
    <thead>
      <tr>
        {names.map((name) => (
          <th key={name} scope="col">
            {name}
          </th>
        ))}
      </tr>
    </thead>
  );
}

/** A gap cell's content: the symbol and the words, so no one needs the colour to see it. */
function Missing({ items }: { items: Array<string | number> }) {
  if (items.length === 0) return <span>—</span>;
  return <span class="coverage-gap">✗ {items.join(', ')}</span>;
}

/**
 * Contract coverage as `GET /__control/coverage` reports it: the totals, then one row per
 * operation with the statuses and error codes seen and those declared but never seen (the
 * gaps), in the CI report's words. Read again, at most every REFRESH_EVERY_MS, as the
 * workspace's stream brings `request.recorded`, and on Refresh.
 */
export default function CoverageView({ label, client, generation, onTokenRequired }: ViewProps) {
  const [report, setReport] = useState<CoverageReport | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [scope, setScope] = useState<Scope>('server');
  const [typedOperations, setTypedOperations] = useState('');
  const [operations, setOperations] = useState<string | null>(null);
  const [show, setShow] = useState<CoverageShow>('all');
  const [text, setText] = useState('');
  const [live, setLive] = useState(false);
  const [refresher, setRefresher] = useState<{ poke: () => void } | null>(null);

  useEffect(() => {
    const abort = new AbortController();
    const query = { scope, ...(operations !== null && { operations }) };
    const fail = (failure: unknown) => {
      if (abort.signal.aborted) return;
      if (failure instanceof TokenRequired) return onTokenRequired();
      setError(failure instanceof ControlError ? `${failure.code}: ${failure.message}` : String(failure));
    };
    const refresh = coalescedRefresh(
      () =>
        client
          .call('getCoverage', { query, signal: abort.signal })
          .then((answer) => {
            setReport(answer);
            setError(null);
          })
          .catch(fail),
      REFRESH_EVERY_MS,
    );
    setRefresher(refresh);
    setLive(false);
    refresh.poke();
    client
      .stream({
        onOpen: () => {
          setLive(true);
          // Whatever was answered between the first read and the stream opening.
          refresh.poke();
        },
        onEvent: (name) => {
          if (name === 'request.recorded') refresh.poke();
        },
        signal: abort.signal,
      })
      .then(() => setLive(false))
      .catch((failure: unknown) => {
        setLive(false);
        fail(failure);
      });
    return () => {
      abort.abort();
      refresh.cancel();
    };
  }, [client, generation, scope, operations, onTokenRequired]);

  const rows = useMemo(() => (report ? report.byOperation.map(coverageRow) : []), [report]);
  const shown = useMemo(() => shownRows(rows, show, text), [rows, show, text]);

  return (
    <section aria-labelledby="view-heading" style={{ flex: 1, minHeight: 0, overflow: 'auto' }}>
      <style>{STYLE}</style>
      <h2 id="view-heading">{label}</h2>
      <p>
        Contract coverage of the traffic so far, as the CI report (<code>--coverage-report</code>) shows it: which operations of openapi.yaml were answered with a status they declare, and which declared statuses and error codes never came up. Counted over the server's lifetime: resets and restores keep the counts.
      </p>
      <div class="filters">
        <label>
          Counted over
          <select value={scope} onChange={(event) => setScope(event.currentTarget.value as Scope)}>
            <option value="server">The whole server</option>
            <option value="workspace">This workspace</option>
          </select>
        </label>
        <form
          style={{ display: 'flex', gap: '.25rem', alignItems: 'end' }}
          onSubmit={(event) => {
            event.preventDefault();
            setOperations(operationsParam(typedOperations));
          }}
        >
          <label>
            Limit to operations
            <input value={typedOperations} onInput={(event) => setTypedOperations(event.currentTarget.value)} placeholder="createPost, getPost" />
          </label>
          <button type="submit">Apply</button>
        </form>
        <label>
          Show
          <select value={show} onChange={(event) => setShow(event.currentTarget.value as CoverageShow)}>
            {COVERAGE_SHOWS.map((value) => (
              <option key={value} value={value}>
                {COVERAGE_SHOW_LABELS[value]}
              </option>
            ))}
          </select>
        </label>
        <label>
          Search
          <input type="search" value={text} onInput={(event) => setText(event.currentTarget.value)} placeholder="operation, path, status, error code…" />
        </label>
        <button type="button" onClick={() => refresher?.poke()}>
          Refresh
        </button>
        <p role="status" class="notice">
          {live ? 'Live' : 'Not live'} · {report ? `${shown.length} of ${rows.length} operations shown` : 'Reading…'} · read again as this workspace's requests arrive
          {scope === 'server' && " (other workspaces' requests show on Refresh)"}
        </p>
      </div>
      {error && <p role="alert">{error}</p>}
      {report && (
        <>
          <p>{scopeText(report)}</p>
          <table class="coverage-totals">
            <caption>Totals</caption>
            <ColumnHeads names={['Counted', 'Exercised', 'Declared', 'Coverage']} />
            <tbody>
              {(
                [
                  ['Operations', report.operations],
                  ['Status codes (per operation)', report.statuses],
                  ['Error codes (per operation)', report.errorCodes],
                  ['Webhook events (delivered)', report.webhookEvents],
                ] as const
              ).map(([label, ratio]) => (
                <tr key={label} title={ratioText(ratio)}>
                  <th scope="row">{label}</th>
                  <td>{ratio.exercised}</td>
                  <td>{ratio.total}</td>
                  <td>{ratio.percent}%</td>
                </tr>
              ))}
            </tbody>
          </table>
          <table class="coverage-grid">
            <caption>
              Operations by declared status and error code ({scope === 'server' ? 'whole server' : 'this workspace'}): ✓ exercised, ✗ a gap. {shown.length} of {rows.length} shown.
            </caption>
            <ColumnHeads names={GRID_COLUMNS} />
            <tbody>
              {shown.map((row) => (
                <tr key={row.operationId} data-operation={row.operationId} class={row.exercised ? undefined : 'coverage-unexercised'} title={row.gaps.join('; ')}>
                  <th scope="row">
                    <span aria-hidden="true">{row.exercised ? '✓' : '✗'}</span>
                    <span class="visually-hidden">{row.exercised ? 'exercised:' : 'not exercised:'}</span> <code>{row.operationId}</code>
                  </th>
                  <td>
                    <code>
                      {row.method} {row.path}
                    </code>
                  </td>
                  <td>{row.calls}</td>
                  <td>{row.statusesSeen || '—'}</td>
                  <td>
                    <Missing items={row.missingStatuses} />
                  </td>
                  <td>{row.errorCodesSeen || '—'}</td>
                  <td>
                    <Missing items={row.missingErrorCodes} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {shown.length === 0 && <p>No operation matches these filters.</p>}
          {report.contractFindings && <ContractFindings summary={report.contractFindings} />}
        </>
      )}
    </section>
  );
}

/** Behind `proxy`: what the upstream's exchanges broke of openapi.yaml, as the CI report's "Contract violations (proxy)" says it. */
function ContractFindings({ summary }: { summary: NonNullable<CoverageReport['contractFindings']> }) {
  return (
    <section aria-labelledby="findings-heading">
      <h3 id="findings-heading">Contract violations (proxy)</h3>
      <p>
        {summary.withViolations} of {summary.exchanges} exchange{summary.exchanges === 1 ? '' : 's'} with the upstream broke openapi.yaml.
        {summary.toleratedOnly > 0 && ` ${summary.toleratedOnly} more showed only what the contract allows (the rows marked tolerated): drift to pick up, not a violation.`}
      </p>
      {summary.byOperation.length > 0 && (
        <table class="coverage-findings">
          <caption class="visually-hidden">Contract findings per operation and kind</caption>
          <ColumnHeads names={['Operation', 'Side', 'Kind', 'Exchanges', 'Fields (examples)']} />
          <tbody>
            {summary.byOperation.map((row) => (
              <tr key={`${row.operationId ?? ''} ${row.side} ${row.kind} ${row.tolerated}`}>
                <th scope="row">{row.operationId === null ? '(no operation)' : <code>{row.operationId}</code>}</th>
                <td>{row.side}</td>
                <td>
                  {row.kind}
                  {row.tolerated && ' (tolerated)'}
                </td>
                <td>{row.count}</td>
                <td>{row.fields.join(', ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
