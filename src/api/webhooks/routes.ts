import { apiRoute } from '../../http/api-route.js';
import { listPage, pageSize, parseInclude, parseTimeRange } from '../../http/lists.js';
import { countByStatus, histogram } from './delivery-log.js';
import {
  allWebhooks,
  createWebhook,
  deleteWebhook,
  deliveryLog,
  deliveryView,
  getWebhook,
  redeliver,
  testWebhook,
  updateWebhook,
  webhookView,
} from './service.js';

const DELIVERY_NOTES =
  'Deliveries are real HTTP POSTs from the mock; retries run on the virtual clock. Log retention: free 3 days, payg 30 days, and at most 1000 deliveries per webhook.';

export const webhookRoutes = [
  apiRoute('listWebhooks', ({ workspace, query }) => {
    const sorted = allWebhooks(workspace).sort((a, b) => b.seq - a.seq);
    const page = listPage(workspace, {
      list: 'webhooks',
      query,
      sorted,
      keyOf: (webhook) => [webhook.seq],
      direction: 'desc',
      limit: pageSize(query.limit, 50),
    });
    return { status: 200, body: { ...page, data: page.data.map(webhookView) } };
  }),

  apiRoute('createWebhook', ({ workspace, body }) => ({ status: 201, body: webhookView(createWebhook(workspace, body)) }), 'A url with a user name or password is refused (400), since it would leak in every request.'),

  apiRoute('getWebhook', ({ workspace, params }) => ({ status: 200, body: webhookView(getWebhook(workspace, params.id)) })),

  apiRoute('updateWebhook', ({ workspace, params, body }) => ({ status: 200, body: webhookView(updateWebhook(workspace, params.id, body)) })),

  apiRoute('deleteWebhook', ({ workspace, params }) => {
    deleteWebhook(workspace, params.id);
    return { status: 200 };
  }),

  apiRoute('testWebhook', async ({ workspace, params }) => ({ status: 200, body: deliveryView(await testWebhook(workspace, params.id)) }), 'The test delivery is attempted once; it is not retried.'),

  apiRoute(
    'listWebhookDeliveries',
    ({ workspace, params, query }) => {
      const include = parseInclude(query.include, ['facets', 'histogram'] as const);
      const log = deliveryLog(workspace, params.id, { ...parseTimeRange(query), status: query.status, event: query.event });
      const page = listPage(workspace, {
        list: `webhooks/${params.id}/deliveries`,
        query,
        sorted: log.matching,
        keyOf: (delivery) => [delivery.createdAtMs, delivery.seq],
        direction: 'desc',
        limit: pageSize(query.limit, 50),
      });
      return {
        status: 200,
        body: {
          ...page,
          data: page.data.map(deliveryView),
          ...(include.has('facets') && { facets: countByStatus(log.counted) }),
          ...(include.has('histogram') && { histogram: histogram(log.counted, log.window) }),
        },
      };
    },
    DELIVERY_NOTES,
  ),

  apiRoute(
    'redeliverWebhookDelivery',
    async ({ workspace, params }) => ({ status: 200, body: deliveryView(await redeliver(workspace, params.id, params.deliveryId)) }),
    'Works on a disabled webhook too; it neither re-enables the webhook nor changes its failure count.',
  ),
];
