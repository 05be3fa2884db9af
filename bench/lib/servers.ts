import type { ServerSpec } from './processes.js';
import type { ServerId } from './workloads.js';

export const DEFAULT_API_KEY = 'sgw_test_default';

/** Files some servers are started with (the ceiling's body, the baseline's data). */
export interface ServerFiles {
  ceilingBody?: string;
  /** The ceiling's answer to a POST: the mock's to a created post. */
  ceilingCreatedBody?: string;
  baselineData?: string;
}

/** Extra flags for the mock (the scale runs add --data). */
export interface MockFlags {
  extra?: string[];
  /** Node flags before the script (--cpu-prof). */
  node?: string[];
  /** Another build's entry point, to compare two builds (default dist/src/bin.js, or BENCH_MOCK_ENTRY). */
  entry?: string;
}

/** The mock's entry point: the built CLI, unless BENCH_MOCK_ENTRY names another build's. */
export function mockEntry(): string {
  return process.env.BENCH_MOCK_ENTRY || 'dist/src/bin.js';
}

/** BENCH_BASELINE_TUNED=1: the Express baseline gets the mock's validator workarounds too. */
export function baselineTuned(): boolean {
  return process.env.BENCH_BASELINE_TUNED === '1';
}

/** How each server of the comparison is started, on `port`, from the project root. */
export function serverSpec(id: ServerId, root: string, port: number, files: ServerFiles = {}, mock: MockFlags = {}): ServerSpec {
  switch (id) {
    case 'mock':
      return {
        command: process.execPath,
        args: [...(mock.node ?? []), mock.entry ?? mockEntry(), '--port', String(port), '--rate-limit', 'off', '--log-level', 'error', '--clock-frozen', ...(mock.extra ?? [])],
        cwd: root,
      };
    case 'ceiling':
      if (!files.ceilingBody) throw new Error('the ceiling needs a body file');
      return {
        command: process.execPath,
        args: ['--import', 'tsx', 'bench/servers/ceiling.ts', '--port', String(port), '--body-file', files.ceilingBody, ...(files.ceilingCreatedBody ? ['--created-body-file', files.ceilingCreatedBody] : [])],
        cwd: root,
      };
    case 'express':
      if (!files.baselineData) throw new Error('the Express baseline needs its data file');
      return {
        command: process.execPath,
        args: ['--import', 'tsx', 'bench/servers/express-baseline.ts', '--port', String(port), '--data', files.baselineData, ...(baselineTuned() ? ['--tuned'] : [])],
        cwd: root,
      };
    case 'prism':
      // Prism's own entry point, not npx: npx would add its own start-up to Prism's.
      return {
        command: process.execPath,
        args: ['node_modules/@stoplight/prism-cli/dist/index.js', 'mock', 'openapi.yaml', '-p', String(port), '-h', '127.0.0.1', '-v', 'error'],
        cwd: root,
      };
  }
}

export const SERVER_LABELS: Record<ServerId, string> = {
  mock: 'social-gateway-mock (dist, --rate-limit off --log-level error --clock-frozen)',
  ceiling: 'bare node:http: the mock\'s GET /v1/connections body to a read; a POST\'s body read and parsed, and the mock\'s created post with 201',
  express: `Express 5 + express-openapi-validator, same data, no state${baselineTuned() ? ', with the mock\'s validator workarounds (BENCH_BASELINE_TUNED)' : ''}`,
  prism: 'Prism 5.14.2 mock (static) -v error',
};
