import { apiRoute } from '../../http/api-route.js';
import { listPage } from '../../http/lists.js';
import { analyticsSortKey, postTimeline, publishedDestinations, workspaceTimeline } from './service.js';

const READINGS =
  'Readings: the network reads each published destination once per UTC day, at the day\'s end (00:00 UTC of the next day), so the publish day has a point, earlier days none, and today none until midnight UTC passes. ' +
  'Metrics grow on a deterministic curve per destination (seeded), on the virtual clock. `views` is NormalizedMetrics\' `plays` (0 where the network counts none, as are other uncounted keys).';

export const analyticsRoutes = [
  apiRoute(
    'getPostAnalyticsTimeline',
    ({ workspace, params, query }) => {
      const timeline = postTimeline(workspace, params.id, query);
      return { status: 200, body: { postId: params.id, from: timeline.from, to: timeline.to, points: timeline.points } };
    },
    `${READINGS} A post with several destinations sums them; its \`twitter\` destinations are left out, and a post only on \`twitter\` answers 400 PLATFORM_NOT_SUPPORTED (param \`id\`). ` +
      'The last day is the UTC day in which the range ends: `until` is exclusive, so an `until` at exactly midnight UTC ends on the day before. A remotely deleted post keeps the readings taken before its deletion.',
  ),

  apiRoute(
    'getAnalytics',
    ({ workspace, query }) => {
      const matching = publishedDestinations(workspace, query);
      const page = listPage(workspace, { list: 'analytics', query, sorted: matching, keyOf: analyticsSortKey, direction: 'desc', limit: query.limit ?? 50 });
      return {
        status: 200,
        body: {
          ...page,
          data: page.data.map(({ post, destination, metrics }) => ({
            postId: post.id,
            destinationId: destination.id,
            connectionId: destination.connectionId,
            platform: destination.platform,
            publishedAt: destination.publishedAt ?? '',
            metrics,
          })),
        },
      };
    },
    'One item per destination whose status is `published` (imported `external` posts included; deleted ones are gone), with its metrics at the current virtual time. Uses the per-second analytics budget: max(6, requests per minute / 60), 429 RATE_LIMITED past it.',
  ),

  apiRoute(
    'getAnalyticsTimeline',
    ({ workspace, query }) => {
      const timeline = workspaceTimeline(workspace, query);
      const page = listPage(workspace, { list: 'analytics-timeline', query, sorted: timeline.points, keyOf: (point) => [point.day], direction: 'asc', limit: query.limit ?? 50 });
      return { status: 200, body: { from: timeline.from, to: timeline.to, ...page } };
    },
    `${READINGS} Sums every matching destination; \`twitter\` destinations have no readings and are left out, and \`platform=twitter\` or a \`twitter\` connectionId answers 400 PLATFORM_NOT_SUPPORTED. ` +
      'Deltas are computed over the whole range before paging, so only the range\'s first point has null deltas. Uses the per-second analytics budget, as GET /v1/analytics does.',
  ),
];
