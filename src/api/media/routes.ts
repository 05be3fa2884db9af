import { apiRoute } from '../../http/api-route.js';
import { indexedListPage, parseInclude, parseTimeRange } from '../../http/lists.js';
import { mediaAssetView, mediaSortKey, presignMedia, requestOrigin, uploadedMedia } from './service.js';

export const mediaRoutes = [
  apiRoute(
    'presignMedia',
    ({ workspace, headers, body }) => ({ status: 200, body: presignMedia(workspace, requestOrigin(headers), body) }),
    'The URLs point at the mock itself (built from the request\'s Host): `PUT /__uploads/{key}?token=…` takes the file, `GET /__media/{key}` serves it with its declared type. ' +
      'Upload URLs expire after 900 s of virtual time (403 UPLOAD_URL_EXPIRED); the PUT\'s Content-Type must equal the declared one, parameters and case aside (415); files up to 50 MB, and the media of a workspace up to --media-quota (256 MB; of the server up to --media-quota-server, 1 GB): past either the PUT is 413 PAYLOAD_TOO_LARGE naming the flag; an empty body is 400. ' +
      'Any MIME type is accepted (the reference lists none). The filename is metadata only. Uploaded bytes are kept in memory, not in the --data file: after a restart the assets are gone.',
  ),

  apiRoute(
    'listMedia',
    ({ workspace, headers, query }) => {
      const include = parseInclude(query.include, ['total'] as const);
      const uploaded = uploadedMedia(workspace, parseTimeRange(query));
      const page = indexedListPage(workspace, {
        list: 'media',
        query,
        following: uploaded.following,
        keyOf: mediaSortKey,
        limit: query.limit ?? 50,
      });
      const origin = requestOrigin(headers);
      return {
        status: 200,
        body: { ...page, data: page.data.map((record) => mediaAssetView(origin, record)), ...(include.has('total') && { total: uploaded.total() }) },
      };
    },
    'Only files whose upload arrived are listed (a presign alone is not an asset), newest upload first; `since`/`until` filter on the upload time and `total` counts what they let through. `url` is built from the request\'s Host.',
  ),
];
