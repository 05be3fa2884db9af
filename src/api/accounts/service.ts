import type { components } from '../../generated/openapi.js';
import type { components as controlComponents } from '../../generated/control.js';
import type { JobRecord } from '../../clock/scheduler.js';
import { ApiError, notFound, validationError } from '../../lib/errors.js';
import { getOwn } from '../../lib/records.js';
import { platformFacts } from '../../platforms/catalog.js';
import type { Workspace } from '../../workspaces/workspace.js';
import { createProfile, findProfileByName, listProfiles } from '../profiles/service.js';
import { profilesStore } from '../profiles/store.js';
import { billNewAccount } from './billing.js';
import { accountFacts } from './networks.js';
import { accountsStore, type AccountRecord } from './store.js';

const HOUR_MS = 3_600_000;

/** The name of the profile the account is filed under; undefined when in none (or its profile is gone). */
function profileNameOf(workspace: Workspace, account: AccountRecord): string | undefined {
  return account.profileId ? getOwn(profilesStore.read(workspace).profiles, account.profileId)?.name : undefined;
}

/** The list-and-connect shape of the reference ("Connection"). */
export function connectionView(workspace: Workspace, account: AccountRecord): components['schemas']['Connection'] {
  const profileName = profileNameOf(workspace, account);
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

/**
 * Everything `connectionView` reads, flat and in a fixed order: equal arrays (element by element)
 * stand for equal views, so the connections list answers the view it made last time without
 * building one (`ViewMemo.from`, src/http/json-memo.ts), where it built every account's view and
 * walked it against the last (a tenth of the list's CPU). A field added to the view is added here
 * too, or the list answers a stale view: test/unit/connection-view-inputs.test.ts changes every
 * field of an account and its profile's name, and fails when the view moves and these do not. O(1).
 */
export function connectionViewInputs(workspace: Workspace, account: AccountRecord): unknown[] {
  return [
    account.id,
    account.platform,
    account.displayName,
    account.handle,
    account.avatarUrl,
    account.status,
    account.authHealth,
    account.tokenExpiresAt,
    account.canAutoRenew,
    profileNameOf(workspace, account),
    account.microblogSubscriptionType,
    account.createdAt,
    account.updatedAt,
  ];
}

/** The single-account shape of the reference ("Account"). */
export function accountView(workspace: Workspace, account: AccountRecord): components['schemas']['Account'] {
  const profile = profileNameOf(workspace, account) ?? null;
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
  return Object.values(accountsStore.read(workspace).accounts);
}

/** An account of this workspace, or 404: ids of other workspaces are never found. */
export function getAccount(workspace: Workspace, id: string): AccountRecord {
  const account = getOwn(accountsStore.read(workspace).accounts, id);
  if (!account) throw notFound('Account', id);
  return account;
}

// ---------------------------------------------------------------------------
// Connecting and disconnecting
// ---------------------------------------------------------------------------

/** Who the owner is on the network: what a new account is made of. */
export interface NetworkIdentity {
  platform: string;
  displayName: string;
  handle: string;
  avatarUrl: string | null;
  platformUserId: string;
}

export interface NewAccountOptions {
  /** Profile to file it under, created when missing; undefined or null for the default profile. */
  profileName?: string | null;
  metadata?: Record<string, unknown>;
}

/**
 * Adds a connected account: bills it, files it under its profile, schedules its
 * token's expiry and sends `account.connected`. The caller has checked everything
 * that could refuse it (assertCanAddAccount among them), so this cannot fail halfway.
 */
export function addAccount(workspace: Workspace, identity: NetworkIdentity, options: NewAccountOptions = {}): AccountRecord {
  const facts = accountFacts(identity.platform);
  const now = workspace.nowIso();
  const profileId = resolveProfile(workspace, options.profileName ?? null);
  billNewAccount(workspace);
  const account: AccountRecord = {
    id: workspace.newId(),
    platform: identity.platform,
    displayName: identity.displayName,
    handle: identity.handle,
    avatarUrl: identity.avatarUrl,
    status: 'active',
    authHealth: 'healthy',
    canAutoRenew: facts.canAutoRenew,
    tokenExpiresAt: freshTokenExpiry(workspace, identity.platform),
    profileId,
    metadata: structuredClone(options.metadata ?? {}),
    // A new microblog account reports no subscription until the network says otherwise.
    ...(identity.platform === 'twitter' && { microblogSubscriptionType: null }),
    platformUserId: identity.platformUserId,
    ...(identity.platform === 'bluesky' && { defaultLangs: null }),
    createdAt: now,
    updatedAt: now,
  };
  accountsStore.get(workspace).accounts[account.id] = account;
  scheduleTokenExpiry(workspace, account);
  workspace.events.emit('account.connected', { account: accountView(workspace, account) });
  workspace.changed();
  return account;
}

/**
 * The profile a new account is filed under: the named one (made if missing), else
 * the workspace default, made when the workspace has no profile at all (a workspace
 * started without fixtures), so "default profile" always means something.
 */
function resolveProfile(workspace: Workspace, name: string | null): string {
  if (name !== null) return (findProfileByName(workspace, name) ?? createProfile(workspace, name)).id;
  const profiles = listProfiles(workspace);
  const fallback = profiles.find((profile) => profile.isDefault) ?? findProfileByName(workspace, 'Default');
  return (fallback ?? createProfile(workspace, 'Default')).id;
}

/** An account's token right after the owner signed in: the network's lifetime from now, or null. */
function freshTokenExpiry(workspace: Workspace, platform: string): string | null {
  const hours = accountFacts(platform).tokenHours;
  return hours === null ? null : new Date(workspace.now() + hours * HOUR_MS).toISOString();
}

/**
 * The owner signed in again: the same account (same id, profile and metadata)
 * comes back `active` and `healthy` with a fresh token, and `account.reconnected`
 * is sent. Never billed.
 */
export function reactivateAccount(workspace: Workspace, account: AccountRecord): AccountRecord {
  account.status = 'active';
  account.authHealth = 'healthy';
  account.canAutoRenew = accountFacts(account.platform).canAutoRenew;
  account.tokenExpiresAt = freshTokenExpiry(workspace, account.platform);
  account.updatedAt = workspace.nowIso();
  scheduleTokenExpiry(workspace, account);
  workspace.events.emit('account.reconnected', { account: accountView(workspace, account) });
  workspace.changed();
  return account;
}

/** Disconnects: the account is gone (404 everywhere after) and `account.disconnected` carries what it was. */
export function disconnectAccount(workspace: Workspace, id: string): void {
  const account = getAccount(workspace, id);
  const profile = account.profileId ? (profilesStore.read(workspace).profiles[account.profileId]?.name ?? null) : null;
  cancelTokenJobs(workspace, account.id);
  delete accountsStore.get(workspace).accounts[account.id];
  workspace.events.emit('account.disconnected', {
    id: account.id,
    platform: account.platform,
    displayName: account.displayName,
    handle: account.handle,
    profile,
    disconnectedAt: workspace.nowIso(),
  });
  workspace.changed();
}

// ---------------------------------------------------------------------------
// Token lifecycle on the virtual clock
// ---------------------------------------------------------------------------

/** The job that runs when an account's token runs out: it renews the token or expires the account. */
export const TOKEN_EXPIRY_JOB = 'account.token-expiry';

function cancelTokenJobs(workspace: Workspace, accountId: string): void {
  workspace.scheduler.cancel((job) => job.kind === TOKEN_EXPIRY_JOB && job.data.accountId === accountId);
}

/** (Re)schedules the account's token expiry: one job per active account whose token expires. */
export function scheduleTokenExpiry(workspace: Workspace, account: AccountRecord): void {
  cancelTokenJobs(workspace, account.id);
  scheduleTokenJob(workspace, account);
}

/** The account's token job, when it has none pending. */
function scheduleTokenJob(workspace: Workspace, account: AccountRecord): void {
  if (account.status !== 'active' || account.tokenExpiresAt === null) return;
  const dueMs = Date.parse(account.tokenExpiresAt);
  if (Number.isNaN(dueMs)) return;
  const label = `token of ${platformFacts(account.platform)?.label ?? account.platform} account ${account.handle} ${account.canAutoRenew ? 'renews' : 'expires'}`;
  // A token already past (stored data, a control-plane change) is handled at once.
  workspace.scheduler.schedule(TOKEN_EXPIRY_JOB, Math.max(dueMs, workspace.now()), { accountId: account.id, tokenExpiresAt: account.tokenExpiresAt }, label);
}

/** Schedules the token jobs of every account: after the fixture world is built. */
export function scheduleAllTokenExpiries(workspace: Workspace): void {
  for (const account of allAccounts(workspace)) scheduleTokenExpiry(workspace, account);
}

/**
 * The token ran out. An account that renews by itself gets a fresh token (no
 * event: nothing changed for the integrator); one that cannot turns `expired`
 * with `authHealth: action_required`, and `account.expired` is sent.
 */
export function handleTokenExpiry(workspace: Workspace, job: JobRecord): void {
  const accountId = job.data.accountId;
  const account = typeof accountId === 'string' ? getOwn(accountsStore.read(workspace).accounts, accountId) : undefined;
  // Disconnected, reconnected or changed since the job was made: a newer job (or none) stands.
  if (!account || account.status !== 'active' || account.tokenExpiresAt !== job.data.tokenExpiresAt) return;
  if (account.canAutoRenew) {
    const hours = accountFacts(account.platform).tokenHours;
    account.tokenExpiresAt = hours === null ? null : new Date(workspace.now() + hours * HOUR_MS).toISOString();
    account.updatedAt = workspace.nowIso();
    // The job that ran was the account's only one: no need to search the whole queue for others to cancel.
    scheduleTokenJob(workspace, account);
  } else {
    expire(workspace, account, workspace.nowIso());
  }
  workspace.changed();
}

function expire(workspace: Workspace, account: AccountRecord, tokenExpiresAt: string | null): void {
  account.status = 'expired';
  account.authHealth = 'action_required';
  account.tokenExpiresAt = tokenExpiresAt;
  account.updatedAt = workspace.nowIso();
  cancelTokenJobs(workspace, account.id);
  workspace.events.emit('account.expired', { account: accountView(workspace, account) });
}

// ---------------------------------------------------------------------------
// Status changes from the control plane (and scenarios)
// ---------------------------------------------------------------------------

export const SETTABLE_STATUSES = ['active', 'expired', 'revoked', 'error'] as const;
export type SettableStatus = (typeof SETTABLE_STATUSES)[number];

/**
 * POST /__control/accounts/{id}/status (control.yaml). Left out, `authHealth` is healthy for
 * active and action_required otherwise; `tokenExpiresAt` is kept, but a fresh token when turning
 * active with none valid, and now when expiring.
 */
export type StatusChange = controlComponents['schemas']['AccountStatusChange'];

/**
 * Moves an account to a status as the network would have: `expired` sends
 * `account.expired`; `active` from another status sends `account.reconnected`
 * (the owner fixed it elsewhere); `revoked` and `error` send nothing, as no event
 * of the catalog names them. The token job follows the new state.
 */
export function setAccountStatus(workspace: Workspace, id: string, change: StatusChange): AccountRecord {
  const account = getAccount(workspace, id);
  if (change.tokenExpiresAt !== undefined && change.tokenExpiresAt !== null && Number.isNaN(Date.parse(change.tokenExpiresAt))) {
    throw validationError('tokenExpiresAt', 'tokenExpiresAt must be an ISO 8601 date-time or null.');
  }
  if (change.status === 'active' && change.tokenExpiresAt && Date.parse(change.tokenExpiresAt) <= workspace.now()) {
    throw new ApiError(400, 'VALIDATION_ERROR', 'An active account needs a token that has not run out: send a later tokenExpiresAt, or status expired.', { param: 'tokenExpiresAt' });
  }
  const wasActive = account.status === 'active';
  if (change.canAutoRenew !== undefined) account.canAutoRenew = change.canAutoRenew;

  if (change.status === 'expired') {
    const tokenExpiresAt = change.tokenExpiresAt !== undefined ? change.tokenExpiresAt : workspace.nowIso();
    expire(workspace, account, tokenExpiresAt);
    if (change.authHealth) account.authHealth = change.authHealth;
    workspace.changed();
    return account;
  }

  account.status = change.status;
  account.authHealth = change.authHealth ?? (change.status === 'active' ? 'healthy' : 'action_required');
  if (change.tokenExpiresAt !== undefined) {
    account.tokenExpiresAt = change.tokenExpiresAt;
  } else if (change.status === 'active' && account.tokenExpiresAt !== null && Date.parse(account.tokenExpiresAt) <= workspace.now()) {
    // Active again with a token that had run out: the owner signed in, so the token is fresh.
    account.tokenExpiresAt = freshTokenExpiry(workspace, account.platform);
  }
  account.updatedAt = workspace.nowIso();
  scheduleTokenExpiry(workspace, account);
  if (change.status === 'active' && !wasActive) workspace.events.emit('account.reconnected', { account: accountView(workspace, account) });
  workspace.changed();
  return account;
}

// ---------------------------------------------------------------------------
// Decentralized network settings
// ---------------------------------------------------------------------------

/** A BCP 47 language tag: a 2-3 letter language, then subtags (pt-BR, zh-Hant-TW). */
const LANGUAGE_TAG = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/;

/** Sets (or with null clears) the languages new posts of the account are tagged with. */
export function updateDefaultLangs(workspace: Workspace, account: AccountRecord, defaultLangs: string[] | null): AccountRecord {
  if (defaultLangs !== null) {
    const seen = new Set<string>();
    defaultLangs.forEach((tag, i) => {
      if (!LANGUAGE_TAG.test(tag)) throw validationError(`defaultLangs[${i}]`, `'${tag}' is not a BCP 47 language tag such as en or pt-BR.`);
      if (seen.has(tag.toLowerCase())) throw validationError(`defaultLangs[${i}]`, `'${tag}' is listed twice.`);
      seen.add(tag.toLowerCase());
    });
  }
  account.defaultLangs = defaultLangs === null ? null : [...defaultLangs];
  account.updatedAt = workspace.nowIso();
  workspace.changed();
  return account;
}
