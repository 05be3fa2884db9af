import { apiRoute } from '../../http/api-route.js';
import { conversationView, createConversation, listConversations, messageView, sendMessage } from './service.js';

export const inboxRoutes = [
  apiRoute('listConversations', ({ workspace, query }) => ({ status: 200, body: listConversations(workspace, query) }),
    'bluesky, instagram and facebook only. members lists the person first, then the account.'),

  apiRoute('createConversation', ({ workspace, params, body }) => {
    const { conversation, created } = createConversation(workspace, params.id, body);
    return { status: created ? 201 : 200, body: { conversation: conversationView(workspace, conversation) } };
  }, [
    'recipientId is checked for the network\'s id format (a DID on bluesky, digits on instagram and facebook).',
    'An existing conversation with the person answers 200 with it (text is sent into it). Plain text is not held to the 24-hour window,',
    'so the mock does not enforce the networks\' rule that a business only writes to people who wrote first. Emits message.sent for text; no conversation.started (that event is for conversations people open).',
  ].join(' ')),

  apiRoute('sendMessage', ({ workspace, params, body }) => ({ status: 200, body: messageView(sendMessage(workspace, params.id, params.conversationId, body)) }), [
    'The 24-hour window (400 MESSAGING_WINDOW_CLOSED) holds for attachments, quick replies, buttons and cards, not for plain text.',
    'The attachment type is judged by the URL\'s extension (the mock does not fetch it). Sending sets unreadCount to 0. Emits message.sent.',
  ].join(' ')),
];
