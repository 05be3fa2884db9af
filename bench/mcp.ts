/**
 * npm run bench:mcp: what a tool call adds over the same control request, in process.
 *
 * One mock in this process. The same read (GET /__control/clock) is made CALLS times each way,
 * alternating so the machine's drift falls on both alike:
 *   control   the HTTP request as any client makes it (the tools' own MockTarget, fetch)
 *   tool      the `clock` tool's getClock through the SDK's client and an in-memory transport
 *             (the protocol, the tool's checks, then that same HTTP request)
 *   /mcp      the same tool call over Streamable HTTP at /mcp (stateless: one MCP server per request)
 * Prints each way's median and 95th percentile and the added time at the median.
 * Then the size of the tools/list answer (characters; tokens at four characters a token).
 *
 *   CALLS (1000)  WARMUP (100)
 */
import { Client, InMemoryTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { loadSpec } from '../src/http/spec.js';
import { createMcpServer } from '../src/mcp/mcp-server.js';
import { packageResources } from '../src/mcp/resources.js';
import { KeyRing } from '../src/mcp/session.js';
import { MockTarget } from '../src/mcp/target.js';
import { createMockServer, DEFAULT_API_KEY } from '../src/server.js';

const CALLS = Number(process.env.CALLS ?? 1000);
const WARMUP = Number(process.env.WARMUP ?? 100);

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

async function time(run: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

const mock = await createMockServer({ seed: 1, clock: '2026-03-02T09:00:00Z', clockFrozen: true });
const url = await mock.listen(0);
const target = new MockTarget(url);
const session = { target, credentials: {}, defaultApiKey: DEFAULT_API_KEY, keys: new KeyRing() };
const server = createMcpServer(session, { controlDocument: loadSpec('control.yaml').document, resources: packageResources() });
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
await server.connect(serverSide);
const inMemory = new Client({ name: 'bench', version: '1' });
await inMemory.connect(clientSide);
const overHttp = new Client({ name: 'bench', version: '1' });
await overHttp.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));

const ways = {
  control: () => target.control('getClock'),
  tool: () => inMemory.callTool({ name: 'clock', arguments: { operation: 'getClock' } }),
  '/mcp': () => overHttp.callTool({ name: 'clock', arguments: { operation: 'getClock' } }),
};
const samples: Record<keyof typeof ways, number[]> = { control: [], tool: [], '/mcp': [] };
for (let i = 0; i < WARMUP + CALLS; i++) {
  for (const [name, run] of Object.entries(ways) as Array<[keyof typeof ways, () => Promise<unknown>]>) {
    const ms = await time(run);
    if (i >= WARMUP) samples[name].push(ms);
  }
}
console.log(`${CALLS} calls each (after ${WARMUP} to warm up), Node ${process.version}`);
const medians: Record<string, number> = {};
for (const [name, list] of Object.entries(samples)) {
  list.sort((a, b) => a - b);
  medians[name] = quantile(list, 0.5);
  console.log(`  ${name.padEnd(8)} median ${quantile(list, 0.5).toFixed(3)} ms   p95 ${quantile(list, 0.95).toFixed(3)} ms`);
}
console.log(`  added by a tool call (in process): ${((medians.tool ?? 0) - (medians.control ?? 0)).toFixed(3)} ms at the median`);
console.log(`  added by /mcp:                      ${((medians['/mcp'] ?? 0) - (medians.control ?? 0)).toFixed(3)} ms at the median`);

const listed = JSON.stringify(await inMemory.listTools());
console.log(`tools/list: ${listed.length} characters, about ${Math.round(listed.length / 4)} tokens at four characters a token`);

await inMemory.close();
await overHttp.close();
await mock.close();
