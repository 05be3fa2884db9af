import { useCallback, useEffect, useState } from 'preact/hooks';
import type { ControlOperationId, ControlResult } from '../../client/control-types.js';
import { ControlError, TokenRequired, type ControlClient } from './control-client.js';
import { coalescedRefresh } from './coverage-grid.js';
import { followStream, RECONNECT_MS } from './follow-stream.js';

/** At most one read per this many milliseconds while events arrive (the Coverage view's pace). */
export const LIVE_READ_EVERY_MS = 300;

export type Connection = 'connecting' | 'live' | 'disconnected';

export interface LiveReadOptions {
  /** Changes whenever the workspace changes or is reset: the answer is read afresh. */
  generation: string;
  onTokenRequired: () => void;
  /** Which of the stream's events call for a new read; every one when absent. */
  readsAgainOn?: (eventName: string) => boolean;
}

export interface LiveRead<T> {
  /** The last answer; null until the first one, and again after the workspace changes. */
  data: T | null;
  /** Shows an answer obtained otherwise (the answer of an action), as if read. */
  show: (data: T) => void;
  /** The envelope's message of the last failure, or null. */
  error: string | null;
  /** Shows a failure: a control token asked for, or the envelope's message. */
  fail: (failure: unknown) => void;
  clearError: () => void;
  connection: Connection;
  /** Asks for a read now (coalesced with those the stream asks for). */
  refresh: () => void;
}

/**
 * A control-plane read (an operation of control.yaml that takes no parameter) kept live: read once, then again, coalesced
 * to one read per LIVE_READ_EVERY_MS however many events arrive, on the workspace's stream
 * events, which is opened again after the server ends it. What the views built on the stream
 * share, so each one says only what it reads and how it draws it.
 */
export function useLiveRead<K extends ControlOperationId>(client: ControlClient, operationId: K, { generation, onTokenRequired, readsAgainOn }: LiveReadOptions): LiveRead<ControlResult<K>> {
  type T = ControlResult<K>;
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [connection, setConnection] = useState<Connection>('connecting');
  const [retry, setRetry] = useState(0);
  const [refresher, setRefresher] = useState<{ poke: () => void } | null>(null);

  const fail = useCallback(
    (failure: unknown) => {
      if (failure instanceof TokenRequired) return onTokenRequired();
      setError(failure instanceof ControlError ? failure.message : String(failure));
    },
    [onTokenRequired],
  );

  // Another workspace's answer is never shown as this one's.
  useEffect(() => {
    setData(null);
    setError(null);
  }, [generation, operationId]);

  useEffect(() => {
    const abort = new AbortController();
    const refresh = coalescedRefresh(
      () =>
        client
          .call(operationId, { signal: abort.signal })
          .then(setData)
          .catch((failure: unknown) => {
            if (!abort.signal.aborted) fail(failure);
          }),
      LIVE_READ_EVERY_MS,
    );
    setRefresher(refresh);
    setConnection('connecting');
    refresh.poke();
    followStream(client, {
      onOpen: () => {
        setConnection('live');
        // Whatever changed between the first read and the stream opening.
        refresh.poke();
      },
      onEvent: (name) => {
        if (readsAgainOn === undefined || readsAgainOn(name)) refresh.poke();
      },
      onClosed: () => {
        setConnection('disconnected');
        setTimeout(() => setRetry((count) => count + 1), RECONNECT_MS);
      },
      onFailure: (failure) => {
        setConnection('disconnected');
        fail(failure);
      },
      signal: abort.signal,
    });
    return () => {
      abort.abort();
      refresh.cancel();
    };
    // readsAgainOn is read at each event; a new function each render must not reopen the stream.
  }, [client, operationId, generation, retry, fail]);

  return { data, show: setData, error, fail, clearError: () => setError(null), connection, refresh: () => refresher?.poke() };
}
