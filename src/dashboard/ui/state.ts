/*
 * The State view's pure logic: the accounts and posts of a workspace snapshot (`GET
 * /__control/state`, the accounts and posts stores of src/api/accounts and src/api/posts) as the
 * view's rows, the status changes an account offers (`POST /__control/accounts/{id}/status`), and
 * the bodies the inbound composers send (`POST /__control/inbound/*`). No DOM here, so a unit test
 * loads it as it is.
 */
import type { ControlOperationId } from '../../client/control-types.js';
import type { WorkspaceSnapshot } from './webhooks.js';

/*
 * The stores' records as the snapshot carries them, the fields the view reads. Declared here
 * rather than imported from the stores: those modules have runtime code, which tsc would emit
 * into the dashboard's build with what it imports.
 */

/** One connected account as the accounts store keeps it (the fields the view reads). */
export interface AccountRecord {
  id: string;
  platform: string;
  displayName: string;
  handle: string;
  status: string;
  authHealth: string;
  tokenExpiresAt: string | null;
  createdAt: string;
}

/** One destination of a post as the posts store keeps it (the fields the view reads). */
export interface DestinationRecord {
  id: string;
  connectionId: string;
  platform: string;
  status: string;
  errorCode: string | null;
  publishedAt: string | null;
}

/** One post as the posts store keeps it (the fields the view reads). */
export interface PostRecord {
  id: string;
  text: string;
  status: string;
  scheduledFor: string | null;
  destinations: DestinationRecord[];
  createdAt: string;
}

/** How many posts the view lists at most: a large world stays usable, the filter reaches the rest. */
export const POSTS_SHOWN = 50;

/** The accounts of a snapshot, oldest first (as the API lists them). */
export function accountsOf(snapshot: WorkspaceSnapshot): AccountRecord[] {
  const store = snapshot.workspace.stores['accounts'] as { accounts: Record<string, AccountRecord> } | undefined;
  return Object.values(store?.accounts ?? {}).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

/** The posts of a snapshot, newest first. */
export function postsOf(snapshot: WorkspaceSnapshot): PostRecord[] {
  const store = snapshot.workspace.stores['posts'] as { posts: Record<string, PostRecord> } | undefined;
  return Object.values(store?.posts ?? {}).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}

/** Whether a row's words (ids, statuses, text) contain the filter, case aside; an empty filter keeps every row. */
export function matchesFilter(words: ReadonlyArray<string | null>, filter: string): boolean {
  const needle = filter.trim().toLowerCase();
  return needle === '' || words.some((word) => word !== null && word.toLowerCase().includes(needle));
}

export function accountWords(account: AccountRecord): string[] {
  return [account.id, account.platform, account.displayName, account.handle, account.status];
}

export function postWords(post: PostRecord): string[] {
  return [post.id, post.text, post.status, ...post.destinations.flatMap((destination) => [destination.id, destination.platform, destination.status])];
}

/** At most `limit` rows, and how many matched: the view says "showing 50 of 812". */
export function capped<T>(rows: T[], limit: number): { shown: T[]; total: number } {
  return { shown: rows.slice(0, limit), total: rows.length };
}

/** The status changes the view offers, each a `setAccountStatus` body, in the order of the buttons. */
export const ACCOUNT_ACTIONS = ['Expire', 'Revoke', 'Reconnect'] as const;
export type AccountAction = (typeof ACCOUNT_ACTIONS)[number];

const ACTION_STATUS: Record<AccountAction, 'expired' | 'revoked' | 'active'> = { Expire: 'expired', Revoke: 'revoked', Reconnect: 'active' };

/** The body of `POST /__control/accounts/{id}/status` for an action. */
export function statusChange(action: AccountAction): { status: 'expired' | 'revoked' | 'active' } {
  return { status: ACTION_STATUS[action] };
}

/** Whether an action changes anything: an account is not expired twice, nor reconnected while active. */
export function actionApplies(action: AccountAction, status: string): boolean {
  return ACTION_STATUS[action] !== status;
}

/** The inbound events the composers send, each to its `POST /__control/inbound/<path>`. */
export const INBOUND_KINDS = ['comment', 'message', 'review'] as const;
export type InboundKind = (typeof INBOUND_KINDS)[number];

export const INBOUND_OPERATIONS = { comment: 'receiveInboundComment', message: 'receiveInboundMessage', review: 'receiveInboundReview' } as const satisfies Record<InboundKind, ControlOperationId>;

export interface ComposerFields {
  /** An account id, or '' for the server's choice (its newest post, its oldest inbox, its oldest page). */
  accountId: string;
  text: string;
  /** A review's recommendation; unused for a comment or a message. */
  recommendation: 'positive' | 'negative';
}

/** The body a composer sends: empty fields are left out, so the server picks as control.yaml says. */
export function inboundBody(kind: InboundKind, fields: ComposerFields): Record<string, string> {
  const body: Record<string, string> = {};
  if (fields.accountId !== '') body['accountId'] = fields.accountId;
  const text = fields.text.trim();
  if (text !== '') body['text'] = text;
  if (kind === 'review') body['recommendation'] = fields.recommendation;
  return body;
}

/** The networks with an inbox (control.yaml, receiveInboundMessage) and with pages reviewed (receiveInboundReview). */
const INBOX_PLATFORMS = ['bluesky', 'instagram', 'facebook'];
const REVIEW_PLATFORMS = ['facebook'];

/** Which accounts a composer offers: a message goes to an account with an inbox, a review to a facebook page. */
export function composerAccounts(kind: InboundKind, accounts: AccountRecord[]): AccountRecord[] {
  if (kind === 'comment') return accounts;
  const platforms = kind === 'message' ? INBOX_PLATFORMS : REVIEW_PLATFORMS;
  return accounts.filter((account) => platforms.includes(account.platform));
}
