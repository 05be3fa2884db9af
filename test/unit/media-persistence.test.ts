import { Containment } from '../../src/lib/containment.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkUpload, presignMedia, readMedia, storeUpload, uploadedMedia } from '../../src/api/media/service.js';
import { mediaStore } from '../../src/api/media/store.js';
import { Database } from '../../src/store/database.js';
import { WorkspaceRegistry } from '../../src/workspaces/registry.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A registry over a --data file, as the server builds it (no fixtures, frozen clock). */
async function open(file: string) {
  const database = await Database.open(file);
  const registry = new WorkspaceRegistry({
    database,
    seed: 1,
    defaultApiKey: 'sgw_test_default',
    defaults: { plan: 'payg', clockStartMs: Date.parse('2026-03-02T09:00:00Z'), clockFrozen: true, fixtures: false },
    populate: () => undefined,
    runtime: { realTime: () => 0, journalSize: 10, jobHandlers: new Map(), eventSubscribers: [], containment: new Containment(), onChange: () => database.markDirty(), onJobError: () => undefined },
  });
  return { database, registry };
}

describe('media with --data', () => {
  it('keeps no bytes in the file, and drops the uploaded assets on reload so no record outlives its bytes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sgm-media-'));
    dirs.push(dir);
    const file = join(dir, 'data.json');

    const first = await open(file);
    const workspace = first.registry.defaultWorkspace;
    const uploaded = presignMedia(workspace, 'http://127.0.0.1:4010', { filename: 'a.jpg', contentType: 'image/jpeg' });
    const pending = presignMedia(workspace, 'http://127.0.0.1:4010', { filename: 'b.jpg', contentType: 'image/jpeg' });
    const { record } = checkUpload(first.registry, { key: uploaded.key, token: new URL(uploaded.uploadUrl).searchParams.get('token'), contentType: 'image/jpeg', contentLength: '3' });
    storeUpload(workspace, record, Buffer.from('abc'));
    expect(uploadedMedia(workspace).following(undefined, 10).map((r) => r.key)).toEqual([uploaded.key]);
    await first.database.flush();

    const second = await open(file);
    const reloaded = second.registry.defaultWorkspace;
    expect(uploadedMedia(reloaded).following(undefined, 10)).toEqual([]);
    expect(uploadedMedia(reloaded).total()).toBe(0);
    expect(() => readMedia(second.registry, uploaded.key)).toThrow(expect.objectContaining({ status: 404, code: 'NOT_FOUND' }));
    // The presign that was never used survives: its URL still takes the file until it expires.
    expect(Object.keys(mediaStore.get(reloaded).media)).toEqual([pending.key]);
    const again = checkUpload(second.registry, { key: pending.key, token: new URL(pending.uploadUrl).searchParams.get('token'), contentType: 'image/jpeg', contentLength: '3' });
    storeUpload(reloaded, again.record, Buffer.from('xyz'));
    expect(readMedia(second.registry, pending.key).bytes.toString()).toBe('xyz');
    // Let the coalesced write land before the directory goes.
    await new Promise((resolve) => setImmediate(resolve));
    await second.database.flush();
  });
});
