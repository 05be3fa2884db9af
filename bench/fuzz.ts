import { parseArgs } from 'node:util';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMockServer } from '../src/server.js';
import { FUZZ_CLOCK, FuzzPlan, formatReport, runFuzz, type FuzzReport, type FuzzTarget } from '../test/fuzz/engine.js';
import { ensureBuilt } from './lib/build.js';
import { formatTenants, runTenants } from './lib/hostile-tenant.js';
import { detectPinning, freePort, startProcess, waitForOk, type ServerProcess } from './lib/processes.js';

/*
 * npm run fuzz: requests generated from openapi.yaml and control.yaml (test/fuzz/engine.ts)
 * against a mock, valid ones and ones breaking each constraint the contracts declare, every
 * answer checked. Exits 1 on any failure: a 5xx, a crash, an error outside the envelope, an
 * answer off the contract, a refused request answered 2xx, a broken field not named.
 *
 *   npm run fuzz -- --requests 10000 --seed 7 --concurrency 4 --server dist
 *   npm run fuzz -- --seed 7 --replay 4711          one request again, printed with its answer
 *
 * --server dist (default) runs `node dist/src/bin.js` (built first when stale) in its own
 * process on 127.0.0.1, pinned to one core and the fuzz to the other; --server in-process
 * runs it here, which adds the state checks (a refused request or a read changes nothing);
 * --server proxy does the same with every /v1 request through `proxy --upstream` in front of it.
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BODY_LIMIT_BYTES = 1024 * 1024;
/** Fuzzed webhooks point at hosts that do not answer, and a clock move waits for their attempts: a second, not ten. */
const WEBHOOK_TIMEOUT_MS = 1_000;

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: process.env.FUZZ_REQUESTS ?? '1000000' },
    seed: { type: 'string', default: process.env.FUZZ_SEED ?? String(Math.floor(Math.random() * 2 ** 31)) },
    concurrency: { type: 'string', default: process.env.FUZZ_CONCURRENCY ?? '8' },
    server: { type: 'string', default: process.env.FUZZ_SERVER ?? 'dist' },
    'state-every': { type: 'string', default: '10' },
    tenants: { type: 'string', default: process.env.FUZZ_TENANTS ?? 'on' },
    replay: { type: 'string' },
    help: { type: 'boolean' },
  },
});

if (values.help) {
  console.log(
    [
      'npm run fuzz -- [options]',
      '  --requests N       requests to send (default 1000000; FUZZ_REQUESTS)',
      '  --seed S           seed of the run (default random, printed; FUZZ_SEED)',
      '  --concurrency C    workers, each with its own workspace and keep-alive socket (default 8; FUZZ_CONCURRENCY)',
      '  --server MODE      dist (node dist/src/bin.js in its own process; default), in-process, or proxy (in-process, /v1 through proxy --upstream) (FUZZ_SERVER)',
      '  --state-every N    in-process: check state on every N-th request (default 10; 0 never)',
      '  --replay I[,J]     send only request number I (and J…) of the seed, and print each with its answer',
      '  --tenants on|off   beside the fuzz, a hostile tenant replays the attacks of issue 28 and an innocent one times its reads (default on; FUZZ_TENANTS)',
    ].join('\n'),
  );
  process.exit(0);
}

function whole(name: string, raw: string | undefined, min: number): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    console.error(`--${name} must be a whole number of at least ${min}; got '${raw}'`);
    process.exit(2);
  }
  return value;
}

const requests = whole('requests', values.requests, 1);
const seed = whole('seed', values.seed, 0);
const concurrency = whole('concurrency', values.concurrency, 1);
const stateEvery = whole('state-every', values['state-every'], 0);
const only = values.replay?.split(',').map((text) => whole('replay', text, 0));
const mode = values.server;
if (mode !== 'dist' && mode !== 'in-process' && mode !== 'proxy') {
  console.error(`--server must be dist, in-process or proxy; got '${mode}'`);
  process.exit(2);
}

/** The server as the fuzz sees it, and how to stop it. */
async function startTarget(): Promise<{ target: FuzzTarget; stop(): Promise<void>; crashed(): string | undefined; process?: ServerProcess }> {
  if (mode === 'in-process' || mode === 'proxy') {
    const server = await createMockServer({ seed: 1, clock: FUZZ_CLOCK, clockFrozen: true, strictResponses: true, rateLimit: false, webhookTimeoutMs: WEBHOOK_TIMEOUT_MS });
    const baseUrl = await server.listen(0);
    // --server proxy: every /v1 request through `proxy --upstream` in front of it; the control plane stays the mock's.
    const proxy = mode === 'proxy' ? await createMockServer({ fixtures: false, proxy: { upstream: baseUrl } }) : undefined;
    const apiBaseUrl = proxy ? await proxy.listen(0) : undefined;
    return {
      target: { baseUrl, ...(apiBaseUrl && { apiBaseUrl }), workspace: (id) => server.registry.get(id), violations: () => server.violations.length },
      stop: async () => {
        await proxy?.close();
        await server.close();
      },
      crashed: () => undefined,
    };
  }
  ensureBuilt(ROOT, (line) => console.log(line));
  const pinning = detectPinning();
  const port = await freePort();
  // Strict responses: an answer off the contract becomes a 500 CONTRACT_VIOLATION, which the fuzz fails on.
  const args = ['dist/src/bin.js', '--port', String(port), '--seed', '1', '--clock', FUZZ_CLOCK, '--clock-frozen', '--strict-responses', '--rate-limit', 'off', '--webhook-timeout', String(WEBHOOK_TIMEOUT_MS), '--log-level', 'error'];
  const child = startProcess({ command: process.execPath, args, cwd: ROOT }, pinning);
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitForOk(child, { url: `${baseUrl}/__control/health` });
  console.log(`server: node ${args.join(' ')} (pid ${child.pid}; ${pinning.note})`);
  return {
    target: { baseUrl },
    stop: () => child.stop(),
    crashed: () => (child.running ? undefined : `the server exited:\n${child.log}`),
    process: child,
  };
}

function progressLine(report: FuzzReport): string {
  const seconds = report.ms / 1000;
  const errors = [...report.statuses].filter(([status]) => Number(status) >= 500).reduce((sum, [, n]) => sum + n, 0);
  return `fuzz: ${report.requests}/${report.planned} (${((100 * report.requests) / report.planned).toFixed(1)} %), ${Math.round(report.requests / Math.max(seconds, 0.001))} req/s, ${errors} 5xx, ${report.failures.length} failures, load ${loadavg()[0]?.toFixed(2)}`;
}

const plan = new FuzzPlan({ bodyLimitBytes: BODY_LIMIT_BYTES });
const { target, stop, crashed, process: child } = await startTarget();
console.log(`fuzz: ${only ? `replaying ${only.join(', ')} of` : `${requests} requests,`} seed ${seed}, concurrency ${concurrency}, server ${mode}, ${plan.operations.length} operations, ${plan.declaredConstraints} constraints declared`);
let lastPrinted = 0;
let failuresPrinted = 0;
// Beside the fuzz: a hostile tenant and an innocent one whose waits are what the hostile one inflicts (bench/lib/hostile-tenant.ts).
const tenantsStop = new AbortController();
const tenants = values.tenants === 'on' && !only ? runTenants(target.baseUrl, tenantsStop.signal) : undefined;
const report = await runFuzz(plan, target, {
  requests,
  seed,
  concurrency,
  stateEvery,
  ...(only && { only, onExchange: (index: number, request: string, response: string) => console.log(`#${index}\n  request:  ${request}\n  response: ${response}`) }),
  onProgress: (partial) => {
    // A failure as soon as it is found: a million requests take most of an hour, and one found early can be replayed and fixed while the run goes on.
    for (const failure of partial.failures.slice(failuresPrinted)) {
      console.log(`fuzz: FAILURE #${failure.index} ${failure.operation} [${failure.label}]: ${failure.problems.join('; ')}\n    request:  ${failure.request}\n    replay:   npm run fuzz -- --seed ${seed} --replay ${failure.index} --server ${mode}`);
    }
    failuresPrinted = partial.failures.length;
    // A line every 10 s: enough to follow a long run without flooding its log.
    if (partial.ms - lastPrinted < 10_000) return;
    lastPrinted = partial.ms;
    console.log(progressLine(partial));
  },
});
tenantsStop.abort();
const tenantReport = await tenants;
const crash = crashed();
const memory = child?.memory();
const serverCpu = child?.cpuSeconds();
const fuzzCpu = (process.cpuUsage().user + process.cpuUsage().system) / 1e6;
await stop();

console.log(formatReport(report, (index) => `npm run fuzz -- --seed ${seed} --replay ${index} --server ${mode}`));
console.log(`  load average at the end: ${loadavg().map((n) => n.toFixed(2)).join(' ')}${memory ? `; server RSS ${memory.rssMb} MB (peak ${memory.peakRssMb} MB)` : ''}`);
console.log(`  CPU: this process ${fuzzCpu.toFixed(1)} s${serverCpu !== undefined ? `, the server ${serverCpu.toFixed(1)} s` : ' (server included)'}`);
if (only) {
  for (const index of only) {
    const { op, request } = plan.generate(seed, index);
    console.log(`  request #${index}: ${op.operationId} [${request.mutations.join(' + ') || 'valid'}]`);
  }
}
if (tenantReport) console.log(formatTenants(tenantReport));
if (crash) console.log(`  CRASH: ${crash}`);
process.exitCode = report.failures.length > 0 || crash || report.requests < report.planned || (tenantReport && (tenantReport.wrong.length > 0 || tenantReport.innocent.failed > 0)) ? 1 : 0;
