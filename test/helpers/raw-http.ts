import { connect, type Socket } from 'node:net';

/** What came back on a raw connection, and whether the server closed it. */
export interface RawExchange {
  status: number | undefined;
  headers: Record<string, string>;
  body: string;
  closedByServer: boolean;
  /** Wall time from connect to close (or to giving up). */
  elapsedMs: number;
}

export interface RawOptions {
  /** Pieces written one after another, `gapMs` apart (a slow client). */
  chunks: Array<string | Buffer>;
  gapMs?: number;
  /** Give up (and destroy the socket) after this long; the test then sees closedByServer false. */
  giveUpMs?: number;
}

/** Parses the first response on the wire: status line, headers, body (as far as it came). */
function parseResponse(raw: string): Pick<RawExchange, 'status' | 'headers' | 'body'> {
  const end = raw.indexOf('\r\n\r\n');
  if (end === -1) return { status: undefined, headers: {}, body: '' };
  const [statusLine, ...lines] = raw.slice(0, end).split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number.isNaN(status) ? undefined : status, headers, body: raw.slice(end + 4) };
}

/**
 * Talks HTTP/1.1 over a bare TCP socket, for what a well-behaved client library
 * will not do: dribble headers, send oversized ones, break the syntax.
 */
export function rawExchange(port: number, options: RawOptions): Promise<RawExchange> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const received: Buffer[] = [];
    let closedByServer = false;
    let gaveUp = false;
    const socket: Socket = connect(port, '127.0.0.1');
    const timers: NodeJS.Timeout[] = [];
    const finish = () => {
      for (const timer of timers) clearTimeout(timer);
      resolve({ ...parseResponse(Buffer.concat(received).toString('utf8')), closedByServer, elapsedMs: performance.now() - started });
    };
    socket.on('data', (chunk) => received.push(chunk));
    socket.on('end', () => {
      if (!gaveUp) closedByServer = true;
    });
    socket.on('close', finish);
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // A reset after the server answered and closed is a close all the same.
      if (error.code === 'ECONNRESET' || error.code === 'EPIPE') {
        closedByServer = true;
        return;
      }
      reject(error);
    });
    socket.on('connect', () => {
      options.chunks.forEach((chunk, i) => {
        timers.push(
          setTimeout(() => {
            if (!socket.destroyed) socket.write(chunk);
          }, i * (options.gapMs ?? 0)),
        );
      });
      if (options.giveUpMs !== undefined) {
        timers.push(
          setTimeout(() => {
            gaveUp = true;
            socket.destroy();
          }, options.giveUpMs),
        );
      }
    });
  });
}
