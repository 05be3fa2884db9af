import { beforeAll, describe, expect, it } from 'vitest';
import { connectionView, connectionViewInputs } from '../../src/api/accounts/service.js';
import type { AccountRecord } from '../../src/api/accounts/store.js';
import { profilesStore } from '../../src/api/profiles/store.js';
import type { Workspace } from '../../src/workspaces/workspace.js';
import { useMock } from '../helpers/mock.js';
import { expectMemoFollowsInputs, type Mutation } from '../helpers/view-inputs.js';

/*
 * The connections list answers the view it made last time while connectionViewInputs answers
 * the same array (ViewMemo.from): the inputs must hold everything the view shows. This changes
 * every field of an account, one at a time, and the name of its profile, and holds that whenever
 * the view moves the inputs move too, and that the memo then answers the new view.
 */

const mock = useMock({ fixtures: false });
let workspace: Workspace;

beforeAll(() => {
  workspace = mock.server.registry.defaultWorkspace;
  profilesStore.get(workspace).profiles['profile-1'] = { id: 'profile-1', name: 'Founder', isDefault: false, createdAt: '2026-01-01T00:00:00.000Z' };
  profilesStore.get(workspace).profiles['profile-2'] = { id: 'profile-2', name: 'Shop', isDefault: true, createdAt: '2026-01-02T00:00:00.000Z' };
});

function sampleAccount(platform = 'twitter'): AccountRecord {
  return {
    id: 'account-1',
    platform,
    displayName: 'Bike Works',
    handle: 'bike_works',
    avatarUrl: 'https://x.example/avatars/a.jpg',
    status: 'active',
    authHealth: 'healthy',
    canAutoRenew: true,
    tokenExpiresAt: '2026-12-08T00:00:00.000Z',
    profileId: 'profile-1',
    metadata: { team: 'growth' },
    microblogSubscriptionType: 'premium',
    platformUserId: '1234567890',
    defaultLangs: null,
    createdAt: '2026-04-11T00:00:00.000Z',
    updatedAt: '2026-04-11T00:00:00.000Z',
  };
}

/** Another value of the same kind as `value`, so the record stays well formed. */
function changed(key: keyof AccountRecord, value: unknown): unknown {
  if (key === 'profileId') return value === 'profile-1' ? 'profile-2' : 'profile-1';
  if (typeof value === 'string') return `${value}x`;
  if (typeof value === 'boolean') return !value;
  if (value === null) return key === 'defaultLangs' ? ['en'] : 'set';
  return { ...(value as object), extra: true };
}

/** Every way to change what an account's connection could show: each of its fields, no profile, and its profile's name. */
function mutations(): Array<Mutation<AccountRecord>> {
  const out: Array<Mutation<AccountRecord>> = [];
  for (const key of Object.keys(sampleAccount()) as Array<keyof AccountRecord>) {
    out.push({ name: key, apply: (account) => Object.assign(account, { [key]: changed(key, account[key]) }) });
  }
  out.push({ name: 'profileId (none)', apply: (account) => Object.assign(account, { profileId: null }) });
  out.push({ name: 'microblogSubscriptionType (absent)', apply: (account) => delete account.microblogSubscriptionType });
  out.push({ name: 'platform (not the microblogging network)', apply: (account) => Object.assign(account, { platform: 'bluesky' }) });
  out.push({
    name: "the profile's name",
    apply: (account) => {
      const profile = profilesStore.get(workspace).profiles[account.profileId ?? ''];
      if (profile) profile.name = `${profile.name}x`;
    },
  });
  return out;
}

describe('connectionViewInputs', () => {
  it('moves whenever the view moves, for every field of an account and its profile', () => {
    const cases = mutations();
    let viewsMoved = 0;
    for (const { name, apply } of cases) {
      const account = sampleAccount();
      const before = { view: JSON.stringify(connectionView(workspace, account)), inputs: JSON.stringify(connectionViewInputs(workspace, account)) };
      apply(account);
      const viewMoved = JSON.stringify(connectionView(workspace, account)) !== before.view;
      const inputsMoved = JSON.stringify(connectionViewInputs(workspace, account)) !== before.inputs;
      if (viewMoved) {
        viewsMoved++;
        expect(inputsMoved, `${name} changes the view but not its inputs`).toBe(true);
      }
    }
    // Not a vacuous pass: most of the changes show (all but the metadata, the network's own id and the languages).
    expect(viewsMoved).toBeGreaterThanOrEqual(cases.length - 3);
  });

  it('lets the memo answer the view it made while nothing changed, and a new one as soon as something did', () => {
    expectMemoFollowsInputs(sampleAccount(), (account) => connectionViewInputs(workspace, account), (account) => connectionView(workspace, account), mutations());
  });
});
