import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Low } from 'lowdb';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { collectGarbage } from '../../src/lib/collect-garbage.js';
import { Database, DATA_FORMAT, DATA_VERSION } from '../../src/store/database.js';

const dir = mkdtempSync(join(tmpdir(), 'sgw-database-'));
const nextTick = () => new Promise((resolve) => setImmediate(resolve));

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function existingFile(name: string): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify({ format: DATA_FORMAT, version: DATA_VERSION, workspaceCounter: 0, workspaces: {} }));
  return file;
}

/** Counts lowdb writes; each one waits until `release` is called. */
function slowWrites() {
  const gate: { release: () => void } = { release: () => undefined };
  let opened = new Promise<void>((resolve) => (gate.release = resolve));
  const spy = vi.spyOn(Low.prototype, 'write').mockImplementation(async () => {
    await opened;
  });
  return {
    get count() {
      return spy.mock.calls.length;
    },
    release() {
      gate.release();
      opened = Promise.resolve();
    },
  };
}

describe('Database', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  describe('when a file is loaded and nothing changes', () => {
    it('does not rewrite it at start', async () => {
      const writes = slowWrites();
      const database = await Database.open(existingFile('unchanged.json'));
      await database.flushChanges();
      expect(writes.count).toBe(0);
    });
  });

  describe('when changes keep coming while a write runs', () => {
    it('queues one more write for all of them, not one per change', async () => {
      const writes = slowWrites();
      const database = await Database.open(existingFile('busy.json'));
      database.markDirty();
      await nextTick();
      expect(writes.count).toBe(1);
      for (let i = 0; i < 5; i++) {
        database.markDirty();
        await nextTick();
      }
      writes.release();
      await database.flush();
      expect(writes.count).toBe(2);
    });
  });

  describe('when changes come in one tick', () => {
    it('writes once', async () => {
      const writes = slowWrites();
      writes.release();
      const database = await Database.open(existingFile('tick.json'));
      database.markDirty();
      database.markDirty();
      await nextTick();
      await nextTick();
      expect(writes.count).toBe(1);
    });
  });
});

describe('collectGarbage', () => {
  it('can collect on this runtime (a large --data load relies on it to give back the file text)', () => {
    expect(collectGarbage()).toBe(true);
    // The flag is set for one context only.
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
  });
});
