import type request from 'supertest';
import { expect } from 'vitest';
import type { TestMock } from './mock.js';

/** A fresh workspace running a scenario (a ready-made name or YAML); fails the test if it does not load. */
export async function workspaceWith(mock: TestMock, scenario: string, body: Record<string, unknown> = {}): Promise<{ key: string; id: string }> {
  const res = await mock.control('post', '/__control/workspaces').send({ scenario, ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { key: res.body.apiKey as string, id: res.body.workspaceId as string };
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
