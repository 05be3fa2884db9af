#!/usr/bin/env node
import { main } from './cli.js';

const io = {
  out: (line: string) => console.log(line),
  err: (line: string) => console.error(line),
  env: process.env,
  cwd: process.cwd(),
};

const result = await main(process.argv.slice(2), io);
if (result.exitCode !== undefined) {
  process.exitCode = result.exitCode;
} else {
  // Graceful shutdown: stop accepting, flush --data, then leave.
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    io.err(`social-gateway-mock: ${signal} received, shutting down`);
    result.stop().then(
      (code) => process.exit(code),
      (error: unknown) => {
        io.err(`social-gateway-mock: shutdown failed: ${error instanceof Error ? error.message : String(error)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}
