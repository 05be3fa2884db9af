import { open, readFile, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Adapter } from 'lowdb';
import { randomHex } from '../lib/credentials.js';

/** Why the data could not be written: the reason a 503 names (docs/decisions/0028). */
export class DataWriteError extends Error {
  override name = 'DataWriteError';
}

/**
 * lowdb's JSON file adapter made durable: the text goes to a temporary file beside
 * the data file, is flushed to the disk (fsync), renamed over the data file, and the
 * directory is flushed too, so the rename itself survives a power cut. A crash at
 * any moment leaves the old file or the new one, whole. (steno, under lowdb's own
 * JSONFile, renames but never fsyncs: enough for kill -9, not for a machine that
 * stops.) One write at a time: the Database never starts a second before the first
 * has settled.
 *
 * The temporary file has a new random name at each write and is created exclusively
 * (`wx`: O_CREAT | O_EXCL), so nothing planted in the directory beforehand is written
 * through: a symlink or a file at that name makes the open fail (EEXIST) instead of
 * following it (issue 35, decision 0045). A name that collides is tried again with another.
 */
export class DurableJsonFile<T> implements Adapter<T> {
  constructor(private readonly file: string) {}

  /** lowdb's read, plain. Database.open reads the file itself, with the checks of src/lib/input-file.ts. */
  async read(): Promise<T | null> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    return JSON.parse(text) as T;
  }

  async write(data: T): Promise<void> {
    const text = serialise(data);
    let temporary: string | undefined;
    try {
      const created = await createTemporary(this.file);
      temporary = created.path;
      const handle = created.handle;
      try {
        await handle.writeFile(text, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temporary, this.file);
    } catch (error) {
      // Best effort: the directory may be the very thing that is gone. Only a file this write made is removed.
      if (temporary !== undefined) await rm(temporary, { force: true }).catch(() => undefined);
      throw new DataWriteError((error as Error).message);
    }
    await syncDirectory(dirname(this.file));
  }
}

/** Random names tried before giving up: 64 random bits each, so a second is needed only when something planted the first. */
const TEMPORARY_ATTEMPTS = 4;

/** A new temporary file beside `file`, created exclusively under a random name (`.<name>.<16 hex>.tmp`). */
async function createTemporary(file: string): Promise<{ path: string; handle: Awaited<ReturnType<typeof open>> }> {
  for (let attempt = 1; ; attempt++) {
    const path = join(dirname(file), `.${basename(file)}.${randomHex(16)}.tmp`);
    try {
      return { path, handle: await open(path, 'wx') };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= TEMPORARY_ATTEMPTS) throw error;
    }
  }
}

/**
 * The data as lowdb's JSONFile writes it. JSON.stringify recurses, so a value nested
 * a few thousand deep overflows the stack; it also throws on a text longer than V8
 * allows, a BigInt or a cycle. Each becomes a DataWriteError that says so, answered
 * like a full disk: the server stays up and says it cannot keep the change.
 */
function serialise(data: unknown): string {
  try {
    return JSON.stringify(data, null, 2);
  } catch (error) {
    const message = (error as Error).message;
    throw new DataWriteError(/call stack/i.test(message) ? 'a value in it is nested too deeply to serialise' : `the data cannot be serialised (${message})`);
  }
}

/** Makes the rename durable. Windows cannot open a directory, and its renames need no such step. */
async function syncDirectory(directory: string): Promise<void> {
  if (process.platform === 'win32') return;
  try {
    const handle = await open(directory, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw new DataWriteError(`the data file was renamed into place but its directory could not be flushed (${(error as Error).message})`);
  }
}
