import type { components } from '../../generated/openapi.js';
import { ApiError, notFound } from '../../lib/errors.js';
import { getOwn } from '../../lib/records.js';
import type { Workspace } from '../../workspaces/workspace.js';
import { accountsStore } from '../accounts/store.js';
import { profilesStore, type ProfileRecord } from './store.js';

export type ProfileView = components['schemas']['Profile'];

export function profileView(workspace: Workspace, profile: ProfileRecord): ProfileView {
  const accounts = Object.values(accountsStore.read(workspace).accounts);
  return {
    id: profile.id,
    name: profile.name,
    isDefault: profile.isDefault,
    connectionCount: accounts.filter((account) => account.profileId === profile.id).length,
    createdAt: profile.createdAt,
  };
}

export function listProfiles(workspace: Workspace): ProfileRecord[] {
  return Object.values(profilesStore.read(workspace).profiles);
}

export function findProfileByName(workspace: Workspace, name: string): ProfileRecord | undefined {
  const wanted = name.toLowerCase();
  return listProfiles(workspace).find((profile) => profile.name.toLowerCase() === wanted);
}

export function createProfile(workspace: Workspace, name: string): ProfileRecord {
  // Names are compared without case: two profiles named "Brand" and "brand" would be indistinguishable in a dashboard.
  if (findProfileByName(workspace, name)) {
    throw new ApiError(409, 'CONFLICT', `A profile named '${name}' already exists.`, { param: 'name' });
  }
  const profile: ProfileRecord = { id: workspace.newId(), name, isDefault: listProfiles(workspace).length === 0, createdAt: workspace.nowIso() };
  profilesStore.get(workspace).profiles[profile.id] = profile;
  return profile;
}

/** Deletes a profile; its connections stay connected and are filed under no profile. */
export function deleteProfile(workspace: Workspace, id: string): void {
  const { profiles } = profilesStore.get(workspace);
  const profile = getOwn(profiles, id);
  if (!profile) throw notFound('Profile', id);
  // New connections are filed under the default profile; without it they would have nowhere to go.
  if (profile.isDefault) throw new ApiError(409, 'CONFLICT', 'The default profile cannot be deleted.', { param: 'id' });
  const now = workspace.nowIso();
  for (const account of Object.values(accountsStore.read(workspace).accounts)) {
    if (account.profileId !== id) continue;
    account.profileId = null;
    account.updatedAt = now;
  }
  delete profiles[id];
}
