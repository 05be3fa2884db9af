#!/usr/bin/env node
import { main } from './cli/main.js';
import { watchProcess } from './cli/lifecycle.js';

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
