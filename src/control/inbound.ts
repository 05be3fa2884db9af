import { commentView, receiveComment, type InboundCommentInput } from '../api/comments/service.js';
import { conversationView, messageView, receiveMessage, receiveStoryReply, type InboundMessageInput, type InboundResult, type InboundStoryReplyInput } from '../api/inbox/service.js';
import { receiveReview, reviewView, type InboundReviewInput } from '../api/reviews/service.js';
import { created, route } from '../http/route.js';
import type { Workspace } from '../workspaces/workspace.js';
import type { ControlRouteFactory } from './dependencies.js';
import { withEventReport } from './event-report.js';

/** The answer of an inbound message or story reply: the message, its conversation, and what it set off. */
function inboundMessageReply(workspace: Workspace, act: () => InboundResult) {
  const { result, events, automations } = withEventReport(workspace, act);
  return created({
    accountId: result.conversation.accountId,
    message: messageView(result.message),
    // Read after the automations ran, so it shows their answers too.
    conversation: conversationView(workspace, result.conversation),
    started: result.started,
    events,
    automations,
  });
}

/** The operations of control.yaml's tag Inbound: what people on the networks do. */
export const inboundRoutes: ControlRouteFactory = () => [
  route<never, never, InboundCommentInput | undefined>('receiveInboundComment', ({ workspace, body }) => {
    const { result, events, automations } = withEventReport(workspace, () => receiveComment(workspace, body ?? {}));
    return created({ comment: commentView(result), destinationId: result.destinationId, events, automations });
  }),

  route<never, never, InboundMessageInput | undefined>('receiveInboundMessage', ({ workspace, body }) => inboundMessageReply(workspace, () => receiveMessage(workspace, body ?? {}))),

  route<never, never, InboundStoryReplyInput | undefined>('receiveInboundStoryReply', ({ workspace, body }) => inboundMessageReply(workspace, () => receiveStoryReply(workspace, body ?? {}))),

  route<never, never, InboundReviewInput | undefined>('receiveInboundReview', ({ workspace, body }) => {
    const { result, events } = withEventReport(workspace, () => receiveReview(workspace, body ?? {}));
    return created({ accountId: result.accountId, review: reviewView(result), events });
  }),
];
