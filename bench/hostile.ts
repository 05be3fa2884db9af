import { parseArgs } from 'node:util';
import { createMockServer } from '../src/server.js';
import { formatTenants, runTenants } from './lib/hostile-tenant.js';

/*
 * npm run bench:hostile -- --seconds 30: a hostile tenant replays the attacks of issue 28 against
 * a server in this process while an innocent tenant times its reads (bench/lib/hostile-tenant.ts).
 * Exits 1 when an attack is answered wrongly (a 5xx, a 2xx to what must be refused) or an innocent
 * read fails. The figures (the innocent tenant's p50, p99 and worst wait) go to docs/reliability.md.
 */
const { values } = parseArgs({ options: { seconds: { type: 'string', default: '30' } } });
const seconds = Number(values.seconds);
if (!Number.isFinite(seconds) || seconds <= 0) {
  console.error(`--seconds must be a number above 0; got '${values.seconds}'`);
  process.exit(2);
}
const token = 'hostile-bench-token-0123456789';
// No rate limit: the innocent tenant reads as fast as it can, and a 429 would be no measure of a stall.
const server = await createMockServer({ seed: 1, clock: '2026-03-02T09:00:00Z', clockFrozen: true, controlToken: token, maxWorkspaces: 1000, webhookTimeoutMs: 1000, rateLimit: false });
const baseUrl = await server.listen(0);
const stop = new AbortController();
const timer = setTimeout(() => stop.abort(), seconds * 1000);
const report = await runTenants(baseUrl, stop.signal, token, { sameProcess: true });
clearTimeout(timer);
await server.close();
console.log(formatTenants(report));
process.exitCode = report.wrong.length > 0 || report.innocent.failed > 0 ? 1 : 0;
