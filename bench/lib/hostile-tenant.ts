import { monitorEventLoopDelay } from 'node:perf_hooks';
import { call, callJson, type Answer } from './client.js';
import { percentile } from './stats.js';

/*
 * Two tenants of one shared server, beside the fuzz (bench/fuzz.ts) or alone: a hostile one
 * that keeps sending what once broke or stalled the server (issue 28), each in its own workspace,
 * and an innocent one that reads its own workspace one request at a time and times every answer.
 * What the innocent tenant waited is what the hostile one could inflict on it.
 */

/** Nested arrays `depth` deep around `inner`, written as text: no recursion on our side either. */
export function nested(depth: number, inner = '0'): string {
  return `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;
}

/** One hostile move: what it sends, and the statuses that are a correct answer to it. */
interface Attack {
  name: string;
  send(baseUrl: string, apiKey: string): Promise<Answer>;
  expect: (status: number) => boolean;
}

const refused = (status: number) => status >= 400 && status < 500;
const answered = (status: number) => status < 500;

/** A header value a backtracking engine takes exponential time on against `^(a+)+$`. */
const CATASTROPHIC = `${'a'.repeat(6000)}!`;

/** `n` distinct short keys, as the attacks of issue 35 used them. */
const manyKeys = (n: number) => Array.from({ length: n }, (_, i) => `k${i.toString(36).padStart(6, '0')}`);

/** A scenario whose one rule answers a JSON body of `n` keys, written one key a line. */
export function wideScenario(n: number): string {
  return ['rules:', '  - id: wide', '    match: { operationId: listConnections }', '    then:', '      respond:', '        status: 200', '        json:', ...manyKeys(n).map((key) => `          ${key}: 1`), ''].join('\n');
}

/*
 * The large bodies are written as JSON once, here: with the server in the bench's process, the
 * attacker's own JSON.stringify of 470 KB would be counted as a hold of the server's event loop.
 */
/** The widest scenario a request may send: the cap of lines and flow entries, less the rule around the mapping. */
const WIDEST_SENT = JSON.stringify({ scenario: wideScenario(1_990) });
/** Issue 35's anonymous scenario: one mapping of 30,000 keys (470 KB). */
const WIDE_30K = JSON.stringify({ scenario: wideScenario(30_000) });
/** Issue 35's addRule of 209 KB: a respond body of 15,000 keys. */
const WIDE_RULE = JSON.stringify({ id: 'wide', match: { operationId: 'listConnections' }, then: { respond: { status: 200, json: Object.fromEntries(manyKeys(15_000).map((key) => [key, 1])) } } });

/** Creates a workspace as anyone may (no token), and deletes it again when it was made. */
async function anonymousWorkspace(baseUrl: string, body: unknown, owner: Record<string, string>): Promise<Answer> {
  const answer = await call(baseUrl, 'POST', '/__control/workspaces', { body });
  if (answer.status === 201) {
    const { workspaceId, apiKey } = JSON.parse(answer.text) as { workspaceId: string; apiKey: string };
    await call(baseUrl, 'DELETE', `/__control/workspaces/${workspaceId}`, { apiKey, headers: owner });
  }
  return answer;
}

/** The control token's header, for the attacks that clean up after themselves; set by runTenants. */
let ownerHeaders: Record<string, string> = {};

const ATTACKS: Attack[] = [
  {
    name: 'an anonymous workspace with a scenario of one 30,000-key mapping (470 KB)',
    send: (baseUrl) => anonymousWorkspace(baseUrl, WIDE_30K, ownerHeaders),
    expect: refused,
  },
  {
    name: 'an anonymous workspace with the widest scenario a request may send (1,990 keys)',
    send: (baseUrl) => anonymousWorkspace(baseUrl, WIDEST_SENT, ownerHeaders),
    expect: answered,
  },
  {
    name: 'an addRule of 209 KB (a respond body of 15,000 keys)',
    async send(baseUrl, apiKey) {
      await call(baseUrl, 'DELETE', '/__control/rules/wide', { apiKey });
      return call(baseUrl, 'POST', '/__control/rules', { apiKey, body: WIDE_RULE });
    },
    expect: answered,
  },
  {
    name: '100 rules of distinct patterns, then a request every one of them tests',
    async send(baseUrl, apiKey) {
      for (let i = 0; i < 100; i++) {
        await call(baseUrl, 'DELETE', `/__control/rules/distinct-${i}`, { apiKey });
        const headers = [0, 1, 2, 3].map((h) => ({ name: `x-probe-${h}`, matches: `^(?:v${i}|w${h})[a-z]{1,40}\\d{2}(?:-[a-f0-9]{8}){2}$` }));
        const rule = await call(baseUrl, 'POST', '/__control/rules', { apiKey, body: { id: `distinct-${i}`, match: { operationId: 'listConnections', headers }, then: { latencyMs: 0 } } });
        if (rule.status !== 201) return rule;
      }
      // The first three headers meet every rule's pattern and the last one misses: each of the 400 patterns runs.
      const probe = Object.fromEntries([0, 1, 2, 3].map((h) => [`x-probe-${h}`, h < 3 ? `w${h}${'a'.repeat(40)}00-deadbeef-deadbeef` : 'miss']));
      return call(baseUrl, 'GET', '/v1/connections', { apiKey, headers: probe });
    },
    expect: answered,
  },
  {
    name: 'a /v1 body nested 5,000 deep',
    send: (baseUrl, apiKey) => call(baseUrl, 'POST', '/v1/posts', { apiKey, body: `{"text":"x","destinations":${nested(5000)}}` }),
    expect: refused,
  },
  {
    name: 'a control body nested 5,000 deep',
    send: (baseUrl, apiKey) => call(baseUrl, 'POST', '/__control/rules', { apiKey, body: `{"then":{"latencyMs":0},"match":{"body":${nested(5000)}}}` }),
    expect: refused,
  },
  {
    name: 'a scenario nested 5,000 deep',
    send: (baseUrl, apiKey) => call(baseUrl, 'POST', '/__control/scenarios', { apiKey, body: { yaml: `name: deep\nrules: ${nested(5000)}\n` } }),
    expect: refused,
  },
  {
    name: 'prototype keys in a body',
    send: (baseUrl, apiKey) => call(baseUrl, 'POST', '/v1/profiles', { apiKey, body: '{"name":"p","__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}' }),
    expect: answered,
  },
  {
    name: 'a rule with ^(a+)+$ on a header, then a request that meets it',
    async send(baseUrl, apiKey) {
      await call(baseUrl, 'DELETE', '/__control/rules/catastrophic', { apiKey });
      const rule = await call(baseUrl, 'POST', '/__control/rules', { apiKey, body: { id: 'catastrophic', match: { headers: [{ name: 'x-probe', matches: '^(a+)+$' }] }, then: { latencyMs: 0 } } });
      if (rule.status !== 201 && rule.status !== 400) return rule;
      return call(baseUrl, 'GET', '/v1/connections', { apiKey, headers: { 'x-probe': CATASTROPHIC } });
    },
    expect: answered,
  },
  {
    name: 'a rule with a path glob of 60 stars, then a long path',
    async send(baseUrl, apiKey) {
      await call(baseUrl, 'DELETE', '/__control/rules/stars', { apiKey });
      const rule = await call(baseUrl, 'POST', '/__control/rules', { apiKey, body: { id: 'stars', match: { path: `/v1/${'*a'.repeat(60)}` }, then: { latencyMs: 0 } } });
      if (rule.status !== 201 && rule.status !== 400) return rule;
      return call(baseUrl, 'GET', `/v1/${'a'.repeat(4000)}`, { apiKey });
    },
    expect: answered,
  },
  {
    name: 'a webhook aimed at the server’s own /__control/reset, and a clock move that fires it',
    async send(baseUrl, apiKey) {
      await call(baseUrl, 'POST', '/v1/webhooks', { apiKey, body: { name: 'self', url: `${baseUrl}/__control/reset`, events: ['post.published'] } });
      return call(baseUrl, 'POST', '/__control/clock/advance', { apiKey, body: { by: 'PT1H' } });
    },
    expect: answered,
  },
  {
    name: 'ten virtual years in one clock move',
    send: (baseUrl, apiKey) => call(baseUrl, 'POST', '/__control/clock/advance', { apiKey, body: { by: 'P3650D' } }),
    expect: answered,
  },
];

export interface HostileReport {
  sent: number;
  /** Attacks answered with a status that is no correct answer to them (a 5xx, a 2xx to a refusal). */
  wrong: Array<{ attack: string; status: number; text: string }>;
  /** The innocent tenant's answers: how many, and how long each took (ms). */
  innocent: { requests: number; p50: number; p99: number; max: number; over50: number; failed: number };
  /** The slowest innocent answers, with the attack that was on the wire when each was sent. */
  slowest: Array<{ ms: number; during: string }>;
  /**
   * With the server in this process: the longest the event loop was held (ms, 1 ms resolution)
   * while each attack ran, the worst of its rounds. This is what an attack takes from every other
   * tenant, without the machine's scheduling noise the innocent tenant's waits also hold.
   */
  stalls?: Array<{ attack: string; maxMs: number }>;
}

/**
 * Runs both tenants until `signal` aborts. The hostile tenant makes a fresh workspace for each
 * round of attacks (a clock move of ten years leaves a heavy world behind), on the control plane
 * with `controlToken` when the server has one; the innocent one keeps one workspace.
 */
export async function runTenants(baseUrl: string, signal: AbortSignal, controlToken?: string, { sameProcess = false }: { sameProcess?: boolean } = {}): Promise<HostileReport> {
  const owner: Record<string, string> = controlToken === undefined ? {} : { 'x-control-token': controlToken };
  ownerHeaders = owner;
  const fresh = async (body: unknown) => (await callJson<{ apiKey: string; workspaceId: string }>(baseUrl, 'POST', '/__control/workspaces', { body, headers: owner }));
  let current = 'idle';
  const wrong: HostileReport['wrong'] = [];
  let sent = 0;

  const stalls = new Map<string, number>();
  const hostile = (async () => {
    while (!signal.aborted) {
      const workspace = await fresh({ seed: 7, clock: { frozen: true } });
      for (const attack of ATTACKS) {
        if (signal.aborted) break;
        current = attack.name;
        const loop = sameProcess ? monitorEventLoopDelay({ resolution: 1 }) : undefined;
        loop?.enable();
        const answer = await attack.send(baseUrl, workspace.apiKey);
        if (loop) {
          loop.disable();
          stalls.set(attack.name, Math.max(stalls.get(attack.name) ?? 0, loop.max / 1e6));
        }
        sent++;
        if (!attack.expect(answer.status)) wrong.push({ attack: attack.name, status: answer.status, text: answer.text.slice(0, 300) });
      }
      current = 'idle';
      await call(baseUrl, 'DELETE', `/__control/workspaces/${workspace.workspaceId}`, { apiKey: workspace.apiKey, headers: owner });
    }
  })();

  const times: number[] = [];
  const slowest: HostileReport['slowest'] = [];
  let failed = 0;
  const innocent = (async () => {
    const { apiKey } = await fresh({ seed: 3, clock: { frozen: true } });
    while (!signal.aborted) {
      const during = current;
      const started = performance.now();
      const answer = await call(baseUrl, 'GET', '/v1/posts?limit=5', { apiKey });
      const ms = performance.now() - started;
      if (answer.status !== 200) failed++;
      times.push(ms);
      if (ms > 50) slowest.push({ ms, during });
    }
  })();

  await Promise.all([hostile, innocent]);
  const sorted = [...times].sort((a, b) => a - b);
  return {
    sent,
    wrong,
    innocent: { requests: times.length, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), max: sorted.at(-1) ?? 0, over50: slowest.length, failed },
    slowest: slowest.sort((a, b) => b.ms - a.ms).slice(0, 10),
    ...(sameProcess && { stalls: [...stalls].map(([attack, maxMs]) => ({ attack, maxMs })).sort((a, b) => b.maxMs - a.maxMs) }),
  };
}

export function formatTenants(report: HostileReport): string {
  const { innocent } = report;
  return [
    `hostile tenant: ${report.sent} attacks, ${report.wrong.length} answered wrongly`,
    ...report.wrong.slice(0, 10).map((entry) => `  WRONG ${entry.attack}: ${entry.status} ${entry.text}`),
    `innocent tenant: ${innocent.requests} reads, p50 ${innocent.p50.toFixed(1)} ms, p99 ${innocent.p99.toFixed(1)} ms, max ${innocent.max.toFixed(1)} ms, ${innocent.over50} over 50 ms, ${innocent.failed} not 200`,
    ...report.slowest.map((entry) => `  ${entry.ms.toFixed(1)} ms while: ${entry.during}`),
    ...(report.stalls ? ['longest hold of the event loop, by attack (ms):', ...report.stalls.map((entry) => `  ${entry.maxMs.toFixed(1)}  ${entry.attack}`)] : []),
  ].join('\n');
}
