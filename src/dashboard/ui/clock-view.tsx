import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ADVANCE_PRESETS, clockNow, firstOf, formatInstant, formatUntil, fromUtcField, JOBS_SHOWN, toUtcField } from './clock.js';
import { ControlError, TokenRequired, type ControlClient } from './control-client.js';
import type { Clock, ClockMove, PendingJobList } from './contract.js';
import { followStream, RECONNECT_MS } from './follow-stream.js';

/**
 * The clock as last read, and when (`performance.now()`, the page's monotonic wall time): a
 * running clock is drawn moving from there. With it, the jobs due next, read together.
 */
interface ClockRead {
  clock: Clock;
  readAt: number;
  jobs: PendingJobList;
}

type Connection = 'connecting' | 'live' | 'disconnected';

const READING_STYLE = { display: 'grid', gridTemplateColumns: '9rem 1fr', gap: '.2rem .75rem' };

export interface ClockViewProps {
  client: ControlClient;
  /** Changes whenever the workspace changes or is reset: the view reads its clock afresh. */
  generation: string;
  onTokenRequired: () => void;
}

/**
 * The workspace's virtual clock (`GET /__control/clock`) and its controls: Advance, Set,
 * Freeze and Resume, the jobs due next (`GET /__control/clock/jobs`), and what the last move
 * ran. Read again after each of its own actions and
 * whenever the workspace's event stream brings something: a job that ran emits its event, and
 * a request may have scheduled one.
 */
export function ClockView({ client, generation, onTokenRequired }: ClockViewProps) {
  const [read, setRead] = useState<ClockRead | null>(null);
  const [tick, setTick] = useState(performance.now());
  const [connection, setConnection] = useState<Connection>('connecting');
  const [duration, setDuration] = useState<string>(ADVANCE_PRESETS[1].by);
  const [setTo, setSetTo] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [lastMove, setLastMove] = useState<ClockMove | null>(null);
  const [retry, setRetry] = useState(0);
  // Reads answer out of order under a burst of events: only the latest one asked is kept.
  const readSeq = useRef(0);

  const fail = useCallback(
    (failure: unknown) => {
      if (failure instanceof TokenRequired) return onTokenRequired();
      setError(failure instanceof ControlError ? failure.message : String(failure));
    },
    [onTokenRequired],
  );

  const refresh = useCallback(
    async (signal?: AbortSignal) => {
      const seq = ++readSeq.current;
      try {
        const [clock, jobs] = await Promise.all([client.call('getClock', { signal }), client.call('listClockJobs', { query: { limit: JOBS_SHOWN }, signal })]);
        if (seq !== readSeq.current) return;
        setRead({ clock, readAt: performance.now(), jobs });
        setTick(performance.now());
        setSetTo((current) => (current === '' ? toUtcField(Date.parse(clock.now)) : current));
      } catch (failure) {
        if (!signal?.aborted) fail(failure);
      }
    },
    [client, fail],
  );

  useEffect(() => {
    const abort = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    setRead(null);
    setLastMove(null);
    setSetTo('');
    setError(null);
    setConnection('connecting');
    // A burst of events (an advance publishing many posts) is one read, not one per event.
    const onEvent = () => {
      timer ??= setTimeout(() => {
        timer = undefined;
        void refresh(abort.signal);
      }, 100);
    };
    const onOpen = () => {
      setConnection('live');
      void refresh(abort.signal);
    };
    const onClosed = () => {
      setConnection('disconnected');
      setTimeout(() => setRetry((count) => count + 1), RECONNECT_MS);
    };
    const onFailure = (failure: unknown) => {
      setConnection('disconnected');
      fail(failure);
    };
    followStream(client, { onOpen, onEvent, onClosed, onFailure, signal: abort.signal });
    return () => {
      abort.abort();
      clearTimeout(timer);
    };
  }, [client, generation, retry, refresh, fail]);

  const running = read !== null && !read.clock.frozen;
  // A running clock moves with the wall clock: drawn again each second between reads.
  useEffect(() => {
    if (!running) return;
    const interval = setInterval(() => setTick(performance.now()), 1000);
    return () => clearInterval(interval);
  }, [running]);

  async function act(action: () => Promise<Clock | ClockMove>) {
    setBusy(true);
    setError(null);
    try {
      const answer = await action();
      if ('ran' in answer) {
        setLastMove(answer);
        // Set moves forward only: the field starts again from where the clock now stands.
        setSetTo(toUtcField(Date.parse(answer.clock.now)));
      }
      // The jobs due next changed too: the clock and its jobs are read again, together.
      await refresh();
    } catch (failure) {
      fail(failure);
    } finally {
      setBusy(false);
    }
  }

  const advance = () => act(() => client.call('advanceClock', { body: { by: duration.trim() } }));
  const moveTo = () => {
    const to = fromUtcField(setTo);
    if (to === null) return setError('Choose the date-time to set the clock to.');
    return act(() => client.call('setClock', { body: { to } }));
  };
  const toggle = () => act(() => client.call(read?.clock.frozen ? 'resumeClock' : 'freezeClock'));

  const now = read ? clockNow(read.clock, read.readAt, tick) : null;
  return (
    <section class="clock" aria-labelledby="view-heading" style={{ overflowY: 'auto', flex: 1, minHeight: 0, paddingBottom: '1rem' }}>
      <h2 id="view-heading">Clock</h2>
      <p role="status" class="notice" data-connection={connection}>
        {connection === 'live' ? 'Live' : connection === 'connecting' ? 'Connecting…' : 'Disconnected'}
      </p>
      {error && <p role="alert">{error}</p>}
      {read && now !== null && (
        <dl class="clock-reading" style={READING_STYLE}>
          <dt>Virtual now</dt>
          <dd>
            <time dateTime={new Date(now).toISOString()} data-testid="virtual-now">
              {formatInstant(now)}
            </time>
          </dd>
          <dt>State</dt>
          <dd data-testid="clock-state">{read.clock.frozen ? 'Frozen: only Advance and Set move it' : 'Running with the wall clock'}</dd>
        </dl>
      )}
      <p>
        <button type="button" onClick={() => void toggle()} disabled={busy || read === null}>
          {read?.clock.frozen ? 'Resume' : 'Freeze'}
        </button>
      </p>
      <ActionForm title="Advance" onSubmit={advance}>
        <div role="group" aria-label="Duration presets" style={{ display: 'flex', gap: '.25rem', alignItems: 'end' }}>
          {ADVANCE_PRESETS.map((preset) => (
            <button key={preset.by} type="button" aria-pressed={duration === preset.by} onClick={() => setDuration(preset.by)}>
              {preset.label}
            </button>
          ))}
        </div>
        <label>
          Duration (ISO 8601)
          <input value={duration} onInput={(event) => setDuration(event.currentTarget.value)} placeholder="PT2H, P1DT30M" spellcheck={false} />
        </label>
        <button type="submit" disabled={busy || duration.trim() === ''}>
          Advance
        </button>
      </ActionForm>
      <ActionForm title="Set" onSubmit={moveTo}>
        <label>
          Date-time (UTC, forward only)
          <input type="datetime-local" step={1} value={setTo} onInput={(event) => setSetTo(event.currentTarget.value)} />
        </label>
        <button type="submit" disabled={busy}>
          Set
        </button>
      </ActionForm>
      <h3>Due next</h3>
      {read && now !== null && (
        <dl class="clock-reading" style={READING_STYLE}>
          <dt>Pending jobs</dt>
          <dd>{read.clock.pendingJobs}</dd>
          <dt>Next job due</dt>
          <dd>{read.clock.nextDueAt === null ? 'none waits' : `${formatInstant(Date.parse(read.clock.nextDueAt))} (${formatUntil(now, Date.parse(read.clock.nextDueAt))})`}</dd>
        </dl>
      )}
      {read && now !== null && <DueJobs jobs={read.jobs} now={now} />}
      {lastMove && <RanJobs move={lastMove} />}
    </section>
  );
}

/** A form under its own heading (its name), submitted by its button or Enter in a field. */
function ActionForm({ title, onSubmit, children }: { title: string; onSubmit: () => unknown; children: ComponentChildren }) {
  const id = `${title.toLowerCase()}-heading`;
  return (
    <form
      aria-labelledby={id}
      onSubmit={(event) => {
        event.preventDefault();
        void onSubmit();
      }}
    >
      <h3 id={id}>{title}</h3>
      <div class="filters">{children}</div>
    </form>
  );
}

/** A job as both tables show it: when it is (was) due, then what the table adds, in its columns. */
interface JobRow {
  id: string;
  dueAt: string;
  cells: string[];
}

/** Jobs as a table: "Due at", then the table's own columns; the caption is for screen readers. */
function JobTable({ caption, columns, rows, testId }: { caption: string; columns: string[]; rows: JobRow[]; testId?: string }) {
  return (
    <table style={{ textAlign: 'left', borderSpacing: '.75rem .15rem' }} data-testid={testId}>
      <caption class="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          {['Due at', ...columns].map((name) => (
            <th key={name} scope="col">
              {name}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.id}>
            <td>{formatInstant(Date.parse(row.dueAt))}</td>
            {row.cells.map((cell, i) => (
              <td key={i}>{cell}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The jobs due first, in the order an advance would run them (the first JOBS_SHOWN). */
function DueJobs({ jobs, now }: { jobs: PendingJobList; now: number }) {
  if (jobs.data.length === 0) return null;
  const more = jobs.total - jobs.data.length;
  const rows = jobs.data.map((job) => ({ id: job.id, dueAt: job.dueAt, cells: [formatUntil(now, Date.parse(job.dueAt)), job.kind, job.label] }));
  return (
    <>
      <JobTable caption="Jobs due next, in the order they will run" columns={['In', 'Kind', 'Job']} rows={rows} testId="due-jobs" />
      {more > 0 && <p>And {more} more due later, not shown.</p>}
    </>
  );
}

/** What the last Advance or Set ran, its first jobs only: a long advance can run thousands. */
function RanJobs({ move }: { move: ClockMove }) {
  // The answer lists the first 1,000 jobs and counts them all (ranTotal).
  const { shown } = firstOf(move.ran);
  const more = move.ranTotal - shown.length;
  const rows = shown.map((job) => ({ id: job.id, dueAt: job.dueAt, cells: [job.kind, job.label, job.ok ? 'ok' : `failed: ${job.error ?? 'no reason given'}`] }));
  return (
    <section aria-labelledby="ran-heading">
      <h3 id="ran-heading">What ran</h3>
      <p>
        From {formatInstant(Date.parse(move.from))} to {formatInstant(Date.parse(move.now))}: {move.ranTotal === 0 ? 'nothing fell due.' : `${move.ranTotal} job${move.ranTotal === 1 ? '' : 's'} ran.`}
      </p>
      {rows.length > 0 && <JobTable caption="Jobs the last move ran, in the order they ran" columns={['Kind', 'Job', 'Result']} rows={rows} />}
      {more > 0 && <p>And {more} more, not shown.</p>}
    </section>
  );
}
