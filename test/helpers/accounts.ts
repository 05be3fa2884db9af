import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import type { DomainEvent } from '../../src/events/catalog.js';
import { expectStatus, type TestMock } from './mock.js';

export interface TestWorkspace {
  id: string;
  apiKey: string;
}

/** A fresh, isolated workspace on the mock (fixture world unless told otherwise). */
export async function newWorkspace(mock: TestMock, body: Record<string, unknown> = {}): Promise<TestWorkspace> {
  const res = await mock.control('post', '/__control/workspaces').send(body);
  expectStatus(res, 201);
  return { id: res.body.workspaceId as string, apiKey: res.body.apiKey as string };
}

export interface ConnectionSummary {
  id: string;
  platform: string;
  status: string;
  authHealth: string;
  tokenExpiresAt: string | null;
  canAutoRenew: boolean;
  handle: string;
  profileName?: string;
}

/** The workspace's connection of a network (the fixture world has one per network). */
export async function connectionOf(mock: TestMock, apiKey: string, platform: string): Promise<ConnectionSummary> {
  const res = await mock.call('get', '/v1/connections', apiKey);
  expectStatus(res, 200);
  const found = (res.body.connections as ConnectionSummary[]).find((connection) => connection.platform === platform);
  expect(found, `a ${platform} connection`).toBeDefined();
  return found as ConnectionSummary;
}

/** The events the workspace emitted, oldest first, optionally of one name. */
export function eventsOf(mock: TestMock, workspaceId: string, name?: string): DomainEvent[] {
  const workspace = mock.server.registry.get(workspaceId);
  expect(workspace, workspaceId).toBeDefined();
  return (workspace?.events.recent() ?? []).filter((event) => name === undefined || event.event === name);
}

/** The path and query of a sign-in URL, for supertest (which serves the app on a port of its own). */
export function pathOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}

/** The query parameters a redirect Location carries (failing when there is none). */
export function paramsOf(location: string | undefined): Record<string, string> {
  expect(location, 'a Location').toEqual(expect.any(String));
  return Object.fromEntries(new URL(location ?? '').searchParams);
}

/** The hidden fields of a sign-in page's form: what a click on Approve or Deny posts with the decision. */
export function signInForm(html: string): { session: string; token: string } {
  const field = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(html)?.[1];
  const [session, token] = [field('session'), field('token')];
  expect(session, 'the form\'s session').toEqual(expect.any(String));
  expect(token, 'the form\'s token').toMatch(/^[0-9a-f]{32}$/);
  return { session: session ?? '', token: token ?? '' };
}

export interface RedirectReceiver {
  /** The redirect URL to hand the connect. */
  url: string;
  /** Every request that reached it, as full URLs. */
  hits: string[];
  close(): Promise<void>;
}

/** A tiny stand-in for the integrator's app: it records where the browser lands and answers a page. */
export async function startRedirectReceiver(): Promise<RedirectReceiver> {
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    hits.push(`http://${req.headers.host}${req.url}`);
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>Connected</title><p>Back in the app.</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/integrations/callback?state=xyz`,
    hits,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
