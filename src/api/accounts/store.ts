import { defineStore } from '../../store/define-store.js';

/** A connected social account (a "connection" in the reference's list shape). */
export interface AccountRecord {
  id: string;
  /** Lowercase platform id; stored data may hold ids this build does not know. */
  platform: string;
  displayName: string;
  /** Handle without a leading @; the professional network has none, so its name is here. */
  handle: string;
  avatarUrl: string | null;
  /** `active`, `expired`, `revoked`, `error`, or a value added later. */
  status: string;
  authHealth: 'healthy' | 'action_required';
  canAutoRenew: boolean;
  tokenExpiresAt: string | null;
  /** The profile the account is filed under, by id; null when in none. */
  profileId: string | null;
  /** What the integrator sent with the connect; {} when nothing. */
  metadata: Record<string, unknown>;
  /** Only the microblogging network: sets its post length limit; null when not reported. */
  microblogSubscriptionType?: string | null;
  /** The account's own id on the network. */
  platformUserId: string;
  /** Decentralized network settings (`defaultLangs`). */
  defaultLangs?: string[] | null;
  createdAt: string;
  updatedAt: string;
}

/** Connected accounts of one workspace, by id. Disconnected accounts are removed. */
export const accountsStore = defineStore('accounts', () => ({
  accounts: {} as Record<string, AccountRecord>,
}));

/** A page or account the owner may connect after signing in (a "connect candidate"). */
export interface CandidateRecord {
  /** As listed: the page id, the photo-sharing account id, or the account's own network id. */
  id: string;
  platform: string;
  /** The account's display name once connected (a page's or organization's name). */
  displayName: string;
  /** The account's handle once connected; the professional network's is its name. */
  handle: string;
  /** The username the candidate list shows; null where the network has none. */
  username: string | null;
  avatarUrl: string | null;
  /** Page category; null for people and networks without categories. */
  category: string | null;
  /** The page behind a page-linked photo-sharing account, or the page itself. */
  pageId: string | null;
  pageName: string | null;
  /** The network's id of the account that gets connected. */
  platformUserId: string;
  /** The account it became once connected; null while it is only offered. */
  accountId: string | null;
}

/**
 * One OAuth sign-in, from the connect (or reconnect) that returned its URL to the
 * owner's decision on the mock's sign-in page. Its id is the `session` of the URL
 * and the `connectSession` the redirect URL receives.
 */
export interface ConnectSessionRecord {
  /** `os_<workspace id>_<hex>`: the sign-in page finds the workspace from the id alone (the browser sends no key). */
  id: string;
  platform: string;
  mode: 'connect' | 'reconnect';
  /** The account a reconnect re-authorizes; null for a connect. */
  accountId: string | null;
  redirectUrl: string;
  /** Profile to file a new account under (created then if missing); null for the default profile. */
  profileName: string | null;
  metadata: Record<string, unknown>;
  /** Headless: nothing is connected at sign-in; the integrator picks among the candidates. */
  headless: boolean;
  /** Photo-sharing network only; `facebook_login` ends with a tempToken. */
  loginMethod: 'instagram_login' | 'facebook_login' | null;
  /** pending until the owner decides; failed when approving could not connect (wallet, outage, account gone). */
  state: 'pending' | 'approved' | 'denied' | 'expired' | 'failed';
  createdAt: string;
  /** A sign-in finished after this (virtual time) returns with error=SESSION_EXPIRED. */
  expiresAt: string;
  finishedAt: string | null;
  /** Handed to the redirect URL after a `facebook_login` sign-in. */
  tempToken: string | null;
  /**
   * Random; the sign-in page's form sends it back with the decision. Only a page the
   * server rendered knows it, so a page of another site cannot post one (decision 0025).
   * Sessions saved before it existed get one when their page is next shown.
   */
  formToken?: string;
  /** What the owner may connect, offered at sign-in. */
  candidates: CandidateRecord[];
}

/** OAuth sessions of one workspace, by id, and the tempTokens that name them. */
export const connectSessionsStore = defineStore('connect-sessions', () => ({
  sessions: {} as Record<string, ConnectSessionRecord>,
  /** tempToken → session id. */
  tempTokens: {} as Record<string, string>,
}));

/**
 * The pay-as-you-go wallet: each new connected account costs `pricePerAccountCents`
 * (reconnects are free). Amounts are integer cents, so no rounding creeps in.
 * Free workspaces do not use it (they have account slots instead).
 */
export const walletStore = defineStore('wallet', () => ({
  balanceCents: 5000,
  pricePerAccountCents: 500,
  /** New accounts billed so far. */
  accountsBilled: 0,
}));
