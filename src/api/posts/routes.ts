import { apiRoute } from '../../http/api-route.js';
import { ViewMemo } from '../../http/json-memo.js';
import type { PostRecord } from './records.js';
import { cancelPost, createPost, deletePost, getPost, listPosts } from './service.js';
import { postView, postViewInputs } from './views.js';

/** The reads answer a post's view from the memo while what it is made of is unchanged, so neither the view nor its JSON is made again (src/http/json-memo.ts). */
const readViews = new ViewMemo();

export const postRoutes = [
  apiRoute(
    'createPost',
    ({ workspace, body }) => ({ status: 201, body: { post: postView(workspace, createPost(workspace, body)) } }),
    'Publishing runs on the virtual clock: `queued` for 2 s, then `processing`, each destination answering 3 s after the previous one. ' +
      'An unknown or foreign connectionId is 400 VALIDATION_ERROR naming destinations[i].connectionId. Per-network rules (fields, required fields, media kinds, threads, ' +
      'text limits in code points) are the mock\'s reading of the reference; see the operation description. Publishing past an account\'s velocity cap answers 429 VELOCITY_LIMITED with Retry-After (decision 0003). ' +
      'scheduledFor and timezone go together; DST gaps move forward, overlaps take the first occurrence (docs/decisions/0002).',
  ),

  apiRoute(
    'listPosts',
    ({ workspace, query }) => {
      const { page, total, facets } = listPosts(workspace, query);
      const build = (post: PostRecord) => postView(workspace, post);
      return {
        status: 200,
        body: {
          ...page,
          data: page.data.map((post) => readViews.from(post, postViewInputs(workspace, post), build)),
          ...(total !== undefined && { total }),
          ...(facets !== undefined && { facets }),
        },
      };
    },
    'The publish time of a post is its first destination\'s publishedAt. `metric:<name>` sorts by the total over the destinations at the current ' +
      'virtual time, so a cursor taken before the clock moved may page over values that have grown since.',
  ),

  apiRoute('getPost', ({ workspace, params }) => {
    const post = getPost(workspace, params.id);
    return { status: 200, body: { post: readViews.from(post, postViewInputs(workspace, post), (record) => postView(workspace, record)) } };
  }),

  apiRoute(
    'deletePost',
    ({ workspace, params }) => ({ status: 200, body: { post: postView(workspace, deletePost(workspace, params.id)) } }),
    'The remote delete always succeeds at once, whatever the state of the networks and accounts.',
  ),

  apiRoute('cancelPost', ({ workspace, params }) => ({ status: 200, body: { post: postView(workspace, cancelPost(workspace, params.id)) } })),
];
