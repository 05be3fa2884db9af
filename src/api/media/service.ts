import type { components } from '../../generated/openapi.js';
import type { IncomingHttpHeaders } from 'node:http';
import { ApiError, validationError } from '../../lib/errors.js';
import { compareKeys, type Following, type SortKey, type TimeRange } from '../../http/lists.js';
import { KeptOrder, type Kept } from '../../lib/kept-order.js';
import { getOwn } from '../../lib/records.js';
import { sameCredential } from '../../lib/credentials.js';
import type { WorkspaceRegistry } from '../../workspaces/registry.js';
import type { Workspace } from '../../workspaces/workspace.js';
import { mediaBytes, mediaStore, type MediaRecord } from './store.js';

/** Ascending order of two keys, for the kept orders below. */
const ascending = (a: SortKey, b: SortKey) => compareKeys(a, b, 'asc');

/** Seconds an upload URL stays valid, on the workspace's virtual clock. */
export const UPLOAD_URL_LIFETIME_S = 900;
/** Largest file an upload URL takes (the reference publishes no limit). */
export const MEDIA_MAX_BYTES = 50 * 1024 * 1024;

/** Paths of the two plain routes the presigned URLs point at (src/api/media/upload-router.ts). */
export const UPLOAD_PATH = '/__uploads';
export const PUBLIC_PATH = '/__media';

/** What a key looks like: anything else (a path segment, `..`, an encoded slash) names no file. */
const KEY_PATTERN = /^[0-9a-f]{32}(\.[a-z0-9]{2,4})?$/;

/** Extensions for the content types people post, so a public URL reads like a file; other types get none. */
const EXTENSIONS: Record<string, string> = {
  'image/jpeg': '.jpg',
  'image/png': '.png',
  'image/gif': '.gif',
  'image/webp': '.webp',
  'image/heic': '.heic',
  'video/mp4': '.mp4',
  'video/quicktime': '.mov',
  'video/webm': '.webm',
  'application/pdf': '.pdf',
};

/** `type/subtype` lowercased, without parameters: what two Content-Types must share to be equal. */
export function mediaTypeEssence(contentType: string): string {
  return (contentType.split(';')[0] ?? '').trim().toLowerCase();
}

/**
 * The base of absolute URLs, from the request itself (Host, and X-Forwarded-Proto
 * behind a TLS proxy), so the URLs work on any port, supertest's included. A Host
 * that is not a plain host[:port] is not echoed into URLs.
 */
export function requestOrigin(headers: IncomingHttpHeaders): string {
  const host = typeof headers.host === 'string' && /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/.test(headers.host) ? headers.host : '127.0.0.1';
  const scheme = headers['x-forwarded-proto'] === 'https' ? 'https' : 'http';
  return `${scheme}://${host}`;
}

export type PresignRequest = components['schemas']['PresignMediaBody'];

/** POST /v1/media/presign: a record waiting for its file, and the URLs to send and serve it. */
export function presignMedia(workspace: Workspace, origin: string, request: PresignRequest) {
  const { media } = mediaStore.get(workspace);
  pruneExpiredPresigns(workspace, media);
  const key = `${workspace.newCredential(32)}${EXTENSIONS[mediaTypeEssence(request.contentType)] ?? ''}`;
  const record: MediaRecord = {
    id: workspace.newId(),
    key,
    uploadToken: workspace.newCredential(32),
    filename: request.filename,
    contentType: request.contentType,
    expiresAtMs: workspace.now() + UPLOAD_URL_LIFETIME_S * 1000,
    createdAt: workspace.nowIso(),
    uploadedAt: null,
    sizeBytes: null,
  };
  media[key] = record;
  presignOrder(media).insert({ item: record, key: presignKey(record) });
  workspace.changed();
  return {
    uploadUrl: `${origin}${UPLOAD_PATH}/${key}?token=${record.uploadToken}`,
    publicUrl: `${origin}${PUBLIC_PATH}/${key}`,
    key,
    expiresIn: UPLOAD_URL_LIFETIME_S,
  };
}

/**
 * The presigns in order of expiry, `[expiresAtMs, key]` (src/lib/kept-order.ts), so that dropping
 * the expired ones on a presign costs O(log n + k) for the k expired rather than a walk of every
 * record. Built from the records waiting for a file on the first presign of a map, kept by
 * `presignMedia`, dropped with the map; an entry whose upload arrived stays until its expiry and
 * is then only taken out of the order.
 */
const presignOrders = new WeakMap<object, KeptOrder<MediaRecord>>();

function presignKey(record: MediaRecord): SortKey {
  return [record.expiresAtMs, record.key];
}

function presignOrder(media: Record<string, MediaRecord>): KeptOrder<MediaRecord> {
  let order = presignOrders.get(media);
  if (order === undefined) {
    const waiting = Object.values(media).filter((record) => record.uploadedAt === null);
    order = new KeptOrder(ascending, waiting.map((record) => ({ item: record, key: presignKey(record) })));
    presignOrders.set(media, order);
  }
  return order;
}

/** Presigns nobody used and nobody can use any more: dropped so an idle workspace does not grow. */
function pruneExpiredPresigns(workspace: Workspace, media: Record<string, MediaRecord>): void {
  // Every key of an instant sorts below [instant, '\uffff'], the media keys being hex.
  for (const { item } of presignOrder(media).removeBelow([workspace.now(), '\uffff'])) {
    if (item.uploadedAt === null && getOwn(media, item.key) === item) delete media[item.key];
  }
}

/** The workspace and record a key belongs to; keys are unique across workspaces (random, 128 bits). */
function findByKey(registry: WorkspaceRegistry, key: string): { workspace: Workspace; record: MediaRecord } {
  if (!KEY_PATTERN.test(key)) {
    throw validationError('key', 'This is not a media key: keys are 32 hex characters and an optional extension, never a path.');
  }
  // Only a workspace that has been used can hold an upload: one not used yet has no world to search.
  for (const workspace of registry.used()) {
    // Settles the records a previous process left without bytes before any of them is used.
    mediaBytes(workspace);
    const record = mediaStore.get(workspace).media[key];
    if (record) return { workspace, record };
  }
  throw mediaNotFound(key);
}

function mediaNotFound(key: string): ApiError {
  return new ApiError(404, 'NOT_FOUND', `No uploaded media file has the key '${key}'.`);
}

export interface UploadAttempt {
  key: string;
  token: unknown;
  contentType: string | undefined;
  contentLength: string | undefined;
}

/**
 * Checks a PUT to an upload URL before its body is read: the URL is one we issued
 * (404, 403 `UPLOAD_URL_INVALID` for a wrong token), not expired on the workspace's
 * virtual clock (403 `UPLOAD_URL_EXPIRED`), the Content-Type is the declared one
 * (415), and the announced size fits (413).
 */
export function checkUpload(registry: WorkspaceRegistry, attempt: UploadAttempt): { workspace: Workspace; record: MediaRecord } {
  const found = findByKey(registry, attempt.key);
  const { workspace, record } = found;
  if (typeof attempt.token !== 'string' || !sameCredential(attempt.token, record.uploadToken)) {
    throw new ApiError(403, 'UPLOAD_URL_INVALID', 'The upload URL is incomplete or altered: send the PUT to uploadUrl exactly as presign returned it.', { param: 'token' });
  }
  if (workspace.now() >= record.expiresAtMs) {
    throw new ApiError(403, 'UPLOAD_URL_EXPIRED', `The upload URL expired at ${new Date(record.expiresAtMs).toISOString()} (${UPLOAD_URL_LIFETIME_S} s after presign); presign again.`, {
      details: { expiredAt: new Date(record.expiresAtMs).toISOString(), now: workspace.nowIso() },
    });
  }
  if (attempt.contentType === undefined || mediaTypeEssence(attempt.contentType) !== mediaTypeEssence(record.contentType)) {
    throw new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', `The upload must be sent with Content-Type ${record.contentType}, as declared at presign; got ${attempt.contentType ?? 'none'}.`, {
      param: 'Content-Type',
      details: { expected: record.contentType, received: attempt.contentType ?? null },
    });
  }
  const length = attempt.contentLength === undefined ? NaN : Number(attempt.contentLength);
  if (length > MEDIA_MAX_BYTES) throw payloadTooLarge();
  return found;
}

export function payloadTooLarge(): ApiError {
  return new ApiError(413, 'PAYLOAD_TOO_LARGE', `A media file may be at most ${MEDIA_MAX_BYTES} bytes (50 MB).`, { details: { limit: MEDIA_MAX_BYTES } });
}

/** Keeps the file; a second PUT before the URL expires replaces it, as a presigned PUT does. */
export function storeUpload(workspace: Workspace, record: MediaRecord, bytes: Buffer): void {
  if (bytes.length === 0) throw validationError('body', 'The upload is empty: send the file as the PUT body.');
  mediaBytes(workspace).set(record.key, bytes);
  record.uploadedAt = workspace.nowIso();
  record.sizeBytes = bytes.length;
  uploadPlaced(workspace, record);
  workspace.changed();
}

/** The file a public URL serves; 404 until it was uploaded. */
export function readMedia(registry: WorkspaceRegistry, key: string): { workspace: Workspace; record: MediaRecord; bytes: Buffer } {
  const { workspace, record } = findByKey(registry, key);
  const bytes = mediaBytes(workspace).get(key);
  if (record.uploadedAt === null || bytes === undefined) throw mediaNotFound(key);
  return { workspace, record, bytes };
}

/**
 * The uploaded media (MediaAssets) in order of upload, kept so that a page of GET /v1/media costs
 * O(log n + page) in the workspace's n uploads rather than a filter and sort of every record:
 * `[uploadedAt, id]` ascending (src/lib/kept-order.ts) and each upload's entry by key. Never
 * persisted: built in O(n log n) on the first list of a workspace's media, kept by `storeUpload`
 * (O(log n) and a splice, nothing moved for the newest upload) and dropped with the map it came
 * from. A record leaves the map only while nothing was uploaded to it (an expired presign), so
 * never while it is in the order.
 */
interface UploadOrder {
  readonly kept: KeptOrder<MediaRecord>;
  readonly placed: Map<string, Kept<MediaRecord>>;
}

const uploadOrders = new WeakMap<object, UploadOrder>();

function uploadOrder(workspace: Workspace): UploadOrder {
  // Settles the records a previous process left without bytes before the order is built from them.
  mediaBytes(workspace);
  const media = mediaStore.read(workspace).media;
  let order = uploadOrders.get(media);
  if (order === undefined) {
    const placed = new Map<string, Kept<MediaRecord>>();
    for (const record of Object.values(media)) if (record.uploadedAt !== null) placed.set(record.key, { item: record, key: mediaSortKey(record) });
    order = { kept: new KeptOrder(ascending, placed.values()), placed };
    uploadOrders.set(media, order);
  }
  return order;
}

/** The record's upload arrived (again): its place in a built order, O(log n). */
function uploadPlaced(workspace: Workspace, record: MediaRecord): void {
  const order = uploadOrders.get(mediaStore.get(workspace).media);
  if (order === undefined) return;
  const entry = order.placed.get(record.key);
  if (entry !== undefined) order.kept.move(entry, mediaSortKey(record));
  else {
    const added = { item: record, key: mediaSortKey(record) };
    order.placed.set(record.key, added);
    order.kept.insert(added);
  }
}

/** A time as the order's keys hold it, first among the keys of that instant. */
function instantKey(ms: number): SortKey {
  return [new Date(ms).toISOString(), ''];
}

export interface UploadedMedia {
  /** Up to `count` uploads after the cursor's key, newest upload first: O(log n + count). */
  following: Following<MediaRecord>;
  /** How many uploads the range lets through: O(log n). */
  total(): number;
}

/** Uploaded media (MediaAssets), newest upload first; with a range, only those uploaded in [since, until). */
export function uploadedMedia(workspace: Workspace, { sinceMs, untilMs }: TimeRange = {}): UploadedMedia {
  const { kept } = uploadOrder(workspace);
  const since = sinceMs === undefined ? undefined : instantKey(sinceMs);
  const until = untilMs === undefined ? undefined : instantKey(untilMs);
  return {
    following(after, count) {
      const before = after === undefined || (until !== undefined && ascending(until, after) < 0) ? until : after;
      const page: MediaRecord[] = [];
      for (const entry of kept.descending(before)) {
        if (page.length >= count || (since !== undefined && ascending(entry.key, since) < 0)) break;
        page.push(entry.item);
      }
      return page;
    },
    total: () => (until === undefined ? kept.size : kept.lowerBound(until)) - (since === undefined ? 0 : kept.lowerBound(since)),
  };
}

/** Newest upload first; the id breaks ties. Also the list's cursor key. */
export function mediaSortKey(record: MediaRecord): SortKey {
  return [record.uploadedAt, record.id];
}

/** The MediaAsset shape. */
export function mediaAssetView(origin: string, record: MediaRecord): components['schemas']['MediaAsset'] {
  return {
    id: record.id,
    url: `${origin}${PUBLIC_PATH}/${record.key}`,
    contentType: record.contentType,
    ...(record.sizeBytes !== null && { sizeBytes: record.sizeBytes }),
  };
}
