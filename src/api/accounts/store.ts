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
