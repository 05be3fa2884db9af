import { networkHandle, networkUserId, platformHost } from '../../platforms/external-ids.js';
import type { Workspace } from '../../workspaces/workspace.js';
import type { NetworkIdentity } from './service.js';
import type { CandidateRecord } from './store.js';

/*
 * Who the owner turns out to be when signing in on the mock's page: names from the
 * workspace's seeded faker, handles and ids in each network's own style. Called only
 * when a sign-in or connect changes state, so the workspace's id stream moves only then.
 */

const BRAND_KINDS = ['Coffee Roasters', 'Bakery', 'Studio', 'Outdoor Supply', 'Bike Works', 'Books', 'Florist', 'Ceramics'];
const PAGE_CATEGORIES = ['Coffee shop', 'Bakery', 'Bicycle shop', 'Outdoor & sporting goods company', 'Local business', 'Retail company', 'Bookstore', 'Florist'];

function brandName(workspace: Workspace): string {
  return `${workspace.faker.person.lastName()} ${workspace.faker.helpers.arrayElement(BRAND_KINDS)}`;
}

function avatarUrl(workspace: Workspace, platform: string): string {
  return `https://${platformHost(platform)}/avatars/${workspace.newHex(24)}.jpg`;
}

/** The owner's own account on an OAuth network: a person on the professional network, a brand elsewhere. */
function ownerIdentity(workspace: Workspace, platform: string): NetworkIdentity {
  const displayName = platform === 'linkedin' ? workspace.faker.person.fullName() : brandName(workspace);
  return { platform, displayName, handle: networkHandle(platform, displayName), avatarUrl: avatarUrl(workspace, platform), platformUserId: networkUserId(workspace, platform) };
}

function candidateOf(identity: NetworkIdentity, extra: Partial<CandidateRecord> = {}): CandidateRecord {
  return {
    id: identity.platformUserId,
    platform: identity.platform,
    displayName: identity.displayName,
    handle: identity.handle,
    // The professional network has no usernames: its "handle" is the name.
    username: identity.platform === 'linkedin' ? null : identity.handle,
    avatarUrl: identity.avatarUrl,
    category: null,
    pageId: null,
    pageName: null,
    platformUserId: identity.platformUserId,
    accountId: null,
    ...extra,
  };
}

/** A page of the page-based network: its id is the page id, its username the page's vanity name. */
function pageCandidate(workspace: Workspace): CandidateRecord {
  const identity = ownerIdentity(workspace, 'facebook');
  return candidateOf(identity, {
    category: workspace.faker.helpers.arrayElement(PAGE_CATEGORIES),
    pageId: identity.platformUserId,
    pageName: identity.displayName,
  });
}

/** A professional account linked to a page: listed by its photo-sharing id, with the page it hangs off. */
function pageLinkedCandidate(workspace: Workspace): CandidateRecord {
  const page = pageCandidate(workspace);
  const identity: NetworkIdentity = {
    platform: 'instagram',
    displayName: page.displayName,
    handle: networkHandle('instagram', page.displayName),
    avatarUrl: avatarUrl(workspace, 'instagram'),
    platformUserId: networkUserId(workspace, 'instagram'),
  };
  return candidateOf(identity, { category: page.category, pageId: page.pageId, pageName: page.pageName });
}

/** A company page on the professional network, administered by the owner. */
function organizationCandidate(workspace: Workspace): CandidateRecord {
  const displayName = brandName(workspace);
  const identity: NetworkIdentity = {
    platform: 'linkedin',
    displayName,
    handle: displayName,
    avatarUrl: avatarUrl(workspace, 'linkedin'),
    platformUserId: `urn:li:organization:${workspace.newDigits(8)}`,
  };
  return candidateOf(identity, { category: 'Company', pageId: identity.platformUserId, pageName: displayName });
}

export interface OfferOptions {
  headless: boolean;
  loginMethod: 'instagram_login' | 'facebook_login' | null;
}

/**
 * What the owner may connect after signing in, first the one a plain connect takes:
 * the page-based network offers the owner's pages; the photo-sharing network its
 * page-linked professional accounts (after `facebook_login`, or headless); the
 * professional network the person and a company page (headless); every other
 * network the signed-in account alone.
 */
export function offerCandidates(workspace: Workspace, platform: string, options: OfferOptions): CandidateRecord[] {
  switch (platform) {
    case 'facebook':
      return [pageCandidate(workspace), pageCandidate(workspace)];
    case 'instagram':
      if (options.loginMethod === 'facebook_login' || options.headless) return [pageLinkedCandidate(workspace), pageLinkedCandidate(workspace)];
      return [candidateOf(ownerIdentity(workspace, 'instagram'))];
    case 'linkedin':
      return options.headless ? [candidateOf(ownerIdentity(workspace, 'linkedin')), organizationCandidate(workspace)] : [candidateOf(ownerIdentity(workspace, 'linkedin'))];
    default:
      return [candidateOf(ownerIdentity(workspace, platform))];
  }
}

export function identityOfCandidate(candidate: CandidateRecord): NetworkIdentity {
  return {
    platform: candidate.platform,
    displayName: candidate.displayName,
    handle: candidate.handle,
    avatarUrl: candidate.avatarUrl,
    platformUserId: candidate.platformUserId,
  };
}

// ---------------------------------------------------------------------------
// The decentralized network's identifiers
// ---------------------------------------------------------------------------

/** What an app-password identifier names: a handle, an email address or a DID. */
export type BlueskyIdentifier = { kind: 'handle'; handle: string } | { kind: 'email'; email: string } | { kind: 'did'; did: string };

const HANDLE_PATTERN = /^(?=.{3,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/;
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DID_PATTERN = /^did:(plc|web):[a-zA-Z0-9._:%-]+$/;

/** Reads an identifier, or undefined when it is none of the three forms. */
export function parseBlueskyIdentifier(raw: string): BlueskyIdentifier | undefined {
  const value = raw.trim();
  if (DID_PATTERN.test(value)) return { kind: 'did', did: value };
  if (EMAIL_PATTERN.test(value)) return { kind: 'email', email: value.toLowerCase() };
  const handle = value.replace(/^@/, '').toLowerCase();
  return HANDLE_PATTERN.test(handle) ? { kind: 'handle', handle } : undefined;
}

/** Whether the identifier names this account (an email cannot be checked: the network keeps it private). */
export function identifierNames(identifier: BlueskyIdentifier, account: { handle: string; platformUserId: string }): boolean {
  if (identifier.kind === 'handle') return identifier.handle === account.handle.toLowerCase();
  if (identifier.kind === 'did') return identifier.did === account.platformUserId;
  return true;
}

/** The handle an identifier leads to without asking the network (an email's local part becomes a handle). */
export function handleOfIdentifier(identifier: BlueskyIdentifier): string | undefined {
  if (identifier.kind === 'handle') return identifier.handle;
  if (identifier.kind === 'email') return networkHandle('bluesky', identifier.email.split('@')[0] ?? 'user');
  return undefined;
}

/** The account behind an identifier, as the network reports it once the app password is accepted. */
export function blueskyIdentity(workspace: Workspace, identifier: BlueskyIdentifier): NetworkIdentity {
  const known = handleOfIdentifier(identifier);
  const handle = known ?? networkHandle('bluesky', workspace.faker.person.fullName());
  const firstLabel = handle.split('.')[0] ?? handle;
  const displayName = firstLabel
    .split(/[-_]+/)
    .filter((word) => word !== '')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(' ');
  return {
    platform: 'bluesky',
    displayName: displayName === '' ? handle : displayName,
    handle,
    avatarUrl: avatarUrl(workspace, 'bluesky'),
    platformUserId: identifier.kind === 'did' ? identifier.did : networkUserId(workspace, 'bluesky'),
  };
}
