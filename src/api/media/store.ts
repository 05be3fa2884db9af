import { defineStore } from '../../store/define-store.js';
import type { WorkspaceData } from '../../store/database.js';
import type { Workspace } from '../../workspaces/workspace.js';

/** One presigned upload and, once the file arrived, the MediaAsset it became. */
export interface MediaRecord {
  /** The MediaAsset id. */
  id: string;
  /** Opaque name in the upload and public URLs: hex from the workspace's id stream plus an extension chosen by the content type, never user input. */
  key: string;
  /** Proves the upload URL: the public URL shares the key, so the key alone must not allow a PUT. */
  uploadToken: string;
  /** The filename sent to presign: kept as metadata only, never part of a URL or a path. */
  filename: string;
  /** Declared at presign; the PUT must carry it and the public URL serves it. */
  contentType: string;
  /** Virtual time after which the upload URL is refused. */
  expiresAtMs: number;
  createdAt: string;
  /** When the last PUT arrived; null while nothing was uploaded (such records are not MediaAssets yet). */
  uploadedAt: string | null;
  sizeBytes: number | null;
}

/** Media of one workspace, by key. */
export const mediaStore = defineStore('media', () => ({
  media: {} as Record<string, MediaRecord>,
}));

/*
 * The uploaded bytes live beside the store, not in it: lowdb would rewrite up to
 * 50 MB per file as base64 JSON on every change with --data, and snapshot them into
 * every state dump. So bytes are memory only, held per WorkspaceData object (a reset
 * or a reload makes a new one, dropping them). The rule that keeps records and bytes
 * coherent: the first time a workspace's bytes are asked for in this process, every
 * uploaded record without bytes (from a --data file or a restored state) is dropped,
 * so an asset is listed exactly when its public URL serves it.
 */
const bytesByWorkspace = new WeakMap<WorkspaceData, Map<string, Buffer>>();

/** The workspace's uploaded files by key, pruning the records whose bytes a previous process held. */
export function mediaBytes(workspace: Workspace): Map<string, Buffer> {
  let bytes = bytesByWorkspace.get(workspace.data);
  if (!bytes) {
    bytes = new Map();
    bytesByWorkspace.set(workspace.data, bytes);
    const media = mediaStore.peek(workspace)?.media ?? {};
    let dropped = false;
    for (const [key, record] of Object.entries(media)) {
      if (record.uploadedAt === null) continue;
      delete media[key];
      dropped = true;
    }
    if (dropped) workspace.changed();
  }
  return bytes;
}

/** Bytes the workspace's uploaded files take. Reads only: a workspace whose bytes were never asked for holds none. */
export function storedMediaBytes(workspace: Workspace): number {
  let total = 0;
  for (const file of bytesByWorkspace.get(workspace.data)?.values() ?? []) total += file.length;
  return total;
}
