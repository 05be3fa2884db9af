import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { clientErrorHandler, serverOptions, type HttpLimits } from './transport.js';

/** The HTTP server in front of an app, once it listens. */
export interface Listener {
  /** Listens (port 0 picks a free port) and answers the base URL. */
  listen(port: number, host: string): Promise<string>;
  /** Stops taking connections; requests in flight get the limits' grace period. Nothing to do when not listening. */
  close(): Promise<void>;
}

/**
 * Serves `app` with the limits' timeouts and sizes; `onListening` learns the port taken
 * (the webhook fence keeps the server from calling itself). `onError` takes what the server
 * emits once it listens (a connection it could not accept, EMFILE): an 'error' event with no
 * listener would end the process.
 */
export function createListener(app: RequestListener, limits: HttpLimits, onListening: (port: number) => void, onError: (error: Error) => void): Listener {
  let server: Server | undefined;
  return {
    listen(port, host) {
      return new Promise((resolve, reject) => {
        const listening = createServer(serverOptions(limits), app);
        // Past it Node closes a new connection at once: the files left are the data file's, the webhooks' and the upstream's.
        listening.maxConnections = limits.maxConnections;
        listening.on('clientError', clientErrorHandler(limits));
        listening.once('error', reject);
        listening.listen(port, host, () => {
          listening.off('error', reject);
          listening.on('error', onError);
          server = listening;
          const address = listening.address() as AddressInfo;
          onListening(address.port);
          const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
          resolve(`http://${shownHost}:${address.port}`);
        });
      });
    },
    async close() {
      if (!server) return;
      const closing = server;
      await new Promise<void>((resolve) => {
        // Requests in flight get a grace period to finish; a stream or a client that
        // never completes its request would otherwise hold the shutdown open.
        const force = setTimeout(() => closing.closeAllConnections(), limits.shutdownGraceMs);
        closing.close(() => {
          clearTimeout(force);
          resolve();
        });
      });
      server = undefined;
    },
  };
}
