import express, { type Router } from 'express';
import type { Containment } from '../../lib/containment.js';
import type { WorkspaceRegistry } from '../../workspaces/registry.js';
import { stampDate } from '../../http/date-header.js';
import { quotaExceeded, type MediaQuota } from './quota.js';
import { MEDIA_MAX_BYTES, PUBLIC_PATH, UPLOAD_PATH, checkUpload, payloadTooLarge, readMedia, storeUpload } from './service.js';

/**
 * The two plain routes presigned URLs point at, outside /v1 and its contract (the
 * real service hands out storage URLs, not API paths): `PUT /__uploads/:key` takes
 * the file, `GET /__media/:key` serves it with its type. No API key: the URL is the
 * credential, as with a presigned storage URL. Errors use the API's envelope.
 */
export function mediaRouter(registry: WorkspaceRegistry, quota: MediaQuota, containment: Containment): Router {
  const router = express.Router();

  router.put(`${UPLOAD_PATH}/:key`, (req, res, next) => {
    // Everything that can be refused is refused before a byte of the body is read.
    const { workspace, record } = checkUpload(registry, {
      key: req.params.key ?? '',
      token: req.query.token,
      contentType: req.headers['content-type'],
      contentLength: req.headers['content-length'],
    });
    // The answer's Date header comes from this workspace's clock (an error's too, through the responder).
    req.ctx.workspace = workspace;
    stampDate(res, workspace);
    const room = quota.room(workspace, record.key);
    const announced = req.headers['content-length'] === undefined ? null : Number(req.headers['content-length']);
    if (announced !== null && announced > room.bytes) throw quotaExceeded(room, announced);
    // The body is read only as far as the quota goes: a chunked upload without a length is counted as it streams.
    const limit = Math.min(MEDIA_MAX_BYTES, room.bytes);
    const release = quota.reserve(workspace, announced ?? limit);
    // Runs after the answer, with nobody above it: at the response boundary.
    res.once('close', containment.guard('response', release));
    // Called by the body reader, with nobody above it: whatever it throws is the request's error.
    express.raw({ type: () => true, limit })(req, res, (error?: unknown) => {
      try {
        release();
        if (error) {
          const tooLarge = (error as { type?: string }).type === 'entity.too.large';
          next(tooLarge ? (limit < MEDIA_MAX_BYTES ? quotaExceeded(room, null) : payloadTooLarge()) : error);
          return;
        }
        storeUpload(workspace, record, Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0));
        res.status(200).end();
      } catch (failure) {
        next(failure);
      }
    });
  });

  router.get(`${PUBLIC_PATH}/:key`, (req, res) => {
    const { workspace, record, bytes } = readMedia(registry, req.params.key ?? '');
    req.ctx.workspace = workspace;
    stampDate(res, workspace);
    res.setHeader('Content-Type', record.contentType);
    res.setHeader('Content-Length', String(bytes.length));
    // The type is whatever the uploader declared: never let a browser run it as a page of this origin.
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Security-Policy', 'sandbox');
    res.status(200).end(bytes);
  });

  return router;
}
