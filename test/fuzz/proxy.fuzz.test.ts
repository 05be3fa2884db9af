import { describe, expect, it } from 'vitest';
import { createMockServer } from '../../src/server.js';
import { startMock } from '../helpers/mock.js';
import { FuzzPlan, formatReport, runFuzz } from './engine.js';

/*
 * The fuzz engine's /v1 requests sent through a proxy (issue 22) in front of the strict mock the
 * suite fuzzes directly (contract.fuzz.test.ts): the control plane is the mock's, every API call
 * goes through `proxy --upstream`. The engine's checks hold as they do without it (answers within
 * the contract, refusals in the envelope naming the field, state untouched by refusals), so the
 * proxy passes every kind of request and answer through, valid or broken, and never answers for
 * the upstream itself; and it found nothing of its own to break.
 */

const REQUESTS = Number(process.env.FUZZ_PROXY_REQUESTS ?? 2_000);
const SEED = Number(process.env.FUZZ_SEED ?? 9010);
const BODY_LIMIT_BYTES = 1024 * 1024;

describe('the proxy, fuzzed', () => {
  it(`passes ${REQUESTS} generated requests and their answers through unchanged (seed ${SEED})`, { timeout: 300_000 }, async () => {
    const plan = new FuzzPlan({ bodyLimitBytes: BODY_LIMIT_BYTES });
    const mock = await startMock({ rateLimit: false, webhookTimeoutMs: 1_000 });
    const baseUrl = await mock.server.listen(0);
    const proxy = await createMockServer({ fixtures: false, proxy: { upstream: baseUrl, upstreamTimeoutMs: 10_000 } });
    const apiBaseUrl = await proxy.listen(0);
    const report = await runFuzz(
      plan,
      { baseUrl, apiBaseUrl, workspace: (id) => mock.server.registry.get(id), violations: () => mock.server.violations.length },
      { requests: REQUESTS, seed: SEED, concurrency: 2, stateEvery: 4 },
    );
    const proxied = proxy.registry.defaultWorkspace.journal.entries();
    await proxy.close();
    await mock.close();
    console.log(formatReport(report, (index) => `FUZZ_SEED=${SEED} (proxied) request #${index}`));

    expect(report.failures.map((failure) => `#${failure.index} ${failure.operation} [${failure.label}]: ${failure.problems.join('; ')}\n  ${failure.request}\n  → ${failure.response}`)).toEqual([]);
    expect(report.requests).toBe(REQUESTS);
    // The API calls went through the proxy, and it answered none of them itself (no 502 of its own, no 413 before the upstream's).
    expect(proxied.length).toBeGreaterThan(REQUESTS / 4);
    expect(proxied.filter((entry) => entry.injected).map((entry) => `${entry.method} ${entry.path} ${entry.status} ${entry.errorCode}`)).toEqual([]);
  });
});
