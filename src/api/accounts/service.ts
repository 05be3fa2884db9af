import { notFound } from '../../http/errors.js';
import { getOwn } from '../../store/records.js';
import type { Workspace } from '../../workspaces/workspace.js';
import { profilesStore } from '../profiles/store.js';
import { accountsStore, type AccountRecord } from './store.js';

/** The list-and-connect shape of the reference ("Connection"). */
export function connectionView(workspace: Workspace, account: AccountRecord) {
  const profileName = account.profileId ? getOwn(profilesStore.get(workspace).profiles, account.profileId)?.name : undefined;
  return {
    id: account.id,
    platform: account.platform,
    displayName: account.displayName,
    handle: account.handle,
    avatarUrl: account.avatarUrl,
    status: account.status,
    authHealth: account.authHealth,
    tokenExpiresAt: account.tokenExpiresAt,
    canAutoRenew: account.canAutoRenew,
    ...(profileName !== undefined && { profileName }),
    ...(account.platform === 'twitter' && { microblogSubscriptionType: account.microblogSubscriptionType ?? null }),
    createdAt: account.createdAt,
    updatedAt: account.updatedAt,
  };
}

/** The single-account shape of the reference ("Account"). */
export function accountView(workspace: Workspace, account: AccountRecord) {
  const profile = account.profileId ? (getOwn(profilesStore.get(workspace).profiles, account.profileId)?.name ?? null) : null;
  return {
    id: account.id,
    platform: account.platform,
    displayName: account.displayName,
    handle: account.handle,
    avatarUrl: account.avatarUrl,
    status: account.status,
    authHealth: account.authHealth,
    canAutoRenew: account.canAutoRenew,
    tokenExpiresAt: account.tokenExpiresAt,
    profile,
    metadata: account.metadata,
    // Only the microblogging network reports it; left out for other platforms.
    ...(account.platform === 'twitter' && { microblogSubscriptionType: account.microblogSubscriptionType ?? null }),
    createdAt: account.createdAt,
    updatedAt: account.updatedAt,
  };
}

export function allAccounts(workspace: Workspace): AccountRecord[] {
  return Object.values(accountsStore.get(workspace).accounts);
}

/** An account of this workspace, or 404: ids of other workspaces are never found. */
export function getAccount(workspace: Workspace, id: string): AccountRecord {
  const account = getOwn(accountsStore.get(workspace).accounts, id);
  if (!account) throw notFound('Account', id);
  return account;
}
