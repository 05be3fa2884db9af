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
/** A path segment of `.` or `..`, raw or percent-encoded. */
const DOT_SEGMENT = /\/(?:\.|%2e){1,2}(?=\/|\?|$)/i;

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

    // A target with a dot segment is the proxy's own refusal (decision 0045): it never reaches the
    // upstream, so the upstream's rate-limit headers are not on it. Every such request was refused so,
    // and nothing else the proxy answered for the upstream.
    const refusedHere = report.failures.filter((failure) => DOT_SEGMENT.test(failure.request.split(' ')[1] ?? '') && failure.response.includes('has a dot segment'));
    const failures = report.failures.filter((failure) => !refusedHere.includes(failure));
    expect(refusedHere.every((failure) => failure.response.startsWith('400 '))).toBe(true);
    expect(failures.map((failure) => `#${failure.index} ${failure.operation} [${failure.label}]: ${failure.problems.join('; ')}\n  ${failure.request}\n  → ${failure.response}`)).toEqual([]);
    expect(report.requests).toBe(REQUESTS);
    // The API calls went through the proxy, and it answered none of them itself (no 502 of its own, no 413 before the upstream's)
    // but the dot-segment targets above.
    expect(proxied.length).toBeGreaterThan(REQUESTS / 4);
    const ownAnswers = proxied.filter((entry) => entry.injected);
    expect(ownAnswers.filter((entry) => !(DOT_SEGMENT.test(entry.path) && entry.status === 400)).map((entry) => `${entry.method} ${entry.path} ${entry.status} ${entry.errorCode}`)).toEqual([]);
    expect(ownAnswers.length).toBe(refusedHere.length);
  });
});
