import { apiRoute } from '../../http/api-route.js';
import { automationView, createAutomation, deleteAutomation, getAutomation, listAutomations, updateAutomation } from './service.js';

const RUNNER_NOTE =
  'Rules run synchronously when an inbound comment (comment_to_dm), story reply (story_reply) or the message that opens a conversation (welcome_dm) arrives ' +
  '(POST /__control/inbound/*): keywords match as case-insensitive substrings.';

export const automationRoutes = [
  apiRoute('listAutomations', ({ workspace, query }) => ({ status: 200, body: listAutomations(workspace, query) })),

  apiRoute('createAutomation', ({ workspace, body }) => ({ status: 201, body: automationView(createAutomation(workspace, body)) }), [
    'Every kind needs an account with direct messages (bluesky, instagram, facebook), story_reply instagram or facebook (else 400 PLATFORM_NOT_SUPPORTED).',
    'A blank keyword, or one that is also excluded, is refused (400 VALIDATION_ERROR).',
    RUNNER_NOTE,
  ].join(' ')),

  apiRoute('getAutomation', ({ workspace, params }) => ({ status: 200, body: automationView(getAutomation(workspace, params.id)) })),

  apiRoute('updateAutomation', ({ workspace, params, body }) => ({ status: 200, body: automationView(updateAutomation(workspace, params.id, body)) }),
    'The result is checked as on create (no keyword also excluded) before anything changes; updatedAt moves on every accepted PATCH that sends a field, and `{}` is a 200 no-op.'),

  apiRoute('deleteAutomation', ({ workspace, params }) => {
    deleteAutomation(workspace, params.id);
    return { status: 200 };
  }),
];
