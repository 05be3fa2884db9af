#!/usr/bin/env node
import { setFlagsFromString } from 'node:v8';
import { main } from './cli/main.js';
import { watchProcess } from './cli/lifecycle.js';

/*
 * V8 guesses, for each place in the code that makes objects, whether they will live long, and
 * once it guesses so it makes them in the old generation from then on (allocation-site
 * pretenuring). Building the worlds at the start keeps nearly everything it makes, and so do the
 * first reads (the views and inputs a memo remembers): V8 tenured about a hundred places during
 * the start, among them places where later requests make only garbage, and nothing it sees
 * afterwards undoes that (its objects in the old generation tell it nothing more). Turned off,
 * a connections list took 17 to 22% less CPU and the mix 4 to 6% (decision 0061). Set here, before
 * the server starts, it reaches npm start, npx, the single executable and the image; a server
 * made in an integrator's own process (createMockServer, the kit) leaves that V8 as it is.
 */
setFlagsFromString('--no-allocation-site-pretenuring');

const io = {
  out: (line: string) => console.log(line),
  err: (line: string) => console.error(line),
  env: process.env,
  cwd: process.cwd(),
};

/** No top-level await: the single executable runs this file as a CommonJS bundle (scripts/build-binary.ts). */
async function start(): Promise<void> {
  // Watching starts before the server does: a Ctrl-C during the start is not lost.
  const watch = watchProcess();
  const result = await main(process.argv.slice(2), io, watch);
  if (result.exitCode !== undefined) {
    watch.dispose();
    process.exitCode = result.exitCode;
    return;
  }
  const { stop } = result;
  // Graceful shutdown: stop accepting, finish requests and webhook attempts, write --data and coverage, leave.
  watch.onShutdown((reason) => {
    io.err(`social-gateway-mock: ${reason}, shutting down`);
    stop().then(
      (code) => process.exit(code),
      (error: unknown) => {
        io.err(`social-gateway-mock: shutdown failed: ${error instanceof Error ? error.message : String(error)}`);
        process.exit(1);
      },
    );
  });
}

void start();
