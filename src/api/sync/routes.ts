import { apiRoute } from '../../http/api-route.js';
import { accountPostView, syncAccount } from './service.js';

export const syncRoutes = [
  apiRoute(
    'syncAccount',
    ({ workspace, params, body }) => {
      const outcome = syncAccount(workspace, params.id, body ?? {});
      return { status: 200, body: { data: outcome.posts.map((post) => accountPostView(workspace, post)), skipped: outcome.skipped } };
    },
    'The network side is simulated: each account has a timeline of posts made outside the service, drawn from the workspace seed (about one every ten hours, new ones appearing as virtual time passes), merged with the posts a scenario `network.post` step made there and with what the service itself published to the account. ' +
      'Items are one destination each: `id` is the destination id, `groupId` the post id (GET /v1/posts/{groupId}). A post is imported once (matched by `platformPostId`). ' +
      '`url` matches ignoring scheme, `www.`, case, a trailing slash and tracking parameters; with both `url` and `platformPostId` a post must match both. ' +
      'A skipped sync (within 15 s of the last one that reached the network) answers from stored posts without asking the network, so it neither imports nor fails on an outage, and does not restart the 15 s. ' +
      'A non-active account answers 400 ACCOUNT_RECONNECT_REQUIRED (param `id`); a network outage 502 PLATFORM_ERROR.',
  ),
];
