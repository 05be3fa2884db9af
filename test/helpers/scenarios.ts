import type request from 'supertest';
import { expect } from 'vitest';
import type { TestMock } from './mock.js';

/** A fresh workspace running a scenario (a ready-made name or YAML); fails the test if it does not load. */
export async function workspaceWith(mock: TestMock, scenario: string, body: Record<string, unknown> = {}): Promise<{ key: string; id: string }> {
  const res = await mock.control('post', '/__control/workspaces').send({ scenario, ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { key: res.body.apiKey as string, id: res.body.workspaceId as string };
}

/** A fresh workspace (the fixture world, no scenario), by its key. */
export async function freshWorkspace(mock: TestMock): Promise<string> {
  const res = await mock.control('post', '/__control/workspaces').send({});
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.apiKey as string;
}

/** A run-time rule as control.yaml's ActiveRule answers it. */
export interface ActiveRuleBody {
  id: string;
  source: string;
  phase: string;
  seen: number;
  fired: number;
  times: number | null;
  remaining: number | null;
}

/** Adds a run-time rule to the key's workspace (201, or the test fails) and answers it. */
export async function addRule(mock: TestMock, key: string, rule: Record<string, unknown>): Promise<ActiveRuleBody> {
  const res = await mock.control('post', '/__control/rules', key).send(rule);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as ActiveRuleBody;
}

/**
 * The workspace's account on a network, read through the control plane's snapshot, so
 * that no scenario rule sees the lookup and the journal holds only the test's own calls.
 */
export async function accountOn(mock: TestMock, key: string, platform: string): Promise<string> {
  const res = await mock.control('get', '/__control/state', key);
  const accounts = Object.values(res.body.workspace.stores.accounts.accounts as Record<string, { id: string; platform: string }>);
  const found = accounts.find((account) => account.platform === platform);
  if (!found) throw new Error(`no ${platform} account`);
  return found.id;
}

export interface JournalLine {
  method: string;
  path: string;
  status: number;
  errorCode: string | null;
  matchedRule: string | null;
  effect: string | null;
  at: string;
}

/** The workspace's journal without what varies between runs (seq, wall-clock duration). */
export async function journalOf(mock: TestMock, key: string): Promise<JournalLine[]> {
  const res = await mock.control('get', '/__control/journal?limit=10000', key);
  expect(res.status).toBe(200);
  return (res.body.data as Array<JournalLine & { seq: number; durationMs: number }>).map(({ method, path, status, errorCode, matchedRule, effect, at }) => ({ method, path, status, errorCode, matchedRule, effect, at }));
}

/** Reads the body as text whatever its content type says (a malformed JSON body must not throw). */
export function asText(test: request.Test): request.Test {
  return test.buffer(true).parse((res, done) => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      text += chunk;
    });
    res.on('end', () => done(null, text));
  });
}

export async function advance(mock: TestMock, key: string, by: string) {
  const res = await mock.control('post', '/__control/clock/advance', key).send({ by });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { ran: Array<{ kind: string; label: string; dueAt: string; ok: boolean; error?: string }>; now: string };
}

/**
 * Due times of the scenario's own pending timeline steps. The fixture world has due
 * work of its own (posts to publish, tokens to expire), so tests of the timeline look
 * only at the scenario's jobs.
 */
export function scenarioJobs(mock: TestMock, key: string): string[] {
  const workspace = mock.server.registry.byApiKey(key);
  if (!workspace) throw new Error(`no workspace has the key ${key}`);
  return workspace.scheduler
    .pending()
    .filter((job) => job.kind.startsWith('scenario.'))
    .map((job) => new Date(job.dueAt).toISOString());
}

/** The scenario's steps among what an advance ran. */
export function scenarioSteps<T extends { kind: string }>(ran: T[]): T[] {
  return ran.filter((job) => job.kind.startsWith('scenario.'));
}

export interface Run<T> {
  observed: T;
  journal: JournalLine[];
}

/**
 * Plays a ready-made scenario twice in one workspace: loaded at creation, then loaded
 * again (which starts the workspace afresh). Ids come from the workspace's seed and id,
 * so the two runs must give the same journal, line for line.
 */
export async function replayTwice<T>(mock: TestMock, name: string, play: (key: string, workspaceId: string) => Promise<T>): Promise<[Run<T>, Run<T>]> {
  const { key, id } = await workspaceWith(mock, name);
  const first = { observed: await play(key, id), journal: await journalOf(mock, key) };
  const reloaded = await mock.control('post', '/__control/scenarios', key).send({ name });
  expect(reloaded.status, JSON.stringify(reloaded.body)).toBe(200);
  const second = { observed: await play(key, id), journal: await journalOf(mock, key) };
  return [first, second];
}
