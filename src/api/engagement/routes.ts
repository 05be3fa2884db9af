import { apiRoute } from '../../http/api-route.js';
import { quotePost, setEngagement } from './service.js';

const TOGGLE_NOTE = 'twitter only (others 400 PLATFORM_NOT_SUPPORTED); acts as the account that published the destination. Idempotent in effect: doing it twice leaves the same state.';

export const engagementRoutes = [
  apiRoute('likePost', ({ workspace, body }) => ({ status: 200, body: setEngagement(workspace, 'like', body, true) }), TOGGLE_NOTE),
  apiRoute('unlikePost', ({ workspace, body }) => ({ status: 200, body: setEngagement(workspace, 'like', body, false) }), TOGGLE_NOTE),
  apiRoute('repost', ({ workspace, body }) => ({ status: 200, body: setEngagement(workspace, 'repost', body, true) }), TOGGLE_NOTE),
  apiRoute('undoRepost', ({ workspace, body }) => ({ status: 200, body: setEngagement(workspace, 'repost', body, false) }), TOGGLE_NOTE),
  apiRoute('bookmarkPost', ({ workspace, body }) => ({ status: 200, body: setEngagement(workspace, 'bookmark', body, true) }), TOGGLE_NOTE),
  apiRoute('removeBookmark', ({ workspace, body }) => ({ status: 200, body: setEngagement(workspace, 'bookmark', body, false) }), TOGGLE_NOTE),
  apiRoute('quotePost', ({ workspace, body }) => ({ status: 201, body: quotePost(workspace, body) }),
    'The quote is also a post in the posts store (published at once, options.quoteMicroblogPostId set), announced with post.platform.published and post.published, and counted toward the account\'s velocity (429 VELOCITY_LIMITED past a cap). The twitter limit applies (25000 with a premium subscription).'),
];
