import { apiRoute } from '../../http/api-route.js';
import { listPage } from '../../http/lists.js';
import { createProfile, deleteProfile, listProfiles, profileView } from './service.js';

export const profileRoutes = [
  apiRoute('listProfiles', ({ workspace, query }) => {
    // Oldest first, so the default profile (the first one made) leads, as the contract says.
    const sorted = listProfiles(workspace).sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
    const page = listPage(workspace, {
      list: 'profiles',
      query,
      sorted,
      keyOf: (profile) => [profile.createdAt, profile.id],
      direction: 'asc',
      limit: query.limit ?? 50,
    });
    return { status: 200, body: { ...page, data: page.data.map((profile) => profileView(workspace, profile)) } };
  }),

  apiRoute('createProfile', ({ workspace, body }) => ({ status: 201, body: profileView(workspace, createProfile(workspace, body.name)) })),

  apiRoute('deleteProfile', ({ workspace, params }) => {
    deleteProfile(workspace, params.id);
    return { status: 200 };
  }),
];
