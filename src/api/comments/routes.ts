import { apiRoute } from '../../http/api-route.js';
import { commentView, createComment, createdCommentView, likeComment, listComments, replyToComment } from './service.js';

const RESOLUTION_NOTE =
  'A service post id with several destinations needs accountId (or destinationId): 400 VALIDATION_ERROR naming destinationId. ' +
  'A destination that is not published answers 400 VALIDATION_ERROR naming the field that named it.';

export const commentRoutes = [
  apiRoute('listComments', ({ workspace, query }) => ({ status: 200, body: listComments(workspace, query) }), [
    'On instagram, facebook and youtube the list holds top-level comments with their replies inside (oldest first); elsewhere every comment is an item and parentId links the thread.',
    RESOLUTION_NOTE,
  ].join(' ')),

  apiRoute('createComment', ({ workspace, body }) => ({ status: 201, body: { comment: createdCommentView(createComment(workspace, body)) } }), [
    'Text 1 to 25000 in the body (of the two published forms), then the network\'s reply limit from the catalog (TEXT_TOO_LONG). Shape A: id is the network\'s comment id.',
    'A reply (parentCommentId) emits comment.replied. An account that is not active answers 400 ACCOUNT_RECONNECT_REQUIRED.',
    RESOLUTION_NOTE,
  ].join(' ')),

  apiRoute('replyToComment', ({ workspace, params, body }) => ({ status: 201, body: commentView(replyToComment(workspace, params.id, body.text)) }),
    'Emits comment.replied. On instagram, facebook and youtube a reply to a reply joins its top-level comment\'s thread. pinterest has no comments: 400 PLATFORM_NOT_SUPPORTED.'),

  apiRoute('likeComment', ({ workspace, body }) => ({ status: 200, body: likeComment(workspace, body) }),
    'facebook only. Liking a liked comment again answers the same and counts once.'),
];
