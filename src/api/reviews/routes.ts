import { apiRoute } from '../../http/api-route.js';
import { listReviews } from './service.js';

export const reviewRoutes = [
  apiRoute('listReviews', ({ workspace, params, query }) => ({ status: 200, body: listReviews(workspace, params.id, query) }), 'facebook pages only; other networks answer 400 PLATFORM_NOT_SUPPORTED.'),
];
