import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DATA_FORMAT, type DatabaseShape } from '../../src/store/database.js';
import { spawnMock, type MockProcess } from '../helpers/process.js';

/*
 * The real CLI in a child process, killed the hard way. Starting a process costs
 * seconds on a busy 2-core machine, so each test loops three times (seven starts
 * in all); bench/persistence.ts loops more and reports the figures.
 */

const KEY = { 'x-api-key': 'sgw_test_default', 'content-type': 'application/json' };
const CLOCK = ['--clock', '2026-03-02T09:00:00Z', '--clock-frozen'];

function tempFile(): string {
  return join(mkdtempSync(join(tmpdir(), 'sgw-persist-')), 'state.json');
}

function readData(file: string): DatabaseShape {
  return JSON.parse(readFileSync(file, 'utf8')) as DatabaseShape;
}

function profileNames(data: DatabaseShape): string[] {
  const stores = data.workspaces.ws_default?.stores as { profiles?: { profiles: Record<string, { name: string }> } } | undefined;
  return Object.values(stores?.profiles?.profiles ?? {}).map((profile) => profile.name);
}

async function createProfile(mock: MockProcess, name: string): Promise<number> {
  const res = await fetch(`${mock.url}/v1/profiles`, { method: 'POST', headers: KEY, body: JSON.stringify({ name }) });
  await res.arrayBuffer();
  return res.status;
}

describe('--data', () => {
  describe('when the process is killed with SIGKILL right after a 2xx', () => {
    it('keeps every acknowledged write, over three kill -9 and restart cycles', { timeout: 240_000 }, async () => {
      const file = tempFile();
      const written: string[] = [];
      for (let cycle = 1; cycle <= 3; cycle++) {
        const mock = await spawnMock(['--data', file, ...CLOCK]);
        // Each start but the first proves the previous kill's writes came back.
        const listed = await fetch(`${mock.url}/v1/profiles?limit=100`, { headers: KEY });
        const names = ((await listed.json()) as { data: Array<{ name: string }> }).data.map((profile) => profile.name);
        expect(names).toEqual(expect.arrayContaining(written));
        const name = `Survives kill ${cycle}`;
        expect(await createProfile(mock, name)).toBe(201);
        const { signal } = await mock.kill('SIGKILL');
        expect(signal).toBe('SIGKILL');
        written.push(name);
        // On disk already, not merely in a buffer that the kill threw away.
        expect(profileNames(readData(file))).toEqual(expect.arrayContaining(written));
      }
    });
  });

  describe('when the process is killed in the middle of heavy writes', () => {
    it('always leaves a whole file that holds every acknowledged write, and starts from it', { timeout: 240_000 }, async () => {
      const file = tempFile();
      // Killed after the 20th, 60th and 100th acknowledged write, with 16 clients still writing:
      // counted in answers, not milliseconds, so a slow machine kills at the same point.
      for (const killAfterAcks of [20, 60, 100]) {
        // Each start but the first reads the file the previous kill left.
        const mock = await spawnMock(['--data', file, ...CLOCK]);
        const acknowledged: string[] = [];
        let stop = false;
        let reached: () => void = () => undefined;
        const enoughAcks = new Promise<void>((resolve) => {
          reached = resolve;
        });
        // Every 8th write adds a whole workspace (about 100 KB), so the file is large and slow to write.
        const writer = async (client: number) => {
          for (let i = 0; !stop; i++) {
            try {
              if (i % 8 === 7) {
                const res = await fetch(`${mock.url}/__control/workspaces`, { method: 'POST', headers: KEY, body: '{}' });
                await res.arrayBuffer();
              } else {
                const name = `w${killAfterAcks}-${client}-${i}`;
                if ((await createProfile(mock, name)) === 201) acknowledged.push(name);
                if (acknowledged.length >= killAfterAcks) reached();
              }
            } catch {
              return; // the kill cut the connection
            }
          }
        };
        const writers = Array.from({ length: 16 }, (_, client) => writer(client));
        await enoughAcks;
        const { signal } = await mock.kill('SIGKILL');
        stop = true;
        await Promise.all(writers);
        expect(signal).toBe('SIGKILL');
        const data = readData(file);
        expect(data.format).toBe(DATA_FORMAT);
        expect(profileNames(data)).toEqual(expect.arrayContaining(acknowledged));
      }
    });
  });

  describe('when the process is killed while a webhook delivery is on the wire', () => {
    it('attempts the delivery again at the next start, and it succeeds', { timeout: 180_000 }, async () => {
      const file = tempFile();
      // The receiver holds the first request open (the kill comes while it waits) and answers 200 after.
      const bodies: string[] = [];
      let heldFirst: (() => void) | undefined;
      const firstArrived = new Promise<void>((resolve) => (heldFirst = resolve));
      const held: ServerResponse[] = [];
      const receiver = createServer((req: IncomingMessage, res: ServerResponse) => {
        let body = '';
        req.on('data', (chunk: Buffer) => (body += chunk.toString()));
        req.on('end', () => {
          bodies.push(body);
          if (bodies.length === 1) {
            held.push(res);
            heldFirst?.();
          } else res.writeHead(200).end();
        });
      });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
      try {
        const first = await spawnMock(['--data', file, ...CLOCK]);
        const hook = await fetch(`${first.url}/v1/webhooks`, { method: 'POST', headers: KEY, body: JSON.stringify({ name: 'On the wire', url, events: ['message.received'] }) });
        const webhookId = ((await hook.json()) as { id: string }).id;
        expect(hook.status).toBe(201);
        const inbound = await fetch(`${first.url}/__control/inbound/messages`, { method: 'POST', headers: KEY, body: JSON.stringify({ text: 'Are you open on Sunday?' }) });
        expect(inbound.status).toBe(201);
        await firstArrived;
        expect((await first.kill('SIGKILL')).signal).toBe('SIGKILL');

        const second = await spawnMock(['--data', file, ...CLOCK]);
        // An advance answers once the I/O it tracks has finished: the resumed attempt among it.
        expect((await fetch(`${second.url}/__control/clock/advance`, { method: 'POST', headers: KEY, body: JSON.stringify({ by: 'PT0S' }) })).status).toBe(200);
        const log = await fetch(`${second.url}/v1/webhooks/${webhookId}/deliveries`, { headers: KEY });
        const deliveries = ((await log.json()) as { data: Array<{ event: string; status: string }> }).data;
        expect(deliveries).toEqual([expect.objectContaining({ event: 'message.received', status: 'succeeded' })]);
        // The same event, sent again: at least once.
        expect(bodies).toHaveLength(2);
        expect(bodies[1]).toBe(bodies[0]);
        await second.kill('SIGTERM');
      } finally {
        for (const res of held) res.destroy();
        receiver.close();
      }
    });
  });

  describe('when the process gets SIGTERM', () => {
    it('writes what changed since the last write (the running clock), then exits 0', { timeout: 120_000 }, async () => {
      const file = tempFile();
      const mock = await spawnMock(['--data', file, '--clock', '2026-03-02T09:00:00Z']);
      expect(await createProfile(mock, 'Before shutdown')).toBe(201);
      const clockAtWrite = readData(file).workspaces.ws_default?.clock.nowMs ?? 0;
      expect(clockAtWrite).toBeGreaterThanOrEqual(Date.parse('2026-03-02T09:00:00Z'));
      const { code } = await mock.kill('SIGTERM');
      expect(code).toBe(0);
      expect(mock.stderr()).toContain('SIGTERM received, shutting down');
      const data = readData(file);
      expect(profileNames(data)).toContain('Before shutdown');
      // The clock kept running after the write; shutdown saved where it stood.
      expect(data.workspaces.ws_default?.clock.nowMs).toBeGreaterThan(clockAtWrite);
    });
  });
});
