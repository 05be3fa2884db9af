import { ApiError } from '../../lib/errors.js';
import type { Workspace } from '../../workspaces/workspace.js';
import { mediaBytes, storedMediaBytes } from './store.js';

/** The bytes uploaded media may take: in one workspace (--media-quota) and in the whole server (--media-quota-server). */
export interface MediaQuotaLimits {
  workspaceBytes: number;
  serverBytes: number;
}

/**
 * Room for a test suite's images and a few videos per workspace, and for a handful of busy
 * workspaces on a laptop; a shared server's owner sets them to what the machine can hold.
 */
export const DEFAULT_MEDIA_QUOTA: MediaQuotaLimits = { workspaceBytes: 256 * 1024 * 1024, serverBytes: 1024 * 1024 * 1024 };

/** Which quota an upload would pass, and the flag that sets it. */
const QUOTAS = {
  workspace: { flag: '--media-quota', what: "This workspace's uploaded media" },
  server: { flag: '--media-quota-server', what: "The server's uploaded media (every workspace's)" },
} as const;
type QuotaName = keyof typeof QUOTAS;

/** What an upload may still take, and the quota that leaves it the least. */
export interface MediaRoom {
  bytes: number;
  quota: QuotaName;
  limit: number;
  used: number;
}

/**
 * The media quotas of one server. Stored bytes are counted where they live (each
 * workspace's byte map), so a deleted, evicted or reset workspace frees its share at
 * once; uploads still streaming hold a reservation, so two at once cannot both take the
 * last free bytes.
 */
export class MediaQuota {
  private readonly reserved = new Map<string, number>();
  private reservedTotal = 0;

  constructor(
    readonly limits: MediaQuotaLimits,
    /** The workspaces that may hold media (those that have been used). */
    private readonly workspaces: () => Iterable<Workspace>,
  ) {}

  /** The most bytes an upload to `key` of the workspace may take now; the file it replaces counts as free. */
  room(workspace: Workspace, key: string): MediaRoom {
    const replaced = mediaBytes(workspace).get(key)?.length ?? 0;
    let serverUsed = this.reservedTotal - replaced;
    for (const held of this.workspaces()) serverUsed += storedMediaBytes(held);
    const workspaceUsed = storedMediaBytes(workspace) - replaced + (this.reserved.get(workspace.id) ?? 0);
    const inWorkspace = this.limits.workspaceBytes - workspaceUsed;
    const inServer = this.limits.serverBytes - serverUsed;
    return inWorkspace <= inServer
      ? { bytes: Math.max(0, inWorkspace), quota: 'workspace', limit: this.limits.workspaceBytes, used: workspaceUsed }
      : { bytes: Math.max(0, inServer), quota: 'server', limit: this.limits.serverBytes, used: serverUsed };
  }

  /** Holds `bytes` of the workspace's and the server's room while an upload streams; the answer releases them (once). */
  reserve(workspace: Workspace, bytes: number): () => void {
    const id = workspace.id;
    this.reserved.set(id, (this.reserved.get(id) ?? 0) + bytes);
    this.reservedTotal += bytes;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.reserved.get(id) ?? 0) - bytes;
      if (left > 0) this.reserved.set(id, left);
      else this.reserved.delete(id);
      this.reservedTotal -= bytes;
    };
  }
}

/** 413 naming the quota an upload of `size` bytes (null: unknown, it passed while streaming) would pass, and its flag. */
export function quotaExceeded(room: MediaRoom, size: number | null): ApiError {
  const { flag, what } = QUOTAS[room.quota];
  return new ApiError(
    413,
    'PAYLOAD_TOO_LARGE',
    `${what} would pass its quota of ${room.limit} bytes (${flag}): ${room.used} are taken, ${room.bytes} are free${size === null ? '' : `, the upload has ${size}`}. Upload a smaller file, free some (a reset or deleting the workspace drops its media), or raise ${flag}.`,
    { details: { quota: flag, limit: room.limit, used: room.used, free: room.bytes, ...(size !== null && { size }) } },
  );
}
